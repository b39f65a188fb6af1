/**
 * Small readers of file names shared by the promotion rules.
 *
 * @module
 */

/** A file name cut at its last dot: `stem` keeps the case, `extension` is lower-case with dot. */
export interface NameParts {
  readonly stem: string;
  readonly extension: string;
}

/**
 * Splits a file name into stem and extension at the last dot.
 *
 * A leading dot does not start an extension, so `.hidden` has none.
 *
 * @param name The original file name.
 * @returns The stem and the lower-case extension (empty when there is none).
 */
export function splitExtension(name: string): NameParts {
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return { stem: name, extension: "" };
  return { stem: name.slice(0, dot), extension: name.slice(dot).toLowerCase() };
}

/**
 * Encodes a run of digits so that plain string comparison orders runs by numeric value.
 *
 * Leading zeros are dropped and the remaining length is written first, fixed-width, so runs of
 * any length (a 17-digit time stamp included) compare exactly without number overflow, and a
 * concatenation of encodings compares as a tuple in which a shorter tuple comes first.
 *
 * @param digits A non-empty run of ASCII digits.
 * @returns The sortable encoding; `0001` and `1` encode alike.
 */
export function encodeNumber(digits: string): string {
  let start = 0;
  while (start < digits.length - 1 && digits[start] === "0") start++;
  const significant = digits.slice(start);
  return significant.length.toString().padStart(4, "0") + significant;
}

/**
 * Escapes text for literal use inside a regular expression.
 *
 * @param text Any text.
 * @returns The text with every regular-expression syntax character escaped.
 */
export function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
}
