/**
 * Reads side by side, a few at a time: lookups that each cost a round trip (one
 * `GET /assets/{id}` per trashed stack member) finish in a fraction of the time one after the
 * other takes, without flooding the server.
 *
 * @module
 */

/**
 * Runs `work` on every item, at most `limit` at once, started in order. When one fails, no
 * further item starts; the call waits for those in flight, then throws the first failure.
 *
 * @param items The items.
 * @param limit How many run at once (at least 1).
 * @param work What to do with one item.
 * @throws The first failure of `work`.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { forEachBounded } from "./_bounded.ts";
 *
 * let running = 0;
 * let most = 0;
 * const done: number[] = [];
 * await forEachBounded([1, 2, 3, 4, 5], 2, async (n) => {
 *   most = Math.max(most, ++running);
 *   await new Promise((resolve) => setTimeout(resolve, 1));
 *   done.push(n);
 *   running--;
 * });
 * assert.equal(most, 2);
 * assert.deepEqual(done.sort(), [1, 2, 3, 4, 5]);
 * ```
 */
export async function forEachBounded<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { readonly error: unknown } | undefined;
  const lane = async () => {
    while (failure === undefined && next < items.length) {
      const item = items[next++];
      try {
        await work(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  const lanes = Math.max(1, Math.min(limit, items.length));
  await Promise.all(Array.from({ length: lanes }, lane));
  if (failure !== undefined) throw failure.error;
}
