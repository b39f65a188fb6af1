/**
 * What the parent order (src/promotion/parent.ts) compares: each asset's key, and the rules that
 * compare two keys and explain a win, in order.
 *
 * @module
 */
import type { Asset, RegexPromotion } from "../model.ts";
import type { ParentRule } from "./parent.ts";
import type { SequenceMatch } from "./sequence.ts";

/** How one matched promote item is shown in messages. */
export interface Placement {
  /** Sort position; `Infinity` when nothing matched. */
  readonly position: number;
  readonly label: string;
}

/** One PARENT_FILENAME_PROMOTE item that names match against, at its list position. */
export interface FilenameMatcher {
  readonly position: number;
  readonly label: string;
  /** Whether it reads the stem (a `sequence` form): plain text reads the lower-case name only. */
  readonly readsStem: boolean;
  /** The sequence numbers of a match (none for plain text), or `undefined` for no match. */
  readonly match: (lowerName: string, stem: string) => SequenceMatch | undefined;
}

export interface CompiledOptions {
  readonly regexPromotions: readonly CompiledRegex[];
  readonly filename: readonly FilenameMatcher[];
  /** Where a name that matches no item ranks: the empty item's place, else last. */
  readonly unmatched: Placement;
  /** Whether some matcher reads the stem, so that keys cut it out. */
  readonly readsStem: boolean;
  readonly biggestNumber: boolean;
  readonly delimiters: readonly string[];
  readonly extensions: ReadonlyMap<string, number>;
  readonly emptyExtensionPosition: number | undefined;
  /** Multiplies the size into its sort key: -1 biggest first, 1 smallest first, 0 off. */
  readonly sizeSign: number;
  readonly sizeLabel: string;
}

export interface CompiledRegex {
  readonly field: RegexPromotion["field"];
  readonly pattern: RegExp;
  readonly promoteIndex: number;
  readonly ranks: ReadonlyMap<string, number>;
}

/** Everything the order compares, computed once per asset. */
export interface AssetKey {
  readonly asset: Asset;
  readonly regex: Placement;
  readonly filename: Placement;
  readonly sequence: string;
  readonly sequenceNumbers: readonly string[];
  /** 0 when the default rules prefer the asset as the cover, else 1. */
  readonly preferred: number;
  /** Sortable number after the last delimiter; "" when there is none. */
  readonly number: string;
  readonly numberText: string;
  /** Place in PARENT_EXT_PROMOTE; `Infinity` when not listed. */
  readonly extensionPosition: number;
  /** The extension, lower-case with its dot. */
  readonly extension: string;
  readonly builtin: number;
  /** Size in sort direction, `Infinity` when unknown or unused. */
  readonly size: number;
  readonly lowerName: string;
}

/** Milliseconds of an ISO 8601 time; unreadable times sort last. */
function instant(text: string): number {
  const time = Date.parse(text);
  return Number.isNaN(time) ? Infinity : time;
}

function compare(a: number | string, b: number | string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function extensionPlacement(key: AssetKey): Placement {
  return { position: key.extensionPosition, label: key.extension };
}

function position(placement: Placement): string {
  return placement.position === Infinity
    ? "no match"
    : `"${placement.label}" (position ${placement.position + 1})`;
}

/** One row per rule, in order: how it compares two keys and how it explains a win. */
export const RULES: readonly {
  readonly rule: Exclude<ParentRule, "only-asset">;
  readonly compare: (a: AssetKey, b: AssetKey) => number;
  readonly explain: (parent: AssetKey, runnerUp: AssetKey, options: CompiledOptions) => string;
}[] = [
  {
    rule: "regex",
    compare: (a, b) => compare(a.regex.position, b.regex.position),
    explain: (p, r) => `regex promote key ${position(p.regex)} before ${position(r.regex)}`,
  },
  {
    rule: "filename",
    compare: (a, b) =>
      compare(a.filename.position, b.filename.position) || compare(a.sequence, b.sequence),
    explain: (p, r) =>
      p.filename.position === r.filename.position
        ? `filename promote ${position(p.filename)} number ${p.sequenceNumbers.join(",")} ` +
          `before ${r.sequenceNumbers.join(",")}`
        : `filename promote ${position(p.filename)} before ${position(r.filename)}`,
  },
  {
    rule: "default-rules",
    compare: (a, b) => compare(a.preferred, b.preferred),
    explain: (p, r) =>
      `default rules cover "${p.asset.originalFileName}" before "${r.asset.originalFileName}"`,
  },
  {
    rule: "biggest-number",
    // Reversed: the bigger number wins.
    compare: (a, b) => compare(b.number, a.number),
    explain: (p, r) => `biggest number ${p.numberText} before ${r.numberText || "none"}`,
  },
  {
    rule: "extension",
    compare: (a, b) => compare(a.extensionPosition, b.extensionPosition),
    explain: (p, r) =>
      `extension promote ${position(extensionPlacement(p))} before ${
        r.extensionPosition === Infinity
          ? `"${r.extension}" (not listed)`
          : position(extensionPlacement(r))
      }`,
  },
  {
    rule: "builtin-extension",
    compare: (a, b) => compare(a.builtin, b.builtin),
    explain: (p, r) => `built-in extension rank "${p.extension}" before "${r.extension}"`,
  },
  {
    rule: "size",
    compare: (a, b) => compare(a.size, b.size),
    explain: (p, r, options) =>
      `${options.sizeLabel} ${p.asset.fileSizeInByte} bytes before ${
        r.size === Infinity ? "unknown size" : `${r.asset.fileSizeInByte} bytes`
      }`,
  },
  {
    rule: "name",
    compare: (a, b) => compare(a.lowerName, b.lowerName),
    explain: (p, r) =>
      `file name "${p.asset.originalFileName}" before "${r.asset.originalFileName}"`,
  },
  {
    rule: "time",
    // Parsed here rather than in the key: only names that tie reach this rule, so most assets
    // never pay for a parse.
    compare: (a, b) =>
      a.asset.localDateTime === b.asset.localDateTime
        ? 0
        : compare(instant(a.asset.localDateTime), instant(b.asset.localDateTime)),
    explain: (p, r) => `local time ${p.asset.localDateTime} before ${r.asset.localDateTime}`,
  },
  {
    rule: "id",
    compare: (a, b) => compare(a.asset.id, b.asset.id),
    explain: (p, r) => `asset id "${p.asset.id}" before "${r.asset.id}"`,
  },
];

/**
 * Compares two keys by the first rule that tells them apart: negative when `a` comes first,
 * and the magnitude is that rule's index plus one, so one function serves both the sort and
 * the report without allocating.
 */
export function firstDifference(a: AssetKey, b: AssetKey): number {
  for (let index = 0; index < RULES.length; index++) {
    const sign = RULES[index].compare(a, b);
    if (sign !== 0) return sign * (index + 1);
  }
  return 0;
}

/** The place of a name no item matches, without an empty item. */
export const NO_MATCH: Placement = { position: Infinity, label: "" };
/** What a plain text item reads: no numbers. */
export const TEXT_MATCH: SequenceMatch = { key: "", numbers: [] };
