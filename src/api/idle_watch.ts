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

/** An attempt being watched: when it last heard from the server, and what to cut. */
interface Watched {
  readonly controller: AbortController;
  readonly timeoutMs: number;
  last: number;
  phase: TimedOut;
  timedOut: TimedOut | undefined;
}

/**
 * Every attempt in flight, of every client, shares one timer set for the earliest moment one of
 * them may pass its limit: writes in flight together (STACK_CONCURRENCY) then create no timer per
 * request, as a first run's tens of thousands of writes would. The timer is cleared once no
 * attempt is left, so that a finished request is not kept reachable for the whole limit.
 */
const watching = new Set<Watched>();
let timer: ReturnType<typeof setTimeout> | undefined;
/** When the timer fires, `performance.now()` time; Infinity when none is set. */
let timerAt = Infinity;

function setTimer(at: number): void {
  clearTimeout(timer);
  timerAt = at;
  timer = setTimeout(check, Math.min(MAX_TIMER_MS, Math.max(0, at - performance.now())));
}

/** Cuts every attempt silent for its whole limit, then waits for the next that may be. */
function check(): void {
  timer = undefined;
  timerAt = Infinity;
  const now = performance.now();
  let next = Infinity;
  for (const watched of watching) {
    const deadline = watched.last + watched.timeoutMs;
    if (now >= deadline) {
      watching.delete(watched);
      watched.timedOut = watched.phase;
      watched.controller.abort(new DOMException("Signal timed out", "TimeoutError"));
    } else next = Math.min(next, deadline);
  }
  if (next !== Infinity) setTimer(next);
}

/**
 * Starts the idle time limit of an attempt. A chunk only notes its time: the shared timer,
 * when it fires, measures each attempt's silence since its last chunk and is set again for the
 * earliest that may still pass its limit.
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
  const watched: Watched = {
    controller,
    timeoutMs,
    last: performance.now(),
    phase: "no answer",
    timedOut: undefined,
  };
  watching.add(watched);
  if (watched.last + timeoutMs < timerAt) setTimer(watched.last + timeoutMs);
  return {
    get timedOut() {
      return watched.timedOut;
    },
    answered() {
      watched.phase = "stalled";
      watched.last = performance.now();
    },
    touch() {
      watched.last = performance.now();
    },
    stop() {
      watching.delete(watched);
      if (watching.size === 0 && timer !== undefined) {
        clearTimeout(timer);
        timer = undefined;
        timerAt = Infinity;
      }
    },
  };
}
