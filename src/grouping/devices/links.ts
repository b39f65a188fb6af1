/**
 * Which photos of one grouping bucket belong together, for the default rules
 * (src/grouping/devices/rules.ts): the files of one shot (RAW+JPEG), a version and its original,
 * the frames of a burst or bracket. Every decision reads only the photos of the bucket, so that
 * regrouping a part of a library gives the groups the whole library gives it
 * (docs/incremental.md). Pure.
 *
 * @module
 */
import type { Asset } from "../../model.ts";
import { compare } from "../group.ts";
import { type Derivation, strongest } from "./derivatives.ts";
import { BURST_FAMILIES, type Formats, NAME_BITS } from "./names.ts";

/** What joined two photos. */
export const LINK = {
  /** Two files of one shot: RAW+JPEG, HEIC+JPEG, a Pixel's `.RAW-01` and `.RAW-02`. */
  shot: 1,
  /** A version (edit, copy, back of a scan) and the photo it was made from. */
  version: 2,
  /** Consecutive file numbers a fraction of a second apart. */
  burst: 3,
  /** Consecutive file numbers seconds apart, each exposed differently. */
  bracket: 4,
  /** Frames of a burst that the names say are one. */
  namedBurst: 5,
} as const;

/** A link's kind. */
export type LinkKind = typeof LINK[keyof typeof LINK];

/**
 * The photos being grouped and what was read from each name (src/grouping/devices/names.ts),
 * in typed arrays: no object per photo.
 */
export interface Facts {
  readonly assets: readonly Asset[];
  /** Each photo's `localDateTime` in ms. */
  readonly times: Float64Array;
  /** Each photo's {@linkcode NAME_BITS}. */
  readonly bits: Uint8Array;
  /** Each photo's file number (with `NAME_BITS.counter`) or place in its burst (`.burst`). */
  readonly frames: Int32Array;
  /** Each burst frame's family, as its index in {@linkcode BURST_FAMILIES}. */
  readonly families: Uint8Array;
  /** Each photo's format, as its number in `formatTable`. */
  readonly formats: Uint8Array;
  readonly formatTable: Formats;
  /** What makes each version one; undefined for an original. */
  readonly derivations: readonly (Derivation | undefined)[];
}

/** Whether photo `m`'s name has one of `bits`. */
export function has(facts: Facts, m: number, bits: number): boolean {
  return (facts.bits[m] & bits) !== 0;
}

/** Whether two photos are both videos or both not. */
function sameKind(facts: Facts, a: number, b: number): boolean {
  return ((facts.bits[a] ^ facts.bits[b]) & NAME_BITS.video) === 0;
}

/** Where links go. */
export type Link = (a: number, b: number, kind: LinkKind) => void;

/** The links made, link `l` joining `a[l]` and `b[l]` for `kind[l]`. */
export interface Links {
  readonly a: number[];
  readonly b: number[];
  readonly kind: LinkKind[];
}

/** Files of one shot are written within this much of each other. */
const SAME_SHOT_MS = 2_000;
/**
 * A stem holding the date and time (`PXL_20250126_164931991`) names one shot whatever the
 * times say: a Pixel dates its RAW when it has processed it, seconds after the JPEG.
 */
const TIMED_SHOT_MS = 10 * 60_000;
/**
 * When EXIF gives one of them no time, Immich dates it by the file, in UTC: up to 14 hours of
 * time zone apart from the other's local time.
 */
const UNDATED_SHOT_MS = 14 * 3_600_000 + SAME_SHOT_MS;
/** Burst frames follow each other within a second. */
const BURST_GAP_MS = 1_000;
/** Bracket frames follow each other within seconds (long exposures included). */
const BRACKET_GAP_MS = 10_000;
/** Bracket frames differ by at least this much exposure from the one before, in 1/12 stop. */
const BRACKET_STEP = 7;
/** The exposures of a bracket span at least a stop, in 1/12 stop. */
const BRACKET_SPAN = 12;
/** The most frames of a bracket. */
const BRACKET_MAX = 9;
/** Frames that say no exposure follow each other within this much to be taken for a bracket. */
const UNEXPOSED_GAP_MS = 3_000;
/** An edit is made at most this long after the photo, and dated at most a day before it. */
export const EDIT_AFTER_MS = 14 * 86_400_000;
export const EDIT_BEFORE_MS = 86_400_000;
/** Frames of a named burst follow each other within a minute (a GoPro's time lapse: 10). */
const NAMED_BURST_GAP_MS = 60_000;
const TIME_LAPSE_GAP_MS = 10 * 60_000;

