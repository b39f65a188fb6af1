/**
 * Per-asset value extraction for grouping: text values (split, regex) and times.
 *
 * @module
 */

import type { Asset, SkipReason } from "../model.ts";
import type { TextCriterion } from "./criteria.ts";

/** Why a criterion could not compute a value for an asset. */
export interface ValueFailure {
  /** The skip reason to report. */
  readonly reason: SkipReason;
  /** The offending value, for the log. */
  readonly detail: string;
}

/**
 * The value of a text criterion for one asset.
 *
 * A regex sees the whole file name; a split on a file name sees it without its extension (so
 * `IMG_1.JPG` and `IMG_1.CR3` agree); a path is taken as given.
 *
 * @param asset the asset
 * @param criterion the text criterion
 * @returns the non-empty value, or why there is none
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { textValue } from "./_extract.ts";
 * import type { Asset } from "../model.ts";
 *
 * const asset = { originalFileName: "IMG_1234~2.JPG" } as Asset;
 * const split = { delimiters: ["~", "."], index: 0 };
 * assert.equal(textValue(asset, { key: "originalFileName", split }), "IMG_1234");
 * ```
 */
export function textValue(
  asset: Asset,
  criterion: Omit<TextCriterion, "kind">,
): string | ValueFailure {
  const { key, split, regex } = criterion;
  const raw = asset[key] ?? "";
  if (regex) {
    const match = regex.pattern.exec(raw);
    if (match === null) {
      return { reason: "regex-miss", detail: `${regex.pattern} does not match ${quote(raw)}` };
    }
    const value = match[regex.index];
    if (!value) {
      return {
        reason: "regex-miss",
        detail: `capture group ${regex.index} of ${regex.pattern} is empty in ${quote(raw)}`,
      };
    }
    return value;
  }
  const text = key === "originalFileName" ? withoutExtension(raw) : raw;
  if (split) {
    const value = splitPart(text, split.delimiters, split.index);
    if (typeof value === "number") {
      return {
        reason: "split-out-of-range",
        detail: `${quote(text)} has ${value} parts, index ${split.index} asked`,
      };
    }
    if (value) return value;
    return { reason: "missing-value", detail: `part ${split.index} of ${quote(text)} is empty` };
  }
  return text || { reason: "missing-value", detail: `${key} is empty` };
}

/**
 * Parses an ISO 8601 date-time (`YYYY-MM-DDTHH:MM[:SS[.fraction]][Z|±HH[:]MM]`) into epoch
 * milliseconds. A time without an offset is read as UTC (as Immich's localDateTime is meant),
 * never in the machine's time zone. Hand-written because it runs once per asset and time key,
 * and because `Date.parse` guesses at non-ISO text instead of rejecting it.
 *
 * @param text the server's time text
 * @returns epoch milliseconds, or NaN when the text is not a valid ISO 8601 date-time
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseTime } from "./_extract.ts";
 *
 * assert.equal(parseTime("2024-01-01T00:00:01.500+00:00"), 1704067201500);
 * assert.equal(parseTime("2024-01-01T01:00:01.5+01:00"), 1704067201500);
 * assert.ok(Number.isNaN(parseTime("yesterday")));
 * assert.ok(Number.isNaN(parseTime("2023-02-29T00:00:00Z")));
 * ```
 */
export function parseTime(text: string): number {
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  if (
    text.charCodeAt(4) !== DASH || text.charCodeAt(7) !== DASH ||
    (text.charCodeAt(10) | 0x20) !== LOWER_T || text.charCodeAt(13) !== COLON ||
    month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) ||
    hour > 23 || minute > 59
  ) return NaN;
  let at = 16;
  let second = 0;
  let ms = 0;
  if (text.charCodeAt(at) === COLON) {
    second = digits(text, at + 1, 2);
    if (second > 59) return NaN;
    at += 3;
    if (text.charCodeAt(at) === DOT) {
      const start = ++at;
      while (isDigit(text.charCodeAt(at))) at++;
      if (at === start) return NaN;
      // Milliseconds are the first three fraction digits; finer ones are dropped, as Date does.
      for (let i = start; i < start + 3; i++) ms = ms * 10 + (i < at ? text.charCodeAt(i) - 48 : 0);
    }
  }
  let offsetMinutes = 0;
  if (at < text.length) {
    const sign = text.charCodeAt(at);
    if ((sign | 0x20) === LOWER_Z) at++;
    else if (sign === PLUS || sign === DASH) {
      const colon = text.charCodeAt(at + 3) === COLON ? 1 : 0;
      const hours = digits(text, at + 1, 2);
      const minutes = digits(text, at + 3 + colon, 2);
      if (hours > 23 || minutes > 59) return NaN;
      offsetMinutes = (sign === PLUS ? 1 : -1) * (hours * 60 + minutes);
      at += 5 + colon;
    }
    if (at !== text.length) return NaN;
  }
  const days = daysFromCivil(year, month, day);
  return (((days * 24 + hour) * 60 + minute - offsetMinutes) * 60 + second) * 1000 + ms;
}

