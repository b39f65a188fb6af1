/**
 * Which files are camera RAW files, for fix-trash's orphaned-RAW step: by extension, as Immich
 * itself tells RAW images apart.
 *
 * @module
 */

import { splitExtension } from "../promotion/_names.ts";

/**
 * Every RAW extension fix-trash knows, lower case with the dot: Immich's RAW image types
 * (Photoshop files and Phantom cine clips aside) and immich-stack's extra ones (GoPro, Mamiya,
 * Leaf). Any other file counts as a developed photo.
 */
export const RAW_EXTENSIONS: readonly string[] = [
  ".3fr",
  ".ari",
  ".arw",
  ".cap",
  ".cr2",
  ".cr3",
  ".crw",
  ".dcr",
  ".dng",
  ".erf",
  ".fff",
  ".gpr",
  ".iiq",
  ".k25",
  ".kdc",
  ".mef",
  ".mos",
  ".mrw",
  ".nef",
  ".nrw",
  ".orf",
  ".ori",
  ".pef",
  ".raf",
  ".raw",
  ".rw2",
  ".rwl",
  ".sr2",
  ".srf",
  ".srw",
  ".x3f",
];

const RAW = new Set(RAW_EXTENSIONS);

/**
 * The extension of a file name, lower case with its dot; "" when it has none.
 *
 * @param fileName A file name such as `IMG_1.CR3`.
 * @returns The extension, e.g. `.cr3`.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { extensionOf } from "./raw.ts";
 *
 * assert.equal(extensionOf("IMG_1.CR3"), ".cr3");
 * assert.equal(extensionOf("README"), "");
 * ```
 */
export function extensionOf(fileName: string): string {
  return splitExtension(fileName).extension;
}

/**
 * Whether a file is a camera RAW file, by its extension.
 *
 * @param fileName The file name.
 * @returns True for a name ending in one of {@linkcode RAW_EXTENSIONS}, in any case.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { isRaw } from "./raw.ts";
 *
 * assert.equal(isRaw("IMG_1.DNG"), true);
 * assert.equal(isRaw("IMG_1.jpg"), false);
 * ```
 */
export function isRaw(fileName: string): boolean {
  return RAW.has(extensionOf(fileName));
}

/**
 * RAW_ORPHAN_EXTENSIONS as a set of extensions, with the entries that name no RAW extension
 * apart (immich-stack ignores those with a warning, so that a typo can never reach a JPEG).
 *
 * @param entries The list as given (`dng`, `.NEF`, …); empty for every RAW extension.
 * @returns The extensions to consider, lower case with the dot, and the unknown entries.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { orphanExtensions } from "./raw.ts";
 *
 * const { extensions, unknown } = orphanExtensions(["dng", ".NEF", "jpg", ""]);
 * assert.deepEqual([...extensions], [".dng", ".nef"]);
 * assert.deepEqual(unknown, ["jpg"]);
 * ```
 */
export function orphanExtensions(
  entries: readonly string[] | undefined,
): { extensions: ReadonlySet<string>; unknown: string[] } {
  const given = (entries ?? []).map((entry) => entry.trim()).filter((entry) => entry !== "");
  if (given.length === 0) return { extensions: RAW, unknown: [] };
  const extensions = new Set<string>();
  const unknown: string[] = [];
  for (const entry of given) {
    const extension = `.${entry.replace(/^\./, "").toLowerCase()}`;
    if (RAW.has(extension)) extensions.add(extension);
    else unknown.push(entry);
  }
  return { extensions, unknown };
}
