/**
 * One shot: the files a camera or an editor made of one exposure, its RAW, its JPEG and their
 * edited copies. fix-trash follows a photo in the trash to its shot alone, never to another
 * frame of its burst or another shot the CRITERIA group with it. A shot is read from the file
 * name's base and the capture time, as immich-stack's default CRITERIA read them (the name before
 * its first `~` or `.`, times within a second), here on their own terms so that no CRITERIA
 * change can widen it. Pure.
 *
 * @module
 */
import type { Asset } from "../model.ts";
import { parseTime } from "../grouping/_extract.ts";

/** Capture times of the files of one shot differ by at most this much. */
const SAME_SHOT_MS = 1000;

/**
 * Edit markers at the end of a base: `_edited` (Immich, Google Photos), `-edited`, `-Edit` and
 * `-Edit-2` (Lightroom), ` (edited)`.
 */
const EDIT_MARKER = /(?:[-_ ]edit(?:ed)?(?:[-_ ]?\d+)?| \(edited\))$/i;

/** Apple Photos' edited copy, `IMG_E1234`, of `IMG_1234`. */
const APPLE_EDIT = /^IMG_E(\d+)$/;

/**
 * The base of a file name: the part before its first `~` or `.`, without an edit marker.
 *
 * @param fileName The original file name.
 * @returns The base its shot's files share.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { shotBase } from "./shot.ts";
 *
 * assert.equal(shotBase("IMG_1234.CR3"), "IMG_1234");
 * assert.equal(shotBase("IMG_1234-Edit-2.jpg"), "IMG_1234");
 * assert.equal(shotBase("IMG_1234_edited.jpg"), "IMG_1234");
 * assert.equal(shotBase("IMG_E1234.JPG"), "IMG_1234");
 * assert.equal(shotBase("IMG_1234~2.jpg"), "IMG_1234");
 * assert.equal(shotBase("DSC_0102.JPG"), "DSC_0102");
 * ```
 */
export function shotBase(fileName: string): string {
  const cut = fileName.search(/[~.]/);
  const base = (cut < 0 ? fileName : fileName.slice(0, cut)).replace(EDIT_MARKER, "");
  return base.replace(APPLE_EDIT, "IMG_$1");
}

/** The fields of a photo that say which shot it is. */
export type ShotFields = Pick<Asset, "originalFileName" | "localDateTime">;

/**
 * Whether two photos are files of one shot: the same base, and capture times at most a second
 * apart (times that cannot be read match only when they are the same text).
 *
 * @param a A photo.
 * @param b Another photo.
 * @returns True for one shot.
 *
 * @example A RAW and its JPEG, not the next frame of the burst
 * ```ts
 * import assert from "node:assert/strict";
 * import { sameShot } from "./shot.ts";
 *
 * const jpeg = { originalFileName: "DSC_0102.JPG", localDateTime: "2024-05-01T10:00:00.300Z" };
 * const raw = { originalFileName: "DSC_0102.NEF", localDateTime: "2024-05-01T10:00:00.300Z" };
 * const next = { originalFileName: "DSC_0103.JPG", localDateTime: "2024-05-01T10:00:00.650Z" };
 * assert.equal(sameShot(jpeg, raw), true);
 * assert.equal(sameShot(jpeg, next), false);
 * ```
 */
export function sameShot(a: ShotFields, b: ShotFields): boolean {
  if (shotBase(a.originalFileName) !== shotBase(b.originalFileName)) return false;
  if (a.localDateTime === b.localDateTime) return true;
  return Math.abs(parseTime(a.localDateTime) - parseTime(b.localDateTime)) <= SAME_SHOT_MS;
}
