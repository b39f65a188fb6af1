/**
 * The user's library as an incremental pass keeps it between passes, compact enough to hold at
 * 200 000 assets in about 20 MB: per asset its id, `updatedAt`, what the searches find it as,
 * and the hashes of its grouping buckets, in typed arrays, but no name; stacks and groups as row
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
 * The rows' columns are typed arrays with room to grow ({@linkcode addRow}); only their first
 * {@linkcode Library.rows} entries count. At 200 000 assets they take about 7 MB where arrays of
 * numbers and id strings took 18. Functions of this module change it in place.
 */
export interface Library {
  /** How many rows there are. */
  rows: number;
  /** Each row's asset id, four words per row ({@linkcode idOf}); zeros for `oddIds`' rows. */
  ids: Int32Array;
  /** The ids that are not a UUID in canonical form (lower case), by row. */
  readonly oddIds: Map<number, string>;
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
  readonly stacks: Map<string, CompactStack>;
  /** Each group's rows, parent first, by its place in the cache. */
  readonly groups: Groups;
  /** Other users' assets by id. */
  readonly others: Map<string, OtherAsset>;
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
 * @param sizes Room for this many rows and groups to start with; more grow it.
 * @returns A library without rows, stacks or groups.
 */
export function emptyLibrary(sizes: { readonly rows: number; readonly groups: number } = {
  rows: 0,
  groups: 0,
}): Library {
  return {
    rows: 0,
    ids: new Int32Array(sizes.rows * 4),
    oddIds: new Map(),
    updatedAt: new Float64Array(sizes.rows),
    flags: new Int32Array(sizes.rows),
    buckets: new Int32Array(sizes.rows),
    manyBuckets: new Map(),
    skips: new Map(),
    stacks: new Map(),
    groups: new Groups(sizes.groups),
    others: new Map(),
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
  const row = appendRow(library, updatedAt, flags);
  if (!uuidWordsOf(id, library.ids, row * 4)) library.oddIds.set(row, id);
  return row;
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
  const row = appendRow(library, updatedAt, flags);
  if (!uuidWords(bytes, from, to, library.ids, row * 4)) {
    library.oddIds.set(row, decoder.decode(bytes.subarray(from, to)));
  }
  return row;
}

/** A new last row, its id all zeros, in no bucket. */
function appendRow(library: Library, updatedAt: number, flags: number): number {
  const row = library.rows;
  if (row === library.flags.length) {
    const size = Math.max(16, Math.ceil(row * 1.5));
    library.ids = grown(library.ids, size * 4);
    library.updatedAt = grown(library.updatedAt, size);
    library.flags = grown(library.flags, size);
    library.buckets = grown(library.buckets, size);
  }
  library.rows++;
  library.updatedAt[row] = updatedAt;
  library.flags[row] = flags;
  library.buckets[row] = NO_BUCKET;
  return row;
}

function grown<T extends Int32Array | Float64Array>(column: T, size: number): T {
  const bigger = new (column.constructor as new (size: number) => T)(size);
  bigger.set(column);
  return bigger;
}

/**
 * A row's asset id.
 *
 * @param library The library.
 * @param row The row.
 * @returns The id, as the server wrote it.
 */
export function idOf(library: Library, row: number): string {
  const odd = library.oddIds.size === 0 ? undefined : library.oddIds.get(row);
  if (odd !== undefined) return odd;
  const words = library.ids;
  for (let i = 0; i < 16; i++) {
    const byte = (words[row * 4 + (i >> 2)] >>> ((i & 3) * 8)) & 0xff;
    codes[HEX_AT[i]] = HEX_CODES[byte >> 4];
    codes[HEX_AT[i] + 1] = HEX_CODES[byte & 0xf];
  }
  return String.fromCharCode.apply(null, codes);
}

const UUID_LENGTH = 36;
const DASH = 0x2d;
/** Where each byte of a UUID's 16 is written in its text. */
const HEX_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
const HEX_CODES = [..."0123456789abcdef"].map((c) => c.charCodeAt(0));
/** Each ASCII code's value as a lower-case hex digit, or -1. */
const HEX_VALUE = new Int8Array(128).fill(-1);
HEX_CODES.forEach((code, value) => HEX_VALUE[code] = value);
const codes: number[] = new Array(UUID_LENGTH).fill(DASH);
const scratch = new Uint8Array(UUID_LENGTH);
const scratchWords = new Int32Array(4);
const decoder = new TextDecoder();

/**
 * Reads a UUID in canonical form (lower-case hex, dashes at 8, 13, 18, 23) into four words.
 *
 * @returns Whether `bytes[from, to)` is one; the words are written only then.
 */
function uuidWords(
  bytes: Uint8Array,
  from: number,
  to: number,
  into: Int32Array,
  at: number,
): boolean {
  if (to - from !== UUID_LENGTH) return false;
  if (
    bytes[from + 8] !== DASH || bytes[from + 13] !== DASH || bytes[from + 18] !== DASH ||
    bytes[from + 23] !== DASH
  ) return false;
  scratchWords.fill(0);
  for (let i = 0; i < 16; i++) {
    const high = bytes[from + HEX_AT[i]];
    const low = bytes[from + HEX_AT[i] + 1];
    if (high >= 128 || low >= 128 || HEX_VALUE[high] < 0 || HEX_VALUE[low] < 0) return false;
    scratchWords[i >> 2] |= (HEX_VALUE[high] << 4 | HEX_VALUE[low]) << ((i & 3) * 8);
  }
  into.set(scratchWords, at);
  return true;
}

/** {@linkcode uuidWords} of an id given as a string. */
function uuidWordsOf(id: string, into: Int32Array, at: number): boolean {
  if (id.length !== UUID_LENGTH) return false;
  for (let i = 0; i < UUID_LENGTH; i++) scratch[i] = id.charCodeAt(i);
  return uuidWords(scratch, 0, UUID_LENGTH, into, at);
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
      this.#pool = grown(this.#pool, Math.max(64, Math.ceil((this.#used + rows.length) * 1.5)));
    }
    if (this.#count * 2 + 2 > this.#bounds.length) {
      this.#bounds = grown(this.#bounds, Math.max(16, Math.ceil(this.#count * 1.5) * 2));
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
  for (let row = 0; row < library.rows; row++) {
    const updatedAt = library.updatedAt[row];
    if (library.flags[row] !== REMOVED && updatedAt >= since) {
      digest.add(idOf(library, row), updatedAt);
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
 * The rows of the given asset ids: one scan of the ids' words, no index of the whole library.
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
  if (ids.size === 0) return;
  const counts = (row: number) => options.removed || library.flags[row] !== REMOVED;
  // The UUIDs by a hash of their words; any other id is among oddIds.
  const wanted = new Map<number, { readonly id: string; readonly words: Int32Array }[]>();
  const odd = new Set<string>();
  for (const id of ids) {
    const words = new Int32Array(4);
    if (!uuidWordsOf(id, words, 0)) {
      odd.add(id);
      continue;
    }
    const hash = wordsHash(words, 0);
    const same = wanted.get(hash);
    if (same === undefined) wanted.set(hash, [{ id, words }]);
    else same.push({ id, words });
  }
  const all = library.ids;
  if (wanted.size > 0) {
    for (let row = 0; row < library.rows; row++) {
      const candidates = wanted.get(wordsHash(all, row * 4));
      if (candidates === undefined || !counts(row) || library.oddIds.has(row)) continue;
      for (const { id, words } of candidates) {
        if (
          words[0] === all[row * 4] && words[1] === all[row * 4 + 1] &&
          words[2] === all[row * 4 + 2] && words[3] === all[row * 4 + 3]
        ) found(id, row);
      }
    }
  }
  if (odd.size > 0) {
    for (const [row, id] of library.oddIds) if (counts(row) && odd.has(id)) found(id, row);
  }
}

function wordsHash(words: Int32Array, at: number): number {
  return words[at] ^ Math.imul(words[at + 1], 0x9e3779b1) ^ Math.imul(words[at + 2], 0x85ebca6b) ^
    Math.imul(words[at + 3], 0xc2b2ae35);
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
    for (const stack of library.stacks.values()) {
      if (region.stacks.has(stack.id)) continue;
      const refs = [stack.primary, ...stack.members];
      if (!refs.some((ref) => typeof ref === "number" && region.rows.has(ref))) continue;
      addStack(stack);
      grew = true;
    }
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
    /** Each listed member's `updatedAt` after the write. */
    readonly updatedAt: ReadonlyMap<string, number>;
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
  // Members are compared with the ids the writes name, and only with those: the rows of these
  // ids are all a member's id is needed for.
  const named = new Map<number, string>();
  matchRows(library, ids, { removed: true }, (id, row) => named.set(row, id));
  const idOf = (member: Ref) => typeof member === "number" ? named.get(member) ?? "" : member;
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
    for (const id of write.stack.assetIds) setUpdatedAt(ref(id), write.updatedAt.get(id) ?? -1);
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
