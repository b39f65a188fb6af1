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
import { type BucketHashes, compare, type GroupingResult } from "../group.ts";
import { BUCKET, Buckets } from "./buckets.ts";
import { describeGroup, preferredOf } from "./labels.ts";
import {
  EDIT_AFTER_MS,
  EDIT_BEFORE_MS,
  type Facts,
  LINK,
  type Link,
  type LinkKind,
  linkNamedBurst,
  type Links,
  linkSequences,
  linkShots,
  linkVersionTwins,
  parentOf,
} from "./links.ts";
import type { Derivation } from "./derivatives.ts";
import { BURST_FAMILIES, Formats, nameBits, type NameInfo, readName } from "./names.ts";

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
  const facts: Facts = {
    assets,
    times: new Float64Array(n),
    bits: new Uint8Array(n),
    frames: new Int32Array(n),
    families: new Uint8Array(n),
    formats: new Uint8Array(n),
    formatTable: new Formats(),
    derivations: new Array<Derivation | undefined>(n).fill(undefined),
  };
  const { times, derivations } = facts;
  const skipped = [];
  const buckets = new Buckets(n, options.buckets === true);
  const cameras = new CameraIds();
  for (let i = 0; i < n; i++) {
    const asset = assets[i];
    const time = parseTime(asset.localDateTime);
    const name = readName(asset.originalFileName);
    keep(facts, i, name);
    times[i] = time;
    buckets.begin(i);
    if (Number.isNaN(time)) {
      const detail = `cannot parse ${JSON.stringify(asset.localDateTime)} as an ISO 8601 time`;
      skipped.push({ asset, reason: "invalid-time" as const, key: "localDateTime", detail });
      continue;
    }
    addBuckets(i, { asset, name, time, buckets, cameras, sameShot: options.sameShot });
  }

  const forest = new Forest(n);
  const links: Links = { a: [], b: [], kind: [] };
  const link = (a: number, b: number, kind: LinkKind) => {
    forest.union(a, b);
    links.a.push(a);
    links.b.push(b);
    links.kind.push(kind);
  };
  // A version is in the stem buckets of several weeks, and meets its twins in each: one link.
  const twinsLinked = new Set<string>();
  const linkTwins: Link = (a, b, kind) => {
    const pair = a < b ? `${a},${b}` : `${b},${a}`;
    if (twinsLinked.has(pair)) return;
    twinsLinked.add(pair);
    link(a, b, kind);
  };
  for (let id = 0; id < buckets.count; id++) {
    if (buckets.size(id) < 2) continue;
    const kind = buckets.kind(id);
    const members = buckets.members(id);
    if (kind === BUCKET.stem) {
      const originals = members.filter((m) => derivations[m] === undefined);
      if (originals.length > 1) linkShots(originals, facts, link);
      if (originals.length < members.length - 1) linkVersionTwins(members, facts, linkTwins);
    } else if (kind === BUCKET.sequence) linkSequences(members, facts, link);
    else linkNamedBurst(members, facts, link);
  }
  for (let i = 0; i < n; i++) {
    if (derivations[i] === undefined) continue;
    const parent = parentOf(i, candidatesOf(i, buckets), facts);
    if (parent !== undefined) link(parent, i, LINK.version);
  }

  return {
    groups: collect(facts, forest, links, buckets),
    skipped: skipped.sort((a, b) => compare(a.asset.id, b.asset.id)),
    ...(options.buckets ? { buckets: hashesOf(buckets, n) } : {}),
  };
}

/** Each asset's bucket hashes, by index. */
function hashesOf(buckets: Buckets, n: number): BucketHashes[] {
  const hashes: BucketHashes[] = [];
  for (let i = 0; i < n; i++) hashes.push(buckets.hashesOf(i));
  return hashes;
}

/** Small numbers for each camera and lens met, so that bucket keys stay short. */
class CameraIds {
  readonly #ids = new Map<string | undefined, Map<string | undefined, number>>();
  #next = 0;

