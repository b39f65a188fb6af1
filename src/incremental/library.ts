/**
 * The user's library as an incremental pass keeps it between passes, compact enough to hold at
 * 200 000 assets and 48 500 stacks in about 11 MB: per asset its id, `updatedAt`, what the
 * searches find it as, and the hashes of its grouping buckets, in typed arrays, but no name;
 * stacks and groups as row numbers in pools (src/incremental/ids.ts keeps the ids). No I/O,
 * clock or logger: `src/reading/` reads the server, `src/state/cache*.ts` the disk.
 *
 * An incremental pass changes this library with what changed on the server, then finds the part
 * of the library that can plan differently than last time (the dirty region): the assets that
 * changed or share a grouping bucket with one, and every group and stack connected to them
 * through a shared asset. Only that part is read in full, regrouped and planned; the rest of the
 * plan is the last plan's (docs/incremental.md says why this equals a full pass's plan).
 *
 * This module holds the library and its rows; its tables (`stack_table.ts`, `group_pool.ts`,
 * `other_table.ts`), the changes merged into it (`changes.ts`), the dirty region (`region.ts`),
 * the last pass's writes (`cache_writes.ts`) and digests (`digest.ts`) have their own, and are
 * exported from here too.
 *
 * @module
 */
import type { Asset, SkipReason, Stack } from "../model.ts";
import { compare } from "../grouping/compare.ts";
import type { BucketHashes } from "../grouping/group.ts";
import { Groups } from "./group_pool.ts";
import { grown, IdList } from "./ids.ts";
import { OtherTable } from "./other_table.ts";
import { StackTable } from "./stack_table.ts";
import { type Digest, DigestBuilder } from "./digest.ts";

export { applyWrites, type CacheWrite } from "./cache_writes.ts";
export {
  type AssetChange,
  type DatedBack,
  datedBack,
  mergeChanges,
  type MergedChanges,
} from "./changes.ts";
export { type Digest, DigestBuilder } from "./digest.ts";
export { Groups } from "./group_pool.ts";
export { OtherTable } from "./other_table.ts";
export { type Region, regionOf, rowsInBuckets } from "./region.ts";
export { StackTable } from "./stack_table.ts";

/** A stack member: a row of the library, or the id of an asset no search of the pass finds. */
export type Ref = number | string;

/** A stack as `GET /stacks` lists it, its members as rows where the library has them. */
export interface CompactStack {
  readonly id: string;
  readonly primary: Ref;
  /** The members `GET /stacks` lists (the primary among them unless it is hidden or trashed). */
  readonly members: readonly Ref[];
  /** The listed members that are archived. */
  readonly archived: readonly Ref[];
}

/** Another user's asset the searches find (a partner's): counted by the server's statistics. */
export interface OtherAsset {
  readonly updatedAt: number;
  readonly scopes: number;
}

/** Flag bits of a row; the search scopes are the bits above {@linkcode SCOPE_SHIFT}. */
export const TRASHED = 1;
export const ARCHIVED = 2;
export const INVALID = 4;
const SCOPE_SHIFT = 3;
/** The most searches a pass may make and still keep a cache (scope bits fit in 31 bits). */
export const MAX_SCOPES = 28;
/** The flags of a row whose asset left the searches. */
export const REMOVED = -1;

/**
 * The cached library of one user. Rows are the user's assets the searches find, in the order
 * the cache has them; a row whose asset left keeps its number with {@linkcode REMOVED} flags.
 * The rows' columns are typed arrays with room to grow ({@linkcode addRow}); only their first
 * {@linkcode Library.rows} entries count. At 200 000 assets they take about 7 MB where arrays of
 * numbers and id strings took 18. Functions of this module change it in place.
 */
export interface Library {
  /** How many rows there are. */
  rows: number;
  /** Each row's asset id ({@linkcode idOf}). */
  readonly ids: IdList;
  /** ms since the epoch; -1 when unknown (the pass changed it and no answer said when). */
  updatedAt: Float64Array;
  /** `scopes << 3 | INVALID | ARCHIVED | TRASHED`, or {@linkcode REMOVED}. */
  flags: Int32Array;
  /**
   * The hash of each row's grouping bucket (`bucketHash` of src/grouping/group.ts), or
   * {@linkcode NO_BUCKET}, or {@linkcode MANY_BUCKETS} for a row in several (OR criteria).
   */
  buckets: Int32Array;
  /** The hashes of the rows in several buckets. */
  readonly manyBuckets: Map<number, readonly number[]>;
  /** Why grouping left a row out, for the rows it did. */
  readonly skips: Map<number, SkipReason>;
  /** Stacks by id. */
  readonly stacks: StackTable;
  /** Each group's rows, parent first, by its place in the cache. */
  readonly groups: Groups;
  /** Other users' assets by id. */
  readonly others: OtherTable;
  /**
   * The user's assets no search finds that were seen changing recently (trashed, hidden,
   * videos without INCLUDE_VIDEOS…), by id with their `updatedAt`: the next search for
   * changes finds them again and must know them.
   */
  readonly seen: Map<string, number>;
}

