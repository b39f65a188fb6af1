/**
 * The user's library as an incremental pass keeps it between passes, compact enough to hold at
 * 200 000 assets in a few tens of megabytes: per asset its id, `updatedAt`, what the searches
 * find it as, and the hashes of its grouping buckets, but no name; stacks and groups as row
 * numbers. No I/O, clock or logger: `src/library.ts` reads the server, `src/state/cache.ts` the
 * disk.
 *
 * An incremental pass changes this library with what changed on the server, then finds the part
 * of the library that can plan differently than last time (the dirty region): the assets that
 * changed or share a grouping bucket with one, and every group and stack connected to them
 * through a shared asset. Only that part is read in full, regrouped and planned; the rest of the
 * plan is the last plan's (docs/incremental.md says why this equals a full pass's plan).
 *
 * @module
 */
import type { Asset, SkipReason, Stack } from "../model.ts";
import { type BucketHashes, compare } from "../grouping/group.ts";
import { membersOf } from "../reconcile/plan.ts";

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
 * Functions of this module change it in place.
 */
export interface Library {
  readonly ids: string[];
  /** ms since the epoch; -1 when unknown (the pass changed it and no answer said when). */
  readonly updatedAt: number[];
  /** `scopes << 3 | INVALID | ARCHIVED | TRASHED`, or {@linkcode REMOVED}. */
  readonly flags: number[];
  /** The hashes of each row's grouping buckets (`bucketHash` of src/grouping/group.ts). */
  readonly buckets: BucketHashes[];
  /** Why grouping left a row out, for the rows it did. */
  readonly skips: Map<number, SkipReason>;
  /** Stacks by id. */
  readonly stacks: Map<string, CompactStack>;
  /** Each group's rows, parent first, by its place in the cache; undefined once it is gone. */
  readonly groups: (readonly number[] | undefined)[];
  /** Other users' assets by id. */
  readonly others: Map<string, OtherAsset>;
  /**
   * The user's assets no search finds that were seen changing recently (trashed, hidden,
   * videos without INCLUDE_VIDEOS…), by id with their `updatedAt`: the next search for
   * changes finds them again and must know them.
   */
  readonly seen: Map<string, number>;
}

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
 * @returns A library without rows, stacks or groups.
 */
export function emptyLibrary(): Library {
  return {
    ids: [],
    updatedAt: [],
    flags: [],
    buckets: [],
    skips: new Map(),
    stacks: new Map(),
    groups: [],
    others: new Map(),
    seen: new Map(),
  };
}

/** The search scopes of a row's flags. */
function scopesOf(flags: number): number {
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

/** A row's bucket hashes as a list. */
export function bucketList(buckets: BucketHashes): readonly number[] {
  return typeof buckets === "number" ? [buckets] : buckets;
}

/** The compact form of a list of bucket hashes: one number when there is one. */
export function compactBuckets(hashes: readonly number[]): BucketHashes {
  return hashes.length === 1 ? hashes[0] : hashes;
}

/** An order-independent summary of a set of (asset id, `updatedAt`) pairs. */
export interface Digest {
  readonly count: number;
  /** Two sums of 32-bit hashes, in hex. */
  readonly digest: string;
}

/** Adds (asset id, `updatedAt`) pairs into a {@linkcode Digest}. */
export class DigestBuilder {
  #count = 0;
  #low = 0;
  #high = 0;

  /** Adds one pair. */
  add(id: string, updatedAt: number): void {
    const text = `${id}:${updatedAt}`;
    let a = 0x811c9dc5;
    let b = 0x9e3779b9;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x85ebca6b) ^ (b >>> 13);
    }
    this.#count++;
    this.#low = (this.#low + (a >>> 0)) >>> 0;
    this.#high = (this.#high + (b >>> 0)) >>> 0;
  }

  /** The digest of every pair added. */
  build(): Digest {
    const hex = (n: number) => n.toString(16).padStart(8, "0");
    return { count: this.#count, digest: hex(this.#high) + hex(this.#low) };
  }
}

/**
 * The (id, `updatedAt`) pairs a search for changes at or after `since` finds again when
 * nothing changed: every known asset (the user's, others', those seen out of the searches)
 * changed at or after it.
 *
 * @param library The library.
 * @param since ms since the epoch.
 * @returns Their digest.
 */
