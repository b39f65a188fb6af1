/**
 * The figures of long work as plain values: a stage (reading a user's library, applying a plan)
 * is what it has done since it started; its report is the line that shows it, done of total,
 * percentage, rate and time left, as a LogTape template with its properties. Pure: the clock's
 * reading comes in as a number. `show.ts` draws it on a terminal or logs it
 * (docs/architecture.md, "Progress").
 *
 * @module
 */

/** What a stage does: reads the search pages, or carries out a plan's actions (or logs them). */
export type StageKind = "reading" | "applying" | "dry-run";

/** One stage of long work, as far as it has come. */
export interface Stage {
  readonly kind: StageKind;
  /** The user whose library or plan it is. */
  readonly user: string;
  /** The clock when it started, ms. */
  readonly startedAt: number;
  /** Assets read, or steps done. */
  readonly done: number;
  /** Search pages read (reading only). */
  readonly pages: number;
  /** Assets the searches find (from statistics) or steps planned; unknown without statistics. */
  readonly total?: number;
}

/** Reading without a count of the library. */
export const READING = "Reading the library of {user}: page {pages}, {done} assets";
/** Reading with the count from `POST /search/statistics`. */
export const READING_OF = "Reading the library of {user}: page {pages}, {done} of {total} " +
  "assets ({percent}%), time left {left}";
/** Carrying out a plan. */
export const APPLYING = "Applying the plan of {user}: {done} of {total} steps ({percent}%), " +
  "{rate} a second, time left {left}";
/** Logging a plan's actions in a dry run. */
export const DRY_RUN = "Dry run of the plan of {user}: {done} of {total} steps ({percent}%), " +
  "{rate} a second, time left {left}";

/** The message of a stage's report: one of the constant templates above. */
export type ProgressTemplate =
  | typeof READING
  | typeof READING_OF
  | typeof APPLYING
  | typeof DRY_RUN;

/** A stage's figures at one moment: a LogTape template and its properties. */
export interface ProgressReport {
  readonly template: ProgressTemplate;
  readonly properties: {
    readonly user: string;
    readonly done: number;
    readonly pages?: number;
    readonly total?: number;
    /** Whole percent, 100 only once done reaches the total. */
    readonly percent?: number;
    /** Per second since the stage started: one decimal below 10, whole above. */
    readonly rate?: number;
    /** Time left at that rate, or `unknown` before the first step. */
    readonly left?: string;
  };
}

/**
 * A stage that starts now.
 *
 * @param kind What it does.
 * @param options The user, the clock's reading and the total when it is known.
 * @returns The stage, nothing done yet.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { startStage } from "./figures.ts";
 *
 * const stage = startStage("applying", { user: "Ann", now: 5000, total: 40 });
 * assert.equal(stage.done, 0);
 * assert.equal(stage.total, 40);
 * ```
 */
export function startStage(
  kind: StageKind,
  options: { readonly user: string; readonly now: number; readonly total?: number },
): Stage {
  return {
    kind,
    user: options.user,
    startedAt: options.now,
    done: 0,
    pages: 0,
    ...(options.total === undefined ? {} : { total: options.total }),
  };
}

/**
 * A stage moved on.
 *
 * @param stage The stage.
 * @param done How many more assets read or steps done.
 * @param pages How many more search pages read.
 * @returns The stage with them.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { advanceStage, startStage } from "./figures.ts";
 *
 * const stage = advanceStage(startStage("reading", { user: "Ann", now: 0 }), 1000, 1);
 * assert.deepEqual([stage.done, stage.pages], [1000, 1]);
 * ```
 */
export function advanceStage(stage: Stage, done: number, pages = 0): Stage {
  return { ...stage, done: stage.done + done, pages: stage.pages + pages };
}

/**
 * A duration in words, coarser as it grows: seconds under a minute, minutes and seconds under
 * ten minutes, minutes under an hour, then hours and minutes. Rounded up: a line never says
 * `0 s` while work is left.
 *
 * @param ms The duration.
 * @returns The words.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { durationText } from "./figures.ts";
 *
 * assert.equal(durationText(44_100), "45 s");
 * assert.equal(durationText(200_000), "3 min 20 s");
 * assert.equal(durationText(1_320_000), "22 min");
 * assert.equal(durationText(3_900_000), "1 h 5 min");
 * ```
 */
export function durationText(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) {
    return seconds % 60 === 0 ? `${minutes} min` : `${minutes} min ${seconds % 60} s`;
  }
  const wholeMinutes = Math.ceil(seconds / 60);
  if (wholeMinutes < 60) return `${wholeMinutes} min`;
  const hours = Math.floor(wholeMinutes / 60);
  return wholeMinutes % 60 === 0 ? `${hours} h` : `${hours} h ${wholeMinutes % 60} min`;
}

/** A rate as the line shows it: one decimal while it is small. */
function shownRate(perSecond: number): number {
  return perSecond < 10 ? Math.round(perSecond * 10) / 10 : Math.round(perSecond);
}

/**
 * A stage's figures now: done of total, the percentage, the rate since it started and the time
 * left at that rate.
 *
 * @param stage The stage.
 * @param now The clock's reading, ms (the clock of {@linkcode startStage}).
 * @returns Its template and properties.
 *
 * @example Applying, 60 s in
 * ```ts
 * import assert from "node:assert/strict";
 * import { advanceStage, progressReport, progressText, startStage } from "./figures.ts";
 *
 * const stage = advanceStage(startStage("applying", { user: "Ann", now: 0, total: 48000 }), 2100);
 * assert.equal(
 *   progressText(progressReport(stage, 60_000)),
 *   "Applying the plan of Ann: 2100 of 48000 steps (4%), 35 a second, time left 22 min",
 * );
 * ```
 */
export function progressReport(stage: Stage, now: number): ProgressReport {
  const { user, done, total, pages } = stage;
  if (stage.kind === "reading" && total === undefined) {
    return { template: READING, properties: { user, pages, done } };
  }
  const of = total ?? 0;
  const seconds = (now - stage.startedAt) / 1000;
  const perSecond = seconds > 0 ? done / seconds : 0;
  const left = done >= of
    ? "0 s"
    : perSecond > 0
    ? durationText((of - done) / perSecond * 1000)
    : "unknown";
  const percent = done >= of ? 100 : Math.floor(done * 100 / of);
  if (stage.kind === "reading") {
    return { template: READING_OF, properties: { user, pages, done, total: of, percent, left } };
  }
  return {
    template: stage.kind === "applying" ? APPLYING : DRY_RUN,
    properties: { user, done, total: of, percent, rate: shownRate(perSecond), left },
  };
}

/**
 * A report as one line of text: its template filled in, as LogTape renders the message.
 *
 * @param report The report.
 * @returns The line.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { progressText, READING } from "./figures.ts";
 *
 * assert.equal(
 *   progressText({ template: READING, properties: { user: "Ann", pages: 3, done: 2950 } }),
 *   "Reading the library of Ann: page 3, 2950 assets",
 * );
 * ```
 */
export function progressText(report: ProgressReport): string {
  const values: Readonly<Record<string, unknown>> = report.properties;
  return report.template.replaceAll(/\{(\w+)\}/g, (_, name: string) => String(values[name]));
}
