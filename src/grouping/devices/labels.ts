/**
 * What the default rules say about a group they made: which rule made it, in words for the dry
 * run and the review page (`Pixel burst, 12 frames`, `edited copy of IMG_1234.JPG`, `HDR
 * bracket, 5 exposures`), and which photos they would make its cover. Pure.
 *
 * @module
 */
import { type Facts, has, LINK, type LinkKind, type Links } from "./links.ts";
import { BURST_FAMILIES, type BurstFamily, NAME_BITS } from "./names.ts";

const FAMILY_NAMES: Readonly<Record<BurstFamily, string | undefined>> = {
  // Nexus and Pixel phones: the camera says which.
  google: "Google Camera",
  nothing: "Nothing",
  xperia: "Sony Xperia",
  samsung: "Samsung",
  gopro: "GoPro",
  // Huawei, Honor, Fairphone, Motorola and OPPO name bursts alike: the camera says which.
  suffix: undefined,
};

/**
 * The maker of a camera as people call it: `iPhone`, `Pixel`, `Nikon` (of `NIKON D850`).
 *
 * @param camera The camera, make and model.
 * @returns The name, or undefined for no camera.
 */
function makerOf(camera: string | undefined): string | undefined {
  if (camera === undefined) return undefined;
  let maker = MAKERS.get(camera);
  if (maker === undefined) MAKERS.set(camera, maker = makerName(camera));
  return maker;
}

/** The makers of the cameras met, by camera: a library holds a few dozen. */
const MAKERS = new Map<string, string>();