  of(camera: string | undefined, lens: string | undefined): number {
    let byLens = this.#ids.get(camera);
    if (byLens === undefined) this.#ids.set(camera, byLens = new Map());
    let id = byLens.get(lens);
    if (id === undefined) byLens.set(lens, id = this.#next++);
    return id;
  }
}

/** The photos in the stem buckets of a version. */
function candidatesOf(version: number, buckets: Buckets): number[] {
  const candidates: number[] = [];
  for (let k = 0; k < buckets.countOf(version); k++) {
    const id = buckets.bucketOf(version, k);
    if (buckets.kind(id) === BUCKET.stem && buckets.size(id) > 1) {
      candidates.push(...buckets.members(id));
    }
  }
  return candidates;
}

/** Keeps what the grouping needs of photo `i`'s name in `facts` (made by this module). */
function keep(facts: Facts, i: number, name: NameInfo): void {
  facts.bits[i] = nameBits(name);
  facts.formats[i] = facts.formatTable.of(name.extension, name.raw);
  if (name.counter !== undefined) facts.frames[i] = name.counter.number;
  else if (name.burst !== undefined) {
    facts.frames[i] = name.burst.index;
    facts.families[i] = BURST_FAMILIES.indexOf(name.burst.family);
  }
  if (name.derivation !== undefined) {
    (facts.derivations as (Derivation | undefined)[])[i] = name.derivation;
  }
}

/** What {@linkcode addBuckets} reads. */
interface Placing {
  readonly asset: Asset;
  readonly name: NameInfo;
  readonly time: number;
  readonly buckets: Buckets;
  readonly cameras: CameraIds;
  readonly sameShot?: boolean;
}

/** Puts photo `i` in its buckets, computed from it alone. */
function addBuckets(i: number, placing: Placing): void {
  const { asset, name, time, buckets } = placing;
  if (name.derivation !== undefined) {
    // The original was taken in the weeks before the version (or the day after).
    for (let week = weekOf(time - EDIT_AFTER_MS); week <= weekOf(time + EDIT_BEFORE_MS); week++) {
      buckets.add(i, BUCKET.stem, week, name.key);
    }
    return;
  }
  buckets.add(i, BUCKET.stem, weekOf(time), name.key);
  if (placing.sameShot || name.video) return;
  const { camera } = asset;
  if (name.counter !== undefined && camera !== undefined) {
    const id = placing.cameras.of(camera, asset.lens);
    buckets.add(i, BUCKET.sequence, dayOf(time), name.counter.prefix, id);
  } else if (name.burst !== undefined) {
    const { family, key } = name.burst;
    // A GoPro's group numbers come back: a day and a camera tell them apart.
    if (family !== "gopro") buckets.add(i, BUCKET.burst, 0, `${family}\t${key}`);
    else {
      buckets.add(
        i,
        BUCKET.burst,
        dayOf(time),
        `gopro\t${key}`,
        placing.cameras.of(camera, undefined),
      );
    }
  }
}

function dayOf(time: number): number {
  return Math.floor((time - DAY_START_MS) / DAY_MS);
}

function weekOf(time: number): number {
  return Math.floor((time - DAY_START_MS + WEEK_START_MS) / (7 * DAY_MS));
}

/** The groups of the joined photos, ordered as {@linkcode groupAssets} orders them. */
function collect(facts: Facts, forest: Forest, links: Links, buckets: Buckets): Group[] {
  const { assets, times } = facts;
  // A photo's stem, lower-case: the key of its first bucket, which is of its stem.
  const stemOf = (m: number) => buckets.key(buckets.bucketOf(m, 0));
  // Each joined photo's group, numbered by root; then the links of each group.
  const groupOfRoot = new Int32Array(assets.length).fill(-1);
  const membersOf: number[][] = [];
  for (let i = 0; i < assets.length; i++) {
    const root = forest.joinedRoot(i);
    if (root === -1) continue;
    if (groupOfRoot[root] === -1) groupOfRoot[root] = membersOf.push([]) - 1;
    membersOf[groupOfRoot[root]].push(i);
  }
  const linksOf: number[][] = membersOf.map(() => []);
  for (let l = 0; l < links.a.length; l++) linksOf[groupOfRoot[forest.find(links.a[l])]].push(l);

  const groups: Group[] = membersOf.map((members, g) => {
    members.sort((a, b) => compare(assets[a].id, assets[b].id));
    let stem = stemOf(members[0]);
    let earliest = members[0];
    for (const m of members) {
      if (stemOf(m) < stem) stem = stemOf(m);
      if (times[m] < times[earliest]) earliest = m;
    }
    const own = linksOf[g];
    const preferred = preferredOf(members, links, own, facts);
    // The earliest photo's time as the server wrote it: a search writes every time alike.
    const key = `${stem}|${assets[earliest].localDateTime}`;
    const grouped = members.map((m) => assets[m]);
    const label = describeGroup(members, links, own, facts);
    return preferred.length > 0
      ? { key, assets: grouped, label, preferred: preferred.map((m) => assets[m].id) }
      : { key, assets: grouped, label };
  });
  return groups.sort((a, b) => compare(a.key, b.key) || compare(a.assets[0].id, b.assets[0].id));
}
