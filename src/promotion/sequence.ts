/**
 * The `sequence` forms of PARENT_FILENAME_PROMOTE, and numeric lists detected as sequences.
 *
 * A sequence matcher reads the numbers of a file stem (the name without its extension) and
 * orders names by their numeric value, so frames past the listed items (`0120` after
 * `0000,0001,0002`) still order correctly. Numbers are whole digit runs: a matcher never takes
 * part of a longer run, so the digits of a date or time stamp are never read as a frame number.
 *
 * @module
 */
import { encodeNumber } from "./_names.ts";

/** The numbers a sequence matcher read from one file stem. */
export interface SequenceMatch {
  /**
   * Sortable form of the numbers: comparing two keys as strings compares the numbers by value,
   * first number first, and a name with fewer numbers first when all shared ones are equal.
   */
  readonly key: string;
  /** The matched digit runs as written in the name, for messages. */
  readonly numbers: readonly string[];
}

/** A compiled sequence form. */
export interface SequenceMatcher {
  /** The promote text it came from, for messages: `sequence:4`, or `0000,0001,0002`. */
  readonly label: string;
  /**
   * Reads the numbers of a file stem.
   *
   * @param stem The file name without its extension.
   * @returns The numbers, or `undefined` when the stem does not match this form.
   */
  readonly match: (stem: string) => SequenceMatch | undefined;
}

/**
 * A run of consecutive PARENT_FILENAME_PROMOTE items detected as one numeric sequence.
 *
 * Items `start` up to but excluding `end` are replaced by `matcher`, which ranks at `start`.
 */
export interface NumericList {
  readonly start: number;
  readonly end: number;
  readonly matcher: SequenceMatcher;
}

interface NumberForm {
  readonly prefix: string;
  readonly suffix: string;
  /** Exact digit count, or `undefined` for any count. */
  readonly digits: number | undefined;
}

const KEYWORD = /^sequence(?::(.*))?$/i;
const ONE_NUMBER = /^(\D*)(\d+)(\D*)$/;

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** Whether `text` holds `part` at `at`, ignoring case; `part` is already lower-case. */
function holdsAt(text: string, at: number, part: string): boolean {
  return part === "" ||
    (at >= 0 && text.slice(at, at + part.length).toLowerCase() === part);
}

function compileMatcher(label: string, form: NumberForm): SequenceMatcher {
  const prefix = form.prefix.toLowerCase();
  const suffix = form.suffix.toLowerCase();
  return {
    label,
    match(stem) {
      // A hand-written scan over whole digit runs: cheaper than a look-behind regex at 200 000
      // names, and a run is never split, so a date or time stamp is read whole or not at all.
      let numbers: string[] | undefined;
      let key = "";
      let end = 0;
      for (let start = 0; start < stem.length; start = end + 1) {
        while (start < stem.length && !isDigit(stem.charCodeAt(start))) start++;
        end = start;
        while (end < stem.length && isDigit(stem.charCodeAt(end))) end++;
        if (end === start) break;
        if (form.digits !== undefined && end - start !== form.digits) continue;
        if (!holdsAt(stem, start - prefix.length, prefix) || !holdsAt(stem, end, suffix)) continue;
        const digits = stem.slice(start, end);
        (numbers ??= []).push(digits);
        key += encodeNumber(digits);
      }
      return numbers === undefined ? undefined : { key, numbers };
    },
  };
}

/**
 * Compiles one `sequence` form of PARENT_FILENAME_PROMOTE.
 *
 * - `sequence` matches any number in the stem and orders by value;
 * - `sequence:<digits>` matches only numbers of exactly that many digits;
 * - `sequence:<prefix>` matches only a number directly after `<prefix>` (anywhere in the name,
 *   case-insensitive).
 *
 * The keyword is case-insensitive. When a stem holds several matching numbers they are
 * compared in turn, so the number that differs within a group decides (the frame counter of
 * `20240101_123456_001` rather than its shared date).
 *
 * @param item One trimmed PARENT_FILENAME_PROMOTE item.
 * @returns The matcher, or `undefined` when the item is not a `sequence` form.
 * @throws {RangeError} When the digit count is 0 or the prefix ends in a digit (that digit
 * would belong to the number and the prefix could never match).
 *
 * @example Frames ordered by number
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseSequenceKeyword } from "./sequence.ts";
 *
 * const four = parseSequenceKeyword("sequence:4")!;
 * assert.deepEqual(four.match("DSCPDC_0002_BURST20240101120000")?.numbers, ["0002"]);
 * assert.equal(four.match("IMG_12"), undefined);
 * assert.equal(parseSequenceKeyword("cover"), undefined);
 * ```
 */
