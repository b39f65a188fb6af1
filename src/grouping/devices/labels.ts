/**
 * What the default rules say about a group they made: which rule made it, in words for the dry
 * run and the review page (`Pixel burst, 12 frames`, `edited copy of IMG_1234.JPG`, `HDR
 * bracket, 5 exposures`), and which photos they would make its cover. Pure.
 *
 * @module
 */
import { type Facts, LINK, type LinkKind, type Links } from "./links.ts";
import type { BurstFamily } from "./names.ts";

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

/** `RAW+JPEG`, `HEIC+JPEG`: the formats of some files, RAW first, JPEG last. */
function formats(files: Iterable<number>, facts: Facts): string {
  const kinds = new Set<string>();
  for (const m of files) {
    const { raw, extension } = facts.names[m];
    const plain = extension.slice(1).toUpperCase();
    kinds.add(raw ? "RAW" : plain === "JPG" ? "JPEG" : plain);
  }
  const rank = (kind: string) => (kind === "RAW" ? 0 : kind === "JPEG" ? 2 : 1);
  return [...kinds].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1)).join("+");
}

/** The frames the links of one kind join: distinct file numbers, or burst frames. */
function frameCount(links: Links, own: ArrayLike<number>, kind: LinkKind, facts: Facts): number {
  let seen: Set<number> | undefined;
  for (let i = 0; i < own.length; i++) {
    const l = own[i];
    if (links.kind[l] !== kind) continue;
    seen ??= new Set();
    seen.add(frameOf(links.a[l], facts)).add(frameOf(links.b[l], facts));
  }
  return seen?.size ?? 0;
}

function frameOf(m: number, facts: Facts): number {
  const { counter, burst } = facts.names[m];
  return counter?.number ?? burst!.index;
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
  const { assets, names } = facts;
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
      if (links.kind[own[i]] === LINK.namedBurst) family = names[links.a[own[i]]].burst!.family;
    }
    const who = family === "google" && maker === "Pixel"
      ? maker
      : FAMILY_NAMES[family!] ?? maker ?? "Phone";
    parts.push(`${who} burst, ${plural(named, "frame")}`);
  }
  const shotFiles = new Set<number>();
  const versions = new Map<string, Map<string, number>>();
  for (let i = 0; i < own.length; i++) {
    const l = own[i];
    if (links.kind[l] === LINK.shot) shotFiles.add(links.a[l]).add(links.b[l]);
    if (links.kind[l] !== LINK.version) continue;
    const parent = assets[links.a[l]].originalFileName;
    const word = versionWord(names[links.b[l]].derivation!);
    const words = versions.get(parent) ?? new Map<string, number>();
    versions.set(parent, words.set(word, (words.get(word) ?? 0) + 1));
  }
  if (shotFiles.size > 0) {
    const shots = new Set([...shotFiles].map((m) => names[m].key)).size;
    const kinds = formats(shotFiles, facts);
    parts.push(
      kinds.includes("+")
        ? `${kinds} ${shots === 1 ? "pair" : "pairs"}`
        : `${plural(shots, "shot")} in several files`,
    );
  }
  // By name, so that the label never depends on the order the photos came in.
  for (const [parent, words] of [...versions].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    for (const [word, count] of [...words].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      parts.push(`${count === 1 ? word : `${count} ${word}s`} of ${parent}`);
    }
  }
  return parts.join("; ");
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
  const { assets, names } = facts;
  // One pass over the members for what decides most groups; the rest only for sequences.
  let edits = 0;
  let copies = 0;
  let covers = 0;
  let originals = 0;
  for (const m of members) {
    const { derivation, cover, original } = names[m];
    if (derivation !== undefined && !derivation.marks.includes("_b")) {
      if (derivation.kind === "edit") edits++;
      else if (derivation.kind === "copy") copies++;
    }
    if (cover) covers++;
    if (original) originals++;
  }
  if (edits > 0) return members.filter((m) => names[m].derivation?.kind === "edit");
  if (copies > 0) {
    return members.filter((m) =>
      names[m].derivation?.kind === "copy" && !names[m].derivation!.marks.includes("_b")
    );
  }
  if (covers > 0) return members.filter((m) => names[m].cover);
  // A Pixel's `.PORTRAIT.jpg` before its `.PORTRAIT.ORIGINAL.jpg`.
  if (originals > 0 && originals < members.length) {
    return members.filter((m) => !names[m].original);
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
      if (exposure !== undefined) bracket.set(names[m].counter!.number, exposure);
    }
  }
  if (bracket !== undefined && bracket.size > 0) {
    const byExposure = [...bracket].sort(([x, ex], [y, ey]) => ex - ey || x - y);
    const middle = byExposure[Math.floor((byExposure.length - 1) / 2)][0];
    return members.filter((m) => names[m].counter?.number === middle);
  }
  if (!sequence && bracket === undefined) return NONE;
  const order = (m: number) => names[m].counter?.number ?? names[m].burst?.index ?? Infinity;
  let first = Infinity;
  for (const m of members) first = Math.min(first, order(m));
  return members.filter((m) => order(m) === first && names[m].derivation === undefined);
}

const NONE: number[] = [];