/** Whether two file names are one, whatever their case. */
function sameName(a: string, b: string): boolean {
  return a.length === b.length && (a === b || a.toLowerCase() === b.toLowerCase());
}

/** Whether two photos may come from one camera: it is the same, or one of them names none. */
function sameCamera(a: Asset, b: Asset): boolean {
  return a.camera === undefined || b.camera === undefined || a.camera === b.camera;
}

/** Whether two photos may be one exposure: same camera and lens, and the same exposure. */
function sameExposure(a: Asset, b: Asset): boolean {
  if (!sameCamera(a, b)) return false;
  if (a.lens !== undefined && b.lens !== undefined && a.lens !== b.lens) return false;
  return a.exposure === undefined || b.exposure === undefined ||
    Math.abs(a.exposure - b.exposure) <= 1;
}

/**
 * Joins the files of each shot among the originals of one stem: two files of other names (not
 * the same name twice: that is two cameras, or one photo uploaded twice), of one camera, lens
 * and exposure, taken within 2 s (14 h when EXIF dates one of them not). The closest pairs join
 * first, and a shot never holds one name twice.
 *
 * @param members The originals of a bucket, by index.
 * @param facts What was read from each photo.
 * @param link Where the links go.
 */
export function linkShots(members: readonly number[], facts: Facts, link: Link): void {
  if (members.length < 2) return;
  const { assets, times } = facts;
  const pairs: { a: number; b: number; gap: number }[] = [];
  for (let i = 0; i < members.length; i++) {
    for (let j = i + 1; j < members.length; j++) {
      const a = members[i];
      const b = members[j];
      const gap = Math.abs(times[a] - times[b]);
      const undated = assets[a].undated === true || assets[b].undated === true;
      const limit = undated
        ? UNDATED_SHOT_MS
        : has(facts, a, NAME_BITS.timed)
        ? TIMED_SHOT_MS
        : SAME_SHOT_MS;
      if (gap > limit) continue;
      if (!sameKind(facts, a, b)) continue;
      if (sameName(assets[a].originalFileName, assets[b].originalFileName)) continue;
      // A Pixel's files of one shot are processed apart: their exposures may differ.
      const multiFile = has(facts, a, NAME_BITS.multiFile) || has(facts, b, NAME_BITS.multiFile);
      if (!(multiFile ? sameCamera(assets[a], assets[b]) : sameExposure(assets[a], assets[b]))) {
        continue;
      }
      // Ordered by id, so that what the greedy matching meets first never depends on the order
      // the photos came in (an incremental pass regroups a part in another order).
      pairs.push(byId(a, b, assets) < 0 ? { a, b, gap } : { a: b, b: a, gap });
    }
  }
  if (pairs.length === 0) return;
  if (members.length === 2) return link(pairs[0].a, pairs[0].b, LINK.shot);
  pairs.sort((x, y) => x.gap - y.gap || byId(x.a, y.a, assets) || byId(x.b, y.b, assets));
  // Each shot as the lower-case names it holds, by its first member.
  const shotOf = new Map<number, number>(members.map((m) => [m, m]));
  const namesOf = new Map<number, Set<string>>(
    members.map((m) => [m, new Set([assets[m].originalFileName.toLowerCase()])]),
  );
  const root = (m: number): number => {
    let r = shotOf.get(m)!;
    while (r !== shotOf.get(r)) r = shotOf.get(r)!;
    return r;
  };
  for (const { a, b } of pairs) {
    const ra = root(a);
    const rb = root(b);
    if (ra === rb) continue;
    const left = namesOf.get(ra)!;
    const right = namesOf.get(rb)!;
    if ([...right].some((name) => left.has(name))) continue;
    for (const name of right) left.add(name);
    shotOf.set(rb, ra);
    link(a, b, LINK.shot);
  }
}

