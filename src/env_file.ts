/**
 * A strict reader of env files: every line is a comment, blank, or `NAME=value`, and anything
 * else is an error naming the line, so that a line the reader cannot understand is never
 * silently dropped or half-read.
 *
 * The grammar, per line (lines end in LF or CRLF; a UTF-8 byte order mark at the start is
 * skipped):
 *
 * - blank, or `#` after optional spaces: ignored;
 * - `NAME=value`, optionally preceded by `export ` and with spaces or tabs around `=`;
 * - an unquoted value runs to the end of the line or to a `#` that starts it or follows a space
 *   or tab (a comment); spaces around it are dropped, spaces inside kept; it may not hold a quote;
 * - `'value'`: taken literally, up to the next `'`;
 * - `"value"`: with the escapes `\\`, `\"`, `\n`, `\r` and `\t`; any other backslash is an error;
 * - after a closing quote only spaces, and then a `# comment`, may follow;
 * - a quoted value ends on its own line: values cannot span lines;
 * - `$NAME` and `${NAME}` in unquoted and double-quoted values are errors, not expanded: tools
 *   disagree on expanding them, so a value is written out, or single-quoted to keep the `$`;
 * - control characters other than tab are errors; so is a name set twice.
 *
 * Whether a name is a setting is for the caller to judge: {@linkcode parseEnvFile} only reads.
 *
 * @module
 */

/** One `NAME=value` line of an env file. */
export interface EnvEntry {
  /** The name as written (any word without spaces, quotes or `=`). */
  readonly name: string;
  /** The value after quotes and escapes. */
  readonly value: string;
  /** The line it is on, from 1. */
  readonly line: number;
}

/** A line of an env file that is not a comment, blank or `NAME=value`. */
export class EnvFileError extends SyntaxError {
  /** The line, from 1. */
  readonly line: number;
  /** What is wrong with it, without the line number. */
  readonly problem: string;

  /**
   * @param line The line, from 1.
   * @param problem What is wrong with it.
   */
  constructor(line: number, problem: string) {
    super(`line ${line}: ${problem}`);
    this.name = "EnvFileError";
    this.line = line;
    this.problem = problem;
  }
}

/** Options of {@linkcode parseEnvFile}. */
export interface ParseEnvFileOptions {
  /**
   * Tells whether a word may be shown in a message; a word that may be a secret (a key written
   * on a line of its own) is described instead of quoted.
   *
   * @default every word may be shown
   */
  readonly mayShow?: (word: string) => boolean;
}

