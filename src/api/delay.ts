/**
 * Waiting: between request attempts, between cron passes, and the longest wait one timer holds.
 *
 * @module
 */

/** The longest wait one `setTimeout` holds (about 24.8 days); longer ones overflow to 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Waits `ms` milliseconds, however long (a cron interval of months included); rejects with the
 * signal's reason as soon as it aborts.
 *
 * @param ms How long to wait.
 * @param signal Ends the wait early.
 * @returns A promise that resolves after the wait.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { delay } from "./delay.ts";
 *
 * const controller = new AbortController();
 * const waiting = delay(60_000, controller.signal);
 * controller.abort(new Error("stop"));
 * await assert.rejects(waiting, { message: "stop" });
 * ```
 */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    let remaining = ms;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const arm = () => {
      if (remaining <= 0) {
        signal?.removeEventListener("abort", onAbort);
        return resolve();
      }
      const step = Math.min(remaining, MAX_TIMER_MS);
      remaining -= step;
      timer = setTimeout(arm, step);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    arm();
  });
}
