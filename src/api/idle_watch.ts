/**
 * REQUEST_TIMEOUT as an idle limit, not a deadline (docs/architecture.md, "Retries and time
 * limits"): it bounds the wait for an answer to start, then each pause while the body streams in.
 *
 * @module
 */
import { MAX_TIMER_MS } from "./delay.ts";

/** Which part of an attempt a time limit cut: the wait for the answer, or a pause inside it. */
export type TimedOut = "no answer" | "stalled";

/** The idle time limit of one attempt: it aborts `controller` after `timeoutMs` of silence. */
export interface IdleWatch {
  /** Set once the limit has cut the attempt. */
  readonly timedOut: TimedOut | undefined;
  /** The answer has started: from now on the limit measures pauses in its body. */
  answered(): void;
  /** A chunk of the body arrived: the limit starts again. */
  touch(): void;
  /** Ends the watch when the attempt ends. */
  stop(): void;
}

/**
 * Starts the idle time limit of an attempt. One timer, re-armed for the time left since the last
 * chunk rather than reset on each of the thousands of chunks of a large answer; cleared when the
 * attempt ends, so that a finished request is not kept reachable for the whole limit.
 *
 * @param controller Aborted with a `TimeoutError` when the limit passes in silence.
 * @param timeoutMs The limit, in milliseconds.
 * @returns The watch; call `stop()` when the attempt ends.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { watchIdle } from "./idle_watch.ts";
 *
 * const controller = new AbortController();
 * const watch = watchIdle(controller, 120_000);
 * watch.answered(); // the answer started: from now on pauses in its body count
 * watch.stop();
 * assert.equal(watch.timedOut, undefined);
 * assert.equal(controller.signal.aborted, false);
 * ```
 */
export function watchIdle(controller: AbortController, timeoutMs: number): IdleWatch {
  let last = performance.now();
  let phase: TimedOut = "no answer";
  let timedOut: TimedOut | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const check = () => {
    const idle = performance.now() - last;
    if (idle >= timeoutMs) {
      timedOut = phase;
      controller.abort(new DOMException("Signal timed out", "TimeoutError"));
      return;
    }
    timer = setTimeout(check, Math.min(MAX_TIMER_MS, timeoutMs - idle));
  };
  timer = setTimeout(check, Math.min(MAX_TIMER_MS, timeoutMs));
  return {
    get timedOut() {
      return timedOut;
    },
    answered() {
      phase = "stalled";
      last = performance.now();
    },
    touch() {
      last = performance.now();
    },
    stop() {
      clearTimeout(timer);
    },
  };
}
