/**
 * The default rules: what stacksync groups when CRITERIA is not set (`{"mode":"devices"}`). They
 * recognise what cameras and phones write (docs/default-rules.md): the files of one shot, the
 * versions of a photo, bursts and brackets; and keep apart what only looks alike, by the camera,
 * lens and exposure Immich reads from EXIF. Pure: no I/O, clock or logger.
 *
 * Like CRITERIA, the rules put each photo in buckets computed from the photo alone and join
 * photos only within a bucket (src/grouping/devices/links.ts), so that regrouping the photos
 * that share buckets with a changed one gives the groups of the whole library
 * (docs/incremental.md):
 *
 * - its stem and week (`img_1234`, a version also in the weeks of the two before it);
 * - a file number's prefix, camera, lens and day (`img_`, `Canon EOS R5`, …);
 * - the burst its name says (`20231207_101605` of a Samsung burst).
 *
 * @module
 */
import type { Asset, Group } from "../../model.ts";
import { parseTime } from "../_extract.ts";
import { Forest } from "../_forest.ts";
import { bucketHash, type BucketHashes, compare, type GroupingResult } from "../group.ts";
import { describeGroup, preferredOf } from "./labels.ts";
import {
  EDIT_AFTER_MS,
  EDIT_BEFORE_MS,
  type Facts,
  LINK,
  type LinkKind,
  linkNamedBurst,
  linkSequences,
  linkShots,
  parentOf,
} from "./links.ts";
import { type NameInfo, readName } from "./names.ts";

/** Options of {@linkcode groupByDevices}. */
export interface DeviceGroupingOptions {
  /** Also return each asset's buckets. */
  readonly buckets?: boolean;
  /**
   * Only what is one photo: the files of a shot and the versions of a photo, no bursts or
   * brackets (fix-trash follows the trash along these only).
   */
  readonly sameShot?: boolean;
}

const DAY_MS = 86_400_000;
/** Days and weeks start at 4 in the morning (local time), when fewest photos are taken. */
const DAY_START_MS = 4 * 3_600_000;
/** Weeks start on a Monday: 1970-01-01 was a Thursday. */
const WEEK_START_MS = 4 * DAY_MS;

/** A stem bucket: a stem's originals of one week, and the versions that may be theirs. */
function stemBucket(key: string, week: number): string {
  return `n${week}:${key}`;
}

/**
 * Groups photos by the default rules.
 *
 * @param assets The photos, in any order.
 * @param options Whether to return buckets; same shots only.
 * @returns The groups (each with its label and preferred cover), no skipped photo but those
 *   whose time does not parse, and the buckets when asked.
 *
 * @example A RAW+JPEG pair and its edit, an iPhone burst
 * ```ts
 * import assert from "node:assert/strict";
 * import { groupByDevices } from "./rules.ts";
 * import type { Asset } from "../../model.ts";
 *
 * const photo = (id: string, originalFileName: string, localDateTime: string) =>
 *   ({ id, originalFileName, localDateTime, camera: "Apple iPhone 15" }) as Asset;
 * const { groups } = groupByDevices([
 *   photo("a", "IMG_0001.HEIC", "2024-05-01T10:00:00.000Z"),
 *   photo("b", "IMG_0001.DNG", "2024-05-01T10:00:00.000Z"),
 *   photo("c", "IMG_E0001.JPG", "2024-05-03T18:00:00.000Z"),
 *   photo("d", "IMG_0002.HEIC", "2024-05-01T10:00:30.000Z"),
 *   photo("e", "IMG_0003.HEIC", "2024-05-01T10:00:30.250Z"),
 * ]);
 * assert.deepEqual(groups.map((g) => [g.assets.map((a) => a.id), g.label, g.preferred]), [
 *   [["a", "b", "c"], "RAW+HEIC pair; edited copy of IMG_0001.HEIC", ["c"]],
 *   [["d", "e"], "iPhone burst, 2 frames", ["d"]],
 * ]);
 * ```
 */
