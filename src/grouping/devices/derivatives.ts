/**
 * The marks editors, exporters and file managers add to a photo's name when they save another
 * version of it: `-edited` (and the words Google Photos writes in other languages), `~2`,
 * `-Edit`, `IMG_E1234`, `(1)`, ` copy`, `-2`, `_01`, Epson FastFoto's `_a` and `_b`. Each mark is
 * read off the end of the name, one at a time, so `IMG_1234-edited(1)` is a copy of an edit of
 * `IMG_1234`. Pure.
 *
 * What a mark says decides how far its file may be from the original in time (see
 * docs/default-rules.md): an edit is often saved hours or days later and without the capture
 * time, a copy keeps the original's metadata.
 *
 * @module
 */
import { isDigit } from "../_extract.ts";

/** What kind of version a mark makes of a photo. */
export type DerivativeKind =
  /**
   * Saved by an editor or exported (`-edited`, `~2`, `-2`, `_01`): it may be dated later than
   * the original, or not at all.
   */
  | "edit"
  /** A copy of the file (`(1)`, ` copy`): the same photo, or another one that had its name. */
  | "copy"
  /** The back of a scanned print (Epson FastFoto `_b`): part of the scan, never its cover. */
  | "back";

/** A name with its version marks taken off. */
export interface Derivation {
  /** The name without the marks, as written. */
  readonly base: string;
  /** The strongest kind among the marks: an edit outranks a copy, a copy the back of a scan. */
  readonly kind: DerivativeKind;
  /** The marks, outermost first, as written (`(1)`, `-edited`). */
  readonly marks: readonly string[];
  /** What each mark makes, in the order of `marks`. */
  readonly kinds: readonly DerivativeKind[];
}

/**
 * Words that end the name of an edited photo, lower-case, each with its separator. Google
 * Photos names the edited copy of `IMG_1234.jpg` `IMG_1234-edited.jpg` in the language of the
 * account (`-bearbeitet`, `-modifié`, …); Lightroom and Photoshop add `-Edit` (and `-Edit-2`),
 * `-Enhanced-NR` for a denoised copy, `-HDR` and `-Pano` for merges; PhotoSync and others
 * `_edited`.
 */
const EDIT_WORDS: readonly string[] = [
  "edited",
  "edit",
  "final",
  "bearbeitet",
  "modifiziert",
  "modifié",
  "modifie",
  "modificato",
  "modificata",
  "editado",
  "editada",
  "ha editado",
  "editat",
  "bewerkt",
  "edytowane",
  "redigerad",
  "redigeret",
  "redigert",
  "muokattu",
  "upraveno",
  "upravené",
  "szerkesztett",
  "düzenlendi",
  "изменено",
  "отредактировано",
  "編集済み",
  "编辑",
  "已编辑",
  "편집됨",
  "enhanced",
  "enhanced-nr",
  "enhanced-sr",
  "hdr",
  "pano",
];

const EDIT_SUFFIXES: ReadonlySet<string> = new Set(
  EDIT_WORDS.flatMap((word) => [`-${word}`, `_${word}`, ` ${word}`]),
);
/** The longest suffix, in UTF-16 code units, to bound the look-back. */
const LONGEST_SUFFIX = Math.max(...[...EDIT_SUFFIXES].map((suffix) => suffix.length));

/**
 * Copy marks: ` copy`, ` copy 2` (macOS Finder), ` - Copy` (Windows Explorer, also in German,
 * French, Spanish and Italian).
 */
const COPY_WORDS = /(?: - (?:copy|kopie|copie|copia)| (?:copy|kopie|copie|copia)(?: \d{1,3})?)$/i;
/** `(1)`, ` (2)`: Google Takeout, browsers and Windows name a second file of one name so. */
const NUMBERED_COPY = /\s?\(\d{1,3}\)$/;
/**
 * GNOME Files (Nautilus) duplicates: ` (Copy)`, ` (Copy 2)` since 2023; ` (copy)`,
 * ` (another copy)`, ` (3rd copy)` before.
 */
const BRACKETED_COPY =
  / \((?:(?:copy|kopie|copie|copia)(?: \d{1,3})?|another copy|\d{1,3}(?:st|nd|rd|th) copy)\)$/i;
/** What a number mark must not leave behind: a date (`2024-05`) or a time (`…_10_15`). */
const DATE_OR_TIME_END = /(?:\d{4}-\d{1,2}|[-_]\d{2})$/;
/** Apple Photos exports the edited version of `IMG_1234` as `IMG_E1234`. */
const APPLE_EDIT = /^(IMG_)E(\d{4})$/i;

const RANK: Readonly<Record<DerivativeKind, number>> = { edit: 3, copy: 2, back: 1 };

const TILDE = 126;
const DASH = 45;
const UNDERSCORE = 95;
const SPACE = 32;
const CLOSE = 41;

/** Whether `name` holds `word` (lower-case) ending at `end`, ignoring case. */
function endsWith(name: string, word: string, end: number): boolean {
  return end >= word.length && name.slice(end - word.length, end).toLowerCase() === word;
}

/**
 * One version mark at the end of a name (or Apple's at its start), or undefined when there is
 * none. `numbered` allows the marks that are only numbers (`-2`, `_01`), which a Pixel's
 * `.RAW-01` would otherwise read as one. It looks at characters before it runs a pattern: it
 * reads 200 000 names a pass.
 */
