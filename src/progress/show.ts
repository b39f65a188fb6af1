/**
 * Shows long work while it runs (docs/architecture.md, "Progress"): on a terminal, one line on
 * standard error redrawn in place; elsewhere, a log line at info every 10 s or so, none for a
 * stage that ends sooner. The figures are `figures.ts`'s; this is the thin shell around them,
 * with the clock and the writer injected. A stage moves on only when its work does (a page read,
 * a step done): no timer runs.
 *
 * @module
 */
import { getLogger, type Logger } from "@logtape/logtape";
import {
  advanceStage,
  APPLYING,
  DRY_RUN,
  progressReport,
  progressText,
  READING,
  READING_OF,
  type Stage,
  type StageKind,
  startStage,
} from "./figures.ts";

/** What long work tells about itself; one stage at a time. */
export interface Progress {
  /** A stage starts; one still running ends. */
  start(kind: StageKind, user: string, total?: number): void;
  /** The stage moved on: `done` more assets read or steps done, `pages` more search pages. */
  advance(done: number, pages?: number): void;
  /** The stage is over; on a terminal its line is cleared. */
  end(): void;
}

/** Progress that shows nothing. */
export const NO_PROGRESS: Progress = { start() {}, advance() {}, end() {} };

/** How progress shows: a line redrawn on a terminal, or log lines. */
export type ProgressMode = "line" | "log";

/** A writer of text. */
export type Write = (text: string) => void;

/**
 * How progress shows: a line on standard error when it is a terminal that takes control
 * sequences, else log lines. A terminal with `TERM=dumb`, or with `NO_COLOR` set (not empty),
 * gets no control sequence.
 *
 * @param stderrIsTerminal Whether standard error is a terminal.
 * @param env The environment.
 * @returns The mode.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { progressMode } from "./show.ts";
 *
 * assert.equal(progressMode(true, { TERM: "xterm-256color" }), "line");
 * assert.equal(progressMode(true, { TERM: "dumb" }), "log");
 * assert.equal(progressMode(true, { NO_COLOR: "1" }), "log");
 * assert.equal(progressMode(false, {}), "log");
 * ```
 */
export function progressMode(
  stderrIsTerminal: boolean,
  env: Readonly<Record<string, string | undefined>>,
): ProgressMode {
  if (!stderrIsTerminal || env.TERM === "dumb") return "log";
  return env.NO_COLOR === undefined || env.NO_COLOR === "" ? "line" : "log";
}

/** Carriage return, then erase to the end of the line (ECMA-48 EL). */
const CLEAR = "\r\x1b[K";

/** The least time between two redraws of the line, ms. */
const REDRAW_MS = 100;

/** Options of {@linkcode TerminalProgress}. */
export interface TerminalProgressOptions {
  /** Writes to the terminal (standard error). */
  readonly write: Write;
  /** The clock, ms. */
  readonly now: () => number;
  /**
   * The terminal's width: the line is cut to fit one row, as a wrapped one cannot be redrawn.
   * @default {() => 80}
   */
  readonly columns?: () => number;
}

/**
 * The progress line on a terminal: drawn when a stage starts, redrawn in place at most every
 * 100 ms as it moves on, cleared when it ends. Whatever else goes to the same terminal goes
 * through {@linkcode TerminalProgress.around}, which clears the line first and draws it again
 * after, so that a log line never shares a row with it.
 *
 * @example A log line between two draws
 * ```ts
 * import assert from "node:assert/strict";
 * import { TerminalProgress } from "./show.ts";
 *
 * let text = "";
 * const line = new TerminalProgress({ write: (t) => text += t, now: () => 0 });
 * const log = line.around((t) => text += t);
 * line.start("dry-run", "Ann", 4);
 * log("level=info msg=Would create a stack\n");
 * line.end();
 * assert.equal(
 *   text,
 *   "\r\x1b[KDry run of the plan of Ann: 0 of 4 steps (0%), 0 a second, time left unknown" +
 *     "\r\x1b[Klevel=info msg=Would create a stack\n" +
 *     "\r\x1b[KDry run of the plan of Ann: 0 of 4 steps (0%), 0 a second, time left unknown" +
 *     "\r\x1b[K",
 * );
 * ```
 */
