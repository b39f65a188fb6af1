/**
 * What left the overlap before the watermark since the last pass: the changed assets the cache
 * dated inside it, counted per search as the last pass counted the overlap (docs/incremental.md,
 * "Server time").
 *
 * @module
 */
import { type AssetChange, findRows, type Library, scopesOf } from "./library.ts";

/** The overlap: `updatedAt` from `since` to `until`, both included, and the pass's searches. */
export interface Overlap {
  readonly since: number;
  readonly until: number;
  readonly searches: number;
}

/**
 * Per search, how many of the changed assets the library dated inside the overlap: each changed
 * again since, so the server counts it there no more.
 *
 * @param library The cache's library, before the last pass's writes are applied to it.
 * @param changes The changes found after the overlap.
 * @param overlap The overlap and the number of searches.
 * @returns One count per search.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { emptyLibrary } from "./library.ts";
 * import { leftOverlap } from "./overlap.ts";
 *
 * const library = emptyLibrary();
 * library.others.set("p1", { updatedAt: 50, scopes: 1 });
 * const changed = { id: "p1", updatedAt: 90, own: false, scopes: 1, trashed: false, archived: false };
 * assert.deepEqual(leftOverlap(library, [changed], { since: 40, until: 60, searches: 1 }), [1]);
 * assert.deepEqual(leftOverlap(library, [changed], { since: 55, until: 60, searches: 1 }), [0]);
 * ```
 */
export function leftOverlap(
  library: Library,
  changes: readonly AssetChange[],
  overlap: Overlap,
): number[] {
  const left = new Array<number>(overlap.searches).fill(0);
  const add = (updatedAt: number, scopes: number) => {
    if (updatedAt < overlap.since || updatedAt > overlap.until) return;
    for (let i = 0; i < left.length; i++) if (scopes & 1 << i) left[i]++;
  };
  const ids = new Set(changes.map((change) => change.id));
  for (const [id, row] of findRows(library, ids)) {
    ids.delete(id);
    add(library.updatedAt[row], scopesOf(library.flags[row]));
  }
  if (ids.size > 0) {
    for (const [id, other] of library.others) if (ids.has(id)) add(other.updatedAt, other.scopes);
  }
  return left;
}