export function recentDigest(library: Library, since: number): Digest {
  const digest = new DigestBuilder();
  for (let row = 0; row < library.ids.length; row++) {
    const updatedAt = library.updatedAt[row];
    if (library.flags[row] !== REMOVED && updatedAt >= since) {
      digest.add(library.ids[row], updatedAt);
    }
  }
  for (const [id, other] of library.others) {
    if (other.updatedAt >= since) digest.add(id, other.updatedAt);
  }
  for (const [id, updatedAt] of library.seen) if (updatedAt >= since) digest.add(id, updatedAt);
  return digest.build();
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
  for (const flags of library.flags) add(scopesOf(flags));
  for (const other of library.others.values()) add(other.scopes);
  return counts;
}

/**
 * The rows of the given asset ids: one scan, no index of the whole library.
 *
 * @param library The library.
 * @param ids Asset ids.
 * @returns Row by id, for the ids the library has.
 */
export function findRows(library: Library, ids: ReadonlySet<string>): Map<string, number> {
  const rows = new Map<string, number>();
  if (ids.size === 0) return rows;
  for (let row = 0; row < library.ids.length; row++) {
    if (library.flags[row] !== REMOVED && ids.has(library.ids[row])) {
      rows.set(library.ids[row], row);
    }
  }
  return rows;
}

/** An asset found changed since the last pass, as {@linkcode mergeChanges} takes it. */
export interface AssetChange {
  readonly id: string;
  readonly own: boolean;
  readonly updatedAt: number;
  readonly scopes: number;
  readonly trashed: boolean;
  readonly archived: boolean;
  readonly asset?: Asset;
  readonly invalid?: { readonly field: string; readonly message: string };
}

/** What {@linkcode mergeChanges} did. */
export interface MergedChanges {
  /** The user's assets that really changed (the cache did not know them so), in the order given. */
  readonly changed: readonly AssetChange[];
  /** Their rows now, new rows included: their contents are known from the changes. */
  readonly rows: ReadonlyMap<number, RowData>;
  /** Rows whose asset left the searches. */
  readonly removed: ReadonlySet<number>;
  /** The bucket hashes the changed rows had before. */
  readonly previousBuckets: ReadonlySet<number>;
}

/**
 * Tells which changes the cache does not know yet, without changing anything.
 *
 * An asset no search of the pass finds, unknown to the cache, changed before the last pass
 * started and in no cached stack is not a change: the last pass read the library after it, and
 * found it in none of its searches. The overlap of the search for changes finds such assets again
 * (the trash, hidden assets, videos), and reading their stacks would cost a request each.
 *
 * @param library The library.
 * @param changes The assets the search for changes found.
 * @param rows Row by asset id (from {@linkcode findRows}).
 * @param before When the last pass started, ms since the epoch.
 * @returns The user's assets among them that really changed.
 */
function newChanges(
  library: Library,
  changes: readonly AssetChange[],
  rows: ReadonlyMap<string, number>,
  before: number,
): AssetChange[] {
  let stacked: Set<string> | undefined;
  const inStack = (id: string) => {
    stacked ??= new Set(
      [...library.stacks.values()].flatMap((stack) =>
        [stack.primary, ...stack.members].filter((ref) => typeof ref === "string")
      ),
    );
    return stacked.has(id);
  };
  return changes.filter((change) => {
    if (!change.own) return false;
    const row = rows.get(change.id);
    if (row !== undefined) {
      return library.updatedAt[row] !== change.updatedAt ||
        library.flags[row] !== flagsOf(change.scopes, { ...change, invalid: !change.asset });
    }
    if (change.scopes !== 0) return true;
    const seen = library.seen.get(change.id);
    if (seen !== undefined) return seen !== change.updatedAt;
    return change.updatedAt >= before || inStack(change.id);
  });
}

/**
 * Merges the assets found changed into the library: the user's assets the searches find get
 * their row (a new one at the end), those they no longer find lose it and are remembered as
 * seen, others' assets are counted or forgotten. The changed rows' buckets are set by the
 * caller, once computed.
 *
 * @param library The library, changed in place.
 * @param changes The assets the search for changes found, each once.
 * @param before When the last pass started, ms since the epoch (see {@linkcode newChanges}).
 * @returns What changed.
 */
