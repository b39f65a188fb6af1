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
 * @module
 */
import type { Asset, SkipReason, Stack } from "../model.ts";
import { type BucketHashes, compare } from "../grouping/group.ts";
import { grown, IdList, IdSlots } from "./ids.ts";
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

/**
 * The promoted groups' rows, parent first, by their place in the cache, in one pool of row
 * numbers: 48 000 arrays took 3.5 MB, the pool takes about 1.
 */
export class Groups {
  #pool: Int32Array;
  #used = 0;
  /** Per group: where its rows start and end in the pool; -1 and -1 once it is gone. */
  #bounds: Int32Array;
  #count = 0;
  #live = 0;

  /** @param capacity Room for this many groups to start with. */
  constructor(capacity: number) {
    this.#bounds = new Int32Array(capacity * 2);
    this.#pool = new Int32Array(capacity * 3);
  }

  /** How many groups were ever added: their places are 0 to count - 1. */
  get count(): number {
    return this.#count;
  }

  /** How many of them are not gone. */
  get live(): number {
    return this.#live;
  }

  /** Adds a group at the next place. */
  add(rows: readonly number[]): void {
    if (this.#used + rows.length > this.#pool.length) {
      this.#pool = grown(this.#pool, this.#used + rows.length);
    }
    if (this.#count * 2 + 2 > this.#bounds.length) {
      this.#bounds = grown(this.#bounds, this.#count * 2 + 2);
    }
    this.#pool.set(rows, this.#used);
    this.#bounds[this.#count * 2] = this.#used;
    this.#used += rows.length;
    this.#bounds[this.#count * 2 + 1] = this.#used;
    this.#count++;
    this.#live++;
  }

