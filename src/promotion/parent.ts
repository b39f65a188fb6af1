/**
 * Parent selection: orders the members of each group so that the first becomes the parent.
 *
 * The order compares, first difference deciding:
 *
 * 1. `regex`: the value captured by a regex criterion's `promote_index`, by its position in
 *    `promote_keys` (assets without a listed value last); a group that took no part in the
 *    match captures `""`, so `["", "edited"]` puts the photo without the edit suffix first;
 * 2. `filename`: position of the first PARENT_FILENAME_PROMOTE item the name matches
 *    (case-insensitive), then the numbers read by a `sequence` item;
 * 3. `default-rules`: an asset the default rules prefer as the cover (the group's `preferred`:
 *    the maker's COVER, the edited copy, the middle exposure of a bracket) first;
 * 4. `biggest-number`: when `biggestNumber` is listed, the larger number after the last split
 *    delimiter first (`PXL_1~3.jpg`, `PXL_1~2.jpg`, `PXL_1.jpg`);
 * 5. `extension`: position in PARENT_EXT_PROMOTE (exact extension, case-insensitive);
 * 6. `builtin-extension`: `.jpeg`, `.jpg`, `.png`, then the rest;
 * 7. `size`: when `biggestSize` or `smallestSize` is listed (the first listed wins), by file
 *    size, unknown sizes last;
 * 8. `name`: file name, case-insensitive, by UTF-16 code unit;
 * 9. `time`: localDateTime, earliest first, unreadable times last;
 * 10. `id`: asset id.
 *
 * Every asset's key is computed once per group, so sorting never compiles a pattern or reads a
 * name twice. The module is pure: the caller logs the returned rule and detail.
 *
 * @module
 */
import type { Asset, Group, RegexPromotion } from "../model.ts";
import { compile } from "./_compile.ts";
import { encodeNumber } from "./_names.ts";
import {
  type AssetKey,
  type CompiledOptions,
  type CompiledRegex,
  firstDifference,
  NO_MATCH,
  type Placement,
  RULES,
  TEXT_MATCH,
} from "./_order.ts";

/** What decides the parent; compiled once by {@linkcode createParentOrder}. */
export interface PromotionOptions {
  /**
   * PARENT_FILENAME_PROMOTE items in priority order. Besides plain text an item may be empty
   * (matches names that contain none of the other items), a `sequence` form, or one of the
   * switches `biggestNumber`, `biggestSize`, `smallestSize` (their place in the list does not
   * matter).
   */
  readonly filenamePromote: readonly string[];
  /** PARENT_EXT_PROMOTE items in priority order, such as `.jpg`; the dot may be left out. */
  readonly extPromote: readonly string[];
  /**
   * Regex criteria that promote, derived from CRITERIA by grouping.
   *
   * @default {[]}
   */
  readonly regexPromotions?: readonly RegexPromotion[];
  /**
   * The split delimiters after which `biggestNumber` reads a number.
   *
   * @default {["~", "."]}
   */
  readonly delimiters?: readonly string[];
}

/**
 * The rule that put the parent before the runner-up (the second asset), as a stable lower-case
 * code for logs. `only-asset` marks a group of one.
 */
export type ParentRule =
  | "only-asset"
  | "regex"
  | "filename"
  | "default-rules"
  | "biggest-number"
  | "extension"
  | "builtin-extension"
  | "size"
  | "name"
  | "time"
  | "id";

/** A group whose assets are ordered parent first, with the reason the parent won. */
export interface PromotedGroup extends Group {
  readonly parentRule: ParentRule;
  /** Human text such as `filename promote "cover" (position 1) before no match`. */
  readonly parentDetail: string;
}

/** Compiled promotion options; reuse one for every group of a run. */
export interface ParentOrder {
  /**
   * Orders one group's assets, parent first.
   *
   * @param group The group, in any order.
   * @returns The same group with ordered assets and the rule that chose the parent.
   */
  promote(group: Group): PromotedGroup;
}

