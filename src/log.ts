/**
 * Logging for stacksync: LogTape configured to write logfmt (`text`) or JSON lines (`json`) to
 * standard output and, with LOG_FILE, appended to a file as well.
 *
 * Every module logs through `getLogger(["stacksync", "<module>"])` from `@logtape/logtape`, with
 * its fixed message text (a LogTape template such as `"Retry {attempt}/{max} after {delay}"` is
 * rendered with its values) and context fields as properties: `assetID`, `filename`, `stackID`,
 * `user`, `method`, `path`, `status`, `correlationID`, … A message is never built from data: a
 * file name such as `IMG_{1}.jpg` would be read as a template and lose its `{1}`. The data goes
 * in properties named by the template, or a text made whole elsewhere (a plan line, a summary)
 * goes through {@linkcode literal}; `deno lint` enforces it (`scripts/log_message_lint.ts`).
 * Every secret handed to {@linkcode setupLogging} is replaced by `[REDACTED]` in every line
 * before it is written.
 *
 * @module
 */
import { configure, getLogger, type LogLevel, type LogRecord, reset } from "@logtape/logtape";
import { dirname } from "node:path";
import { FILE_MODE, FOLDER_MODE } from "./private_files.ts";
import { writeAll } from "./write_all.ts";

export { writeAll };

/** The log levels a user can choose, least severe first. */
export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal"] as const;

/** A log level as LOG_LEVEL names it. */
export type LogLevelName = typeof LOG_LEVELS[number];

/** The line formats LOG_FORMAT accepts. */
export type LogFormat = "text" | "json";

/** What replaces a secret in every written line. */
export const REDACTED = "[REDACTED]";

/** The warning logged when LOG_FILE cannot be opened, in immich-stack's wording. */
export const LOG_FILE_FALLBACK = "Could not open log file, using stdout only";

/** Options of {@linkcode setupLogging}. */
export interface LogOptions {
  /** The least severe level that is written. */
  readonly level: LogLevelName;
  /** `text` = logfmt `time=… level=… msg="…" key=value`; `json` = one object per line. */
  readonly format: LogFormat;
  /** Also append every line to this file, created with its folders when missing. */
  readonly file?: string;
  /** Values that must never be written (API keys); each is replaced by `[REDACTED]`. */
  readonly secrets: readonly string[];
  /**
   * Writes one finished line (with its newline) to standard output.
   * @default a synchronous write to Deno.stdout
   */
  readonly write?: (line: string) => void;
}

/** The configured logging; dispose it before the process exits so the log file is closed. */
export interface Logging extends AsyncDisposable {
  /** Flushes and closes every output and resets LogTape. */
  dispose(): Promise<void>;
}

function writeStdout(line: string): void {
  writeAll(Deno.stdout, line);
}

/**
 * Replaces every secret in a text by `[REDACTED]`.
 *
 * @param text The text to clean.
 * @param secrets The values to hide; empty strings are ignored.
 * @returns The text without any of the secrets.
 *
 * @example Usage
 * ```ts
 * import { redact } from "./log.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(redact("key=abc123 failed", ["abc123"]), "key=[REDACTED] failed");
 * ```
 */
export function redact(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    // Looking before replacing: a line is redacted field by field and then whole, and almost
    // never holds a secret.
    if (secret !== "" && result.includes(secret)) result = result.replaceAll(secret, REDACTED);
  }
  return result;
}

/**
 * A finished text as a log message that LogTape writes as it is: its braces are escaped, so
 * `{…}` in a file name, path or reason is no placeholder. For texts made whole elsewhere (a plan
 * line, a summary); a message with data in it is better a constant template with the data as
 * properties, which JSON lines then carry as fields.
 *
 * @param text The text to log.
 * @returns The text as a LogTape message template that renders to exactly `text`.
 *
 * @example Usage
 * ```ts
 * import { literal } from "./log.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(literal("Moved IMG_{1}.jpg"), "Moved IMG_{{1}}.jpg");
 * assert.equal(literal("IMG_1}.jpg"), "IMG_1}.jpg");
 * ```
 */
export function literal(text: string): string {
  // LogTape reads a message without "{" as it is, "}}" included: only a "{" needs escaping.
  if (!text.includes("{")) return text;
  return text.replaceAll("{", "{{").replaceAll("}", "}}");
}