  /** A group's rows, parent first; undefined once it is gone. */
  rows(index: number): number[] | undefined {
    const start = this.#bounds[index * 2];
    if (start < 0) return undefined;
    return Array.from(this.#pool.subarray(start, this.#bounds[index * 2 + 1]));
  }

  /** Whether any row of a group that is not gone passes `test`. */
  some(index: number, test: (row: number) => boolean): boolean {
    const end = this.#bounds[index * 2 + 1];
    for (let at = this.#bounds[index * 2]; at >= 0 && at < end; at++) {
      if (test(this.#pool[at])) return true;
    }
    return false;
  }

  /** Marks a group as gone; its place stays taken. */
  drop(index: number): void {
    if (this.#bounds[index * 2] < 0) return;
    this.#bounds.fill(-1, index * 2, index * 2 + 2);
    this.#live--;
  }
}

/** The members of a stack with none. */
const NO_REFS: readonly Ref[] = Object.freeze([]);

/**
 * The library's stacks by id, kept as a map of {@linkcode CompactStack} would keep them (the
 * order added, a stack set again keeps its place), in a fraction of its memory: ids as 16 bytes,
 * the members of every stack in one pool of numbers. At 48 500 stacks, about 3 MB instead of 12.
 * A stack is an object only while a caller holds it ({@linkcode StackTable.get},
 * {@linkcode StackTable.values}); {@linkcode StackTable.each} and
 * {@linkcode StackTable.forEachRef} look at the members without making any.
 */
export class StackTable {
  readonly #slots: IdSlots;
  /** Per slot: where its stack starts in the pool. */
  #starts: Int32Array;
  /**
   * Each stack as [primary, members' count, members…, archived count, archived…], each member a
   * row, or an id as -1 - its place in `#strings`.
   */
  #pool: Int32Array;
  #used = 0;
  readonly #strings: string[] = [];

  /** @param capacity Room for this many stacks to start with. */
  constructor(capacity = 0) {
    this.#slots = new IdSlots(capacity);
    this.#starts = new Int32Array(capacity);
    this.#pool = new Int32Array(capacity * 5);
  }

  /** How many stacks there are. */
  get size(): number {
    return this.#slots.size;
  }

  /** The stack of an id, or undefined. */
  get(id: string): CompactStack | undefined {
    const slot = this.#slots.slotOf(id);
    return slot < 0 ? undefined : this.#stack(slot);
  }

  /** Sets the stack of an id: in its place when it has one, else at the end. */
  set(id: string, stack: CompactStack): this {
    const slot = this.#slots.claim(id);
    if (slot >= this.#starts.length) this.#starts = grown(this.#starts, slot + 1);
    const size = 3 + stack.members.length + stack.archived.length;
    if (this.#used + size > this.#pool.length) this.#pool = grown(this.#pool, this.#used + size);
    this.#starts[slot] = this.#used;
    const pool = this.#pool;
    pool[this.#used++] = this.#code(stack.primary);
    for (const list of [stack.members, stack.archived]) {
      pool[this.#used++] = list.length;
      for (const ref of list) pool[this.#used++] = this.#code(ref);
    }
    return this;
  }

  /** Deletes the stack of an id; whether there was one. */
  delete(id: string): boolean {
    return this.#slots.release(id) >= 0;
  }

  /** The stacks, in order. */
  *values(): Generator<CompactStack> {
    for (let slot = 0; slot < this.#slots.count; slot++) {
      if (this.#slots.inUse(slot)) yield this.#stack(slot);
    }
  }

  /**
   * Calls `visit`, in order, with each stack whose primary or a listed member passes `test`
   * (tested at that stack's turn).
   */
  each(test: (ref: Ref) => boolean, visit: (stack: CompactStack) => void): void {
    const pool = this.#pool;
    for (let slot = 0; slot < this.#slots.count; slot++) {
      if (!this.#slots.inUse(slot)) continue;
      const start = this.#starts[slot];
      let hit = test(this.#ref(pool[start]));
      const end = start + 2 + pool[start + 1];
      for (let at = start + 2; !hit && at < end; at++) hit = test(this.#ref(pool[at]));
      if (hit) visit(this.#stack(slot));
    }
  }

  /** Calls `visit` with the primary and the listed members of every stack, in order. */
  forEachRef(visit: (ref: Ref) => void): void {
    const pool = this.#pool;
    for (let slot = 0; slot < this.#slots.count; slot++) {
      if (!this.#slots.inUse(slot)) continue;
      const start = this.#starts[slot];
      const end = start + 2 + pool[start + 1];
      visit(this.#ref(pool[start]));
      for (let at = start + 2; at < end; at++) visit(this.#ref(pool[at]));
    }
  }

  #stack(slot: number): CompactStack {
    const pool = this.#pool;
    let at = this.#starts[slot];
    const primary = this.#ref(pool[at++]);
    const list = () => {
      const count = pool[at++];
      if (count === 0) return NO_REFS;
      const refs: Ref[] = [];
      for (const end = at + count; at < end; at++) refs.push(this.#ref(pool[at]));
      return refs;
    };
    const members = list();
    return { id: this.#slots.id(slot), primary, members, archived: list() };
  }

  #code(ref: Ref): number {
    if (typeof ref === "number") return ref;
    this.#strings.push(ref);
    return -this.#strings.length;
  }

  #ref(code: number): Ref {
    return code >= 0 ? code : this.#strings[-1 - code];
  }
}

/**
 * Other users' assets by id, kept as a map of {@linkcode OtherAsset} would keep them, with ids
 * as 16 bytes and their numbers in typed arrays.
 */
export class OtherTable {
  readonly #slots: IdSlots;
  #updatedAt: Float64Array;
  #scopes: Int32Array;

  /** @param capacity Room for this many assets to start with. */
  constructor(capacity = 0) {
    this.#slots = new IdSlots(capacity);
    this.#updatedAt = new Float64Array(capacity);
    this.#scopes = new Int32Array(capacity);
  }

  /** How many assets there are. */
  get size(): number {
    return this.#slots.size;
  }

  /** Sets an asset: in its place when it has one, else at the end. */
  set(id: string, other: OtherAsset): this {
    const slot = this.#slots.claim(id);
    if (slot >= this.#scopes.length) {
      this.#updatedAt = grown(this.#updatedAt, slot + 1);
      this.#scopes = grown(this.#scopes, slot + 1);
    }
    this.#updatedAt[slot] = other.updatedAt;
    this.#scopes[slot] = other.scopes;
    return this;
  }

  /** Deletes an asset; whether there was one. */
  delete(id: string): boolean {
    return this.#slots.release(id) >= 0;
  }

  /** The assets with their ids, in order. */
  *[Symbol.iterator](): Generator<[string, OtherAsset]> {
    for (const slot of this.#inUse()) yield [this.#slots.id(slot), this.#asset(slot)];
  }

  /** The assets, in order, without their ids. */
  *values(): Generator<OtherAsset> {
    for (const slot of this.#inUse()) yield this.#asset(slot);
  }

  *#inUse(): Generator<number> {
    for (let slot = 0; slot < this.#slots.count; slot++) if (this.#slots.inUse(slot)) yield slot;
  }

  #asset(slot: number): OtherAsset {
    return { updatedAt: this.#updatedAt[slot], scopes: this.#scopes[slot] };
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

/** An order-independent summary of a set of (asset id, `updatedAt`) pairs. */
export interface Digest {
  readonly count: number;
  /** Two sums of 32-bit hashes, in hex. */
  readonly digest: string;
  /** The largest `updatedAt` added (none when nothing was). */
  readonly newest?: number;
  /** Per search of the pass: how many of the pairs it finds (with a builder told the searches). */
  readonly scoped?: readonly number[];
}

/** Adds (asset id, `updatedAt`) pairs into a {@linkcode Digest}. */
export class DigestBuilder {
  #count = 0;
  #low = 0;
  #high = 0;
  #newest = -Infinity;
  readonly #scoped: number[] | undefined;

  /** @param searches The number of searches of the pass, to count the pairs each finds. */
  constructor(searches?: number) {
    if (searches !== undefined) this.#scoped = new Array<number>(searches).fill(0);
  }

  /**
   * Adds one pair.
   *
   * @param id The asset's id.
   * @param updatedAt Its `updatedAt`, ms since the epoch.
   * @param scopes The searches that find it, one bit each.
   */
  add(id: string, updatedAt: number, scopes = 0): void {
    if (updatedAt > this.#newest) this.#newest = updatedAt;
    const scoped = this.#scoped;
    if (scoped !== undefined) {
      for (let i = 0; i < scoped.length; i++) if (scopes & 1 << i) scoped[i]++;
    }
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
    const digest = {
      count: this.#count,
      digest: hex(this.#high) + hex(this.#low),
      ...(this.#scoped === undefined ? {} : { scoped: [...this.#scoped] }),
    };
    return this.#count === 0 ? digest : { ...digest, newest: this.#newest };
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

/** A recent asset the search for changes did not find again as the cache knows it. */
export interface DatedBack {
  readonly id: string;
  /** Its `updatedAt` in the cache. */
  readonly was: number;
  /** Its `updatedAt` now; undefined when the search did not find it. */
  readonly now?: number;
}

/**
 * Finds an asset that the search for changes should have found again and did not, as when the
 * server's clock went back: every asset the cache knows changed at or after `since` (the user's,
 * others', those seen outside the searches) is found again by a search from `since`, with the
 * same `updatedAt` or a later one. One found with an earlier one, or not found at all (deleted
 * for good, moved to the locked folder, or dated back before `since`), means the search may
 * have missed changes dated back with it.
 *
 * @param library The library as the last pass left it (its writes applied).
 * @param changes The assets the search for changes found.
 * @param since Where that search started.
 * @returns The first such asset, or undefined when every one was found again.
 */
export function datedBack(
  library: Library,
  changes: readonly AssetChange[],
  since: number,
): DatedBack | undefined {
  const found = new Map(changes.map((change) => [change.id, change.updatedAt]));
  const check = (id: string, was: number): DatedBack | undefined => {
    if (was < since) return undefined;
    const now = found.get(id);
    if (now !== undefined && now >= was) return undefined;
    return now === undefined ? { id, was } : { id, was, now };
  };
  for (let row = 0; row < library.rows; row++) {
    if (library.flags[row] === REMOVED || library.updatedAt[row] < since) continue;
    const back = check(idOf(library, row), library.updatedAt[row]);
    if (back !== undefined) return back;
  }
  for (const [id, other] of library.others) {
    const back = check(id, other.updatedAt);
    if (back !== undefined) return back;
  }
  for (const [id, updatedAt] of library.seen) {
    const back = check(id, updatedAt);
    if (back !== undefined) return back;
  }
  return undefined;
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
    if (stacked === undefined) {
      const ids = new Set<string>();
      library.stacks.forEachRef((ref) => {
        if (typeof ref === "string") ids.add(ref);
      });
      stacked = ids;
    }
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
      for (const hash of bucketsOf(library, row)) previousBuckets.add(hash);
      library.skips.delete(row);
    }
    if (change.scopes === 0) {
      library.seen.set(change.id, change.updatedAt);
      if (row === undefined) continue;
      library.flags[row] = REMOVED;
      setBuckets(library, row, []);
      removed.add(row);
      continue;
    }
    library.seen.delete(change.id);
    row ??= addRow(library, change.id, change.updatedAt, 0);
    const flags = flagsOf(change.scopes, { ...change, invalid: change.asset === undefined });
    library.updatedAt[row] = change.updatedAt;
    library.flags[row] = flags;
    setBuckets(library, row, []);
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
    for (let row = 0; row < library.rows; row++) {
      if (rows.has(row) || library.flags[row] === REMOVED) continue;
      const bucket = library.buckets[row];
      // The common case, one bucket, without a list.
      if (bucket >= 0 && !hashes.has(bucket)) continue;
      const buckets = bucketsOf(library, row);
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
    library.stacks.each((ref) => typeof ref === "number" && region.rows.has(ref), (stack) => {
      if (region.stacks.has(stack.id)) return;
      addStack(stack);
      grew = true;
    });
    const { groups } = library;
    for (let index = 0; index < groups.count; index++) {
      if (region.groups.has(index) || !groups.some(index, (row) => region.rows.has(row))) continue;
      region.groups.add(index);
      for (const row of groups.rows(index)!) region.rows.add(row);
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
  // Members are compared with the ids the writes name, and only with those: the rows of these
  // ids are all a member's id is needed for. One scan finds both; the last live row wins, as in
  // findRows().
  const rowOf = new Map<string, number>();
  const named = new Map<number, string>();
  matchRows(library, ids, { removed: true }, (id, row) => {
    named.set(row, id);
    if (library.flags[row] !== REMOVED) rowOf.set(id, row);
  });
  const ref = (id: string): Ref => rowOf.get(id) ?? id;
  const nameOf = (member: Ref) => typeof member === "number" ? named.get(member) ?? "" : member;
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
      const id = nameOf(member);
      if (!ids.has(id)) continue;
      let set = holders.get(id);
      if (set === undefined) holders.set(id, set = new Set());
      if (add) set.add(stack.id);
      else set.delete(stack.id);
    }
  };
  library.stacks.each((member) => ids.has(nameOf(member)), (stack) => index(stack, true));
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
      if (listed.has(nameOf(holder.primary))) {
        // Merged into the new stack; members it left out (in the trash) moved too.
        remove(holder);
        for (const member of members) if (!listed.has(nameOf(member))) setUpdatedAt(member, -1);
      } else {
        put({
          ...holder,
          members: holder.members.filter((member) => !listed.has(nameOf(member))),
          archived: holder.archived.filter((member) => !listed.has(nameOf(member))),
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
