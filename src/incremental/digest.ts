/**
 * Digests of (asset id, `updatedAt`) pairs: what tells an incremental pass that the search for
 * changes found again what the cache expects.
 *
 * @module
 */

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