/** The forms a secret can take inside a written line: as is, and escaped as JSON would. */
function secretForms(secrets: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret === "") continue;
    forms.add(secret);
    forms.add(JSON.stringify(secret).slice(1, -1));
  }
  // Longest first, so a secret that contains another one is hidden whole.
  return [...forms].sort((a, b) => b.length - a.length);
}

function levelName(level: LogLevel): string {
  return level === "warning" ? "warn" : level;
}

function lowestLevel(level: LogLevelName): LogLevel {
  return level === "warn" ? "warning" : level;
}

function describeError(error: Error): string {
  const parts = [error.message];
  let cause = error.cause;
  while (cause !== undefined && parts.length < 10) {
    parts.push(cause instanceof Error ? cause.message : String(cause));
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return parts.join(": ");
}

/** Turns a property value into plain JSON data, with secrets removed from every string. */
function plain(value: unknown, secrets: readonly string[], depth = 0): unknown {
  if (typeof value === "string") return redact(value, secrets);
  if (value instanceof Error) return redact(describeError(value), secrets);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "bigint" || typeof value === "symbol" || typeof value === "function") {
    return redact(String(value), secrets);
  }
  if (value === null || typeof value !== "object") return value;
  if (depth > 20) return "[too deep]";
  if (Array.isArray(value)) return value.map((item) => plain(item, secrets, depth + 1));
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
  return Object.fromEntries(
    entries.map(([key, item]) => [redact(String(key), secrets), plain(item, secrets, depth + 1)]),
  );
}

function renderMessage(record: LogRecord): string {
  return record.message.map((part, index) => {
    if (index % 2 === 0) return String(part);
    if (typeof part === "string") return part;
    if (part instanceof Error) return describeError(part);
    return JSON.stringify(plain(part, [])) ?? String(part);
  }).join("");
}

/** The fields of one line, in output order: time, level, msg, then the context fields. */
function fields(record: LogRecord, secrets: readonly string[]): Record<string, unknown> {
  const line: Record<string, unknown> = {
    time: new Date(record.timestamp).toISOString(),
    level: levelName(record.level),
    msg: redact(renderMessage(record), secrets),
  };
  const { properties } = record;
  for (const key of Object.keys(properties)) {
    const value = properties[key];
    if (value === undefined || key in line) continue;
    line[redact(key, secrets)] = plain(value, secrets);
  }
  return line;
}

/**
 * What makes logfmt quote a value: white space, a quote, `=`, a backslash or a control character
 * (Unicode's Cc, all of them below U+00A0; without the `u` flag the test is several times
 * cheaper on the long `files` values of every action's line).
 */
