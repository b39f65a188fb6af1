/**
 * How long journals are kept: every run younger than JOURNAL_KEEP_DAYS, and the newest
 * JOURNAL_KEEP runs whatever their age, so that a busy cron cannot push the run that made every
 * stack out of reach of `undo` within minutes (docs/state.md, "Retention"). Pure: the folder
 * deletes, `stacksync runs` tells.
 *
 * @module
 */

/** JOURNAL_KEEP and JOURNAL_KEEP_DAYS. */
export interface Retention {
  /** The newest runs kept whatever their age. */
  readonly keep: number;
  /** Runs younger than this many days are kept. */
  readonly days: number;
}

const DAY_MS = 86_400_000;

/** `20261123-101500-123`. */
const RUN_ID = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})-(\d{3})$/;

/**
 * When a run started, from its id (the UTC start time).
 *
 * @param id A run id, `YYYYMMDD-HHMMSS-mmm`.
 * @returns Milliseconds since the epoch, or NaN for anything else.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { runStart } from "./retention.ts";
 *
 * assert.equal(runStart("20261123-101500-123"), Date.parse("2026-11-23T10:15:00.123Z"));
 * ```
 */
export function runStart(id: string): number {
  const match = RUN_ID.exec(id);
  if (match === null) return NaN;
  const [year, month, day, hours, minutes, seconds, ms] = match.slice(1).map(Number);
  return Date.UTC(year, month - 1, day, hours, minutes, seconds, ms);
}

/** What becomes of one run: kept until a day, kept as one of the newest, or deleted. */
export type Kept =
  /** Younger than JOURNAL_KEEP_DAYS: kept at least until `until` (ISO date-time). */
  | { readonly by: "age"; readonly until: string }
  /** Older, but one of the newest JOURNAL_KEEP runs. */
  | { readonly by: "count" }
  /** Neither: the next journaled command deletes it. */
  | { readonly by: "none" };

/**
 * What the retention keeps of each run.
 *
 * @param ids Run ids, oldest first.
 * @param retention JOURNAL_KEEP and JOURNAL_KEEP_DAYS.
 * @param now The time now.
 * @returns One entry per id, in the same order.
 *
 * @example A first run of a busy cron stays for its days
 * ```ts
 * import assert from "node:assert/strict";
 * import { keptRuns } from "./retention.ts";
 *
 * const kept = keptRuns(
 *   ["20261101-000000-000", "20261123-100000-000", "20261123-100500-000"],
 *   { keep: 1, days: 30 },
 *   new Date("2026-12-05T00:00:00.000Z"),
 * );
 * assert.deepEqual(kept.map((k) => k.by), ["none", "age", "age"]);
 * ```
 */
export function keptRuns(ids: readonly string[], retention: Retention, now: Date): Kept[] {
  return ids.map((id, index): Kept => {
    const until = runStart(id) + retention.days * DAY_MS;
    if (until > now.getTime()) return { by: "age", until: new Date(until).toISOString() };
    return index >= ids.length - retention.keep ? { by: "count" } : { by: "none" };
  });
}