export function groupByDevices(
  assets: readonly Asset[],
  options: DeviceGroupingOptions = {},
): GroupingResult {
  const n = assets.length;
  const names: NameInfo[] = new Array(n);
  const times = new Float64Array(n);
  const skipped = [];
  const buckets = new Map<string, number[]>();
  const bucketsOf: string[][] = new Array(n);
  for (let i = 0; i < n; i++) {
    const asset = assets[i];
    const time = parseTime(asset.localDateTime);
    names[i] = readName(asset.originalFileName);
    times[i] = time;
    if (Number.isNaN(time)) {
      const detail = `cannot parse ${JSON.stringify(asset.localDateTime)} as an ISO 8601 time`;
      skipped.push({ asset, reason: "invalid-time" as const, key: "localDateTime", detail });
      bucketsOf[i] = [];
      continue;
    }
    const keys = bucketKeys(asset, names[i], time, options.sameShot === true);
    bucketsOf[i] = keys;
    for (const key of keys) {
      const members = buckets.get(key);
      if (members === undefined) buckets.set(key, [i]);
      else members.push(i);
    }
  }

  const facts: Facts = { assets, names, times };
  const forest = new Forest(n);
  const links: { a: number; b: number; kind: LinkKind }[] = [];
  const link = (a: number, b: number, kind: LinkKind) => {
    forest.union(a, b);
    links.push({ a, b, kind });
  };
  for (const [key, members] of buckets) {
    if (members.length < 2) continue;
    if (key.charCodeAt(0) === 110 /* n */) {
      linkShots(members.filter((m) => names[m].derivation === undefined), facts, link);
    } else if (key.charCodeAt(0) === 115 /* s */) linkSequences(members, facts, link);
    else linkNamedBurst(members, facts, link);
  }
  for (let i = 0; i < n; i++) {
    if (names[i].derivation === undefined || bucketsOf[i].length === 0) continue;
    const parent = parentOf(i, candidatesOf(bucketsOf[i], buckets), facts);
    if (parent !== undefined) link(parent, i, LINK.version);
  }

  return {
    groups: collect(facts, forest, links),
    skipped: skipped.sort((a, b) => compare(a.asset.id, b.asset.id)),
    ...(options.buckets ? { buckets: bucketsOf.map(hashes) } : {}),
  };
}

function* candidatesOf(
  keys: readonly string[],
  buckets: ReadonlyMap<string, readonly number[]>,
): Generator<number> {
  for (const key of keys) if (key.charCodeAt(0) === 110) yield* buckets.get(key)!;
}

function hashes(keys: readonly string[]): BucketHashes {
  return keys.length === 1 ? bucketHash(keys[0]) : keys.map(bucketHash);
}

/** The buckets of one photo, computed from it alone. */
function bucketKeys(asset: Asset, name: NameInfo, time: number, sameShot: boolean): string[] {
  const derivation = name.derivation;
  if (derivation !== undefined) {
    // The original was taken in the weeks before the version (or the day after).
    const keys: string[] = [];
    for (let week = weekOf(time - EDIT_AFTER_MS); week <= weekOf(time + EDIT_BEFORE_MS); week++) {
      keys.push(stemBucket(name.key, week));
    }
    return keys;
  }
  const keys = [stemBucket(name.key, weekOf(time))];
  if (sameShot || name.video) return keys;
  const camera = asset.camera;
  if (name.counter !== undefined && camera !== undefined) {
    const { prefix } = name.counter;
    keys.push(`s${dayOf(time)}:${prefix}\t${camera}\t${asset.lens ?? ""}`);
  } else if (name.burst !== undefined) {
    const { family, key } = name.burst;
    // A GoPro's group numbers come back: a day and a camera tell them apart.
    keys.push(
      family === "gopro" ? `m${dayOf(time)}:gopro\t${key}\t${camera ?? ""}` : `m:${family}\t${key}`,
    );
  }
  return keys;
}

function dayOf(time: number): number {
  return Math.floor((time - DAY_START_MS) / DAY_MS);
}

function weekOf(time: number): number {
  return Math.floor((time - DAY_START_MS + WEEK_START_MS) / (7 * DAY_MS));
}

/** The groups of the joined photos, ordered as {@linkcode groupAssets} orders them. */
function collect(
  facts: Facts,
  forest: Forest,
  links: readonly { a: number; b: number; kind: LinkKind }[],
): Group[] {
  const { assets, names, times } = facts;
  const membersOf = new Map<number, number[]>();
  for (let i = 0; i < assets.length; i++) {
    if (!forest.joined(i)) continue;
    const root = forest.find(i);
    const members = membersOf.get(root);
    if (members === undefined) membersOf.set(root, [i]);
    else members.push(i);
  }
  const linksOf = new Map<number, { a: number; b: number; kind: LinkKind }[]>();
  for (const l of links) {
    const root = forest.find(l.a);
    const list = linksOf.get(root);
    if (list === undefined) linksOf.set(root, [l]);
    else list.push(l);
  }
  const groups: Group[] = [];
  for (const [root, members] of membersOf) {
    members.sort((a, b) => compare(assets[a].id, assets[b].id));
    let stem = names[members[0]].stem;
    let earliest = times[members[0]];
    for (const m of members) {
      if (names[m].stem < stem) stem = names[m].stem;
      if (times[m] < earliest) earliest = times[m];
    }
    const groupLinks = linksOf.get(root)!;
    const preferred = preferredOf(members, groupLinks, facts);
    groups.push({
      key: `${stem}|${new Date(earliest).toISOString()}`,
      assets: members.map((m) => assets[m]),
      label: describeGroup(members, groupLinks, facts),
      ...(preferred.length > 0 ? { preferred: preferred.map((m) => assets[m].id) } : {}),
    });
  }
  return groups.sort((a, b) => compare(a.key, b.key) || compare(a.assets[0].id, b.assets[0].id));
}