/**
 * Joins the files of each shot among the versions of one stem that carry the same marks: a
 * RAW+JPEG pair renamed with a number (`Session_12.NEF` and `Session_12.JPG`) reads as two
 * versions of `Session`, and is one shot all the same. Other versions never join here.
 *
 * @param members The photos of a bucket, by index.
 * @param facts What was read from each photo.
 * @param link Where the links go.
 */
export function linkVersionTwins(members: readonly number[], facts: Facts, link: Link): void {
  const byMarks = new Map<string, number[]>();
  for (const m of members) {
    const derivation = facts.derivations[m];
    if (derivation === undefined) continue;
    const key = derivation.marks.join("\n").toLowerCase();
    const twins = byMarks.get(key);
    if (twins === undefined) byMarks.set(key, [m]);
    else twins.push(m);
  }
  for (const twins of byMarks.values()) linkShots(twins, facts, link);
}

/**
 * The photo a version was made from, among the candidates of its buckets: one of the same kind
 * (photo or video) and camera, dated at most 14 days before the version and a day after; a copy
 * also of the same exposure. The original closest in time wins, then one dated before the
 * version, then a JPEG before a RAW, then the smaller id. Without an original, another
 * version it was made from (`-edited` for `-edited(1)`); a copy of a version must then be of
 * its time (within 2 s) or name its camera, since versions of one name are often of other
 * photos (Google's creations are all `EFFECTS-edited`).
 *
 * @param version The version, by index.
 * @param candidates The photos of its buckets, by index (itself among them or not).
 * @param facts What was read from each photo.
 * @returns The photo it was made from, or undefined.
 */
export function parentOf(
  version: number,
  candidates: Iterable<number>,
  facts: Facts,
): number | undefined {
  const { assets, derivations, times } = facts;
  const derivation = derivations[version]!;
  let best: number | undefined;
  let bestScore = Infinity;
  let bestIsOriginal = false;
  for (const c of candidates) {
    if (c === version) continue;
    const other = derivations[c];
    if (!sameKind(facts, c, version) || !sameCamera(assets[c], assets[version])) continue;
    const isOriginal = other === undefined;
    if (!isOriginal && !madeFrom(derivation.marks, other.marks)) continue;
    if (bestIsOriginal && !isOriginal) continue;
    const after = times[version] - times[c];
    // What the marks the candidate lacks make of it: `(1)` of `-edited` is a copy.
    const extra = derivation.kinds.length - (other?.kinds.length ?? 0);
    let kind = derivation.kinds[0];
    for (let i = 1; i < extra; i++) kind = strongest(kind, derivation.kinds[i]);
    if (after > EDIT_AFTER_MS || after < -EDIT_BEFORE_MS) continue;
    // A file named as a copy may be another photo that had the name: another exposure says so.
    if (kind === "copy") {
      if (!sameExposure(assets[c], assets[version])) continue;
      const vouched = isOriginal ||
        (assets[c].camera !== undefined && assets[c].camera === assets[version].camera);
      if (!vouched && Math.abs(after) > SAME_SHOT_MS) continue;
    }
    // Closest first, a version dated after its original before one dated before, JPEG first.
    const score = Math.abs(after) * 4 + (after < 0 ? 2 : 0) +
      (has(facts, c, NAME_BITS.raw) ? 1 : 0);
    if (
      (isOriginal && !bestIsOriginal) || score < bestScore ||
      (score === bestScore && byId(c, best!, assets) < 0)
    ) {
      best = c;
      bestScore = score;
      bestIsOriginal = isOriginal;
    }
  }
  return best;
}

/** The order of two photos by id: what breaks ties, the same in any order of the input. */
function byId(a: number, b: number, assets: readonly Asset[]): number {
  return compare(assets[a].id, assets[b].id);
}

/** Whether a version with `marks` was made from one with `fewer`: its inner marks are those. */
function madeFrom(marks: readonly string[], fewer: readonly string[]): boolean {
  if (fewer.length >= marks.length) return false;
  const offset = marks.length - fewer.length;
  return fewer.every((mark, i) => mark.toLowerCase() === marks[offset + i].toLowerCase());
}