export class TerminalProgress implements Progress {
  readonly #write: Write;
  readonly #now: () => number;
  readonly #columns: () => number;
  #stage: Stage | undefined;
  #drawn = false;
  #drawnAt = -Infinity;

  constructor(options: TerminalProgressOptions) {
    this.#write = options.write;
    this.#now = options.now;
    this.#columns = options.columns ?? (() => 80);
  }

  start(kind: StageKind, user: string, total?: number): void {
    this.#stage = startStage(kind, { user, now: this.#now(), total });
    this.#draw();
  }

  advance(done: number, pages?: number): void {
    if (this.#stage === undefined) return;
    this.#stage = advanceStage(this.#stage, done, pages);
    if (this.#now() - this.#drawnAt >= REDRAW_MS) this.#draw();
  }

  end(): void {
    this.#stage = undefined;
    this.#clear();
  }

  /**
   * A writer to the same terminal that keeps the line out of its way.
   *
   * @param write Writes whole lines to the terminal (standard output or error).
   * @returns The writer: it clears the line, writes, and draws the line again.
   */
  around(write: Write): Write {
    return (text) => {
      if (!this.#drawn) return write(text);
      this.#clear();
      write(text);
      this.#draw();
    };
  }

  #draw(): void {
    if (this.#stage === undefined) return;
    const now = this.#now();
    // A name from the server could hold control characters: they would move the cursor.
    const text = progressText(progressReport(this.#stage, now)).replaceAll(/\p{Cc}/gu, "?");
    const width = Math.max(this.#columns() - 1, 20);
    this.#write(`${CLEAR}${text.length > width ? `${text.slice(0, width - 1)}…` : text}`);
    this.#drawn = true;
    this.#drawnAt = now;
  }

  #clear(): void {
    if (!this.#drawn) return;
    this.#write(CLEAR);
    this.#drawn = false;
  }
}

/** Options of {@linkcode LoggedProgress}. */
export interface LoggedProgressOptions {
  /** The clock, ms. */
  readonly now: () => number;
  /**
   * The least time between two lines, and from a stage's start to its first, ms.
   * @default {10_000}
   */
  readonly intervalMs?: number;
  /**
   * Where the lines go.
   * @default {getLogger(["stacksync", "progress"])}
   */
  readonly logger?: Logger;
}

/** The least time between two progress lines in the log, ms. */
export const PROGRESS_INTERVAL_MS = 10_000;

/**
 * Progress as log lines at info, for a log that is not a terminal: the stage's figures at its
 * first step after each interval, none for a stage that ends within one.
 *
 * @example Lines only once the interval has passed
 * ```ts
 * import assert from "node:assert/strict";
 * import { configure, reset } from "@logtape/logtape";
 * import { LoggedProgress } from "./show.ts";
 *
 * const lines: string[] = [];
 * await configure({
 *   sinks: { list: (record) => lines.push(record.message.join("")) },
 *   loggers: [
 *     { category: ["stacksync"], sinks: ["list"], lowestLevel: "info" },
 *     { category: ["logtape", "meta"], sinks: ["list"], lowestLevel: "error" },
 *   ],
 *   reset: true,
 * });
 * let now = 0;
 * const progress = new LoggedProgress({ now: () => now });
 * progress.start("applying", "Ann", 3);
 * now = 9_999;
 * progress.advance(1);
 * now = 10_000;
 * progress.advance(1);
 * progress.end();
 * await reset();
 * assert.deepEqual(lines, [
 *   "Applying the plan of Ann: 2 of 3 steps (66%), 0.2 a second, time left 5 s",
 * ]);
 * ```
 */
export class LoggedProgress implements Progress {
  readonly #now: () => number;
  readonly #intervalMs: number;
  readonly #logger: Logger;
  #stage: Stage | undefined;
  #loggedAt = 0;

  constructor(options: LoggedProgressOptions) {
    this.#now = options.now;
    this.#intervalMs = options.intervalMs ?? PROGRESS_INTERVAL_MS;
    this.#logger = options.logger ?? getLogger(["stacksync", "progress"]);
  }

  start(kind: StageKind, user: string, total?: number): void {
    this.#stage = startStage(kind, { user, now: this.#now(), total });
    this.#loggedAt = this.#stage.startedAt;
  }

  advance(done: number, pages?: number): void {
    if (this.#stage === undefined) return;
    this.#stage = advanceStage(this.#stage, done, pages);
    const now = this.#now();
    if (now - this.#loggedAt < this.#intervalMs) return;
    this.#loggedAt = now;
    const { template, properties } = progressReport(this.#stage, now);
    // One constant template per shape of figures, never a message made from them.
    this.#logger.info(
      template === READING
        ? READING
        : template === READING_OF
        ? READING_OF
        : template === APPLYING
        ? APPLYING
        : DRY_RUN,
      properties,
    );
  }

  end(): void {
    this.#stage = undefined;
  }
}

/** Options of {@linkcode progressOf}. */
export interface ProgressOfOptions {
  /** The environment: `TERM`, `NO_COLOR`, and `STACKSYNC_PROGRESS_INTERVAL_MS` (for tests). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Writes to standard output and standard error. */
  readonly stdout: Write;
  readonly stderr: Write;
  /** Which of the two are terminals. */
  readonly terminal: { readonly stdout: boolean; readonly stderr: boolean };
  /** The clock, ms. */
  readonly now: () => number;
  /**
   * The terminal's width.
   * @default {the console's width, or 80 when it has none}
   */
  readonly columns?: () => number;
}

/** The console's width, or 80 when it tells none (a terminal of 0 columns tells none). */
function consoleColumns(): number {
  try {
    return Deno.consoleSize().columns || 80;
  } catch {
    return 80;
  }
}

/**
 * The process's progress, and its standard output and error as everything else writes them:
 * those that reach the terminal of the progress line keep out of its way.
 *
 * `STACKSYNC_PROGRESS_INTERVAL_MS` shortens the 10 s between log lines; it is internal, for the
 * tests of the log lines (0 logs every page and step), and no setting.
 *
 * @param options The environment, the writers and which are terminals, the clock.
 * @returns The progress and the writers.
 *
 * @example Without a terminal
 * ```ts
 * import assert from "node:assert/strict";
 * import { LoggedProgress, progressOf } from "./show.ts";
 *
 * const stdout = (_: string) => {};
 * const shown = progressOf({
 *   env: {},
 *   stdout,
 *   stderr: stdout,
 *   terminal: { stdout: false, stderr: false },
 *   now: () => 0,
 * });
 * assert.ok(shown.progress instanceof LoggedProgress);
 * assert.equal(shown.stdout, stdout);
 * ```
 */
export function progressOf(
  options: ProgressOfOptions,
): { readonly progress: Progress; readonly stdout: Write; readonly stderr: Write } {
  const { env, stdout, stderr, terminal, now } = options;
  if (progressMode(terminal.stderr, env) === "log") {
    const raw = env.STACKSYNC_PROGRESS_INTERVAL_MS?.trim();
    const interval = raw === undefined || raw === "" ? NaN : Number(raw);
    const intervalMs = Number.isInteger(interval) && interval >= 0
      ? interval
      : PROGRESS_INTERVAL_MS;
    return { progress: new LoggedProgress({ now, intervalMs }), stdout, stderr };
  }
  const line = new TerminalProgress({
    write: stderr,
    now,
    columns: options.columns ?? consoleColumns,
  });
  return {
    progress: line,
    // Standard output elsewhere (a file, a pipe) never meets the line.
    stdout: terminal.stdout ? line.around(stdout) : stdout,
    stderr: line.around(stderr),
  };
}