const BUILTIN_EXTENSIONS = [".jpeg", ".jpg", ".png"];

function regexPlacement(asset: Asset, promotions: readonly CompiledRegex[]): Placement {
  let best = NO_MATCH;
  for (const promotion of promotions) {
    const match = promotion.pattern.exec(asset[promotion.field] ?? "");
    // A group that took no part in the match reads as "", as in immich-stack (Go): so `""` in
    // promote_keys ranks the photos without the optional part, such as unedited originals.
    const value = match === null ? undefined : match[promotion.promoteIndex] ?? "";
    const rank = value === undefined ? undefined : promotion.ranks.get(value);
    if (rank !== undefined && rank < best.position) best = { position: rank, label: value! };
  }
  return best;
}

/**
 * The digits after the last delimiter of the stem (the name up to `end`), when that part is all
 * digits.
 */
function trailingNumber(name: string, end: number, delimiters: readonly string[]): string {
  let cut = -1;
  for (const delimiter of delimiters) {
    // The last delimiter wholly inside the stem.
    const at = end >= delimiter.length ? name.lastIndexOf(delimiter, end - delimiter.length) : -1;
    if (at >= 0) cut = Math.max(cut, at + delimiter.length);
  }
  if (cut < 0 || cut === end) return "";
  for (let at = cut; at < end; at++) if (!isDigit(name.charCodeAt(at))) return "";
  return name.slice(cut, end);
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function keyOf(
  asset: Asset,
  options: CompiledOptions,
  preferred: readonly string[] | undefined,
): AssetKey {
  const name = asset.originalFileName;
  const lowerName = name.toLowerCase();
  // The stem and extension as split at the last dot; a leading dot starts no extension.
  const dot = name.lastIndexOf(".");
  const end = dot <= 0 ? name.length : dot;
  const extension = dot <= 0 ? "" : name.slice(dot).toLowerCase();
  const stem = options.readsStem ? name.slice(0, end) : "";

  let filename = options.unmatched;
  let sequence = TEXT_MATCH;
  for (const matcher of options.filename) {
    const found = matcher.match(lowerName, stem);
    if (found === undefined) continue;
    filename = matcher;
    sequence = found;
    break;
  }

  const numberText = options.biggestNumber ? trailingNumber(name, end, options.delimiters) : "";
  const builtin = BUILTIN_EXTENSIONS.indexOf(extension);
  const size = asset.fileSizeInByte;
  return {
    asset,
    regex: regexPlacement(asset, options.regexPromotions),
    filename,
    sequence: sequence.key,
    sequenceNumbers: sequence.numbers,
    preferred: preferred !== undefined && preferred.includes(asset.id) ? 0 : 1,
    number: numberText === "" ? "" : encodeNumber(numberText),
    numberText,
    extensionPosition: options.extensions.get(extension) ??
      options.emptyExtensionPosition ?? Infinity,
    extension,
    builtin: builtin === -1 ? BUILTIN_EXTENSIONS.length : builtin,
    size: options.sizeSign === 0 || size === undefined || !Number.isFinite(size)
      ? Infinity
      : size * options.sizeSign,
    lowerName,
  };
}

/**
 * One string per distinct text: most of 50 000 groups share a few dozen details, which would
 * otherwise each be a rope of their parts.
 */
function interned(texts: Map<string, string>, text: string): string {
  const known = texts.get(text);
  if (known !== undefined) return known;
  texts.set(text, text);
  return text;
}

function promoteWith(
  group: Group,
  options: CompiledOptions,
  details: Map<string, string>,
): PromotedGroup {
  const keys = group.assets.map((asset) => keyOf(asset, options, group.preferred));
  keys.sort(firstDifference);
  const assets = keys.map((key) => key.asset);
  if (keys.length < 2) {
    return { ...group, assets, parentRule: "only-asset", parentDetail: "only asset of the group" };
  }
  // Equal keys (the same asset twice) are reported under the last rule, the id.
  const rule = RULES[Math.abs(firstDifference(keys[0], keys[1]) || RULES.length) - 1];
  return {
    ...group,
    assets,
    parentRule: rule.rule,
    parentDetail: interned(details, rule.explain(keys[0], keys[1], options)),
  };
}

/**
 * Compiles promotion options once, for ordering many groups.
 *
 * @param options The promote lists, regex promotions and delimiters.
 * @returns An order whose `promote` sorts one group.
 * @throws {RangeError} When a `sequence` form is invalid (`sequence:0`, or a prefix ending in a
 * digit).
 *
 * @example Reuse one order for every group
 * ```ts
 * import assert from "node:assert/strict";
 * import { createParentOrder } from "./parent.ts";
 * import type { Asset } from "../model.ts";
 *
 * const asset = (id: string, originalFileName: string) => ({ id, originalFileName }) as Asset;
 * const order = createParentOrder({ filenamePromote: ["cover"], extPromote: [".jpg"] });
 * const assets = [asset("a", "IMG_1.CR3"), asset("b", "IMG_1.JPG")];
 * const promoted = order.promote({ key: "IMG_1", assets });
 * assert.deepEqual(promoted.assets.map((a) => a.id), ["b", "a"]);
 * assert.equal(promoted.parentRule, "extension");
 * ```
 */
export function createParentOrder(options: PromotionOptions): ParentOrder {
  const compiled = compile(options);
  const details = new Map<string, string>();
  return { promote: (group) => promoteWith(group, compiled, details) };
}

/**
 * Orders each group's assets so that the first is the parent, and records why it won.
 *
 * The order is total and deterministic: the same group in any input order gives the same order.
 * The reported rule is the first rule by which the parent differs from the runner-up.
 *
 * @param groups The groups from grouping.
 * @param options The promote lists, regex promotions and delimiters.
 * @returns The groups in the same order, each with its assets ordered parent first.
 * @throws {RangeError} When a `sequence` form is invalid.
 *
 * @example Default promote lists
 * ```ts
 * import assert from "node:assert/strict";
 * import { promoteParents } from "./parent.ts";
 * import type { Asset } from "../model.ts";
 *
 * const asset = (id: string, originalFileName: string) => ({ id, originalFileName }) as Asset;
 * const [group] = promoteParents(
 *   [{ key: "PXL_1", assets: [asset("a", "PXL_1.jpg"), asset("b", "PXL_1~2.jpg")] }],
 *   {
 *     filenamePromote: ["cover", "edit", "crop", "hdr", "biggestNumber"],
 *     extPromote: [".jpg", ".png", ".jpeg", ".heic", ".dng"],
 *   },
 * );
 * assert.equal(group.assets[0].originalFileName, "PXL_1~2.jpg");
 * assert.equal(group.parentRule, "biggest-number");
 * assert.equal(group.parentDetail, "biggest number 2 before none");
 * ```
 */
export function promoteParents(
  groups: readonly Group[],
  options: PromotionOptions,
): PromotedGroup[] {
  const order = createParentOrder(options);
  return groups.map((group) => order.promote(group));
}

/**
 * Tells whether the order reads file sizes, so the client requests EXIF only when needed.
 *
 * @param options The promotion options.
 * @returns `true` when `biggestSize` or `smallestSize` is listed in PARENT_FILENAME_PROMOTE.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { needsFileSize } from "./parent.ts";
 *
 * const extPromote = [".jpg"];
 * assert.equal(needsFileSize({ filenamePromote: ["cover", "biggestSize"], extPromote }), true);
 * assert.equal(needsFileSize({ filenamePromote: ["cover", "biggestNumber"], extPromote }), false);
 * ```
 */
export function needsFileSize(options: PromotionOptions): boolean {
  return options.filenamePromote.some((item) => {
    const lower = item.trim().toLowerCase();
    return lower === "biggestsize" || lower === "smallestsize";
  });
}