/**
 * Joins consecutive file numbers of one camera and day: frames within a second (a burst), or
 * runs of 3 to 9 frames within seconds of each other whose exposure steps by at least 0.6 stop
 * and spans a stop (an HDR bracket), or, when EXIF gives no exposure, 1 to 3 s apart. A counter
 * never wraps here: 9999 and 0001 are not consecutive.
 *
 * @param members The photos of the bucket, by index, each with a file number.
 * @param facts What was read from each photo.
 * @param link Where the links go.
 */
export function linkSequences(members: readonly number[], facts: Facts, link: Link): void {
  if (members.length < 2) return;
  const { assets, times } = facts;
  const frames = new Map<number, number[]>();
  for (const m of members) {
    const number = facts.frames[m];
    const frame = frames.get(number);
    if (frame === undefined) frames.set(number, [m]);
    else frame.push(m);
  }
  const numbers = [...frames.keys()].sort((a, b) => a - b);
  // Each frame's earliest photo (the smallest id of those), and its first with an exposure.
  for (const frame of frames.values()) {
    frame.sort((a, b) => times[a] - times[b] || byId(a, b, assets));
  }
  const first = (n: number) => frames.get(n)![0];
  const exposureOf = (n: number) => frames.get(n)!.find((m) => assets[m].exposure !== undefined);
  let run: number[] = [];
  // Whether the run's frames say their exposure: without it, frames 1 to 3 s apart are taken
  // for a bracket.
  let exposed = true;
  const closeRun = () => {
    const bracket = run.length >= 3 && run.length <= BRACKET_MAX &&
      (!exposed || spansStop(run, exposureOf, assets));
    if (bracket) {
      for (let i = 1; i < run.length; i++) link(first(run[0]), first(run[i]), LINK.bracket);
    }
    run = [];
  };
  for (let i = 1; i < numbers.length; i++) {
    const previous = numbers[i - 1];
    const number = numbers[i];
    if (number !== previous + 1) {
      closeRun();
      continue;
    }
    const gap = Math.abs(times[first(number)] - times[first(previous)]);
    if (gap <= BURST_GAP_MS) {
      for (const a of frames.get(previous)!) {
        for (const b of frames.get(number)!) link(a, b, LINK.burst);
      }
    }
    const x = exposureOf(previous);
    const y = exposureOf(number);
    const known = x !== undefined && y !== undefined;
    const step = known
      ? gap <= BRACKET_GAP_MS && Math.abs(assets[x].exposure! - assets[y].exposure!) >= BRACKET_STEP
      : x === undefined && y === undefined && gap > BURST_GAP_MS && gap <= UNEXPOSED_GAP_MS;
    if (!step || (run.length > 0 && known !== exposed)) closeRun();
    if (step) {
      if (run.length === 0) run.push(previous), exposed = known;
      run.push(number);
    }
  }
  closeRun();
}

function spansStop(
  run: readonly number[],
  exposureOf: (n: number) => number | undefined,
  assets: readonly Asset[],
): boolean {
  const exposures = run.map((n) => assets[exposureOf(n)!].exposure!);
  return Math.max(...exposures) - Math.min(...exposures) >= BRACKET_SPAN;
}

/**
 * Joins the frames of a burst the names say are one, frame after frame in time: of one camera,
 * within a minute of the frame before (10 minutes for a GoPro's time lapse).
 *
 * @param members The photos of the bucket, by index, each named as a burst frame.
 * @param facts What was read from each photo.
 * @param link Where the links go.
 */
export function linkNamedBurst(members: readonly number[], facts: Facts, link: Link): void {
  if (members.length < 2) return;
  const { assets, times } = facts;
  const gapLimit = BURST_FAMILIES[facts.families[members[0]]] === "gopro"
    ? TIME_LAPSE_GAP_MS
    : NAMED_BURST_GAP_MS;
  const sorted = [...members].sort((a, b) => times[a] - times[b] || byId(a, b, assets));
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1];
    const b = sorted[i];
    if (!sameKind(facts, a, b) || !sameCamera(assets[a], assets[b])) continue;
    if (times[b] - times[a] > gapLimit) continue;
    link(a, b, LINK.namedBurst);
  }
}