/** A row's bucket when it has none. */
const NO_BUCKET = -1;
/** A row's bucket when it has several, kept in {@linkcode Library.manyBuckets}. */
const MANY_BUCKETS = -2;

/** One row in full: what an incremental pass reads only for the assets it regroups or plans. */
export interface RowData {
  readonly id: string;
  /** The asset as the pass reads it; absent when the server sent it invalid. */
  readonly asset?: Asset;
  readonly invalid?: { readonly field: string; readonly message: string };
  readonly updatedAt: number;
  readonly flags: number;
  readonly buckets: readonly number[];
  readonly skip?: SkipReason;
}

/**
 * An empty library.
 *
 * @param sizes Room for this many rows, stacks, groups and other users' assets to start with;
 *   more grow it.
 * @returns A library without rows, stacks or groups.
 */
export function emptyLibrary(sizes: {
  readonly rows: number;
  readonly stacks: number;
  readonly groups: number;
  readonly others: number;
} = { rows: 0, stacks: 0, groups: 0, others: 0 }): Library {
  return {
    rows: 0,
    ids: new IdList(sizes.rows),
    updatedAt: new Float64Array(sizes.rows),
    flags: new Int32Array(sizes.rows),
    buckets: new Int32Array(sizes.rows),
    manyBuckets: new Map(),
    skips: new Map(),
    stacks: new StackTable(sizes.stacks),
    groups: new Groups(sizes.groups),
    others: new OtherTable(sizes.others),
    seen: new Map(),
  };
}

/**
 * Adds a row at the end, in no bucket, the columns grown by half when they are full.
 *
 * @param library The library.
 * @param id The asset id; "" for a row whose asset left before the cache was written.
 * @param updatedAt ms since the epoch.
 * @param flags The row's flags.
 * @returns The new row.
 */
export function addRow(library: Library, id: string, updatedAt: number, flags: number): number {
  library.ids.add(id);
  return appendRow(library, updatedAt, flags);
}

/**
 * {@linkcode addRow} with the id's text in a cache body, made a string only when it is no
 * UUID.
 *
 * @param library The library.
 * @param bytes UTF-8 bytes holding the id at `[from, to)`.
 * @param from Where the id starts.
 * @param to Where it ends.
 * @param updatedAt ms since the epoch.
 * @param flags The row's flags.
 * @returns The new row.
 */
export function addRowFromBytes(
  library: Library,
  bytes: Uint8Array,
  from: number,
  to: number,
  updatedAt: number,
  flags: number,
): number {
  library.ids.addFromBytes(bytes, from, to);
  return appendRow(library, updatedAt, flags);
}

/** A new last row, in no bucket, for the id just added. */
function appendRow(library: Library, updatedAt: number, flags: number): number {
  const row = library.rows;
  if (row === library.flags.length) {
    library.updatedAt = grown(library.updatedAt, row + 1);
    library.flags = grown(library.flags, row + 1);
    library.buckets = grown(library.buckets, row + 1);
  }
  library.rows++;
  library.updatedAt[row] = updatedAt;
  library.flags[row] = flags;
  library.buckets[row] = NO_BUCKET;
  return row;
}

/**
 * A row's asset id.
 *
 * @param library The library.
 * @param row The row.
 * @returns The id, as the server wrote it.
 */
export function idOf(library: Library, row: number): string {
  return library.ids.id(row);
}

/**
 * A row's bucket hashes.
 *
 * @param library The library.
 * @param row The row.
 * @returns The hashes, none for a row in no bucket.
 */
export function bucketsOf(library: Library, row: number): readonly number[] {
  const bucket = library.buckets[row];
  return bucket >= 0 ? [bucket] : bucket === MANY_BUCKETS ? library.manyBuckets.get(row)! : [];
}

/**
 * Sets a row's bucket hashes.
 *
 * @param library The library.
 * @param row The row.
 * @param hashes Its hashes, as grouping gives them.
 */
export function setBuckets(library: Library, row: number, hashes: BucketHashes): void {
  if (library.manyBuckets.size > 0) library.manyBuckets.delete(row);
  if (typeof hashes === "number" || hashes.length === 1) {
    library.buckets[row] = typeof hashes === "number" ? hashes : hashes[0];
  } else if (hashes.length === 0) library.buckets[row] = NO_BUCKET;
  else {
    library.buckets[row] = MANY_BUCKETS;
    library.manyBuckets.set(row, hashes);
  }
}

/** The search scopes of a row's flags. */
export function scopesOf(flags: number): number {
  return flags === REMOVED ? 0 : flags >>> SCOPE_SHIFT;
}

/**
 * A row's flags.
 *
 * @param scopes The searches that find it, one bit each.
 * @param state Whether it is in the trash, archived, invalid.
 * @returns The flags.
 */
export function flagsOf(
  scopes: number,
  state: { readonly trashed?: boolean; readonly archived?: boolean; readonly invalid?: boolean },
): number {
  return (scopes << SCOPE_SHIFT) | (state.invalid ? INVALID : 0) |
    (state.archived ? ARCHIVED : 0) | (state.trashed ? TRASHED : 0);
}