/**
 * A time as immich-stack writes it for a regex on a time key: UTC with nine fraction digits,
 * cut down to a multiple of the delta.
 *
 * @param text The server's time text.
 * @param deltaMs The criterion's delta; 0 for none.
 * @returns The text, e.g. `2024-05-01T10:00:00.000000000Z`; "" for a time that does not parse.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { immichStackTime } from "./_extract.ts";
 *
 * assert.equal(immichStackTime("2024-05-01T10:00:00.750Z", 1000), "2024-05-01T10:00:00.000000000Z");
 * assert.equal(immichStackTime("2024-05-01T12:00:00.5+02:00", 0), "2024-05-01T10:00:00.500000000Z");
 * ```
 */
export function immichStackTime(text: string, deltaMs: number): string {
  const time = parseTime(text);
  if (Number.isNaN(time)) return "";
  const cut = deltaMs > 0 ? Math.floor(time / deltaMs) * deltaMs : time;
  return new Date(cut).toISOString().replace(/Z$/, "000000Z");
}

const DASH = 45;
const PLUS = 43;
const DOT = 46;
const COLON = 58;
const LOWER_T = 116;
const LOWER_Z = 122;

/**
 * Whether a UTF-16 code unit is an ASCII digit.
 *
 * @param code The code unit (`text.charCodeAt(i)`; NaN past the end).
 * @returns True for `0` to `9`.
 */
export function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** The number written by `length` digits at `at`, or NaN when any is not a digit. */
function digits(text: string, at: number, length: number): number {
  let value = 0;
  for (let i = at; i < at + length; i++) {
    const code = text.charCodeAt(i);
    if (!isDigit(code)) return NaN;
    value = value * 10 + code - 48;
  }
  return value;
}

function daysInMonth(year: number, month: number): number {
  if (month !== 2) return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) +
    dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

function withoutExtension(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot === -1 ? name : name.slice(0, dot);
}

/**
 * Part `index` of `text` split at each delimiter in turn (immich-stack's order), or the number
 * of parts when there are not enough. Single-character delimiters cannot overlap, so splitting
 * at each in turn equals cutting at any of them: that common case scans without allocating.
 */
function splitPart(text: string, delimiters: readonly string[], index: number): string | number {
  let singleCharacters = true;
  for (const d of delimiters) singleCharacters &&= d.length === 1;
  if (singleCharacters) {
    let part = 0;
    let start = 0;
    for (let i = 0; i <= text.length; i++) {
      if (i < text.length && !isDelimiter(text.charCodeAt(i), delimiters)) continue;
      if (part === index) return text.slice(start, i);
      part++;
      start = i + 1;
    }
    return part;
  }
  const parts = splitAll(text, delimiters);
  return index < parts.length ? parts[index] : parts.length;
}

function isDelimiter(code: number, delimiters: readonly string[]): boolean {
  for (const d of delimiters) if (d.charCodeAt(0) === code) return true;
  return false;
}

function splitAll(text: string, delimiters: readonly string[]): string[] {
  let parts = text.split(delimiters[0]);
  for (let d = 1; d < delimiters.length; d++) {
    const next: string[] = [];
    for (const part of parts) {
      for (const piece of part.split(delimiters[d])) next.push(piece);
    }
    parts = next;
  }
  return parts;
}

function quote(text: string): string {
  return JSON.stringify(text);
}
