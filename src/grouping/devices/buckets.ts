/**
 * The buckets of the default rules (src/grouping/devices/rules.ts): numbered as they are first
 * met, with their members, and each asset's list of them. Built for 200 000 assets: a bucket is
 * found through a map per kind and day or week, so that no key string is made per asset.
 *
 * @module
 */
import { bucketHash, type BucketHashes } from "../group.ts";

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

/** The buckets of one grouping. */
export class Buckets {
  /** Each bucket's members, by asset index, in the order they were added. */
  readonly members: number[][] = [];
  /** Each bucket's kind. */
  readonly kinds: BucketKind[] = [];
  readonly #ids = new Map<number, Map<string, number>>();
  /** Each bucket's hash, kept only when hashes are wanted. */
  readonly #hashes: number[] | undefined;
  /** Asset `i`'s buckets are `#list[#start[i]]` up to `#list[#start[i + 1]]`. */
  readonly #start: Int32Array;
  readonly #list: number[] = [];

  /**
   * @param n How many assets.
   * @param hashes Whether {@linkcode hashesOf} is wanted.
   */
  constructor(n: number, hashes: boolean) {
    this.#start = new Int32Array(n + 1);
    this.#hashes = hashes ? [] : undefined;
  }

  /** Starts asset `i`'s buckets; assets are added in index order. */
  begin(i: number): void {
    this.#start[i] = this.#list.length;
    this.#start[i + 1] = this.#list.length;
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
      id = this.members.length;
      byKey.set(key, id);
      this.members.push([i]);
      this.kinds.push(kind);
      this.#hashes?.push(bucketHash(`${kind}:${period}:${sub}:${key}`));
    } else this.members[id].push(i);
    this.#list.push(id);
    this.#start[i + 1] = this.#list.length;
  }

  /** Asset `i`'s buckets. */
  *of(i: number): Generator<number> {
    for (let at = this.#start[i]; at < this.#start[i + 1]; at++) yield this.#list[at];
  }

  /** The hashes of asset `i`'s buckets ({@linkcode bucketHash} of their signatures). */
  hashesOf(i: number): BucketHashes {
    const hashes = this.#hashes!;
    const from = this.#start[i];
    const to = this.#start[i + 1];
    if (to - from === 1) return hashes[this.#list[from]];
    const list: number[] = [];
    for (let at = from; at < to; at++) list.push(hashes[this.#list[at]]);
    return list;
  }
}
