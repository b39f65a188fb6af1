/**
 * The retry policy (docs/architecture.md, "Retries and time limits"): a {@linkcode TransientError}
 * is tried again after an exponential backoff with jitter, or after the server's `Retry-After`;
 * any other failure ends the request at once.
 *
 * @module
 */
import { getLogger } from "@logtape/logtape";
import { TransientError } from "./errors.ts";
import type { Exchange } from "./failures.ts";

const logger = getLogger(["stacksync", "api"]);

/** Options of {@linkcode retrying}. */
export interface RetryOptions {
  /** The request, for the retry's log line. */
  readonly exchange: Exchange;
  /** Retries after the first attempt. */
  readonly retries: number;
  /** Delay before the first retry; it doubles for each further retry. */
  readonly baseDelayMs: number;
  /** Waits between attempts; rejects when `signal` aborts. */
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Source of jitter in [0, 1). */
  readonly random: () => number;
  /** The shutdown signal, which ends a wait. */
  readonly signal?: AbortSignal;
  /** Told of every transient failure, retried or not. */
  readonly failed?: (error: TransientError) => void;
}

/**
 * Runs attempts until one succeeds, one fails for good, or the retries are spent. Each retry
 * logs `Retry <k>/<retries> after <delay>` at warn as soon as the attempt has failed, then waits
 * `baseDelayMs · 2^(k-1)` plus jitter of up to half that, or the server's `Retry-After`.
 *
 * @param attempt One attempt, given its number (1 for the first).
 * @param options The policy and the wait.
 * @returns What the first successful attempt returned.
 * @throws The last attempt's error: a non-transient one at once, a transient one after the last
 *   retry.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { TransientError } from "./errors.ts";
 * import { retrying } from "./retry.ts";
 *
 * const waits: number[] = [];
 * const value = await retrying((attempt) => {
 *   if (attempt < 3) {
 *     throw new TransientError("busy", { method: "GET", path: "/stacks", attempt, serverMessage: "" });
 *   }
 *   return Promise.resolve("done");
 * }, {
 *   exchange: { method: "GET", path: "/stacks" },
 *   retries: 3,
 *   baseDelayMs: 500,
 *   random: () => 0,
 *   sleep: (ms) => {
 *     waits.push(ms);
 *     return Promise.resolve();
 *   },
 * });
 * assert.equal(value, "done");
 * assert.deepEqual(waits, [500, 1000]);
 * ```
 */
export async function retrying<T>(
  attempt: (attempt: number) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const { exchange, retries, baseDelayMs } = options;
  for (let number = 1;; number++) {
    try {
      return await attempt(number);
    } catch (error) {
      if (error instanceof TransientError) options.failed?.(error);
      if (!(error instanceof TransientError) || number > retries) throw error;
      const backoff = baseDelayMs * 2 ** (number - 1);
      const delayMs = Math.round(error.retryAfterMs ?? backoff + options.random() * backoff / 2);
      logger.warn("Retry {attempt}/{max} after {delay}", {
        attempt: number,
        max: retries,
        delay: `${delayMs}ms`,
        method: exchange.method,
        path: exchange.path,
        status: error.status,
        reason: error.serverMessage,
        correlationID: error.correlationId,
      });
      await options.sleep(delayMs, options.signal);
    }
  }
}