export function mergeChanges(
  library: Library,
  changes: readonly AssetChange[],
  before: number,
): MergedChanges {
  const found = findRows(library, new Set(changes.filter((c) => c.own).map((c) => c.id)));
  const changed = newChanges(library, changes, found, before);
  for (const change of changes) {
    if (change.own) {
      // Known from now on, so that the next search for changes finds what it expects.
      if (change.scopes === 0 && !found.has(change.id)) {
        library.seen.set(change.id, change.updatedAt);
      }
      continue;
    }
    if (change.scopes === 0) library.others.delete(change.id);
    else library.others.set(change.id, { updatedAt: change.updatedAt, scopes: change.scopes });
  }
  const rows = new Map<number, RowData>();
  const removed = new Set<number>();
  const previousBuckets = new Set<number>();
  for (const change of changed) {
    let row = found.get(change.id);
    if (row !== undefined) {
      for (const hash of bucketList(library.buckets[row])) previousBuckets.add(hash);
      library.skips.delete(row);
    }
    if (change.scopes === 0) {
      library.seen.set(change.id, change.updatedAt);
      if (row === undefined) continue;
      library.flags[row] = REMOVED;
      library.buckets[row] = [];
      removed.add(row);
      continue;
    }
    library.seen.delete(change.id);
    if (row === undefined) {
      row = library.ids.length;
      library.ids.push(change.id);
      library.updatedAt.push(change.updatedAt);
      library.flags.push(0);
      library.buckets.push([]);
    }
    const flags = flagsOf(change.scopes, { ...change, invalid: change.asset === undefined });
    library.updatedAt[row] = change.updatedAt;
    library.flags[row] = flags;
    library.buckets[row] = [];
    rows.set(row, {
      id: change.id,
      ...(change.asset === undefined ? {} : { asset: change.asset }),
      ...(change.invalid === undefined ? {} : { invalid: change.invalid }),
      updatedAt: change.updatedAt,
      flags,
      buckets: [],
    });
  }
  return { changed, rows, removed, previousBuckets };
}

/**
 * The rows whose buckets are among `wanted`, closed under shared buckets (OR criteria give an
 * asset several): exactly the assets a regroup of those buckets must take in.
 *
 * @param library The library.
 * @param wanted Bucket hashes.
 * @returns The rows.
 */
export function rowsInBuckets(library: Library, wanted: ReadonlySet<number>): Set<number> {
  const hashes = new Set(wanted);
  const rows = new Set<number>();
  for (let grew = true; grew;) {
    grew = false;
    for (let row = 0; row < library.ids.length; row++) {
      if (rows.has(row) || library.flags[row] === REMOVED) continue;
      const buckets = bucketList(library.buckets[row]);
      if (!buckets.some((hash) => hashes.has(hash))) continue;
      rows.add(row);
      for (const hash of buckets) {
        if (!hashes.has(hash)) hashes.add(hash), grew = true;
      }
    }
  }
  return rows;
}

/** The dirty region: what an incremental pass reads in full and plans. */
export interface Region {
  readonly rows: Set<number>;
  readonly stacks: Set<string>;
  /** Indexes in {@linkcode Library.groups}. */
  readonly groups: Set<number>;
}

/**
 * The part of the library connected to the given rows and stacks through shared assets: a
 * group with an asset in the region brings its assets, a stack with an asset in the region
 * brings its members, until nothing more joins. Planning is local to such a part: a group's
 * plan depends only on the stacks its assets are in and on those stacks' members.
 *
 * @param library The library.
 * @param rows Rows that changed or must be regrouped.
 * @param stacks Stacks that changed (their ids, gone ones included).
 * @returns The region.
 */
export function regionOf(
  library: Library,
  rows: Iterable<number>,
  stacks: Iterable<string>,
): Region {
  const region: Region = { rows: new Set(rows), stacks: new Set(), groups: new Set() };
  const addStack = (stack: CompactStack) => {
    region.stacks.add(stack.id);
    for (const ref of [stack.primary, ...stack.members]) {
      if (typeof ref === "number") region.rows.add(ref);
    }
  };
  for (const id of stacks) {
    region.stacks.add(id);
    const stack = library.stacks.get(id);
    if (stack !== undefined) addStack(stack);
  }
  for (let grew = true; grew;) {
    grew = false;
    for (const stack of library.stacks.values()) {
      if (region.stacks.has(stack.id)) continue;
      const refs = [stack.primary, ...stack.members];
      if (!refs.some((ref) => typeof ref === "number" && region.rows.has(ref))) continue;
      addStack(stack);
      grew = true;
    }
    for (const [index, members] of library.groups.entries()) {
      if (members === undefined || region.groups.has(index)) continue;
      if (!members.some((row) => region.rows.has(row))) continue;
      region.groups.add(index);
      for (const row of members) region.rows.add(row);
      grew = true;
    }
  }
  return region;
}

/** A write of the pass, as the cache records it from the server's answer. */
export type CacheWrite =
  | {
    readonly op: "create";
    readonly stack: Stack;
    /** Each listed member's `updatedAt` after the write, in `stack.assetIds` order. */
    readonly updatedAt: readonly number[];
  }
  | { readonly op: "update"; readonly stack: Stack }
  | { readonly op: "delete"; readonly stackId: string };

