/**
 * The zod schemas that turn a setting's raw text into its value: booleans, words, lists,
 * numbers, shares, dates, addresses and the grouping criteria. Each message says what the value
 * must be; `loadSettings` names the setting before it.
 *
 * @module
 */
import { z } from "zod";
import { parseRules } from "../grouping/criteria.ts";
import type { DeletionLimit } from "../reconcile/deletions.ts";
import { parseSequenceKeyword } from "../promotion/sequence.ts";

const TRUE_WORDS = ["true", "1", "yes"];
const BOOLEAN_WORDS = ["true", "false", "1", "0", "yes", "no"];

/** A boolean: true, false, 1, 0, yes or no, in any case. */
export const bool = z.string().transform((raw, ctx) => {
  const word = raw.trim().toLowerCase();
  if (!BOOLEAN_WORDS.includes(word)) {
    ctx.addIssue({ code: "custom", message: `must be one of ${BOOLEAN_WORDS.join(", ")}` });
    return z.NEVER;
  }
  return TRUE_WORDS.includes(word);
});

/** One of `values`, in any case. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.string().transform((raw, ctx) => {
    const word = raw.trim().toLowerCase();
    const found = values.find((value): value is T[number] => value === word);
    if (found === undefined) {
      ctx.addIssue({ code: "custom", message: `must be one of ${values.join(", ")}` });
      return z.NEVER;
    }
    return found;
  });
}

/** Splits a comma-separated list; items are trimmed, empty items kept (they carry meaning). */
export const list = z.string().transform((raw) => raw.split(",").map((item) => item.trim()));

/**
 * PARENT_FILENAME_PROMOTE: a list whose `sequence` forms must be well formed; "" (an empty
 * flag) is an empty list.
 */
export const promoteList = list.transform((given, ctx) => {
  const items = given.length === 1 && given[0] === "" ? [] : given;
  for (const item of items) {
    try {
      parseSequenceKeyword(item);
    } catch (error) {
      const problem = (error as Error).message.replace(/^Cannot use \S+ as /, "");
      ctx.addIssue({ code: "custom", message: problem.replace(/: current value is .*$/, "") });
      return z.NEVER;
    }
  }
  return items;
});

/** The largest value a whole-number setting takes, and that value in words. */
export interface Bound {
  readonly max: number;
  readonly words: string;
}

/**
 * A whole number of at least 1, and at most `bound.max` when given; `unit` ends the message
 * ("of seconds").
 */
export function positiveWhole(unit = "", bound?: Bound) {
  return z.string().transform((raw, ctx) => {
    const text = raw.trim();
    const max = bound?.max ?? Number.MAX_SAFE_INTEGER;
    if (!/^[0-9]+$/.test(text) || Number(text) < 1 || Number(text) > max) {
      const message = bound === undefined
        ? `must be a positive whole number${unit}`
        : `must be a whole number${unit} from 1 to ${bound.max} (${bound.words})`;
      ctx.addIssue({ code: "custom", message });
      return z.NEVER;
    }
    return Number(text);
  });
}

/** The most writes STACK_CONCURRENCY may put in flight at once. */
export const MAX_CONCURRENCY = 100;

/** STACK_CONCURRENCY: a whole number up to the maximum; immich-stack reads 0 as 1. */
export const concurrency = z.string().transform((raw, ctx) => {
  const text = raw.trim();
  if (!/^[0-9]+$/.test(text) || Number(text) > MAX_CONCURRENCY) {
    ctx.addIssue({
      code: "custom",
      message: `must be a whole number from 1 to ${MAX_CONCURRENCY}`,
    });
    return z.NEVER;
  }
  return Math.max(1, Number(text));
});

/** A share in per cent, from 0 to 100. */
export const percent = z.string().transform((raw, ctx) => {
  const text = raw.trim().replace(/%$/, "");
  if (!/^[0-9]+(\.[0-9]+)?$/.test(text) || Number(text) > 100) {
    ctx.addIssue({ code: "custom", message: "must be a number from 0 to 100" });
    return z.NEVER;
  }
  return Number(text);
});

/** MAX_STACK_DELETIONS: a whole number of stacks, or a share of them such as `10%`. */
export const deletionLimit = z.string().transform((raw, ctx): DeletionLimit => {
  const text = raw.trim();
  const share = /^([0-9]+(\.[0-9]+)?) ?%$/.exec(text);
  if (share !== null && Number(share[1]) <= 100) return { percent: Number(share[1]) };
  if (/^[0-9]+$/.test(text) && Number.isSafeInteger(Number(text))) return { count: Number(text) };
  ctx.addIssue({
    code: "custom",
    message: "must be a whole number of stacks such as 50, or a share of the user's stacks " +
      "from 0% to 100% such as 10%",
  });
  return z.NEVER;
});

/** A whole number of 0 or more. */
export const wholeNumber = z.string().transform((raw, ctx) => {
  const text = raw.trim();
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    ctx.addIssue({ code: "custom", message: "must be a whole number of 0 or more" });
    return z.NEVER;
  }
  return Number(text);
});

/** API_URL: an http(s) address, without a trailing slash. */
export const httpUrl = z.string().transform((raw, ctx) => {
  const url = URL.parse(raw.trim());
  if (url === null || (url.protocol !== "http:" && url.protocol !== "https:")) {
    ctx.addIssue({
      code: "custom",
      message: "must be an http(s) URL such as http://immich:2283/api",
    });
    return z.NEVER;
  }
  // Keep any path prefix (reverse proxies); drop a trailing slash so paths join cleanly.
  return url.href.replace(/\/+$/, "");
});

const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** True when year, month and day name a real calendar day (Date.parse rolls 02-30 over). */
function isCalendarDay(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** An ISO 8601 date or date-time of a real calendar day, as an ISO string in UTC. */
export const isoDate = z.string().transform((raw, ctx) => {
  const text = raw.trim();
  const match = ISO_8601.exec(text);
  if (
    match === null || Number.isNaN(Date.parse(text)) ||
    !isCalendarDay(Number(match[1]), Number(match[2]), Number(match[3]))
  ) {
    ctx.addIssue({
      code: "custom",
      message: "must be an ISO 8601 date or date-time such as 2024-01-31 or 2024-01-31T12:00:00Z",
    });
    return z.NEVER;
  }
  return new Date(text).toISOString();
});

/** Prefix of every CRITERIA error; {@linkcode parseRules} already starts with it. */
export const CRITERIA_PREFIX = "Invalid grouping criteria: ";

/**
 * CRITERIA stays the parsed JSON, so `parseRules(settings.criteria)` works where it is used;
 * it is validated here too, so a bad schema stops the run before any request.
 */
export const criteriaJson = z.string().transform((raw, ctx) => {
  try {
    const json = JSON.parse(raw) as unknown;
    parseRules(json);
    return json;
  } catch (error) {
    ctx.addIssue({
      code: "custom",
      message: (error as Error).message.replace(CRITERIA_PREFIX, ""),
    });
    return z.NEVER;
  }
});

/** Any text, as given. */
export const text = z.string();
