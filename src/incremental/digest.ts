/**
 * Digests of (asset id, `updatedAt`) pairs: what tells an incremental pass that the search for
 * changes found again what the cache expects.
 *
 * @module
 */
import { idOf, type Library, REMOVED } from "./library.ts";

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
