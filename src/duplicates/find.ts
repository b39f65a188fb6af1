/**
 * Finds a user's duplicate photos, two ways: photos that share their file name and capture time
 * (immich-stack's rule for `duplicates`: the same upload made twice), and photos with identical
 * content (the same checksum, whatever their names). Pure.
 *
 * Capture times are compared to the millisecond, as the instants Immich's `localDateTime`
 * texts name: immich-stack compares the texts themselves, which Immich writes in one form with
 * milliseconds, so both find the same pairs; two copies a fraction of a second apart are not
 * duplicates here (grouping, with its 1 s tolerance, stacks them instead). A time that cannot be
 * read matches only the same text. File names are compared exactly, case included.
 *
 * @module
 */
import type { Asset } from "../model.ts";
import { parseTime } from "../grouping/_extract.ts";
import { compare } from "../grouping/compare.ts";

/** One photo of a duplicate group. */
export interface DuplicatePhoto {
  readonly id: string;
  readonly originalFileName: string;
  readonly localDateTime: string;
  /** Immich's checksum (base64 SHA-1), when the search gave it. */
  readonly checksum?: string;
  readonly archived: boolean;
  readonly trashed: boolean;
}

/** Photos that share file name and capture time. */
export interface SameNameAndTime {
  readonly originalFileName: string;
  /** The capture time as the first photo (by id) has it. */
  readonly localDateTime: string;
  /** Two or more, by id. */
  readonly photos: readonly DuplicatePhoto[];
}

/** Photos with identical content. */
export interface SameContent {
  readonly checksum: string;
  /** Two or more, by id. */
  readonly photos: readonly DuplicatePhoto[];
}

/** A user's duplicates, both kinds, each list sorted by what its groups share. */
export interface Duplicates {
  readonly sameNameAndTime: readonly SameNameAndTime[];
  readonly sameContent: readonly SameContent[];
}

/**
 * Finds duplicates among one user's photos.
 *
 * @param assets The photos, each with `checksum` (else it takes part in the name and time check
 *   only), `isArchived` and `isTrashed` when known.
 * @returns The groups of two or more.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { findDuplicates } from "./find.ts";
 * import type { Asset } from "../model.ts";
 *
 * const photo = (id: string, name: string, time: string, checksum: string) =>
 *   ({ id, originalFileName: name, localDateTime: time, checksum }) as Asset;
 * const found = findDuplicates([
 *   photo("a", "IMG_1.jpg", "2024-05-01T10:00:00.000Z", "x"),
 *   photo("b", "IMG_1.jpg", "2024-05-01T10:00:00.000+00:00", "y"),
 *   photo("c", "IMG_1.jpg", "2024-05-01T10:00:00.400Z", "z"),
 *   photo("d", "copy.jpg", "2024-06-01T10:00:00.000Z", "x"),
 * ]);
 * assert.deepEqual(found.sameNameAndTime.map((g) => g.photos.map((p) => p.id)), [["a", "b"]]);
 * assert.deepEqual(found.sameContent.map((g) => g.photos.map((p) => p.id)), [["a", "d"]]);
 * ```
 */
export function findDuplicates(assets: readonly Asset[]): Duplicates {
  const byNameAndTime = new Map<string, Asset[]>();
  const byChecksum = new Map<string, Asset[]>();
  for (const asset of assets) {
    const time = parseTime(asset.localDateTime);
    const when = Number.isNaN(time) ? `text:${asset.localDateTime}` : String(time);
    add(byNameAndTime, `${asset.originalFileName.length}:${asset.originalFileName}|${when}`, asset);
    if (asset.checksum !== undefined && asset.checksum !== "") {
      add(byChecksum, asset.checksum, asset);
    }
  }
  const sameNameAndTime = [...byNameAndTime.values()].filter((group) => group.length > 1)
    .map((group) => {
      const photos = group.map(photo).sort(byId);
      return {
        originalFileName: photos[0].originalFileName,
        localDateTime: photos[0].localDateTime,
        photos,
      };
    })
    .sort((a, b) =>
      compare(a.originalFileName, b.originalFileName) ||
      compare(a.localDateTime, b.localDateTime) || compare(a.photos[0].id, b.photos[0].id)
    );
  const sameContent = [...byChecksum].filter(([, group]) => group.length > 1)
    .map(([checksum, group]) => ({ checksum, photos: group.map(photo).sort(byId) }))
    .sort((a, b) => compare(a.checksum, b.checksum));
  return { sameNameAndTime, sameContent };
}

function add(map: Map<string, Asset[]>, key: string, asset: Asset): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [asset]);
  else list.push(asset);
}

function photo(asset: Asset): DuplicatePhoto {
  return {
    id: asset.id,
    originalFileName: asset.originalFileName,
    localDateTime: asset.localDateTime,
    ...(asset.checksum === undefined ? {} : { checksum: asset.checksum }),
    archived: asset.isArchived === true,
    trashed: asset.isTrashed === true,
  };
}

function byId(a: DuplicatePhoto, b: DuplicatePhoto): number {
  return compare(a.id, b.id);
}
