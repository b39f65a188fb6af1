/**
 * Seeded random numbers for property tests and synthetic libraries, so that any failure
 * replays from its seed.
 *
 * @module
 */

/** A source of numbers in [0, 1). */
export type Random = () => number;

/**
 * A small, fast seeded generator (mulberry32).
 *
 * @param seed Any integer; the same seed gives the same sequence.
 * @returns The generator.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { seededRandom } from "./_random.ts";
 *
 * const a = seededRandom(7);
 * const b = seededRandom(7);
 * assert.equal(a(), b());
 * ```
 */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A uniformly shuffled copy (Fisher–Yates).
 *
 * @param items The items; left as they are.
 * @param random The source of randomness.
 * @returns The items in a random order.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { seededRandom, shuffled } from "./_random.ts";
 *
 * assert.deepEqual(shuffled([1, 2, 3, 4], seededRandom(1)).sort(), [1, 2, 3, 4]);
 * ```
 */
export function shuffled<T>(items: readonly T[], random: Random): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}
