/**
 * Compiles the promotion settings (src/promotion/parent.ts) once for every group of a run.
 *
 * @module
 */
import { escapeRegExp } from "./_names.ts";
import { type CompiledOptions, type FilenameMatcher, NO_MATCH, TEXT_MATCH } from "./_order.ts";
import type { PromotionOptions } from "./parent.ts";
import { detectNumericLists, parseSequenceKeyword, type SequenceMatcher } from "./sequence.ts";

const SWITCHES = ["biggestnumber", "biggestsize", "smallestsize"];
const DEFAULT_DELIMITERS = ["~", "."];

function compileWord(text: string, position: number): FilenameMatcher {
  const lower = text.toLowerCase();
  // A digit at either end must not continue into a longer digit run of the name.
  const guarded = /^\d|\d$/.test(lower)
    ? new RegExp(
      `${/^\d/.test(lower) ? "(?<!\\d)" : ""}${escapeRegExp(lower)}${
        /\d$/.test(lower) ? "(?!\\d)" : ""
      }`,
    )
    : undefined;
  return {
    position,
    label: text,
    readsStem: false,
    match: guarded === undefined
      ? (name) => (name.includes(lower) ? TEXT_MATCH : undefined)
      : (name) => (guarded.test(name) ? TEXT_MATCH : undefined),
  };
}

function compileSequence(matcher: SequenceMatcher, position: number): FilenameMatcher {
  return {
    position,
    label: matcher.label,
    readsStem: true,
    match: (_name, stem) => matcher.match(stem),
  };
}

function compileFilenamePromote(items: readonly string[]) {
  const lists = detectNumericLists(items);
  const matchers: FilenameMatcher[] = [];
  let emptyPosition: number | undefined;
  for (let index = 0; index < items.length; index++) {
    const list = lists.find((candidate) => candidate.start === index);
    if (list !== undefined) {
      matchers.push(compileSequence(list.matcher, index));
      index = list.end - 1;
      continue;
    }
    const item = items[index].trim();
    if (item === "") {
      emptyPosition ??= index;
      continue;
    }
    if (SWITCHES.includes(item.toLowerCase())) continue;
    const sequence = parseSequenceKeyword(item);
    matchers.push(
      sequence === undefined ? compileWord(item, index) : compileSequence(sequence, index),
    );
  }
  return { matchers, emptyPosition };
}

function normalizeExtension(item: string): string {
  const lower = item.trim().toLowerCase();
  return lower === "" || lower.startsWith(".") ? lower : `.${lower}`;
}

/**
 * Compiles the promote lists, regex promotions and delimiters.
 *
 * @param options The promotion settings.
 * @returns What the keys and rules read.
 * @throws {RangeError} When a `sequence` form is invalid.
 */
export function compile(options: PromotionOptions): CompiledOptions {
  const { matchers, emptyPosition } = compileFilenamePromote(options.filenamePromote);
  const switches = options.filenamePromote.map((item) => item.trim().toLowerCase());
  const sizeSwitch = switches.find((item) => item === "biggestsize" || item === "smallestsize");
  const extensions = new Map<string, number>();
  let emptyExtensionPosition: number | undefined;
  options.extPromote.forEach((item, index) => {
    const extension = normalizeExtension(item);
    if (extension === "") emptyExtensionPosition ??= index;
    else if (!extensions.has(extension)) extensions.set(extension, index);
  });
  return {
    regexPromotions: (options.regexPromotions ?? []).map((promotion) => ({
      field: promotion.field,
      // A global or sticky flag would carry lastIndex from one asset to the next.
      pattern: new RegExp(promotion.pattern.source, promotion.pattern.flags.replace(/[gy]/g, "")),
      promoteIndex: promotion.promoteIndex,
      ranks: new Map(promotion.promoteKeys.map((key, index) => [key, index] as const).reverse()),
    })),
    filename: matchers,
    unmatched: emptyPosition === undefined ? NO_MATCH : { position: emptyPosition, label: "" },
    readsStem: matchers.some((matcher) => matcher.readsStem),
    biggestNumber: switches.includes("biggestnumber"),
    delimiters: (options.delimiters ?? DEFAULT_DELIMITERS).filter((delimiter) => delimiter !== ""),
    extensions,
    emptyExtensionPosition,
    sizeSign: sizeSwitch === undefined ? 0 : sizeSwitch === "biggestsize" ? -1 : 1,
    sizeLabel: sizeSwitch === "smallestsize" ? "smallest size" : "biggest size",
  };
}