export function parseSequenceKeyword(item: string): SequenceMatcher | undefined {
  const keyword = KEYWORD.exec(item);
  if (keyword === null) return undefined;
  const argument = keyword[1] ?? "";
  if (argument === "") return compileMatcher(item, { prefix: "", suffix: "", digits: undefined });
  if (/^\d+$/.test(argument)) {
    const digits = Number(argument);
    if (digits < 1) {
      throw new RangeError(
        "Cannot use PARENT_FILENAME_PROMOTE as a sequence digit count must be at least 1: " +
          `current value is ${item}`,
      );
    }
    return compileMatcher(item, { prefix: "", suffix: "", digits });
  }
  if (/\d$/.test(argument)) {
    throw new RangeError(
      "Cannot use PARENT_FILENAME_PROMOTE as a sequence prefix must not end in a digit: " +
        `current value is ${item}`,
    );
  }
  return compileMatcher(item, { prefix: argument, suffix: "", digits: undefined });
}

interface Candidate {
  readonly index: number;
  readonly text: string;
  /** Lower-case prefix and suffix joined, to compare shapes. */
  readonly shape: string;
  readonly prefix: string;
  readonly suffix: string;
  readonly value: string;
  readonly width: number;
  readonly padded: boolean;
}

function candidateOf(text: string, index: number): Candidate | undefined {
  const parts = ONE_NUMBER.exec(text);
  if (parts === null) return undefined;
  const [, prefix, digits, suffix] = parts;
  return {
    index,
    text,
    shape: `${prefix.toLowerCase()}\u0000${suffix.toLowerCase()}`,
    prefix,
    suffix,
    value: encodeNumber(digits),
    width: digits.length,
    padded: digits.length > 1 && digits.startsWith("0"),
  };
}

/** Whether `next` continues the run: same shape, a larger number, and a consistent padding. */
function continues(run: readonly Candidate[], next: Candidate): boolean {
  const last = run[run.length - 1];
  if (next.shape !== last.shape || next.value <= last.value) return false;
  const padded = next.padded || run.some((item) => item.padded);
  return !padded || run.every((item) => item.width === next.width);
}

function listOf(run: readonly Candidate[]): NumericList {
  const first = run[0];
  const last = run[run.length - 1];
  const label = run.length <= 3
    ? run.map((item) => item.text).join(",")
    : `${first.text},…,${last.text}`;
  // Zero-padded items (`0000`) fix the width, so a longer run such as a date never matches.
  const padded = run.some((item) => item.padded);
  return {
    start: first.index,
    end: last.index + 1,
    matcher: compileMatcher(label, {
      prefix: first.prefix,
      suffix: first.suffix,
      digits: padded ? first.width : undefined,
    }),
  };
}

/**
 * Finds runs of consecutive PARENT_FILENAME_PROMOTE items that form a numeric sequence.
 *
 * A run is two or more adjacent items that each hold exactly one number, share the text
 * before and after it (case-insensitive) and list the numbers in ascending order, such as
 * `0000,0001,0002`, `IMG_0001,IMG_0002` or `1a,2a,3a`. Zero-padded items only match numbers
 * of the same width. Items listed out of order are left as plain text items, so an explicit
 * order such as `0002,0001` keeps its meaning.
 *
 * @param items The trimmed PARENT_FILENAME_PROMOTE items, in order.
 * @returns The runs found, in list order; empty when there is none.
 *
 * @example Numbers past the listed ones
 * ```ts
 * import assert from "node:assert/strict";
 * import { detectNumericLists } from "./sequence.ts";
 *
 * const [list] = detectNumericLists(["cover", "0000", "0001", "0002"]);
 * assert.deepEqual([list.start, list.end], [1, 4]);
 * assert.deepEqual(list.matcher.match("DSC_0120")?.numbers, ["0120"]);
 * assert.equal(list.matcher.match("20240101_000123"), undefined);
 * ```
 */
export function detectNumericLists(items: readonly string[]): NumericList[] {
  const lists: NumericList[] = [];
  let run: Candidate[] = [];
  const close = () => {
    if (run.length >= 2) lists.push(listOf(run));
    run = [];
  };
  items.forEach((text, index) => {
    const candidate = KEYWORD.test(text) ? undefined : candidateOf(text, index);
    if (candidate === undefined) return close();
    if (run.length > 0 && !continues(run, candidate)) close();
    run.push(candidate);
  });
  close();
  return lists;
}