/**
 * Applies the last pass's writes the way Immich does, from the server's answers: a create makes
 * the stack it answered, deleting the stacks whose primary it lists and taking its members out
 * of the others; members it moved carry their new `updatedAt`, members of a deleted stack an
 * unknown one (Immich moved it, no answer said to what).
 *
 * @param library The library, changed in place.
 * @param writes The writes, in order.
 * @returns The stacks and rows they touched: the next plan of those differs from the last.
 */
export function applyWrites(
  library: Library,
  writes: readonly CacheWrite[],
): { readonly stacks: Set<string>; readonly rows: Set<number> } {
  const touched = { stacks: new Set<string>(), rows: new Set<number>() };
  if (writes.length === 0) return touched;
  const ids = new Set<string>();
  for (const write of writes) {
    if (write.op !== "delete") { for (const id of membersOf(write.stack)) ids.add(id); }
  }
  const rowOf = findRows(library, ids);
  const ref = (id: string): Ref => rowOf.get(id) ?? id;
  const idOf = (member: Ref) => typeof member === "number" ? library.ids[member] : member;
  const setUpdatedAt = (member: Ref, updatedAt: number) => {
    if (typeof member === "number") {
      library.updatedAt[member] = updatedAt;
      touched.rows.add(member);
    } else if (updatedAt < 0) library.seen.delete(member);
    else library.seen.set(member, updatedAt);
  };
  // The stacks holding each asset the writes name, kept up to date as they apply: one scan of
  // the stacks, however many writes.
  const holders = new Map<string, Set<string>>();
  const index = (stack: CompactStack, add: boolean) => {
    for (const member of [stack.primary, ...stack.members]) {
      const id = idOf(member);
      if (!ids.has(id)) continue;
      let set = holders.get(id);
      if (set === undefined) holders.set(id, set = new Set());
      if (add) set.add(stack.id);
      else set.delete(stack.id);
    }
  };
  for (const stack of library.stacks.values()) index(stack, true);
  const put = (stack: CompactStack) => {
    const old = library.stacks.get(stack.id);
    if (old !== undefined) index(old, false);
    library.stacks.set(stack.id, stack);
    index(stack, true);
  };
  const remove = (stack: CompactStack) => {
    index(stack, false);
    library.stacks.delete(stack.id);
  };
  for (const write of writes) {
    if (write.op === "delete") {
      const stack = library.stacks.get(write.stackId);
      touched.stacks.add(write.stackId);
      if (stack === undefined) continue;
      remove(stack);
      for (const member of [stack.primary, ...stack.members]) setUpdatedAt(member, -1);
      continue;
    }
    const compact = compactStack(write.stack, ref);
    touched.stacks.add(compact.id);
    if (write.op === "update") {
      put(compact);
      continue;
    }
    // A cover Immich does not list (hidden, in the trash) is a member all the same.
    const listed = new Set(membersOf(write.stack));
    const holding = new Set<string>();
    for (const id of listed) for (const stackId of holders.get(id) ?? []) holding.add(stackId);
    for (const holderId of holding) {
      const holder = library.stacks.get(holderId)!;
      const members = [holder.primary, ...holder.members];
      touched.stacks.add(holder.id);
      if (listed.has(idOf(holder.primary))) {
        // Merged into the new stack; members it left out (in the trash) moved too.
        remove(holder);
        for (const member of members) if (!listed.has(idOf(member))) setUpdatedAt(member, -1);
      } else {
        put({
          ...holder,
          members: holder.members.filter((member) => !listed.has(idOf(member))),
          archived: holder.archived.filter((member) => !listed.has(idOf(member))),
        });
      }
    }
    put(compact);
    for (const [i, id] of write.stack.assetIds.entries()) {
      setUpdatedAt(ref(id), write.updatedAt[i] ?? -1);
    }
  }
  return touched;
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
  const idOf = (member: Ref) => typeof member === "number" ? library.ids[member] : member;
  return {
    id: stack.id,
    primaryAssetId: idOf(stack.primary),
    assetIds: stack.members.map(idOf),
    ...(stack.archived.length > 0 ? { archivedAssetIds: stack.archived.map(idOf) } : {}),
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
  for (const flags of library.flags) if (flags !== REMOVED && flags & INVALID) invalid++;
  const skipped = [...library.skips].map(([row, reason]) => ({ id: library.ids[row], reason }))
    .sort((a, b) => compare(a.id, b.id));
  const counts: Record<string, number> = invalid > 0 ? { "invalid-data": invalid } : {};
  for (const { reason } of skipped) counts[reason] = (counts[reason] ?? 0) + 1;
  return counts;
}
