/**
 * Runs the writes of a plan side by side (STACK_CONCURRENCY) without giving up the order that
 * keeps them safe. Each task is one action (or a group of actions that stand or fall together)
 * and carries the keys of what it may touch: the assets it lists, the stacks it changes and
 * every member of those stacks. Tasks start in the order given, at most `limit` at once, and a
 * task never starts while an earlier one that shares a key is still running: it waits for it,
 * exactly as it would have with one lane. With a limit of 1 the tasks run one after the other,
 * as a plain loop would.
 *
 * No task is ever waiting for a later one, so the lanes cannot deadlock.
 *
 * @module
 */

/** A running task and what it touches. */
interface Running {
  readonly done: Promise<void>;
  readonly keys: ReadonlySet<string>;
}

/**
 * At most `limit` tasks at once, started in order, never two at once that share a key.
 *
 * @example Two tasks on the same asset never overlap; a third runs beside them
 * ```ts
 * import assert from "node:assert/strict";
 * import { Lanes } from "./lanes.ts";
 *
 * const lanes = new Lanes(4);
 * const log: string[] = [];
 * const task = (name: string) => async () => {
 *   log.push(`start ${name}`);
 *   await new Promise((resolve) => setTimeout(resolve, 5));
 *   log.push(`end ${name}`);
 * };
 * await lanes.start(new Set(["asset:a"]), task("first"));
 * await lanes.start(new Set(["asset:a"]), task("second"));
 * await lanes.start(new Set(["asset:b"]), task("third"));
 * await lanes.idle();
 * assert.ok(log.indexOf("end first") < log.indexOf("start second"));
 * assert.ok(log.indexOf("start third") < log.indexOf("end second"));
 * ```
 */
export class Lanes {
  readonly #limit: number;
  readonly #running = new Set<Running>();
  #failure: { readonly error: unknown } | undefined;

  /**
   * @param limit How many tasks may run at once; at least 1.
   * @throws {RangeError} When `limit` is not a whole number of at least 1.
   */
  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(`Cannot run writes in ${limit} lanes: the limit must be 1 or more`);
    }
    this.#limit = limit;
  }

  /**
   * Starts a task as soon as a lane is free and no running task shares one of its keys.
   *
   * @param keys What the task may touch, e.g. `asset:<id>` and `stack:<id>`.
   * @param task The work; what it throws is rethrown by {@linkcode Lanes.idle}.
   * @returns Once the task has started (not finished).
   */
  async start(keys: ReadonlySet<string>, task: () => Promise<void>): Promise<void> {
    for (;;) {
      const blockers = [...this.#running].filter((running) => shares(running.keys, keys));
      const waitFor = blockers.length > 0
        ? blockers
        : this.#running.size >= this.#limit
        ? [...this.#running]
        : [];
      if (waitFor.length === 0) break;
      await Promise.race(waitFor.map((running) => running.done));
    }
    const running: Running = {
      keys,
      done: task().catch((error) => {
        this.#failure ??= { error };
      }).finally(() => this.#running.delete(running)),
    };
    this.#running.add(running);
  }

  /**
   * Waits until every started task has ended.
   *
   * @throws The first error a task threw.
   */
  async idle(): Promise<void> {
    while (this.#running.size > 0) {
      await Promise.all([...this.#running].map((running) => running.done));
    }
    if (this.#failure !== undefined) throw this.#failure.error;
  }
}

function shares(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const key of small) if (large.has(key)) return true;
  return false;
}

/** What {@linkcode pacer} reads: ApplyOptions' pause, its sleep and the stop signal. */
export interface PaceOptions {
  /** PREVENT_SELF_REKT's pause before each write, in milliseconds; 0 for none. */
  readonly pauseMs?: number;
  /** Waits; rejects when the signal aborts. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Ends a pause early. */
  readonly signal?: AbortSignal;
}

/**
 * The pause before each write (PREVENT_SELF_REKT): a function to await right before sending.
 * A shutdown signal ends the pause early; the caller's next look at the signal says so.
 *
 * @param options The pause, the sleep and the signal.
 * @returns The pause; it resolves at once when there is none.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { pacer } from "./lanes.ts";
 *
 * const waits: number[] = [];
 * const pace = pacer({ pauseMs: 50, sleep: (ms) => (waits.push(ms), Promise.resolve()) });
 * await pace();
 * await pace();
 * assert.deepEqual(waits, [50, 50]);
 * ```
 */
export function pacer(options: PaceOptions): () => Promise<void> {
  const pauseMs = options.pauseMs ?? 0;
  const sleep = options.sleep;
  if (pauseMs <= 0 || sleep === undefined) return () => Promise.resolve();
  return async () => {
    try {
      await sleep(pauseMs, options.signal);
    } catch {
      // Aborted: the signal tells the caller.
    }
  };
}