// deno-lint-ignore no-control-regex -- control characters are what it looks for
const NEEDS_QUOTES = /[\s"=\\\x00-\x1f\x7f-\x9f]/;

/** logfmt needs quotes around empty values and values holding spaces, quotes, `=` or controls. */
function logfmtValue(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? "";
  if (text !== "" && !NEEDS_QUOTES.test(text)) return text;
  return JSON.stringify(text);
}

/**
 * Renders one record as a logfmt line, without its newline.
 *
 * @param record The LogTape record.
 * @param secrets Values to replace by `[REDACTED]`.
 * @returns `time=<ISO 8601> level=<level> msg="<message>" key=value …`
 *
 * @example Usage
 * ```ts
 * import { formatText } from "./log.ts";
 * import assert from "node:assert/strict";
 *
 * const line = formatText({
 *   category: ["stacksync", "run"],
 *   level: "info",
 *   message: ["Processing user: ", "alice", ""],
 *   rawMessage: "Processing user: {user}",
 *   timestamp: Date.UTC(2024, 0, 31, 12),
 *   properties: { user: "alice", stackID: "s 1" },
 * }, []);
 * assert.equal(
 *   line,
 *   'time=2024-01-31T12:00:00.000Z level=info msg="Processing user: alice" user=alice stackID="s 1"',
 * );
 * ```
 */
export function formatText(record: LogRecord, secrets: readonly string[]): string {
  const line = fields(record, secrets);
  let text = "";
  for (const key of Object.keys(line)) {
    text += `${text === "" ? "" : " "}${logfmtValue(key)}=${logfmtValue(line[key])}`;
  }
  return text;
}

/**
 * Renders one record as a JSON object on one line, without its newline.
 *
 * @param record The LogTape record.
 * @param secrets Values to replace by `[REDACTED]`.
 * @returns `{"time":…,"level":…,"msg":…, …context fields}`
 *
 * @example Usage
 * ```ts
 * import { formatJson } from "./log.ts";
 * import assert from "node:assert/strict";
 *
 * const line = formatJson({
 *   category: ["stacksync", "apply"],
 *   level: "warning",
 *   message: ["Retry ", 1, "/", 3, " after ", "500ms", ""],
 *   rawMessage: "Retry {attempt}/{max} after {delay}",
 *   timestamp: Date.UTC(2024, 0, 31, 12),
 *   properties: { attempt: 1, max: 3, delay: "500ms" },
 * }, []);
 * assert.deepEqual(JSON.parse(line), {
 *   time: "2024-01-31T12:00:00.000Z",
 *   level: "warn",
 *   msg: "Retry 1/3 after 500ms",
 *   attempt: 1,
 *   max: 3,
 *   delay: "500ms",
 * });
 * ```
 */
export function formatJson(record: LogRecord, secrets: readonly string[]): string {
  return JSON.stringify(fields(record, secrets));
}

/** Opens LOG_FILE to append; when stacksync creates it (or its folders), they are owner-only. */
function openLogFile(path: string): Deno.FsFile {
  Deno.mkdirSync(dirname(path), { recursive: true, mode: FOLDER_MODE });
  return Deno.openSync(path, { append: true, create: true, write: true, mode: FILE_MODE });
}

/**
 * Configures LogTape for the whole process: the `stacksync` category goes to standard output
 * (and LOG_FILE) at the chosen level; LogTape's own meta logger reports only errors.
 *
 * Calling it again replaces the previous configuration (tests do this).
 *
 * @param options Level, format, log file, secrets and the stdout writer.
 * @returns The logging handle; dispose it to close the log file.
 *
 * @example Usage
 * ```ts
 * import { setupLogging } from "./log.ts";
 * import { getLogger } from "@logtape/logtape";
 * import assert from "node:assert/strict";
 *
 * const lines: string[] = [];
 * const logging = await setupLogging({
 *   level: "info",
 *   format: "json",
 *   secrets: ["k3y"],
 *   write: (line) => lines.push(line),
 * });
 * getLogger(["stacksync", "example"]).info("Processing user: {user}", { user: "k3y" });
 * getLogger(["stacksync", "example"]).debug("not written at info");
 * await logging.dispose();
 * assert.equal(lines.length, 1);
 * assert.equal(JSON.parse(lines[0]).msg, "Processing user: [REDACTED]");
 * ```
 */
export async function setupLogging(options: LogOptions): Promise<Logging> {
  const write = options.write ?? writeStdout;
  const forms = secretForms(options.secrets);
  const format = options.format === "json" ? formatJson : formatText;

  let file: Deno.FsFile | undefined;
  let fileError: unknown;
  if (options.file !== undefined) {
    try {
      file = openLogFile(options.file);
    } catch (error) {
      fileError = error;
    }
  }

  const sink = (record: LogRecord): void => {
    // Redact the finished line too, so a secret split across fields or escaped is still caught.
    const line = `${redact(format(record, forms), forms)}\n`;
    write(line);
    if (file !== undefined) writeAll(file, line);
  };

  await configure({
    reset: true,
    sinks: { out: sink },
    loggers: [
      { category: ["stacksync"], sinks: ["out"], lowestLevel: lowestLevel(options.level) },
      // LogTape announces its own configuration on the meta logger; only its errors matter here.
      { category: ["logtape", "meta"], sinks: ["out"], lowestLevel: "error" },
    ],
  });

  if (fileError !== undefined) {
    getLogger(["stacksync", "log"]).warn(LOG_FILE_FALLBACK, {
      file: options.file,
      error: fileError,
    });
  }

  const dispose = async (): Promise<void> => {
    await reset();
    file?.close();
    file = undefined;
  };
  return { dispose, [Symbol.asyncDispose]: dispose };
}