function makerName(camera: string): string {
  if (/\biPhone\b/.test(camera)) return "iPhone";
  if (/\bPixel\b/.test(camera)) return "Pixel";
  const word = camera.split(/[\s,]/)[0];
  const shouting = word.length > 3 && word === word.toUpperCase();
  const lower = word === word.toLowerCase();
  return shouting || lower ? `${word[0].toUpperCase()}${word.slice(1).toLowerCase()}` : word;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/** The frames the links of one kind join: distinct file numbers, or burst frames. */
function frameCount(links: Links, own: ArrayLike<number>, kind: LinkKind, facts: Facts): number {
  let seen: Set<number> | undefined;
  for (let i = 0; i < own.length; i++) {
    const l = own[i];
    if (links.kind[l] !== kind) continue;
    seen ??= new Set();
    seen.add(facts.frames[links.a[l]]).add(facts.frames[links.b[l]]);
  }
  return seen?.size ?? 0;
}

/**
 * Which rule made a group, in words: its bracket or burst, its shots, its versions, joined by
 * `; `.
 *
 * @param members The group's photos, by index.
 * @param links Every link.
 * @param own The group's links, by index into `links`.
 * @param facts What was read from each photo.
 * @returns The label, e.g. `HDR bracket, 3 exposures; RAW+JPEG pairs`.
 */
export function describeGroup(
  members: readonly number[],
  links: Links,
  own: ArrayLike<number>,
  facts: Facts,
): string {
  const { assets, derivations } = facts;
  const parts: string[] = [];
  let maker: string | undefined;
  for (const m of members) if ((maker = makerOf(assets[m].camera)) !== undefined) break;
  const exposures = frameCount(links, own, LINK.bracket, facts);
  const burst = frameCount(links, own, LINK.burst, facts);
  const named = frameCount(links, own, LINK.namedBurst, facts);
  if (exposures > 0) {
    let exposed = false;
    for (const m of members) exposed ||= assets[m].exposure !== undefined;
    parts.push(
      exposed
        ? `HDR bracket, ${plural(exposures, "exposure")}`
        : `Bracket, ${plural(exposures, "frame")}`,
    );
  } else if (burst > 1) parts.push(`${maker ?? "Camera"} burst, ${plural(burst, "frame")}`);
  if (named > 1) {
    let family: BurstFamily | undefined;
    for (let i = 0; i < own.length && family === undefined; i++) {
      if (links.kind[own[i]] === LINK.namedBurst) {
        family = BURST_FAMILIES[facts.families[links.a[own[i]]]];
      }
    }
    const who = family === "google" && maker === "Pixel"
      ? maker
      : FAMILY_NAMES[family!] ?? maker ?? "Phone";
    parts.push(`${who} burst, ${plural(named, "frame")}`);
  }
  let shotFiles: number[] | undefined;
  let shotLinks = 0;
  let versions: Map<string, Map<string, number>> | undefined;
  for (let i = 0; i < own.length; i++) {
    const l = own[i];
    if (links.kind[l] === LINK.shot) {
      (shotFiles ??= []).push(links.a[l], links.b[l]);
      shotLinks++;
    }
    if (links.kind[l] !== LINK.version) continue;
    const parent = assets[links.a[l]].originalFileName;
    const word = versionWord(derivations[links.b[l]]!);
    versions ??= new Map();
    const words = versions.get(parent) ?? new Map<string, number>();
    versions.set(parent, words.set(word, (words.get(word) ?? 0) + 1));
  }
  if (shotFiles !== undefined) {
    const files = distinct(shotFiles);
    // Each shot link joined two shots of one stem into one (src/grouping/devices/links.ts).
    const shots = files.length - shotLinks;
    const kinds = facts.formatTable.label(files, facts.formats);
    parts.push(
      kinds.includes("+")
        ? `${kinds} ${shots === 1 ? "pair" : "pairs"}`
        : `${plural(shots, "shot")} in several files`,
    );
  }
  if (versions === undefined) return parts.join("; ");
  // By name, so that the label never depends on the order the photos came in.
  for (const [parent, words] of [...versions].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    for (const [word, count] of [...words].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      parts.push(`${count === 1 ? word : `${count} ${word}s`} of ${parent}`);
    }
  }
  return parts.join("; ");
}

/** The numbers, each once, in order. */
function distinct(numbers: number[]): number[] {
  numbers.sort((a, b) => a - b);
  let kept = 0;
  for (let i = 0; i < numbers.length; i++) {
    if (i === 0 || numbers[i] !== numbers[i - 1]) numbers[kept++] = numbers[i];
  }
  numbers.length = kept;
  return numbers;
}

function versionWord(derivation: { readonly kind: string; readonly marks: readonly string[] }) {
  if (derivation.marks.includes("_a")) return "enhanced scan";
  if (derivation.kind === "back") return "back";
  return derivation.kind === "edit" ? "edited copy" : "copy";
}

/**
 * The photos the rules would make a group's cover: its edited copies, else its copies, else
 * what the maker marked COVER, else what it did not mark ORIGINAL, else the middle exposure of
 * a bracket, else the first frame of a burst; none for a pair alone (the extension promotion
 * picks the JPEG).
 *
 * @param members The group's photos, by index.
 * @param links Every link.
 * @param own The group's links, by index into `links`.
 * @param facts What was read from each photo.
 * @returns The preferred photos, by index.
 */
export function preferredOf(
  members: readonly number[],
  links: Links,
  own: ArrayLike<number>,
  facts: Facts,
): number[] {
  const { assets, derivations, frames } = facts;
  // One pass over the members for what decides most groups; the rest only for sequences.
  let edits = 0;
  let copies = 0;
  let covers = 0;
  let originals = 0;
  for (const m of members) {
    const derivation = derivations[m];
    if (derivation !== undefined && !derivation.marks.includes("_b")) {
      if (derivation.kind === "edit") edits++;
      else if (derivation.kind === "copy") copies++;
    }
    if (has(facts, m, NAME_BITS.cover)) covers++;
    if (has(facts, m, NAME_BITS.original)) originals++;
  }
  if (edits > 0) return members.filter((m) => derivations[m]?.kind === "edit");
  if (copies > 0) {
    return members.filter((m) =>
      derivations[m]?.kind === "copy" && !derivations[m]!.marks.includes("_b")
    );
  }
  if (covers > 0) return members.filter((m) => has(facts, m, NAME_BITS.cover));
  // A Pixel's `.PORTRAIT.jpg` before its `.PORTRAIT.ORIGINAL.jpg`.
  if (originals > 0 && originals < members.length) {
    return members.filter((m) => !has(facts, m, NAME_BITS.original));
  }
  let bracket: Map<number, number> | undefined;
  let sequence = false;
  for (let i = 0; i < own.length; i++) {
    const l = own[i];
    const kind = links.kind[l];
    sequence ||= kind === LINK.burst || kind === LINK.namedBurst;
    if (kind !== LINK.bracket) continue;
    bracket ??= new Map();
    for (const m of [links.a[l], links.b[l]]) {
      const exposure = assets[m].exposure;
      if (exposure !== undefined) bracket.set(frames[m], exposure);
    }
  }
  if (bracket !== undefined && bracket.size > 0) {
    const byExposure = [...bracket].sort(([x, ex], [y, ey]) => ex - ey || x - y);
    const middle = byExposure[Math.floor((byExposure.length - 1) / 2)][0];
    return members.filter((m) => has(facts, m, NAME_BITS.counter) && frames[m] === middle);
  }
  if (!sequence && bracket === undefined) return NONE;
  const order = (m: number) =>
    has(facts, m, NAME_BITS.counter | NAME_BITS.burst) ? frames[m] : Infinity;
  let first = Infinity;
  for (const m of members) first = Math.min(first, order(m));
  return members.filter((m) => order(m) === first && derivations[m] === undefined);
}

const NONE: number[] = [];