/**
 * How many assets each search finds according to the library: the user's and others'.
 *
 * @param library The library.
 * @param scopes The number of searches.
 * @returns One count per search.
 */
export function scopeCounts(library: Library, scopes: number): number[] {
  const counts = new Array<number>(scopes).fill(0);
  const add = (bits: number) => {
    for (let i = 0; i < scopes; i++) if (bits & 1 << i) counts[i]++;
  };
  for (let row = 0; row < library.rows; row++) add(scopesOf(library.flags[row]));
  for (const other of library.others.values()) add(other.scopes);
  return counts;
}

/**
 * How many rows have an asset the searches find.
 *
 * @param library The library.
 * @returns The rows not {@linkcode REMOVED}.
 */
export function liveRows(library: Library): number {
  let count = 0;
  for (let row = 0; row < library.rows; row++) if (library.flags[row] !== REMOVED) count++;
  return count;
}

/**
 * The rows of the given asset ids: one scan of the ids, no index of the whole library.
 *
 * @param library The library.
 * @param ids Asset ids.
 * @param options `removed`: rows whose asset left the searches count too (those of this pass
 *   still know their id).
 * @returns Row by id, for the ids the library has.
 */
export function findRows(
  library: Library,
  ids: ReadonlySet<string>,
  options: { readonly removed?: boolean } = {},
): Map<string, number> {
  const rows = new Map<string, number>();
  matchRows(library, ids, options, (id, row) => rows.set(id, row));
  return rows;
}

/**
 * {@linkcode findRows}, calling `found` for each row in order, several rows of one id too.
 *
 * @param library The library.
 * @param ids Asset ids.
 * @param options `removed`: rows whose asset left the searches count too.
 * @param found Called with each id found and its row.
 */
export function matchRows(
  library: Library,
  ids: ReadonlySet<string>,
  options: { readonly removed?: boolean },
  found: (id: string, row: number) => void,
): void {
  library.ids.match(ids, (id, row) => {
    if (options.removed || library.flags[row] !== REMOVED) found(id, row);
  });
}

/**
 * A stack in the library's form.
 *
 * @param stack The stack as the client read it.
 * @param ref The row of an asset id, or the id when the library has no row for it.
 * @returns The compact stack.
 */
export function compactStack(stack: Stack, ref: (id: string) => Ref): CompactStack {
  return {
    id: stack.id,
    primary: ref(stack.primaryAssetId),
    members: stack.assetIds.map(ref),
    archived: (stack.archivedAssetIds ?? []).map(ref),
  };
}

/**
 * A stack in the planner's form.
 *
 * @param library The library, for the ids of rows.
 * @param stack The compact stack.
 * @returns The stack.
 */
export function expandStack(library: Library, stack: CompactStack): Stack {
  const id = (member: Ref) => typeof member === "number" ? idOf(library, member) : member;
  return {
    id: stack.id,
    primaryAssetId: id(stack.primary),
    assetIds: stack.members.map(id),
    ...(stack.archived.length > 0 ? { archivedAssetIds: stack.archived.map(id) } : {}),
  };
}

/**
 * Why grouping left assets out, and how many were invalid, in the order a full pass counts
 * them: invalid data, then the reasons as met by asset id.
 *
 * @param library The library.
 * @returns Count by reason.
 */
export function skippedCounts(library: Library): Record<string, number> {
  let invalid = 0;
  for (let row = 0; row < library.rows; row++) {
    const flags = library.flags[row];
    if (flags !== REMOVED && flags & INVALID) invalid++;
  }
  const skipped = [...library.skips].map(([row, reason]) => ({ id: idOf(library, row), reason }))
    .sort((a, b) => compare(a.id, b.id));
  const counts: Record<string, number> = invalid > 0 ? { "invalid-data": invalid } : {};
  for (const { reason } of skipped) counts[reason] = (counts[reason] ?? 0) + 1;
  return counts;
}

/**
 * The (id, `updatedAt`) pairs a search for changes at or after `since` finds again when
 * nothing changed: every known asset (the user's, others', those seen out of the searches)
 * changed at or after it.
 *
 * @param library The library.
 * @param since ms since the epoch.
 * @param searches The number of searches of the pass, to count the pairs each finds.
 * @returns Their digest.
 */
export function recentDigest(library: Library, since: number, searches?: number): Digest {
  const digest = new DigestBuilder(searches);
  for (let row = 0; row < library.rows; row++) {
    const updatedAt = library.updatedAt[row];
    if (library.flags[row] !== REMOVED && updatedAt >= since) {
      digest.add(idOf(library, row), updatedAt, scopesOf(library.flags[row]));
    }
  }
  for (const [id, other] of library.others) {
    if (other.updatedAt >= since) digest.add(id, other.updatedAt, other.scopes);
  }
  for (const [id, updatedAt] of library.seen) if (updatedAt >= since) digest.add(id, updatedAt);
  return digest.build();
}
