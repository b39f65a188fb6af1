/**
 * The buckets of the default rules (src/grouping/devices/rules.ts): numbered as they are first
 * met, with their members, and each asset's list of them. Built for 200 000 assets: a bucket is
 * found through a map per kind and day or week, so that no key string is made per asset, and
 * members are chained through typed arrays, so that no array is kept per bucket.
 *
 * @module
 */
import type { BucketHashes } from "../group.ts";
import { bucketHashOf } from "../_hash.ts";

/** What a bucket gathers. */
export const BUCKET = {
  /** A stem's originals of one week, and the versions that may be theirs. */
  stem: 0,
  /** File numbers of one prefix, camera, lens and day. */
  sequence: 1,
  /** Frames of one burst, as their names say. */
  burst: 2,
} as const;

/** A bucket's kind. */
export type BucketKind = typeof BUCKET[keyof typeof BUCKET];

/** Days and weeks since 1970 (up to 350 years either way) are shifted by this much. */
const PERIODS = 1 << 17;
/** Below this, a number `sub` of {@linkcode Buckets.add} keeps the map key a small integer. */
const SMALL_SUB = (1 << 12) - 1;

/** A typed array twice as long holding the same values. */
function grown(array: Int32Array): Int32Array {
  const longer = new Int32Array(array.length * 2);
  longer.set(array);
  return longer;
}

/** The buckets of one grouping. */
export class Buckets {
  /** How many buckets. */
  #count = 0;
  readonly #ids = new Map<number, Map<string, number>>();
  /** Each bucket's kind, size, first and last entry (`-1` for none). */
  #kinds: Int32Array;
  #sizes: Int32Array;
  #firsts: Int32Array;
  #lasts: Int32Array;
  /** Each bucket's key as given (one string per bucket, shared by its members). */
  readonly #keys: string[] = [];
  /** Each bucket's hash, kept only when hashes are wanted. */
  readonly #hashes: number[] | undefined;
  /**
   * An entry puts an asset in a bucket: entries are made asset after asset, so asset `i`'s are
   * `#start[i]` up to `#start[i + 1]`. Each entry's bucket, asset and the next entry of its
   * bucket (`-1` for none).
   */
  readonly #start: Int32Array;
  #entries = 0;
  #bucketOf: Int32Array;
  #assetOf: Int32Array;
  #next: Int32Array;

  /**
   * @param n How many assets.
   * @param hashes Whether {@linkcode hashesOf} is wanted.
   */
  constructor(n: number, hashes: boolean) {
    this.#start = new Int32Array(n + 1);
    this.#hashes = hashes ? [] : undefined;
    const buckets = Math.max(16, n);
    this.#kinds = new Int32Array(buckets);
    this.#sizes = new Int32Array(buckets);
    this.#firsts = new Int32Array(buckets);
    this.#lasts = new Int32Array(buckets);
    const entries = Math.max(16, 2 * n);
    this.#bucketOf = new Int32Array(entries);
    this.#assetOf = new Int32Array(entries);
    this.#next = new Int32Array(entries);
  }

  /** How many buckets there are. */
  get count(): number {
    return this.#count;
  }

  /** Starts asset `i`'s buckets; assets are added in index order. */
  begin(i: number): void {
    this.#start[i] = this.#entries;
    this.#start[i + 1] = this.#entries;
  }

  /**
   * Puts asset `i` (the one begun last) in a bucket.
   *
   * @param i The asset.
   * @param kind The bucket's kind.
   * @param period Its day or week (0 for none).
   * @param key What else names it.
   * @param sub A small number that also names it (a camera), 0 for none.
   */
  add(i: number, kind: BucketKind, period: number, key: string, sub = 0): void {
    const given = key;
    if (sub >= SMALL_SUB || Math.abs(period) >= PERIODS) {
      key = `${key}\t${sub}\t${period}`;
      sub = SMALL_SUB;
      period = 0;
    }
    const outer = ((sub * 3 + kind) * 2 + 1) * PERIODS + period;
    let byKey = this.#ids.get(outer);
    if (byKey === undefined) this.#ids.set(outer, byKey = new Map());
    let id = byKey.get(key);
    if (id === undefined) {
      id = this.#newBucket(kind, given);
      byKey.set(key, id);
      this.#hashes?.push(bucketHashOf(`${kind}:${period}:${sub}:`, key));
    }
    if (this.#entries === this.#next.length) {
      this.#bucketOf = grown(this.#bucketOf);
      this.#assetOf = grown(this.#assetOf);
      this.#next = grown(this.#next);
    }
    const entry = this.#entries++;
    this.#bucketOf[entry] = id;
    this.#assetOf[entry] = i;
    this.#next[entry] = -1;
    if (this.#sizes[id]++ === 0) this.#firsts[id] = entry;
    else this.#next[this.#lasts[id]] = entry;
    this.#lasts[id] = entry;
    this.#start[i + 1] = this.#entries;
  }

  #newBucket(kind: BucketKind, key: string): number {
    if (this.#count === this.#kinds.length) {
      this.#kinds = grown(this.#kinds);
      this.#sizes = grown(this.#sizes);
      this.#firsts = grown(this.#firsts);
      this.#lasts = grown(this.#lasts);
    }
    const id = this.#count++;
    this.#kinds[id] = kind;
    this.#keys.push(key);
    return id;
  }

  /** Bucket `id`'s kind. */
  kind(id: number): BucketKind {
    return this.#kinds[id] as BucketKind;
  }

  /** How many assets bucket `id` holds. */
  size(id: number): number {
    return this.#sizes[id];
  }

  /** Bucket `id`'s key, as given to {@linkcode add} (the same string for all its members). */
  key(id: number): string {
    return this.#keys[id];
  }

  /** Bucket `id`'s members, by asset index, in the order they were added. */
  members(id: number): number[] {
    const members: number[] = [];
    for (
      let entry = this.#firsts[id];
      members.length < this.#sizes[id];
      entry = this.#next[entry]
    ) {
      members.push(this.#assetOf[entry]);
    }
    return members;
  }

  /** How many buckets asset `i` is in. */
  countOf(i: number): number {
    return this.#start[i + 1] - this.#start[i];
  }

  /** Asset `i`'s `k`-th bucket. */
  bucketOf(i: number, k: number): number {
    return this.#bucketOf[this.#start[i] + k];
  }

  /** The hashes of asset `i`'s buckets (`bucketHash` of their signatures, src/grouping/_hash.ts). */
  hashesOf(i: number): BucketHashes {
    const hashes = this.#hashes!;
    const from = this.#start[i];
    const to = this.#start[i + 1];
    if (to - from === 1) return hashes[this.#bucketOf[from]];
    const list: number[] = [];
    for (let at = from; at < to; at++) list.push(hashes[this.#bucketOf[at]]);
    return list;
  }
}
