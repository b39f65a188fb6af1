/**
 * What a file name says about its photo, as cameras and phones write names: the shot it
 * belongs to (its stem: `IMG_1234` of `IMG_1234.CR3`, `PXL_20231207_032111247` of
 * `PXL_20231207_032111247.RAW-01.COVER.jpg`), whether it is another version of a photo
 * (src/grouping/devices/derivatives.ts), a frame of a burst named as one, or a frame of a
 * camera's running counter. Pure; docs/default-rules.md lists the names with an example each.
 *
 * @module
 */
import { isDigit } from "../_extract.ts";
import { RAW_EXTENSIONS } from "../../trash/raw.ts";
import { type Derivation, derivationOf, strongest } from "./derivatives.ts";

/** Makers whose burst frames carry the burst in their names. */
export type BurstFamily =
  /** `00001IMG_00001_BURST20171111030039.jpg`: Google Camera on Nexus and Pixel phones. */
  | "google"
  /** `00001IMG_00001_BURST1723801037429.jpg` (milliseconds since 1970): Nothing phones. */
  | "nothing"
  /** `DSC_0001_BURST20230709220904977.JPG`: Sony Xperia phones. */
  | "xperia"
  /** `IMG_20231014_183246_BURST001_COVER.jpg`: Huawei, Honor, Fairphone, Motorola, OPPO. */
  | "suffix"
  /** `20231207_101605_001.jpg`: Samsung Galaxy phones. */
  | "samsung"
  /** `G0231111.JPG`: GoPro bursts and time lapses (group 023, frame 1111). */
  | "gopro";

/** Burst families by number, as {@linkcode NAME_BITS} keeps them. */
export const BURST_FAMILIES: readonly BurstFamily[] = [
  "google",
  "nothing",
  "xperia",
  "suffix",
  "samsung",
  "gopro",
];

/**
 * What the grouping keeps of a name per photo, as bits of one number (no object per photo at
 * 200 000 photos): the flags of {@linkcode NameInfo}, and whether it has a counter or a burst.
 */
export const NAME_BITS = {
  video: 1,
  raw: 2,
  cover: 4,
  original: 8,
  multiFile: 16,
  timed: 32,
  counter: 64,
  burst: 128,
} as const;

/**
 * The bits of a name.
 *
 * @param name What a file name says.
 * @returns Its {@linkcode NAME_BITS}.
 */
export function nameBits(name: NameInfo): number {
  return (name.video ? NAME_BITS.video : 0) | (name.raw ? NAME_BITS.raw : 0) |
    (name.cover ? NAME_BITS.cover : 0) | (name.original ? NAME_BITS.original : 0) |
    (name.multiFile ? NAME_BITS.multiFile : 0) | (name.timed ? NAME_BITS.timed : 0) |
    (name.counter !== undefined ? NAME_BITS.counter : 0) |
    (name.burst !== undefined ? NAME_BITS.burst : 0);
}

/**
 * The formats of the photos of one grouping, numbered: `RAW` for every RAW file, else the
 * extension in capitals (`JPEG` for `.jpg`). Labels name a pair's formats from these numbers.
 */
export class Formats {
  readonly #codes = new Map<string, number>();
  /** The numbers by extension, of RAW files and of others: most photos share a few. */
  readonly #byExtension = [new Map<string, number>(), new Map<string, number>()];
  readonly #names: string[] = [];
  /** `RAW+JPEG` by the bits of its formats' numbers. */
  readonly #labels = new Map<number, string>();

