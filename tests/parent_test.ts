import assert from "node:assert/strict";
import type { Asset, Group, RegexPromotion } from "../src/model.ts";
import { seededRandom, shuffled } from "./_random.ts";
import {
  createParentOrder,
  needsFileSize,
  type ParentRule,
  promoteParents,
  type PromotionOptions,
} from "../src/promotion/parent.ts";

/** The defaults users run with (immich-stack's). */
const DEFAULTS: PromotionOptions = {
  filenamePromote: ["cover", "edit", "crop", "hdr", "biggestNumber"],
  extPromote: [".jpg", ".png", ".jpeg", ".heic", ".dng"],
};

interface AssetFields {
  readonly id?: string;
  readonly time?: string;
  readonly size?: number;
  readonly path?: string;
}

/** An asset named `name`; its id is the name unless given, so orders read as file names. */
function asset(name: string, fields: AssetFields = {}): Asset {
  // Promotion reads the id, name, local time and size, and a path only for regex promotions.
  return {
    id: fields.id ?? name,
    originalFileName: name,
    localDateTime: fields.time ?? "2024-01-01T12:00:00.000Z",
    ...(fields.path === undefined ? {} : { originalPath: fields.path }),
    ...(fields.size === undefined ? {} : { fileSizeInByte: fields.size }),
  };
}

function group(assets: readonly Asset[]): Group {
  return { key: "group", assets };
}

function regex(
  pattern: RegExp,
  promoteKeys: readonly string[],
  field: RegexPromotion["field"] = "originalFileName",
  promoteIndex = 1,
): RegexPromotion {
  return { field, pattern, promoteIndex, promoteKeys };
}

interface Case {
  readonly name: string;
  /** Merged over DEFAULTS. */
  readonly options?: Partial<PromotionOptions>;
  /** Input order; never the expected one, so an unsorted result fails. */
  readonly assets: readonly Asset[];
  /** Expected ids, parent first. */
  readonly order: readonly string[];
  readonly rule: ParentRule;
  readonly detail?: string;
}

const SONY_BURST = "BURST20240101120000";
const PIXEL = "PXL_20240101_123456789";

