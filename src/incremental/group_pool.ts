/**
 * The promoted groups of the cached library, in one pool of row numbers.
 *
 * @module
 */
import { grown } from "./ids.ts";

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