function outerMark(
  name: string,
  numbered: boolean,
): { base: string; mark: string; kind: DerivativeKind } | undefined {
  const length = name.length;
  const last = name.charCodeAt(length - 1);
  let match: RegExpExecArray | null;
  if (last === CLOSE) {
    match = NUMBERED_COPY.exec(name) ?? BRACKETED_COPY.exec(name);
    return match === null ? undefined : cut(name, match[0], "copy");
  }
  if (isDigit(last)) {
    let at = length - 1;
    while (at > 0 && isDigit(name.charCodeAt(at - 1))) at--;
    const digits = length - at;
    const before = name.charCodeAt(at - 1);
    if (digits > 3) {
      if (digits === 4 && length === 9 && (match = APPLE_EDIT.exec(name))) {
        return { base: `${match[1]}${match[2]}`, mark: "IMG_E", kind: "edit" };
      }
      return undefined;
    }
    if (before === TILDE) return cut(name, name.slice(at - 1), "edit");
    if (before === DASH && (endsWith(name, "edit", at - 1) || endsWith(name, "edited", at - 1))) {
      const word = endsWith(name, "edited", at - 1) ? 6 : 4;
      const separator = name.charCodeAt(at - 2 - word);
      if (separator === DASH || separator === UNDERSCORE || separator === SPACE) {
        return cut(name, name.slice(at - 2 - word), "edit");
      }
    }
    if (before === SPACE && (match = COPY_WORDS.exec(name))) return cut(name, match[0], "copy");
    const number = numbered &&
      ((before === DASH && digits <= 2) || (before === UNDERSCORE && digits === 2));
    if (number) {
      const mark = cut(name, name.slice(at - 1), "edit");
      if (!DATE_OR_TIME_END.test(mark.base)) return mark;
    }
    return undefined;
  }
  // Epson FastFoto's enhanced scan (`_a`) and the back of the print (`_b`) of `…_0001`.
  if (
    (last === 97 || last === 98) && name.charCodeAt(length - 2) === UNDERSCORE &&
    isDigit(name.charCodeAt(length - 3))
  ) {
    return cut(name, name.slice(length - 2), last === 97 ? "edit" : "back");
  }
  if ((match = COPY_WORDS.exec(name))) return cut(name, match[0], "copy");
  // The longest suffix first: `-ha editado` before ` editado`.
  for (let at = Math.max(0, length - LONGEST_SUFFIX); at < length - 1; at++) {
    const code = name.charCodeAt(at);
    if (code !== DASH && code !== UNDERSCORE && code !== SPACE) continue;
    const suffix = name.slice(at);
    if (EDIT_SUFFIXES.has(suffix.toLowerCase())) return cut(name, suffix, "edit");
  }
  return undefined;
}

function cut(name: string, mark: string, kind: DerivativeKind) {
  return { base: name.slice(0, name.length - mark.length), mark, kind };
}

/**
 * Takes the version marks off a name (without its extension), outermost first.
 *
 * @param name A file name without its extension (and, for a Pixel's `PXL_….RAW-01.COVER`, either
 *   part: see `numbered`).
 * @param numbered Whether marks that are only numbers (`-2`, `_01`) count.
 * @returns The name without its marks and what they make of it, or undefined for a name
 *   without marks.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { derivationOf } from "./derivatives.ts";
 *
 * assert.deepEqual(derivationOf("IMG_1234-edited(1)", true), {
 *   base: "IMG_1234",
 *   kind: "edit",
 *   marks: ["(1)", "-edited"],
 *   kinds: ["copy", "edit"],
 * });
 * assert.equal(derivationOf("IMG_E1234", true)?.base, "IMG_1234");
 * assert.equal(derivationOf("IMG_1234", true), undefined);
 * ```
 */
export function derivationOf(name: string, numbered: boolean): Derivation | undefined {
  let base = name;
  let kind: DerivativeKind | undefined;
  // Made at the first mark: most names have none.
  let marks: string[] | undefined;
  let kinds: DerivativeKind[] | undefined;
  // One number mark at most: `…_10_15_32` is a time, not three versions.
  let allowNumbers = numbered;
  for (
    let mark = outerMark(base, allowNumbers);
    mark !== undefined;
    mark = outerMark(base, allowNumbers)
  ) {
    // A mark is never the whole name: `(1).jpg` and `-2.jpg` are names of their own.
    if (mark.base.length < 2) break;
    if (/^[-_]\d/.test(mark.mark)) allowNumbers = false;
    base = mark.base;
    (marks ??= []).push(mark.mark);
    (kinds ??= []).push(mark.kind);
    kind = strongest(kind, mark.kind);
  }
  return kind === undefined ? undefined : { base, kind, marks: marks!, kinds: kinds! };
}

/**
 * The stronger of two kinds of version: an edit over a copy, a copy over the back of a scan.
 *
 * @param a A kind, or undefined for none.
 * @param b Another kind.
 * @returns The stronger.
 */
export function strongest(a: DerivativeKind | undefined, b: DerivativeKind): DerivativeKind {
  return a !== undefined && RANK[a] >= RANK[b] ? a : b;
}