const CASES: readonly Case[] = [
  // 1. Regex promotion
  {
    name: "a regex promote key beats a filename promote",
    options: { regexPromotions: [regex(/_(orig|edit)\./, ["orig", "edit"])] },
    assets: [asset("IMG_1_edit.jpg"), asset("IMG_1_orig.jpg")],
    order: ["IMG_1_orig.jpg", "IMG_1_edit.jpg"],
    rule: "regex",
    detail: 'regex promote key "orig" (position 1) before "edit" (position 2)',
  },
  {
    name: "an asset with a listed regex value beats one without",
    options: { regexPromotions: [regex(/_(raw)\./, ["raw"])] },
    assets: [asset("a_cover.jpg"), asset("a_raw.dng")],
    order: ["a_raw.dng", "a_cover.jpg"],
    rule: "regex",
    detail: 'regex promote key "raw" (position 1) before no match',
  },
  {
    name: "a captured value that is not a promote key counts as no match",
    options: { regexPromotions: [regex(/_(\w+)\./, ["main"])] },
    assets: [asset("b_other.jpg"), asset("a_other.jpg")],
    order: ["a_other.jpg", "b_other.jpg"],
    rule: "name",
  },
  {
    name: 'a regex group that took no part in the match is "", so "" ranks the unedited first',
    options: { regexPromotions: [regex(/^IMG_\d+(?:_(edited|edit))?\./, ["", "edited", "edit"])] },
    assets: [asset("IMG_7_edit.jpg"), asset("IMG_7_edited.jpg"), asset("IMG_7.jpg")],
    order: ["IMG_7.jpg", "IMG_7_edited.jpg", "IMG_7_edit.jpg"],
    rule: "regex",
    detail: 'regex promote key "" (position 1) before "edited" (position 2)',
  },
  {
    name: "the best rank over several regex promotions counts",
    options: {
      regexPromotions: [
        regex(/^(\w)_/, ["x", "w", "y"]),
        regex(/_(\w)\./, ["q", "p"]),
      ],
    },
    assets: [asset("w_p.jpg"), asset("y_q.jpg")],
    order: ["y_q.jpg", "w_p.jpg"],
    rule: "regex",
    detail: 'regex promote key "q" (position 1) before "w" (position 2)',
  },
  {
    name: "a global regex reads every asset afresh",
    options: { regexPromotions: [regex(/_(b|a)\./g, ["a", "b"])] },
    assets: [asset("3_b.jpg"), asset("2_b.jpg"), asset("1_a.jpg")],
    order: ["1_a.jpg", "2_b.jpg", "3_b.jpg"],
    rule: "regex",
  },
  {
    name: "a regex promotion reads originalPath when asked",
    options: { regexPromotions: [regex(/^\/(edits|raw)\//, ["edits", "raw"], "originalPath")] },
    assets: [
      asset("IMG_1.jpg", { path: "/raw/IMG_1.jpg" }),
      asset("IMG_1.dng", { path: "/edits/x" }),
    ],
    order: ["IMG_1.dng", "IMG_1.jpg"],
    rule: "regex",
  },
  {
    name: "a regex promotion with promoteIndex 2 reads the second group",
    options: { regexPromotions: [regex(/^(IMG)_(A|B)/, ["B", "A"], "originalFileName", 2)] },
    assets: [asset("IMG_A.jpg"), asset("IMG_B.jpg")],
    order: ["IMG_B.jpg", "IMG_A.jpg"],
    rule: "regex",
  },
  // 2. Filename promote
  {
    name: "Sony burst: the _COVER frame is the parent",
    assets: [
      asset(`DSCPDC_0002_${SONY_BURST}.JPG`),
      asset(`DSCPDC_0003_${SONY_BURST}.JPG`),
      asset(`DSCPDC_0001_${SONY_BURST}_COVER.JPG`),
      asset(`DSCPDC_0000_${SONY_BURST}.JPG`),
    ],
    order: [
      `DSCPDC_0001_${SONY_BURST}_COVER.JPG`,
      `DSCPDC_0000_${SONY_BURST}.JPG`,
      `DSCPDC_0002_${SONY_BURST}.JPG`,
      `DSCPDC_0003_${SONY_BURST}.JPG`,
    ],
    rule: "filename",
    detail: 'filename promote "cover" (position 1) before no match',
  },
  {
    name: "Pixel: RAW-01.COVER.jpg beats RAW-02.ORIGINAL.dng",
    assets: [asset(`${PIXEL}.RAW-02.ORIGINAL.dng`), asset(`${PIXEL}.RAW-01.COVER.jpg`)],
    order: [`${PIXEL}.RAW-01.COVER.jpg`, `${PIXEL}.RAW-02.ORIGINAL.dng`],
    rule: "filename",
  },
  {
    name: "Pixel: a COVER dng beats an ORIGINAL jpg because names rank before extensions",
    assets: [asset(`${PIXEL}.RAW-02.ORIGINAL.jpg`), asset(`${PIXEL}.RAW-01.COVER.dng`)],
    order: [`${PIXEL}.RAW-01.COVER.dng`, `${PIXEL}.RAW-02.ORIGINAL.jpg`],
    rule: "filename",
  },
  {
    name: "_edited beats the original",
    assets: [asset("IMG_1234.jpg"), asset("IMG_1234_edited.jpg")],
    order: ["IMG_1234_edited.jpg", "IMG_1234.jpg"],
    rule: "filename",
    detail: 'filename promote "edit" (position 2) before no match',
  },
  {
    name: "-edited beats the original, even as HEIC against JPG",
    assets: [asset("IMG_1234.JPG"), asset("IMG_1234-edited.HEIC")],
    order: ["IMG_1234-edited.HEIC", "IMG_1234.JPG"],
    rule: "filename",
  },
  {
    name: "filename promotes match case-insensitively",
    assets: [asset("IMG_1234.JPG"), asset("IMG_1234_EDITED.JPG")],
    order: ["IMG_1234_EDITED.JPG", "IMG_1234.JPG"],
    rule: "filename",
  },
  {
    name: "an item earlier in the list beats a later one",
    assets: [asset("a_hdr.jpg"), asset("a_crop.jpg"), asset("a_edit.jpg")],
    order: ["a_edit.jpg", "a_crop.jpg", "a_hdr.jpg"],
    rule: "filename",
    detail: 'filename promote "edit" (position 2) before "crop" (position 3)',
  },
  {
    name: "a name matching several items ranks by the earliest",
    assets: [asset("a_edit.jpg"), asset("a_hdr_cover.jpg")],
    order: ["a_hdr_cover.jpg", "a_edit.jpg"],
    rule: "filename",
  },
  {
    name: "an empty item first promotes names that contain none of the others",
    options: { filenamePromote: ["", "_edited"] },
    assets: [asset("IMG_1_edited.jpg"), asset("IMG_1.jpg")],
    order: ["IMG_1.jpg", "IMG_1_edited.jpg"],
    rule: "filename",
    detail: 'filename promote "" (position 1) before "_edited" (position 2)',
  },
  {
    name: "an empty item in the middle ranks plain names between the items",
    options: { filenamePromote: ["cover", "", "edit"] },
    assets: [asset("c_edit.jpg"), asset("b.jpg"), asset("a_cover.jpg")],
    order: ["a_cover.jpg", "b.jpg", "c_edit.jpg"],
    rule: "filename",
  },
  {
    name: "switch keywords hold no place: unmatched names rank after every item",
    options: { filenamePromote: ["cover", "biggestNumber", "edit"] },
    assets: [asset("a.jpg"), asset("b_edit.jpg")],
    order: ["b_edit.jpg", "a.jpg"],
    rule: "filename",
  },
  {
    name: "a numeric item matches a whole digit run",
    options: { filenamePromote: ["0001"] },
    assets: [asset("DSC_0000.jpg"), asset("DSC_0001.jpg")],
    order: ["DSC_0001.jpg", "DSC_0000.jpg"],
    rule: "filename",
  },
  {
    name: "a numeric item never matches inside a time stamp",
    options: { filenamePromote: ["0001"] },
    assets: [asset("20240101_000123.jpg"), asset("20240101_000099.jpg")],
    order: ["20240101_000099.jpg", "20240101_000123.jpg"],
    rule: "name",
  },
  {
    name: "an item ending in a digit does not match a longer run",
    options: { filenamePromote: ["IMG_1"] },
    assets: [asset("IMG_12.jpg"), asset("IMG_1.jpg"), asset("IMG_0.jpg")],
    order: ["IMG_1.jpg", "IMG_0.jpg", "IMG_12.jpg"],
    rule: "filename",
  },
  // 2b. Sequences
  {
    name: "sequence orders by numeric value",
    options: { filenamePromote: ["sequence"] },
    assets: [asset("IMG_0010.jpg"), asset("IMG_0002.jpg"), asset("IMG_0001.jpg")],
    order: ["IMG_0001.jpg", "IMG_0002.jpg", "IMG_0010.jpg"],
    rule: "filename",
    detail: 'filename promote "sequence" (position 1) number 0001 before 0002',
  },
  {
    name: "sequence matches any digit count",
    options: { filenamePromote: ["sequence"] },
    assets: [asset("a_100.jpg"), asset("a_10.jpg"), asset("a_9.jpg"), asset("a_1.jpg")],
    order: ["a_1.jpg", "a_9.jpg", "a_10.jpg", "a_100.jpg"],
    rule: "filename",
  },
  {
    name: "sequence ranks numbered names before names without a number",
    options: { filenamePromote: ["sequence"] },
    assets: [asset("IMG.jpg"), asset("IMG_2.jpg")],
    order: ["IMG_2.jpg", "IMG.jpg"],
    rule: "filename",
  },
  {
    name: "sequence on Samsung bursts: the frame counter decides, not the shared date",
    options: { filenamePromote: ["sequence"] },
    assets: [
      asset("20240101_123456_003.jpg"),
      asset("20240101_123456_001.jpg"),
      asset("20240101_123456_002.jpg"),
    ],
    order: ["20240101_123456_001.jpg", "20240101_123456_002.jpg", "20240101_123456_003.jpg"],
    rule: "filename",
    detail: 'filename promote "sequence" (position 1) number 20240101,123456,001 before ' +
      "20240101,123456,002",
  },
  {
    name: "sequence ignores digits in the extension",
    options: { filenamePromote: ["sequence"], extPromote: [] },
    assets: [asset("IMG_1234.m2ts"), asset("IMG_1234.h264")],
    order: ["IMG_1234.h264", "IMG_1234.m2ts"],
    rule: "name",
  },
  {
    name: "sequence:4 matches only four-digit numbers",
    options: { filenamePromote: ["sequence:4"] },
    assets: [asset("A_123.jpg"), asset("B_0123.jpg")],
    order: ["B_0123.jpg", "A_123.jpg"],
    rule: "filename",
    detail: 'filename promote "sequence:4" (position 1) before no match',
  },
  {
    name: "sequence:4 on Sony bursts skips the 14-digit burst stamp",
    options: { filenamePromote: ["sequence:4"] },
    assets: [
      asset(`DSCPDC_0003_${SONY_BURST}.JPG`),
      asset(`DSCPDC_0001_${SONY_BURST}.JPG`),
      asset(`DSCPDC_0002_${SONY_BURST}.JPG`),
    ],
    order: [
      `DSCPDC_0001_${SONY_BURST}.JPG`,
      `DSCPDC_0002_${SONY_BURST}.JPG`,
      `DSCPDC_0003_${SONY_BURST}.JPG`,
    ],
    rule: "filename",
    detail: 'filename promote "sequence:4" (position 1) number 0001 before 0002',
  },
  {
    name: "sequence:<prefix> matches only names with the prefix before a number",
    options: { filenamePromote: ["sequence:IMG_"] },
    assets: [asset("DSC_0001.jpg"), asset("IMG_0009.jpg"), asset("IMG_0003.jpg")],
    order: ["IMG_0003.jpg", "IMG_0009.jpg", "DSC_0001.jpg"],
    rule: "filename",
  },
  {
    name: "sequence:<prefix> is case-insensitive",
    options: { filenamePromote: ["sequence:img_"] },
    assets: [asset("IMG_0012.JPG"), asset("IMG_0002.JPG")],
    order: ["IMG_0002.JPG", "IMG_0012.JPG"],
    rule: "filename",
  },
  {
    name: "sequence:<prefix> needs the number right after the prefix",
    options: { filenamePromote: ["sequence:IMG_"] },
    assets: [asset("IMG_E1234.JPG"), asset("IMG_1234.HEIC")],
    order: ["IMG_1234.HEIC", "IMG_E1234.JPG"],
    rule: "filename",
  },
  {
    name: "words before sequence rank first, then numeric order",
    options: { filenamePromote: ["cover", "sequence"] },
    assets: [asset("B_0003_cover.jpg"), asset("B_0010.jpg"), asset("B_0002.jpg")],
    order: ["B_0003_cover.jpg", "B_0002.jpg", "B_0010.jpg"],
    rule: "filename",
  },
  {
    name: "a word after sequence ranks after numbered names",
    options: { filenamePromote: ["sequence", "cover"] },
    assets: [asset("cover.jpg"), asset("B_0002.jpg")],
    order: ["B_0002.jpg", "cover.jpg"],
    rule: "filename",
  },
  // 2c. Numeric lists detected as sequences
  {
    name: "a burst list orders frames past the listed numbers",
    options: { filenamePromote: ["0000", "0001", "0002"] },
    assets: [
      asset("DSC_0120.jpg"),
      asset("DSC_0002.jpg"),
      asset("DSC_0100.jpg"),
      asset("DSC_0045.jpg"),
      asset("DSC_0000.jpg"),
    ],
    order: ["DSC_0000.jpg", "DSC_0002.jpg", "DSC_0045.jpg", "DSC_0100.jpg", "DSC_0120.jpg"],
    rule: "filename",
    detail: 'filename promote "0000,0001,0002" (position 1) number 0000 before 0002',
  },
  {
    name: "a burst list with the default words: the cover first, then frames by number",
    options: { filenamePromote: ["cover", "0000", "0001", "0002", "biggestNumber"] },
    assets: [
      asset(`DSCPDC_0099_${SONY_BURST}.JPG`),
      asset(`DSCPDC_0003_${SONY_BURST}_COVER.JPG`),
      asset(`DSCPDC_0012_${SONY_BURST}.JPG`),
    ],
    order: [
      `DSCPDC_0003_${SONY_BURST}_COVER.JPG`,
      `DSCPDC_0012_${SONY_BURST}.JPG`,
      `DSCPDC_0099_${SONY_BURST}.JPG`,
    ],
    rule: "filename",
  },
  {
    name: "a numeric list never matches digits inside a time stamp",
    options: { filenamePromote: ["000", "001", "002"] },
    assets: [asset("20240101_120001_005.jpg"), asset("20240101_120003_002.jpg")],
    order: ["20240101_120003_002.jpg", "20240101_120001_005.jpg"],
    rule: "filename",
    detail: 'filename promote "000,001,002" (position 1) number 002 before 005',
  },
  {
    name: "a prefixed list matches only its prefix",
    options: { filenamePromote: ["IMG_0001", "IMG_0002"] },
    assets: [asset("DSC_0001.JPG"), asset("IMG_0009.JPG"), asset("IMG_0003.JPG")],
    order: ["IMG_0003.JPG", "IMG_0009.JPG", "DSC_0001.JPG"],
    rule: "filename",
  },
  {
    name: "a suffixed list orders by the number before the suffix",
    options: { filenamePromote: ["1a", "2a", "3a"] },
    assets: [asset("shot_1b.jpg"), asset("shot_12a.jpg"), asset("shot_2a.jpg")],
    order: ["shot_2a.jpg", "shot_12a.jpg", "shot_1b.jpg"],
    rule: "filename",
  },
  {
    name: "an unpadded list matches numbers of any width",
    options: { filenamePromote: ["1", "2", "3"] },
    assets: [asset("a_10.jpg"), asset("a_3.jpg")],
    order: ["a_3.jpg", "a_10.jpg"],
    rule: "filename",
  },
  {
    name: "a zero-padded list matches only numbers of its width",
    options: { filenamePromote: ["01", "02"] },
    assets: [asset("a_005.jpg"), asset("a_07.jpg")],
    order: ["a_07.jpg", "a_005.jpg"],
    rule: "filename",
  },
  {
    name: "a list in descending order keeps its explicit order",
    options: { filenamePromote: ["0002", "0001"] },
    assets: [asset("x_0001.jpg"), asset("x_0002.jpg")],
    order: ["x_0002.jpg", "x_0001.jpg"],
    rule: "filename",
    detail: 'filename promote "0002" (position 1) before "0001" (position 2)',
  },
  // 3. biggestNumber
  {
    name: "biggestNumber: ~3 before ~2 before no copy number",
    assets: [asset("PXL_1.jpg"), asset("PXL_1~2.jpg"), asset("PXL_1~3.jpg")],
    order: ["PXL_1~3.jpg", "PXL_1~2.jpg", "PXL_1.jpg"],
    rule: "biggest-number",
    detail: "biggest number 3 before 2",
  },
  {
    name: "biggestNumber: ~2 copy of a Pixel photo beats the original",
    assets: [asset(`${PIXEL}.jpg`), asset(`${PIXEL}~2.jpg`)],
    order: [`${PIXEL}~2.jpg`, `${PIXEL}.jpg`],
    rule: "biggest-number",
    detail: "biggest number 2 before none",
  },
  {
    name: "biggestNumber compares numbers by value, not as text",
    assets: [asset("photo.2.jpg"), asset("photo.10.jpg")],
    order: ["photo.10.jpg", "photo.2.jpg"],
    rule: "biggest-number",
  },
  {
    name: "without biggestNumber copies order by name",
    options: { filenamePromote: ["cover"] },
    assets: [asset("PXL_1~2.jpg"), asset("PXL_1.jpg")],
    order: ["PXL_1.jpg", "PXL_1~2.jpg"],
    rule: "name",
  },
  {
    name: "biggestNumber reads only a number after a delimiter",
    assets: [asset("IMG_1235.jpg"), asset("IMG_1234.jpg")],
    order: ["IMG_1234.jpg", "IMG_1235.jpg"],
    rule: "name",
  },
  {
    name: "biggestNumber ignores a last part that is not all digits",
    options: { filenamePromote: ["biggestNumber"] },
    assets: [asset("a~x.jpg"), asset("b~1.jpg")],
    order: ["b~1.jpg", "a~x.jpg"],
    rule: "biggest-number",
  },
  {
    name: "biggestNumber uses the criteria delimiters: Samsung frames with _",
    options: { delimiters: ["_"] },
    assets: [
      asset("20240101_123456_001.jpg"),
      asset("20240101_123456_003.jpg"),
      asset("20240101_123456_002.jpg"),
    ],
    order: ["20240101_123456_003.jpg", "20240101_123456_002.jpg", "20240101_123456_001.jpg"],
    rule: "biggest-number",
  },
  {
    name: "biggestNumber ranks after filename promotes",
    assets: [asset("PXL_1~3.jpg"), asset("PXL_1_edit.jpg")],
    order: ["PXL_1_edit.jpg", "PXL_1~3.jpg"],
    rule: "filename",
  },
  {
    name: "biggestNumber ranks before extensions",
    assets: [asset("PXL_1.jpg"), asset("PXL_1~2.dng")],
    order: ["PXL_1~2.dng", "PXL_1.jpg"],
    rule: "biggest-number",
  },
  // 4. Extension promote
  {
    name: "Canon: JPG beats CR3",
    assets: [asset("IMG_1234.CR3"), asset("IMG_1234.JPG")],
    order: ["IMG_1234.JPG", "IMG_1234.CR3"],
    rule: "extension",
    detail: 'extension promote ".jpg" (position 1) before ".cr3" (not listed)',
  },
  {
    name: "Sony: JPG beats ARW",
    assets: [asset("DSC01234.ARW"), asset("DSC01234.JPG")],
    order: ["DSC01234.JPG", "DSC01234.ARW"],
    rule: "extension",
  },
  {
    name: "iPhone: the edited IMG_E1234.JPG beats IMG_1234.HEIC",
    assets: [asset("IMG_1234.HEIC"), asset("IMG_E1234.JPG")],
    order: ["IMG_E1234.JPG", "IMG_1234.HEIC"],
    rule: "extension",
    detail: 'extension promote ".jpg" (position 1) before ".heic" (position 4)',
  },
  {
    name: "HEIC beats DNG by list position",
    assets: [asset("IMG_1.dng"), asset("IMG_1.heic")],
    order: ["IMG_1.heic", "IMG_1.dng"],
    rule: "extension",
  },
  {
    name: "the extension list order overrides the built-in rank",
    options: { extPromote: [".dng", ".jpg"] },
    assets: [asset("a.jpg"), asset("b.dng")],
    order: ["b.dng", "a.jpg"],
    rule: "extension",
  },
  {
    name: "extensions listed without a dot still match",
    options: { extPromote: ["dng"] },
    assets: [asset("a.jpg"), asset("b.DNG")],
    order: ["b.DNG", "a.jpg"],
    rule: "extension",
  },
  {
    name: "extensions match exactly, not as a prefix",
    options: { extPromote: [".heic"] },
    assets: [asset("a.heics"), asset("b.png")],
    order: ["b.png", "a.heics"],
    rule: "builtin-extension",
  },
  // 5. Built-in extension rank
  {
    name: "built-in rank: .jpeg, .jpg, .png, then the rest",
    options: { extPromote: [] },
    assets: [asset("a.tif"), asset("b.png"), asset("c.jpg"), asset("d.jpeg")],
    order: ["d.jpeg", "c.jpg", "b.png", "a.tif"],
    rule: "builtin-extension",
    detail: 'built-in extension rank ".jpeg" before ".jpg"',
  },
  {
    name: "built-in rank breaks a tie between unlisted extensions",
    options: { extPromote: [".heic"] },
    assets: [asset("a.png"), asset("b.jpeg")],
    order: ["b.jpeg", "a.png"],
    rule: "builtin-extension",
  },
  {
    name: "two unranked extensions fall through to the name",
    assets: [asset("b.tif"), asset("a.gif")],
    order: ["a.gif", "b.tif"],
    rule: "name",
  },
  // 6. Size
  {
    name: "biggestSize puts the largest file first",
    options: { filenamePromote: ["biggestSize"] },
    assets: [asset("a1.jpg", { size: 100 }), asset("a2.jpg", { size: 300 })],
    order: ["a2.jpg", "a1.jpg"],
    rule: "size",
    detail: "biggest size 300 bytes before 100 bytes",
  },
  {
    name: "smallestSize puts the smallest file first",
    options: { filenamePromote: ["smallestSize"] },
    assets: [asset("a1.jpg", { size: 500 }), asset("a2.jpg", { size: 300 })],
    order: ["a2.jpg", "a1.jpg"],
    rule: "size",
    detail: "smallest size 300 bytes before 500 bytes",
  },
  {
    name: "an unknown size ranks last",
    options: { filenamePromote: ["smallestSize"] },
    assets: [asset("a1.jpg"), asset("a2.jpg", { size: 900 })],
    order: ["a2.jpg", "a1.jpg"],
    rule: "size",
    detail: "smallest size 900 bytes before unknown size",
  },
  {
    name: "size ranks after the extension list: a small JPG beats a huge CR3",
    options: { filenamePromote: ["cover", "biggestSize"] },
    assets: [asset("IMG_1.CR3", { size: 28_000_000 }), asset("IMG_1.JPG", { size: 4_000_000 })],
    order: ["IMG_1.JPG", "IMG_1.CR3"],
    rule: "extension",
  },
  {
    name: "a size that is not a finite number counts as unknown",
    options: { filenamePromote: ["biggestSize"] },
    assets: [asset("a1.jpg", { size: NaN }), asset("a2.jpg", { size: 5 })],
    order: ["a2.jpg", "a1.jpg"],
    rule: "size",
    detail: "biggest size 5 bytes before unknown size",
  },
  {
    name: "the first listed size keyword wins",
    options: { filenamePromote: ["smallestSize", "biggestSize"] },
    assets: [asset("a.jpg", { size: 9 }), asset("b.jpg", { size: 1 })],
    order: ["b.jpg", "a.jpg"],
    rule: "size",
  },
  {
    name: "sizes are ignored unless a size keyword is listed",
    assets: [asset("b.jpg", { size: 9 }), asset("a.jpg", { size: 1 })],
    order: ["a.jpg", "b.jpg"],
    rule: "name",
  },
  // 7. Name
  {
    name: "names compare case-insensitively",
    assets: [asset("a_3.jpg"), asset("A_2.jpg")],
    order: ["A_2.jpg", "a_3.jpg"],
    rule: "name",
    detail: 'file name "A_2.jpg" before "a_3.jpg"',
  },
  {
    name: "Samsung burst frames without promotes order by name",
    assets: [
      asset("20240101_123456_002.jpg"),
      asset("20240101_123456_010.jpg"),
      asset("20240101_123456_001.jpg"),
    ],
    order: ["20240101_123456_001.jpg", "20240101_123456_002.jpg", "20240101_123456_010.jpg"],
    rule: "name",
  },
  // 8. Time
  {
    name: "names equal but for case: the earlier local time wins",
    assets: [
      asset("IMG_1.JPG", { time: "2024-01-01T12:00:01.000Z" }),
      asset("img_1.jpg", { time: "2024-01-01T12:00:00.000Z" }),
    ],
    order: ["img_1.jpg", "IMG_1.JPG"],
    rule: "time",
    detail: "local time 2024-01-01T12:00:00.000Z before 2024-01-01T12:00:01.000Z",
  },
  {
    name: "times in different ISO 8601 forms compare by instant",
    assets: [
      asset("a.jpg", { id: "1", time: "2024-01-01T12:00:00+00:00" }),
      asset("a.jpg", { id: "2", time: "2024-01-01T11:59:59.500Z" }),
    ],
    order: ["2", "1"],
    rule: "time",
  },
  {
    name: "an unreadable time ranks last",
    assets: [asset("a.jpg", { id: "1", time: "garbage" }), asset("a.jpg", { id: "2" })],
    order: ["2", "1"],
    rule: "time",
  },
  // 9. Id
  {
    name: "identical assets order by id",
    assets: [asset("a.jpg", { id: "b" }), asset("a.jpg", { id: "a" })],
    order: ["a", "b"],
    rule: "id",
    detail: 'asset id "a" before "b"',
  },
  // Rules in combination: the first difference between parent and runner-up is reported
  {
    name: "the rule reported is the one between parent and runner-up",
    assets: [asset("IMG_1.CR3"), asset("IMG_1.JPG"), asset("IMG_1_cover.heic")],
    order: ["IMG_1_cover.heic", "IMG_1.JPG", "IMG_1.CR3"],
    rule: "filename",
  },
  {
    name: "Canon RAW+JPEG pair with an edited JPEG: edit, JPG, CR3",
    assets: [asset("IMG_1234.CR3"), asset("IMG_1234.JPG"), asset("IMG_1234-edited.jpg")],
    order: ["IMG_1234-edited.jpg", "IMG_1234.JPG", "IMG_1234.CR3"],
    rule: "filename",
  },
  {
    name: "a single asset is its own parent",
    assets: [asset("IMG_1.jpg")],
    order: ["IMG_1.jpg"],
    rule: "only-asset",
    detail: "only asset of the group",
  },
];

for (const testCase of CASES) {
  Deno.test(`promoteParents() orders: ${testCase.name}`, () => {
    const options = { ...DEFAULTS, ...testCase.options };
    for (const input of [testCase.assets, [...testCase.assets].reverse()]) {
      const [promoted] = promoteParents([group(input)], options);
      assert.deepEqual(promoted.assets.map((a) => a.id), testCase.order);
      assert.equal(promoted.parentRule, testCase.rule);
      if (testCase.detail !== undefined) assert.equal(promoted.parentDetail, testCase.detail);
    }
  });
}

Deno.test("promoteParents() cases never list assets already in the expected order", () => {
  for (const testCase of CASES.filter((c) => c.assets.length > 1)) {
    assert.notDeepEqual(testCase.assets.map((a) => a.id), testCase.order, testCase.name);
  }
});

Deno.test("promoteParents() keeps group keys and group order", () => {
  const groups = [
    group([asset("b.dng"), asset("b.jpg")]),
    { key: "other", assets: [asset("a.dng"), asset("a.jpg")] },
  ];
  const promoted = promoteParents(groups, DEFAULTS);
  assert.deepEqual(promoted.map((g) => g.key), ["group", "other"]);
  assert.deepEqual(promoted.map((g) => g.assets[0].id), ["b.jpg", "a.jpg"]);
});

Deno.test("promoteParents() leaves the input groups unchanged", () => {
  const assets = [asset("b.dng"), asset("b.jpg")];
  promoteParents([group(assets)], DEFAULTS);
  assert.deepEqual(assets.map((a) => a.id), ["b.dng", "b.jpg"]);
});

Deno.test("createParentOrder() rejects invalid sequence forms", async (t) => {
  await t.step("sequence:0", () => {
    assert.throws(() => createParentOrder({ ...DEFAULTS, filenamePromote: ["sequence:0"] }), {
      name: "RangeError",
      message: "Cannot use PARENT_FILENAME_PROMOTE as a sequence digit count must be at least 1: " +
        "current value is sequence:0",
    });
  });
  await t.step("a prefix ending in a digit", () => {
    assert.throws(() => createParentOrder({ ...DEFAULTS, filenamePromote: ["sequence:IMG4"] }), {
      name: "RangeError",
      message: "Cannot use PARENT_FILENAME_PROMOTE as a sequence prefix must not end in a digit: " +
        "current value is sequence:IMG4",
    });
  });
});

Deno.test("needsFileSize() is true only when a size keyword is listed", async (t) => {
  const table: readonly [readonly string[], boolean][] = [
    [DEFAULTS.filenamePromote, false],
    [["cover", "biggestSize"], true],
    [["smallestSize"], true],
    [["BiggestSize"], true],
    [["biggestSizes"], false],
    [[], false],
  ];
  for (const [filenamePromote, expected] of table) {
    await t.step(filenamePromote.join(",") || "(empty)", () => {
      assert.equal(needsFileSize({ ...DEFAULTS, filenamePromote }), expected);
    });
  }
});

const STEMS = [
  "IMG_1234",
  "img_1234",
  "IMG_E1234",
  "IMG_1234_edited",
  "IMG_1234-edited",
  "DSC01234",
  `DSCPDC_0001_${SONY_BURST}`,
  `DSCPDC_0002_${SONY_BURST}_COVER`,
  `${PIXEL}.RAW-01.COVER`,
  `${PIXEL}.RAW-02.ORIGINAL`,
  `${PIXEL}~2`,
  `${PIXEL}~10`,
  "20240101_123456_001",
  "20240101_123456_0120",
  "IMG_0000",
  "IMG_0002",
];
const EXTENSIONS = [".JPG", ".jpg", ".CR3", ".ARW", ".HEIC", ".dng", ".png", ".jpeg", ".mp4"];
const OPTION_SETS: readonly PromotionOptions[] = [
  DEFAULTS,
  { ...DEFAULTS, filenamePromote: ["cover", "sequence", "biggestSize"] },
  { ...DEFAULTS, filenamePromote: ["", "edit", "0000", "0001", "0002", "smallestSize"] },
  { ...DEFAULTS, filenamePromote: ["sequence:4"], delimiters: ["_", "~"] },
  { filenamePromote: [], extPromote: [], regexPromotions: [regex(/_(\d+)/, ["0001", "0000"])] },
];

Deno.test("promoteParents() gives the same order for any input order (seeded)", () => {
  const next = seededRandom(20240101);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  for (let round = 0; round < 300; round++) {
    const size = 2 + Math.floor(next() * 19);
    const assets = Array.from(
      { length: size },
      (_, index) =>
        asset(pick(STEMS) + pick(EXTENSIONS), {
          id: `id-${Math.floor(next() * 8)}-${index}`,
          time: `2024-01-01T12:00:0${Math.floor(next() * 3)}.000Z`,
          ...(next() < 0.7 ? { size: Math.floor(next() * 4) * 1000 } : {}),
        }),
    );
    const order = createParentOrder(pick(OPTION_SETS));
    const expected = order.promote(group(assets));
    for (let attempt = 0; attempt < 5; attempt++) {
      const again = order.promote(group(shuffled(assets, next)));
      assert.deepEqual(again.assets.map((a) => a.id), expected.assets.map((a) => a.id));
      assert.equal(again.parentRule, expected.parentRule);
      assert.equal(again.parentDetail, expected.parentDetail);
    }
  }
});
