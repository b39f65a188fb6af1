/**
 * What the default rules say about a group they made: which rule made it, in words for the dry
 * run and the review page (`Pixel burst, 12 frames`, `edited copy of IMG_1234.JPG`, `HDR
 * bracket, 5 exposures`), and which photos they would make its cover. Pure.
 *
 * @module
 */
import { type Facts, LINK, type LinkKind } from "./links.ts";
import type { BurstFamily } from "./names.ts";

/** A link of a group. */
interface Joined {
  readonly a: number;
  readonly b: number;
  readonly kind: LinkKind;
}

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

/** `RAW+JPEG`, `HEIC+JPEG`: the formats of one shot, RAW first. */
function formats(files: readonly number[], facts: Facts): string {
  const kinds = new Set<string>();
  for (const m of files) {
    const { raw, extension } = facts.names[m];
    const plain = extension.slice(1).toUpperCase();
    kinds.add(raw ? "RAW" : plain === "JPEG" ? "JPG" : plain);
  }
  const sorted = [...kinds].sort((a, b) =>
    (a === "RAW" ? -1 : b === "RAW" ? 1 : 0) || (a === "JPG" ? 1 : b === "JPG" ? -1 : 0) ||
    (a < b ? -1 : 1)
  );
  return sorted.map((kind) => (kind === "JPG" ? "JPEG" : kind)).join("+");
}

/** The frames a group's sequence or burst links join: distinct file numbers or burst frames. */
function frames(links: readonly Joined[], kinds: readonly LinkKind[], facts: Facts): Set<string> {
  const seen = new Set<string>();
  for (const { a, b, kind } of links) {
    if (!kinds.includes(kind)) continue;
    for (const m of [a, b]) {
      const { counter, burst } = facts.names[m];
      seen.add(counter !== undefined ? `${counter.number}` : `${burst?.key}/${burst?.index}`);
    }
  }
  return seen;
}

/** The file numbers a group's bracket links join. */
function bracketNumbers(links: readonly Joined[], facts: Facts): Set<number> {
  const numbers = new Set<number>();
  for (const { a, b, kind } of links) {
    if (kind !== LINK.bracket) continue;
    for (const m of [a, b]) numbers.add(facts.names[m].counter!.number);
  }
  return numbers;
}

/**
 * Which rule made a group, in words: its bracket or burst, its shots, its versions, joined by
 * `; `.
 *
 * @param members The group's photos, by index.
 * @param links The links that joined them.
 * @param facts What was read from each photo.
 * @returns The label, e.g. `HDR bracket, 3 exposures; RAW+JPEG pairs`.
 */
export function describeGroup(
  members: readonly number[],
  links: readonly Joined[],
  facts: Facts,
): string {
  const { assets, names } = facts;
  const parts: string[] = [];
  const bracket = bracketNumbers(links, facts);
  const maker = makerOf(members.map((m) => assets[m].camera).find((c) => c !== undefined));
  if (bracket.size > 0) parts.push(`HDR bracket, ${plural(bracket.size, "exposure")}`);
  else {
    const burst = frames(links, [LINK.burst], facts);
    if (burst.size > 1) parts.push(`${maker ?? "Camera"} burst, ${plural(burst.size, "frame")}`);
  }
  const named = frames(links, [LINK.namedBurst], facts);
  if (named.size > 1) {
    const family = names[links.find((l) => l.kind === LINK.namedBurst)!.a].burst!.family;
    const who = family === "google" && maker === "Pixel"
      ? maker
      : FAMILY_NAMES[family] ?? maker ?? "Phone";
    parts.push(`${who} burst, ${plural(named.size, "frame")}`);
  }
  const shots = links.filter((l) => l.kind === LINK.shot);
  if (shots.length > 0) {
    const files = [...new Set(shots.flatMap((l) => [l.a, l.b]))];
    const shotCount = new Set(files.map((m) => names[m].key)).size;
    const kinds = formats(files, facts);
    parts.push(
      kinds.includes("+")
        ? `${kinds} ${shotCount === 1 ? "pair" : "pairs"}`
        : `${plural(shotCount, "shot")} in several files`,
    );
  }
  const versions = links.filter((l) => l.kind === LINK.version);
  const byParent = new Map<string, string[]>();
  for (const { a, b } of versions) {
    const parent = assets[a].originalFileName;
    const list = byParent.get(parent) ?? [];
    list.push(versionWord(names[b].derivation!.kind, names[b].derivation!.marks));
    byParent.set(parent, list);
  }
  for (const [parent, words] of byParent) {
    for (const word of new Set(words)) {
      const count = words.filter((w) => w === word).length;
      parts.push(`${count === 1 ? word : `${count} ${word}s`} of ${parent}`);
    }
  }
  return parts.join("; ");
}

function versionWord(kind: string, marks: readonly string[]): string {
  if (marks.includes("_a")) return "enhanced scan";
  if (kind === "back") return "back";
  return kind === "edit" ? "edited copy" : "copy";
}

/**
 * The photos the rules would make a group's cover: its edited copies, else its copies, else
 * what the maker marked COVER, else the middle exposure of a bracket, else the first frame of a
 * burst; none for a pair alone (the extension promotion picks the JPEG).
 *
 * @param members The group's photos, by index.
 * @param links The links that joined them.
 * @param facts What was read from each photo.
 * @returns The preferred photos, by index.
 */
export function preferredOf(
  members: readonly number[],
  links: readonly Joined[],
  facts: Facts,
): number[] {
  const { assets, names } = facts;
  for (const kind of ["edit", "copy"]) {
    const versions = members.filter((m) =>
      names[m].derivation?.kind === kind && !names[m].derivation!.marks.includes("_b")
    );
    if (versions.length > 0) return versions;
  }
  const covers = members.filter((m) => names[m].cover);
  if (covers.length > 0) return covers;
  // A Pixel's `.PORTRAIT.jpg` before its `.PORTRAIT.ORIGINAL.jpg`.
  const processed = members.filter((m) => !names[m].original);
  if (processed.length > 0 && processed.length < members.length) return processed;
  const bracket = [...bracketNumbers(links, facts)];
  if (bracket.length > 0) {
    const exposureOf = (number: number) =>
      members.find((m) => names[m].counter?.number === number && assets[m].exposure !== undefined);
    const byExposure = bracket.sort((x, y) =>
      assets[exposureOf(x)!].exposure! - assets[exposureOf(y)!].exposure! || x - y
    );
    const middle = byExposure[Math.floor((byExposure.length - 1) / 2)];
    return members.filter((m) => names[m].counter?.number === middle);
  }
  const sequence = links.some((l) => l.kind === LINK.burst || l.kind === LINK.namedBurst);
  if (!sequence) return [];
  const order = (m: number) => names[m].counter?.number ?? names[m].burst?.index ?? Infinity;
  let first = Infinity;
  for (const m of members) first = Math.min(first, order(m));
  return members.filter((m) => order(m) === first && names[m].derivation === undefined);
}