const BLANK = /^[ \t]*$/;
const COMMENT = /^[ \t]*#/;
const EXPORT = /^export[ \t]+/;
const SPACE = /[ \t]/;
// Control characters other than tab, and DEL.
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;
const EXPANSION = /\$(\{|[A-Za-z_][A-Za-z0-9_]*)/;
const ESCAPES: Readonly<Record<string, string>> = {
  "\\": "\\",
  '"': '"',
  n: "\n",
  r: "\r",
  t: "\t",
};

/**
 * Reads the text of an env file into its entries, in file order.
 *
 * @param text The whole file.
 * @param options Which words messages may show.
 * @returns One entry per `NAME=value` line.
 * @throws {EnvFileError} For the first line that is not a comment, blank or `NAME=value`, for
 * an unclosed quote, an unknown escape, a `$` expansion, a control character, or a name set twice.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseEnvFile } from "./env_file.ts";
 *
 * const text = '# settings\nexport DRY_RUN=true\nCRITERIA=\'[{"key":"localDateTime"}]\'\r\n';
 * assert.deepEqual(parseEnvFile(text), [
 *   { name: "DRY_RUN", value: "true", line: 2 },
 *   { name: "CRITERIA", value: '[{"key":"localDateTime"}]', line: 3 },
 * ]);
 * assert.throws(() => parseEnvFile("DRY_RUN true"), {
 *   name: "EnvFileError",
 *   message: 'line 1: expected NAME=value, found no "=" after DRY_RUN',
 * });
 * ```
 */
export function parseEnvFile(text: string, options: ParseEnvFileOptions = {}): EnvEntry[] {
  const mayShow = options.mayShow ?? (() => true);
  const lines = text.replace(/^\uFEFF/, "").split("\n");
  const entries: EnvEntry[] = [];
  const firstLine = new Map<string, number>();
  for (const [index, raw] of lines.entries()) {
    const line = index + 1;
    const content = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (BLANK.test(content) || COMMENT.test(content)) continue;
    const entry = parseLine(content.replace(/^[ \t]+/, "").replace(EXPORT, ""), line, mayShow);
    const first = firstLine.get(entry.name);
    if (first !== undefined) {
      throw new EnvFileError(
        line,
        `${shown(entry.name, mayShow)} is set again (first on line ${first}): keep one`,
      );
    }
    firstLine.set(entry.name, line);
    entries.push(entry);
  }
  return entries;
}

function shown(name: string, mayShow: (word: string) => boolean): string {
  return mayShow(name) ? name : "the name on this line";
}

function parseLine(text: string, line: number, mayShow: (word: string) => boolean): EnvEntry {
  const equals = text.indexOf("=");
  if (equals < 0) {
    const word = /^[^ \t]+/.exec(text)?.[0] ?? "";
    const after = /^[A-Za-z_][A-Za-z0-9_]*$/.test(word) && mayShow(word) ? ` after ${word}` : "";
    throw new EnvFileError(line, `expected NAME=value, found no "="${after}`);
  }
  const name = text.slice(0, equals).replace(/[ \t]+$/, "");
  if (name === "") throw new EnvFileError(line, 'expected NAME=value, found no name before "="');
  if (/[ \t"'#]/.test(name) || CONTROL.test(name)) {
    throw new EnvFileError(
      line,
      'expected NAME=value: the name before "=" must be one word of letters, digits and _',
    );
  }
  const value = parseValue(text.slice(equals + 1).replace(/^[ \t]+/, ""), {
    line,
    name: shown(name, mayShow),
  });
  return { name, value, line };
}

interface Place {
  readonly line: number;
  /** The name as messages may show it. */
  readonly name: string;
}

function parseValue(text: string, place: Place): string {
  const { line, name } = place;
  const quote = text[0];
  if (quote !== "'" && quote !== '"') return parseUnquoted(text, place);
  let value = "";
  let end = -1;
  for (let i = 1; i < text.length; i++) {
    const char = text[i];
    if (char === quote) {
      end = i;
      break;
    }
    if (quote === '"' && char === "\\") {
      const next = text[i + 1];
      if (next === undefined) break;
      const escaped = ESCAPES[next];
      if (escaped === undefined) {
        throw new EnvFileError(
          line,
          `unknown escape \\${next} in the double-quoted value of ${name}: use \\\\, \\", \\n, ` +
            "\\r or \\t, or single quotes for a literal backslash",
        );
      }
      value += escaped;
      i++;
      continue;
    }
    value += char;
  }
  if (end < 0) {
    throw new EnvFileError(
      line,
      `the value of ${name} opens a ${quote} quote that is not closed on the same line`,
    );
  }
  const rest = text.slice(end + 1);
  if (!BLANK.test(rest) && !/^[ \t]+#/.test(rest)) {
    // JSON in double quotes (CRITERIA="[{"key":…}]") ends at its first inner quote.
    const advice = quote === '"' && rest.includes('"')
      ? `: a value holding " (such as JSON) goes in single quotes, ${name}='…'`
      : ": only a # comment may follow";
    throw new EnvFileError(line, `text after the closing quote of ${name}${advice}`);
  }
  const raw = text.slice(1, end);
  checkCharacters(raw, place);
  if (quote === '"') checkExpansion(raw, place);
  return value;
}

function parseUnquoted(text: string, place: Place): string {
  let end = text.length;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "#" && (i === 0 || SPACE.test(text[i - 1]))) {
      end = i;
      break;
    }
  }
  const value = text.slice(0, end).replace(/[ \t]+$/, "");
  if (/["']/.test(value)) {
    throw new EnvFileError(
      place.line,
      `a quote inside the unquoted value of ${place.name}: put the whole value in single ` +
        `quotes, ${place.name}='…', which keep it as written`,
    );
  }
  checkCharacters(value, place);
  checkExpansion(value, place);
  return value;
}

function checkCharacters(text: string, place: Place): void {
  const control = CONTROL.exec(text);
  if (control === null) return;
  const code = control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
  throw new EnvFileError(
    place.line,
    `the value of ${place.name} holds the control character U+${code}`,
  );
}

function checkExpansion(text: string, place: Place): void {
  const expansion = EXPANSION.exec(text);
  if (expansion === null) return;
  const shown = expansion[1] === "{" ? "${…}" : expansion[0];
  throw new EnvFileError(
    place.line,
    `the value of ${place.name} holds ${shown}, but stacksync does not expand variables: ` +
      "write the value itself, or put it in single quotes to keep the $",
  );
}
