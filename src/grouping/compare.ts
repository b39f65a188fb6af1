/**
 * The one string order of grouping, the cache and the plan: small, so that what only sorts
 * does not load grouping.
 *
 * @module
 */

/**
 * Code-unit order of two strings: the same on every machine and locale.
 *
 * @param a A string.
 * @param b Another string.
 * @returns Negative when `a` comes first, positive when `b` does, 0 when they are equal.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { compare } from "./compare.ts";
 *
 * assert.deepEqual(["b", "B", "a"].sort(compare), ["B", "a", "b"]);
 * ```
 */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