  /**
   * The number of a photo's format.
   *
   * @param extension Its extension, lower-case with its dot.
   * @param raw Whether it is a RAW file.
   * @returns The number, below 256.
   */
  of(extension: string, raw: boolean): number {
    const known = this.#byExtension[raw ? 1 : 0];
    let code = known.get(extension);
    if (code === undefined) known.set(extension, code = this.#number(extension, raw));
    return code;
  }

  #number(extension: string, raw: boolean): number {
    const name = raw ? "RAW" : extension === ".jpg" ? "JPEG" : extension.slice(1).toUpperCase();
    let code = this.#codes.get(name);
    if (code !== undefined) return code;
    // Past 255 formats (never met), the rest share the last number.
    if (this.#names.length === 255) return 255;
    this.#codes.set(name, code = this.#names.push(name) - 1);
    return code;
  }

  /**
   * `RAW+JPEG`, `HEIC+JPEG`: the formats of some files, RAW first, JPEG last.
   *
   * @param files The files, by index.
   * @param codes Each photo's format number, by index.
   * @returns The formats, joined by `+`.
   */
  label(files: readonly number[], codes: Uint8Array): string {
    let bits = 0;
    for (const m of files) bits = codes[m] < 30 ? bits | (1 << codes[m]) : -1;
    let label = bits === -1 ? undefined : this.#labels.get(bits);
    if (label !== undefined) return label;
    const kinds = [...new Set(files.map((m) => this.#names[codes[m]] ?? "FILE"))];
    const rank = (kind: string) => (kind === "RAW" ? 0 : kind === "JPEG" ? 2 : 1);
    label = kinds.sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1)).join("+");
    if (bits !== -1) this.#labels.set(bits, label);
    return label;
  }
}

/** A frame of a burst whose name says which burst. */
export interface BurstName {
  readonly family: BurstFamily;
  /** The burst, lower-case: its time or number as the name writes it. */
  readonly key: string;
  /** The frame's place in the burst. */
  readonly index: number;
}

/** A name ending in a camera's running file number (`IMG_1234`, `DSC01234`, `P1010001`). */
export interface CounterName {
  /** What comes before the number, lower-case (`img_`). */
  readonly prefix: string;
  readonly number: number;
}

/** What a file name says. */
export interface NameInfo {
  /** The extension, lower-case with its dot (`.jpg`); "" for none. */
  readonly extension: string;
  /** A video (its extension says so): never stacked with a photo. */
  readonly video: boolean;
  /** A camera's RAW file. */
  readonly raw: boolean;
  /**
   * The shot the file belongs to, as written: the name without its extension, its version marks
   * and what a Pixel writes after the first dot (`.RAW-01.COVER`).
   */
  readonly stem: string;
  /** The stem, lower-case: files of one shot share it. */
  readonly key: string;
  /** Another version of a photo (an edit, a copy), and of which: undefined for an original. */
  readonly derivation: Derivation | undefined;
  /** The maker marked it as the cover of its shot or burst (`COVER`). */
  readonly cover: boolean;
  /** The maker marked it as the unprocessed file of its shot (`ORIGINAL`). */
  readonly original: boolean;
  /** Named as one of several files of one shot (`.RAW-01`, `.ORIGINAL`, `.MOTION-02`). */
  readonly multiFile: boolean;
  /** The stem holds a date and time (`PXL_20231207_032111247`): no other shot has it. */
  readonly timed: boolean;
  readonly burst: BurstName | undefined;
  readonly counter: CounterName | undefined;
}

const VIDEO_EXTENSIONS: ReadonlySet<string> = new Set([
  ".mov",
  ".mp4",
  ".m4v",
  ".3gp",
  ".avi",
  ".mts",
  ".m2ts",
  ".mkv",
  ".webm",
  ".wmv",
  ".mpg",
  ".mpeg",
  ".insv",
  ".360",
  ".lrv",
]);

/** RAW files of cameras and phones (Adobe's DNG, which phones write, among them). */
const RAW: ReadonlySet<string> = new Set(RAW_EXTENSIONS);

/** Google Camera (`00001IMG_00001_BURST…`), Nothing (13 digits: milliseconds since 1970). */
const GOOGLE_BURST = /^\d{5}[A-Za-z]+_(\d{5})_BURST(\d{13,17})$/;
/** Sony Xperia, also its predictive capture (`DSCPDC_0000_BURST…`). */
const XPERIA_BURST = /^DSC(?:PDC)?_(\d{4})_BURST(\d{17})$/;
/** `<shot>_BURST001`: Huawei, Honor, Fairphone, Motorola, OPPO and OnePlus. */
const SUFFIX_BURST = /^(.+?)_BURST(\d{2,4})$/;
/** Samsung: the burst's time, then the frame. */
const SAMSUNG_BURST = /^(\d{8}_\d{6})_(\d{3})$/;
/** GoPro: `G`, the group, the frame. */
const GOPRO_BURST = /^G(\d{3})(\d{4})$/;
/** A date and a time in a name (`20231014_183246`, `IMG20240828140543`): not a counter. */
const DATE_TIME = /\d{8}[_-]?\d{6}/;

/** The tokens a Pixel writes after the first dot: `RAW-01`, `MP`, `COVER`, `PORTRAIT`, `TS`. */
const PIXEL_TOKEN = /^[A-Z][A-Z0-9_]*(?:-\d{2})?$/;

/**
 * Reads a file name.
 *
 * @param fileName The asset's original file name.
 * @returns What it says.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { readName } from "./names.ts";
 *
 * const pixel = readName("PXL_20231207_032111247.RAW-01.COVER.jpg");
 * assert.equal(pixel.stem, "PXL_20231207_032111247");
 * assert.equal(pixel.cover, true);
 * assert.deepEqual(readName("IMG_1234.CR3").counter, { prefix: "img_", number: 1234 });
 * assert.equal(readName("IMG_1234-bearbeitet.jpg").derivation?.base, "IMG_1234");
 * assert.deepEqual(readName("IMG_20231014_183246_BURST002.jpg").burst, {
 *   family: "suffix",
 *   key: "img_20231014_183246",
 *   index: 2,
 * });
 * ```
 */
export function readName(fileName: string): NameInfo {
  const name = isAscii(fileName) ? fileName : fileName.normalize("NFC");
  const dot = name.lastIndexOf(".");
  const extension = dot > 0 ? name.slice(dot).toLowerCase() : "";
  const full = dot > 0 ? name.slice(0, dot) : name;
  let head = full;
  let tail = "";
  const first = full.indexOf(".");
  // `PXL_….RAW-01.COVER`, `IMG_1234.HEIC` converted to JPEG: the shot is before the first dot.
  // A dotted number (`10.15.32`, `2024.05.01`) stays whole.
  if (first > 0 && !(isDigitAt(full, first - 1) && isDigitAt(full, first + 1))) {
    head = full.slice(0, first);
    tail = full.slice(first + 1);
  }
  let derivation: Derivation | undefined;
  if (tail !== "") {
    // Marks after a Pixel's tokens (`….MP~2`); its `-01` are no marks.
    const marked = derivationOf(tail, false);
    if (marked !== undefined) {
      tail = marked.base;
      derivation = marked;
    }
  }
  const own = derivationOf(head, true);
  if (own !== undefined) {
    head = own.base;
    derivation = derivation === undefined ? own : {
      base: head,
      kind: strongest(derivation.kind, own.kind),
      marks: [...derivation.marks, ...own.marks],
      kinds: [...derivation.kinds, ...own.kinds],
    };
  }
  let multiFile = false;
  let cover = false;
  let original = false;
  if (tail !== "") {
    // `….RAW-01.COVER`: the Pixel's tokens.
    let tokens = true;
    for (const token of tail.split(".")) {
      const upper = token.toUpperCase();
      tokens &&= PIXEL_TOKEN.test(upper);
      if (upper === "COVER") cover = true;
      else if (upper === "ORIGINAL") original = true;
      else if (/-\d{2}$/.test(upper)) multiFile = true;
    }
    multiFile = tokens && (multiFile || cover || original);
  }
  let burstName = head;
  if (head.endsWith("_COVER")) {
    cover = true;
    burstName = head.slice(0, -"_COVER".length);
  }
  const burst = derivation === undefined ? burstOf(burstName) : undefined;
  const counter = burst === undefined && derivation === undefined ? counterOf(head) : undefined;
  // One literal, every field set, so that 200 000 of them share one shape.
  return {
    extension,
    video: VIDEO_EXTENSIONS.has(extension),
    raw: RAW.has(extension),
    stem: head,
    key: head.toLowerCase(),
    derivation: derivation === undefined || derivation.base === head
      ? derivation
      : { ...derivation, base: head },
    cover,
    original,
    multiFile,
    timed: head.length >= 14 && DATE_TIME.test(head),
    burst,
    counter,
  };
}

function burstOf(name: string): BurstName | undefined {
  let match: RegExpExecArray | null;
  if (name.includes("_BURST")) {
    if ((match = GOOGLE_BURST.exec(name))) {
      const family = match[2].length === 13 ? "nothing" : "google";
      return { family, key: match[2], index: Number(match[1]) };
    }
    if ((match = XPERIA_BURST.exec(name))) {
      return { family: "xperia", key: match[2], index: Number(match[1]) };
    }
    if ((match = SUFFIX_BURST.exec(name))) {
      return { family: "suffix", key: match[1].toLowerCase(), index: Number(match[2]) };
    }
    return undefined;
  }
  if (name.length === 19 && (match = SAMSUNG_BURST.exec(name))) {
    return { family: "samsung", key: match[1], index: Number(match[2]) };
  }
  if (name.length === 8 && (match = GOPRO_BURST.exec(name))) {
    return { family: "gopro", key: match[1], index: Number(match[2]) };
  }
  return undefined;
}

/**
 * A camera's running number (`/^([A-Za-z0-9_]{0,4}[A-Za-z_-])(\d{3,7})$/`): up to five
 * characters (`IMG_`, `DSC`, `_DSC`, `DSCF`, `P`, `3H2A`) not ending in a digit, then 3 to 7
 * digits (`P1010001` is folder 101, file 0001). As the prefix ends in no digit, the digits are
 * the whole run at the end. Read by hand, without a match's strings: 200 000 names a pass.
 */
function counterOf(name: string): CounterName | undefined {
  const length = name.length;
  if (length > 12 || !isDigitAt(name, length - 1)) return undefined;
  let at = length - 1;
  while (at > 0 && isDigitAt(name, at - 1)) at--;
  const digits = length - at;
  if (digits < 3 || digits > 7 || at < 1 || at > 5 || !isPrefixEnd(name.charCodeAt(at - 1))) {
    return undefined;
  }
  for (let i = 0; i < at - 1; i++) if (!isPrefixCharacter(name.charCodeAt(i))) return undefined;
  let number = 0;
  for (let i = at; i < length; i++) number = number * 10 + name.charCodeAt(i) - 48;
  return { prefix: name.slice(0, at).toLowerCase(), number };
}

/** `[A-Za-z_-]`: what ends a counter's prefix. */
function isPrefixEnd(code: number): boolean {
  const letter = code | 0x20;
  return (letter >= 97 && letter <= 122) || code === 95 || code === 45;
}

/** `[A-Za-z0-9_]`: what a counter's prefix holds before its end. */
function isPrefixCharacter(code: number): boolean {
  return isDigit(code) || (isPrefixEnd(code) && code !== 45);
}

function isDigitAt(text: string, at: number): boolean {
  return isDigit(text.charCodeAt(at));
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 127) return false;
  return true;
}
