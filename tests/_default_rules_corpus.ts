/**
 * A corpus of real-world file naming, for the default rules (docs/default-rules.md): one case
 * per pattern, each with the public source it was learnt from, the photos as Immich's search
 * answers them (file name, local time, the EXIF fields the rules read) and the stacks a user
 * expects, cover first. The must-not-stack cases expect none.
 *
 * The file names are the sources' own where they give them; the times, cameras and exposures
 * are what such files carry.
 *
 * @module
 */
import type { CameraExif } from "../src/api/_camera.ts";

/** What a case is about. */
export type CorpusKind = "raw+jpeg" | "burst" | "edit" | "bracket" | "live" | "apart";

/** One photo of a case. */
export interface CorpusFile {
  /** Unique within its case: the file name, or the name and a mark when names repeat. */
  readonly label: string;
  readonly name: string;
  /** `localDateTime`. */
  readonly at: string;
  /** `exifInfo` as the search answers it. */
  readonly exif: CameraExif;
}

/** One pattern. */
export interface CorpusCase {
  readonly kind: CorpusKind;
  readonly name: string;
  /** Where the pattern comes from: a URL, or a repository and path. */
  readonly source: string;
  readonly files: readonly CorpusFile[];
  /** The stacks expected, each by labels, cover first. */
  readonly stacks: readonly (readonly string[])[];
}

interface Camera {
  readonly make: string;
  readonly model: string;
  readonly lensModel?: string;
}

/** `1/250 s f/8 ISO 100`. */
interface Exposure {
  readonly t: string;
  readonly f: number;
  readonly iso: number;
}

const R5: Camera = { make: "Canon", model: "Canon EOS R5", lensModel: "RF24-105mm F4 L IS USM" };
const R5_TWO: Camera = { ...R5, lensModel: "RF70-200mm F2.8 L IS USM" };
const EOS5D3: Camera = { make: "Canon", model: "Canon EOS 5D Mark III" };
const D850: Camera = {
  make: "NIKON CORPORATION",
  model: "NIKON D850",
  lensModel: "24.0-70.0 mm f/2.8",
};
const A7: Camera = { make: "SONY", model: "ILCE-7M4", lensModel: "FE 24-70mm F2.8 GM II" };
const A6700: Camera = { make: "SONY", model: "ILCE-6700" };
const XT4: Camera = { make: "FUJIFILM", model: "X-T4" };
const OM1: Camera = { make: "OM Digital Solutions", model: "OM-1" };
const EM5: Camera = { make: "OLYMPUS IMAGING CORP.", model: "E-M5" };
const G9: Camera = { make: "Panasonic", model: "DC-G9" };
const GR3: Camera = { make: "RICOH IMAGING COMPANY, LTD.", model: "RICOH GR III" };
const MAVIC: Camera = { make: "DJI", model: "FC3411" };
const HERO10: Camera = { make: "GoPro", model: "HERO10 Black" };
const HERO6: Camera = { make: "GoPro", model: "HERO6 Black" };
const IPHONE6: Camera = { make: "Apple", model: "iPhone 6" };
const IPHONE12: Camera = { make: "Apple", model: "iPhone 12" };
const IPHONE13: Camera = { make: "Apple", model: "iPhone 13" };
const IPHONE15: Camera = { make: "Apple", model: "iPhone 15 Pro" };
const PIXEL5: Camera = { make: "Google", model: "Pixel 5" };
const PIXEL6: Camera = { make: "Google", model: "Pixel 6" };
const PIXEL8: Camera = { make: "Google", model: "Pixel 8 Pro" };
const PIXEL9: Camera = { make: "Google", model: "Pixel 9 Pro XL" };
const PIXEL_XL: Camera = { make: "Google", model: "Pixel XL" };
const NEXUS6P: Camera = { make: "Huawei", model: "Nexus 6P" };
const S9: Camera = { make: "samsung", model: "SM-G965F" };
const S22: Camera = { make: "samsung", model: "SM-S901B" };
const S23: Camera = { make: "samsung", model: "SM-S911B" };
const P30: Camera = { make: "HUAWEI", model: "ELE-L29" };
const HONOR20: Camera = { make: "HONOR", model: "YAL-L41" };
const FP5: Camera = { make: "Fairphone", model: "FP5" };
const RAZR: Camera = { make: "motorola", model: "motorola razr 60 ultra" };
const MOTO_G: Camera = { make: "motorola", model: "moto g(6)" };
const NOTHING2: Camera = { make: "Nothing", model: "A065" };
const XPERIA: Camera = { make: "Sony", model: "XQ-BC52" };
const XPERIA_XZ: Camera = { make: "Sony", model: "G8142" };
const EPSON: Camera = { make: "EPSON", model: "FastFoto FF-680W" };

const DAY = 86_400_000;
const HOUR = 3_600_000;

/** The time `ms` after `base`, as Immich writes localDateTime. */
function at(base: string, ms = 0): string {
  return new Date(Date.parse(base) + ms).toISOString();
}

/** Options of {@linkcode photo}. */
interface PhotoOptions {
  /** Unique label when the name repeats. */
  readonly label?: string;
  /** EXIF gives no capture time: `localDateTime` is the file's. */
  readonly undated?: boolean;
}

/** A photo of `camera` (or none: EXIF without camera, as Immich answers a stripped file). */
function photo(
  name: string,
  time: string,
  camera: Camera | null,
  exposure?: Exposure,
  options: PhotoOptions = {},
): CorpusFile {
  return {
    label: options.label ?? name,
    name,
    at: time,
    exif: {
      make: camera?.make ?? null,
      model: camera?.model ?? null,
      lensModel: camera?.lensModel ?? null,
      exposureTime: exposure?.t ?? null,
      fNumber: exposure?.f ?? null,
      iso: exposure?.iso ?? null,
      dateTimeOriginal: options.undated ? null : time.replace("Z", "+00:00"),
    },
  };
}

/** Exposure `t` seconds, f/`f`, ISO `iso`. */
function x(t: string, f = 8, iso = 100): Exposure {
  return { t, f, iso };
}

/** `count` frames named by `name(i)`, `gapMs` apart from `base`, all of `camera`. */
function frames(
  count: number,
  name: (i: number) => string,
  base: string,
  gapMs: number,
  camera: Camera,
  exposure?: (i: number) => Exposure,
): CorpusFile[] {
  return Array.from(
    { length: count },
    (_, i) => photo(name(i), at(base, i * gapMs), camera, exposure?.(i)),
  );
}

const pad = (n: number, width: number) => String(n).padStart(width, "0");
const labels = (files: readonly CorpusFile[]) => files.map((f) => f.label);

/** A case whose files all make one stack, the first its cover. */
function oneStack(
  kind: CorpusKind,
  name: string,
  source: string,
  files: readonly CorpusFile[],
): CorpusCase {
  return { kind, name, source, files, stacks: [labels(files)] };
}

const ISSUE = "https://github.com/simulot/immich-go/issues";

// ---- RAW+JPEG and other files of one shot -----------------------------------------------------

const RAW_JPEG: CorpusCase[] = [
  {
    kind: "raw+jpeg",
    name: "Canon with a custom prefix: CR3 and JPG",
    source: `${ISSUE}/45`,
    files: [
      photo("3H2A0040.CR3", "2023-10-28T14:02:11.340Z", R5, x("1/500", 5.6, 200)),
      photo("3H2A0040.JPG", "2023-10-28T14:02:11.340Z", R5, x("1/500", 5.6, 200)),
    ],
    stacks: [["3H2A0040.JPG", "3H2A0040.CR3"]],
  },
  {
    kind: "raw+jpeg",
    name: "Renamed by a tethering app's batch number: NEF and JPG of one number",
    source: "https://capturegrid.com/name_policy.html",
    files: [
      photo("Session_12.NEF", "2024-06-08T15:20:05.500Z", D850, x("1/250", 8, 100)),
      photo("Session_12.JPG", "2024-06-08T15:20:05.500Z", D850, x("1/250", 8, 100)),
      photo("Session_13.NEF", "2024-06-08T15:20:41.200Z", D850, x("1/250", 8, 100)),
      photo("Session_13.JPG", "2024-06-08T15:20:41.200Z", D850, x("1/250", 8, 100)),
    ],
    stacks: [["Session_12.JPG", "Session_12.NEF"], ["Session_13.JPG", "Session_13.NEF"]],
  },
  {
    kind: "raw+jpeg",
    name: "Canon IMG_ CR3 and JPG",
    source: `${ISSUE}/55`,
    files: [
      photo("IMG_1234.JPG", "2024-03-02T09:15:40.120Z", R5, x("1/250")),
      photo("IMG_1234.CR3", "2024-03-02T09:15:40.120Z", R5, x("1/250")),
    ],
    stacks: [["IMG_1234.JPG", "IMG_1234.CR3"]],
  },
  {
    kind: "raw+jpeg",
    name: "Canon CR2 and JPG, no subseconds",
    source: `${ISSUE}/55`,
    files: [
      photo("IMG_0846.CR2", "2019-07-14T16:40:02.000Z", EOS5D3, x("1/160", 4, 400)),
      photo("IMG_0846.JPG", "2019-07-14T16:40:02.000Z", EOS5D3, x("1/160", 4, 400)),
    ],
    stacks: [["IMG_0846.JPG", "IMG_0846.CR2"]],
  },
  {
    kind: "raw+jpeg",
    name: "Nikon with the Adobe RGB underscore, lower-case .jpeg",
    source: "https://github.com/RhetTbull/osxphotos/issues/1508",
    files: [
      photo("_DSC8829.NEF", "2024-02-11T12:00:05.500Z", D850, x("1/1000", 8, 64)),
      photo("_DSC8829.jpeg", "2024-02-11T12:00:05.500Z", D850, x("1/1000", 8, 64)),
    ],
    stacks: [["_DSC8829.jpeg", "_DSC8829.NEF"]],
  },
  {
    kind: "raw+jpeg",
    name: "Nikon DSC_ NEF and JPG",
    source: "https://github.com/Libbum/Odyssey/issues/55",
    files: [
      photo("DSC_1434.NEF", "2018-05-20T08:31:44.880Z", D850, x("1/320", 11, 100)),
      photo("DSC_1434.JPG", "2018-05-20T08:31:44.880Z", D850, x("1/320", 11, 100)),
    ],
    stacks: [["DSC_1434.JPG", "DSC_1434.NEF"]],
  },
  {
    kind: "raw+jpeg",
    name: "Sony ARW and JPG",
    source: "https://gist.github.com/hrehfeld/b089f385e3137f878fbd23e3494accd6",
    files: [
      photo("DSC09245.ARW", "2022-09-03T17:45:12.210Z", A7, x("1/200", 2.8, 800)),
      photo("DSC09245.JPG", "2022-09-03T17:45:12.210Z", A7, x("1/200", 2.8, 800)),
    ],
    stacks: [["DSC09245.JPG", "DSC09245.ARW"]],
  },
  {
    kind: "raw+jpeg",
    name: "Fujifilm RAF and JPG",
    source: "https://github.com/Libbum/Odyssey/issues/55",
    files: [
      photo("DSCF3055.RAF", "2019-12-08T13:01:03.000Z", XT4, x("1/125", 5.6, 320)),
      photo("DSCF3055.JPG", "2019-12-08T13:01:03.000Z", XT4, x("1/125", 5.6, 320)),
    ],
    stacks: [["DSCF3055.JPG", "DSCF3055.RAF"]],
  },
  {
    kind: "raw+jpeg",
    name: "Olympus month-and-day prefix, ORF and JPG",
    source: "https://github.com/Libbum/Odyssey/issues/55",
    files: [
      photo("PC082629.ORF", "2012-12-08T15:20:31.000Z", EM5, x("1/60", 3.5, 1600)),
      photo("PC082629.JPG", "2012-12-08T15:20:31.000Z", EM5, x("1/60", 3.5, 1600)),
    ],
    stacks: [["PC082629.JPG", "PC082629.ORF"]],
  },
  {
    kind: "raw+jpeg",
    name: "Olympus ORF and lower-case jpg",
    source: "simulot/immich-go internal/exif/DATA (YG816507.orf, YG816507.jpg)",
    files: [
      photo("YG816507.orf", "2016-08-15T11:11:46.000Z", OM1, x("1/800", 8, 200)),
      photo("YG816507.jpg", "2016-08-15T11:11:46.000Z", OM1, x("1/800", 8, 200)),
    ],
    stacks: [["YG816507.jpg", "YG816507.orf"]],
  },
  {
    kind: "raw+jpeg",
    name: "Panasonic RW2 and JPG",
    source: "https://github.com/Libbum/Odyssey/issues/55",
    files: [
      photo("P1060097.RW2", "2016-03-08T07:39:26.000Z", G9, x("1/400", 6.3, 200)),
      photo("P1060097.JPG", "2016-03-08T07:39:26.000Z", G9, x("1/400", 6.3, 200)),
    ],
    stacks: [["P1060097.JPG", "P1060097.RW2"]],
  },
  {
    kind: "raw+jpeg",
    name: "Ricoh GR DNG and JPG",
    source:
      "https://www.manualshelf.com/manual/panasonic/dmctz7/2-1-operating-instructions-english/page-136.html",
    files: [
      photo("R0001234.DNG", "2021-04-17T18:05:00.350Z", GR3, x("1/1250", 2.8, 200)),
      photo("R0001234.JPG", "2021-04-17T18:05:00.350Z", GR3, x("1/1250", 2.8, 200)),
    ],
    stacks: [["R0001234.JPG", "R0001234.DNG"]],
  },
  {
    kind: "raw+jpeg",
    name: "DJI drone DNG and JPG",
    source: "https://github.com/Majorfi/immich-stack/issues/8",
    files: [
      photo("DJI_0149.JPG", "2025-03-27T14:48:43.000Z", MAVIC, x("1/640", 2.8, 100)),
      photo("DJI_0149.DNG", "2025-03-27T14:48:43.000Z", MAVIC, x("1/640", 2.8, 100)),
    ],
    stacks: [["DJI_0149.JPG", "DJI_0149.DNG"]],
  },
  {
    kind: "raw+jpeg",
    name: "GoPro RAW (GPR) and JPG",
    source: "https://git.wxl.best/trek-view/gopro-metadata/blob/main/hero10",
    files: [
      photo("GOPR0056.GPR", "2022-07-02T10:30:19.000Z", HERO10, x("1/960", 2.5, 100)),
      photo("GOPR0056.JPG", "2022-07-02T10:30:19.000Z", HERO10, x("1/960", 2.5, 100)),
    ],
    stacks: [["GOPR0056.JPG", "GOPR0056.GPR"]],
  },
  {
    kind: "raw+jpeg",
    name: "Pixel 5: dng and jpg",
    source: `${ISSUE}/94`,
    files: [
      photo("PXL_20231026_210642603.dng", "2023-10-26T21:06:42.603Z", PIXEL5, x("1/60", 1.7, 400)),
      photo("PXL_20231026_210642603.jpg", "2023-10-26T21:06:42.603Z", PIXEL5, x("1/60", 1.7, 400)),
    ],
    stacks: [["PXL_20231026_210642603.jpg", "PXL_20231026_210642603.dng"]],
  },
  {
    kind: "raw+jpeg",
    name: "Pixel 5: dng and motion photo MP.jpg",
    source: `${ISSUE}/94`,
    files: [
      photo("PXL_20231026_205755225.dng", "2023-10-26T20:57:55.225Z", PIXEL5, x("1/50", 1.7, 500)),
      photo(
        "PXL_20231026_205755225.MP.jpg",
        "2023-10-26T20:57:55.225Z",
        PIXEL5,
        x("1/50", 1.7, 500),
      ),
    ],
    stacks: [["PXL_20231026_205755225.MP.jpg", "PXL_20231026_205755225.dng"]],
  },
  {
    kind: "raw+jpeg",
    name: "Pixel 8 Pro: RAW-01.COVER and RAW-02.ORIGINAL",
    source: `${ISSUE}/94`,
    files: [
      photo(
        "PXL_20231207_032111247.RAW-02.ORIGINAL.dng",
        "2023-12-07T03:21:11.247Z",
        PIXEL8,
        x("1/30", 1.7, 800),
      ),
      photo(
        "PXL_20231207_032111247.RAW-01.COVER.jpg",
        "2023-12-07T03:21:11.247Z",
        PIXEL8,
        x("1/30", 1.7, 800),
      ),
    ],
    stacks: [[
      "PXL_20231207_032111247.RAW-01.COVER.jpg",
      "PXL_20231207_032111247.RAW-02.ORIGINAL.dng",
    ]],
  },
  {
    kind: "raw+jpeg",
    name: "Pixel 8 Pro: RAW-01.MP.COVER and RAW-02.ORIGINAL",
    source: `${ISSUE}/94`,
    files: [
      photo(
        "PXL_20231207_032108788.RAW-02.ORIGINAL.dng",
        "2023-12-07T03:21:08.788Z",
        PIXEL8,
        x("1/25", 1.7, 1000),
      ),
      photo(
        "PXL_20231207_032108788.RAW-01.MP.COVER.jpg",
        "2023-12-07T03:21:08.788Z",
        PIXEL8,
        x("1/25", 1.7, 1000),
      ),
    ],
    stacks: [[
      "PXL_20231207_032108788.RAW-01.MP.COVER.jpg",
      "PXL_20231207_032108788.RAW-02.ORIGINAL.dng",
    ]],
  },
  {
    kind: "raw+jpeg",
    name: "Pixel 9 Pro XL: RAW-01.COVER and RAW-02.ORIGINAL",
    source: `${ISSUE}/651`,
    files: [
      photo(
        "PXL_20250120_221128230.RAW-01.COVER.jpg",
        "2025-01-20T22:11:28.230Z",
        PIXEL9,
        x("1/40", 1.7, 640),
      ),
      photo(
        "PXL_20250120_221128230.RAW-02.ORIGINAL.dng",
        "2025-01-20T22:11:28.230Z",
        PIXEL9,
        x("1/40", 1.7, 640),
      ),
    ],
    stacks: [[
      "PXL_20250120_221128230.RAW-01.COVER.jpg",
      "PXL_20250120_221128230.RAW-02.ORIGINAL.dng",
    ]],
  },
  {
    kind: "raw+jpeg",
    name: "Pixel 8: the RAW dated seconds after the JPEG, other exposure data",
    source: "https://github.com/photoprism/photoprism/issues/4757",
    files: [
      photo(
        "PXL_20250126_164931991.RAW-01.COVER.jpg",
        "2025-01-26T16:49:31.991Z",
        PIXEL8,
        x("1/120", 1.7, 100),
      ),
      photo(
        "PXL_20250126_164931991.RAW-02.ORIGINAL.dng",
        "2025-01-26T16:49:34.480Z",
        PIXEL8,
        x("1/60", 1.7, 250),
      ),
    ],
    stacks: [[
      "PXL_20250126_164931991.RAW-01.COVER.jpg",
      "PXL_20250126_164931991.RAW-02.ORIGINAL.dng",
    ]],
  },
  {
    kind: "raw+jpeg",
    name: "Pixel NIGHT: RAW-01.COVER and RAW-02.ORIGINAL",
    source: "simulot/immich-go internal/filenames/pixel_test.go",
    files: [
      photo(
        "PXL_20240615_204528165.NIGHT.RAW-01.COVER.jpg",
        "2024-06-15T20:45:28.165Z",
        PIXEL8,
        x("1/4", 1.7, 1600),
      ),
      photo(
        "PXL_20240615_204528165.NIGHT.RAW-02.ORIGINAL.dng",
        "2024-06-15T20:45:28.165Z",
        PIXEL8,
        x("1/4", 1.7, 1600),
      ),
    ],
    stacks: [[
      "PXL_20240615_204528165.NIGHT.RAW-01.COVER.jpg",
      "PXL_20240615_204528165.NIGHT.RAW-02.ORIGINAL.dng",
    ]],
  },
  {
    kind: "raw+jpeg",
    name: "Pixel jpg and dng",
    source: "https://github.com/Majorfi/immich-stack/issues/8",
    files: [
      photo("PXL_20230813_145152337.jpg", "2023-08-13T14:51:52.337Z", PIXEL6, x("1/2000", 1.9, 50)),
      photo("PXL_20230813_145152337.dng", "2023-08-13T14:51:52.337Z", PIXEL6, x("1/2000", 1.9, 50)),
    ],
    stacks: [["PXL_20230813_145152337.jpg", "PXL_20230813_145152337.dng"]],
  },
  {
    kind: "raw+jpeg",
    name: "Pixel MV.jpg and dng",
    source: "https://github.com/Majorfi/immich-stack/issues/8",
    files: [
      photo(
        "PXL_20230818_114015690.MV.jpg",
        "2023-08-18T11:40:15.690Z",
        PIXEL6,
        x("1/500", 1.9, 50),
      ),
      photo("PXL_20230818_114015690.dng", "2023-08-18T11:40:15.690Z", PIXEL6, x("1/500", 1.9, 50)),
    ],
    stacks: [["PXL_20230818_114015690.MV.jpg", "PXL_20230818_114015690.dng"]],
  },
  {
    kind: "raw+jpeg",
    name: "iPhone HEIC and its JPEG",
    source: "simulot/immich-go internal/groups/series/series.go",
    files: [
      photo("IMG_0001.HEIC", "2024-08-10T19:02:33.510Z", IPHONE15, x("1/120", 1.8, 64)),
      photo("IMG_0001.JPG", "2024-08-10T19:02:33.510Z", IPHONE15, x("1/120", 1.8, 64)),
    ],
    stacks: [["IMG_0001.JPG", "IMG_0001.HEIC"]],
  },
  {
    kind: "raw+jpeg",
    name: "iPhone ProRAW DNG and HEIC",
    source: "https://github.com/RhetTbull/osxphotos/issues/2178",
    files: [
      photo("IMG_3070.DNG", "2026-06-25T07:20:53.110Z", IPHONE15, x("1/100", 1.8, 80)),
      photo("IMG_3070.HEIC", "2026-06-25T07:20:53.110Z", IPHONE15, x("1/100", 1.8, 80)),
    ],
    stacks: [["IMG_3070.HEIC", "IMG_3070.DNG"]],
  },
  {
    kind: "raw+jpeg",
    name: "Samsung Expert RAW dng and jpg",
    source: "https://github.com/mattdavis90/immich-stacker/issues/8",
    files: [
      photo("20240302_101530.dng", "2024-03-02T10:15:30.000Z", S23, x("1/250", 1.8, 50)),
      photo("20240302_101530.jpg", "2024-03-02T10:15:30.000Z", S23, x("1/250", 1.8, 50)),
    ],
    stacks: [["20240302_101530.jpg", "20240302_101530.dng"]],
  },
  {
    kind: "raw+jpeg",
    name: "RAW whose capture time Immich cannot read: dated by the file, in UTC",
    source: "https://github.com/immich-app/immich/issues/14824",
    files: [
      photo("DSC04410.ARW", "2024-02-21T15:44:22.270Z", A7, x("1/1000", 2.8, 100), {
        undated: true,
      }),
      photo("DSC04410.JPG", "2024-02-21T10:14:22.270Z", A7, x("1/1000", 2.8, 100)),
    ],
    stacks: [["DSC04410.JPG", "DSC04410.ARW"]],
  },
];

// ---- Bursts -------------------------------------------------------------------------------------

const HUAWEI = frames(
  5,
  (i) => `IMG_20231014_183246_BURST${pad(i + 1, 3)}${i === 0 ? "_COVER" : ""}.jpg`,
  "2023-10-14T18:32:46.100Z",
  120,
  P30,
);
const HONOR = frames(
  2,
  (i) => `IMG_20251231_115959_BURST${pad(i + 1, 3)}${i === 0 ? "_COVER" : ""}.jpg`,
  "2025-12-31T11:59:59.200Z",
  150,
  HONOR20,
);
const FAIRPHONE = frames(
  20,
  (i) => `IMG_20240215_140034_BURST${pad(i + 1, 3)}.jpg`,
  "2024-02-15T14:00:34.050Z",
  100,
  FP5,
);
const MOTOROLA = frames(
  8,
  (i) => `IMG_20250616_163308479_BURST${pad(i, 3)}${i === 0 ? "_COVER" : ""}.jpg`,
  "2025-06-16T16:33:08.479Z",
  90,
  RAZR,
);
const MOTO_G6 = frames(
  3,
  (i) => `IMG_20180914_094602055_BURST${pad(i, 3)}${i === 0 ? "_COVER" : ""}.jpg`,
  "2018-09-14T09:46:02.055Z",
  200,
  MOTO_G,
);
const NEXUS = frames(
  15,
  (i) => `${pad(i + 1, 5)}IMG_${pad(i + 1, 5)}_BURST20171111030039${i === 14 ? "_COVER" : ""}.jpg`,
  "2017-11-11T03:00:39.000Z",
  100,
  NEXUS6P,
);
const PIXEL_XL_BURST = frames(
  4,
  (i) => `${pad(i, 5)}IMG_${pad(i, 5)}_BURST20190830164840873${i === 0 ? "_COVER" : ""}.jpg`,
  "2019-08-30T16:48:40.873Z",
  160,
  PIXEL_XL,
);
const PORTRAIT_BURST = frames(
  3,
  (i) => `${pad(i, 5)}PORTRAIT_${pad(i, 5)}_BURST20190828181853475${i === 1 ? "_COVER" : ""}.jpg`,
  "2019-08-28T18:18:53.475Z",
  200,
  PIXEL_XL,
);
const NOTHING = frames(
  6,
  (i) => `${pad(i + 1, 5)}IMG_${pad(i + 1, 5)}_BURST1723801037429${i === 0 ? "_COVER" : ""}.jpg`,
  "2024-08-16T09:37:17.429Z",
  110,
  NOTHING2,
);
const XPERIA_BURST = [
  ...frames(
    3,
    (i) => `DSC_${pad(i + 1, 4)}_BURST20230709220904977.JPG`,
    "2023-07-09T22:09:04.977Z",
    50,
    XPERIA,
  ),
  photo("DSC_0052_BURST20230709220904977_COVER.JPG", "2023-07-09T22:09:07.527Z", XPERIA),
  ...frames(
    2,
    (i) => `DSC_${pad(i + 100, 4)}_BURST20230709220904977.JPG`,
    "2023-07-09T22:09:09.927Z",
    50,
    XPERIA,
  ),
];
const XPERIA_PREDICTIVE = frames(
  4,
  (i) => `DSCPDC_${pad(i, 4)}_BURST20180828114700954${i === 3 ? "_COVER" : ""}.JPG`,
  "2018-08-28T11:47:00.954Z",
  100,
  XPERIA_XZ,
);
const XPERIA_ZERO = frames(
  3,
  (i) => `DSC_${pad(i, 4)}_BURST20230321152231242${i === 1 ? "_COVER" : ""}.JPG`,
  "2023-03-21T15:22:31.242Z",
  60,
  XPERIA,
);
const SAMSUNG_S9 = frames(
  25,
  (i) => `20190818_212242_${pad(i + 1, 3)}.jpg`,
  "2019-08-18T21:22:42.000Z",
  80,
  S9,
);
const SAMSUNG = frames(
  4,
  (i) => `20231207_101605_${pad(i + 1, 3)}.jpg`,
  "2023-12-07T10:16:05.000Z",
  120,
  S22,
);
const GOPRO = frames(
  10,
  (i) => `G023${1111 + i}.JPG`,
  "2018-11-03T12:00:01.000Z",
  100,
  HERO6,
);
const GOPRO_LAPSE = frames(
  6,
  (i) => `G002${pad(61 + i, 4)}.JPG`,
  "2022-07-02T10:40:00.000Z",
  5_000,
  HERO10,
);
const IPHONE_BURST = frames(
  6,
  (i) => `IMG_${pad(503 + i, 4)}.JPG`,
  "2022-05-24T10:11:12.100Z",
  100,
  IPHONE13,
  () => x("1/1000", 1.6, 50),
);
const CANON_PAIRS = [16, 17, 18, 19, 20].flatMap((n, i) => [
  photo(`3H2A00${n}.CR3`, at("2023-10-28T14:05:00.000Z", i * 125), R5, x("1/2000", 4, 400)),
  photo(`3H2A00${n}.JPG`, at("2023-10-28T14:05:00.000Z", i * 125), R5, x("1/2000", 4, 400)),
]);
const NIKON_BURST = frames(
  6,
  (i) => `DSC_${4501 + i}.JPG`,
  "2023-06-11T15:20:30.000Z",
  110,
  D850,
  (i) => x(i < 3 ? "1/1600" : "1/1250", 4, 400),
);
const NO_SUBSECONDS = ["10:00:00", "10:00:00", "10:00:00", "10:00:01", "10:00:01", "10:00:02"]
  .map((time, i) =>
    photo(`DSCF${6101 + i}.JPG`, `2022-04-09T${time}.000Z`, XT4, x("1/1000", 4, 200))
  );

const BURSTS: CorpusCase[] = [
  oneStack("burst", "Huawei: _BURST001_COVER", `${ISSUE}/45`, HUAWEI),
  oneStack(
    "burst",
    "Honor: _BURST001_COVER",
    "https://github.com/deckerst/aves/issues/1780",
    HONOR,
  ),
  oneStack(
    "burst",
    "Fairphone 5: 20 frames, no cover",
    "https://github.com/deckerst/aves/issues/956",
    FAIRPHONE,
  ),
  oneStack(
    "burst",
    "Motorola razr: milliseconds, _BURST000_COVER",
    "https://github.com/deckerst/aves/issues/1675",
    MOTOROLA,
  ),
  oneStack(
    "burst",
    "Motorola moto g: _BURST000_COVER",
    "https://github.com/SimpleMobileTools/Simple-Gallery/issues/952",
    MOTO_G6,
  ),
  {
    kind: "burst",
    name: "Nexus 6P: the last frame is the cover",
    source: `${ISSUE}/100`,
    files: NEXUS,
    stacks: [[NEXUS[14].label, ...labels(NEXUS.slice(0, 14))]],
  },
  oneStack(
    "burst",
    "Pixel XL (Google Camera): milliseconds in the burst",
    "simulot/immich-go internal/filenames/nexus.go",
    PIXEL_XL_BURST,
  ),
  {
    kind: "burst",
    name: "Google Camera portrait burst",
    source: "simulot/immich-go internal/filenames/nexus_test.go",
    files: PORTRAIT_BURST,
    stacks: [[PORTRAIT_BURST[1].label, PORTRAIT_BURST[0].label, PORTRAIT_BURST[2].label]],
  },
  oneStack("burst", "Nothing: milliseconds since 1970", `${ISSUE}/743`, NOTHING),
  {
    kind: "burst",
    name: "Sony Xperia: the cover in the middle",
    source: `${ISSUE}/345`,
    files: XPERIA_BURST,
    stacks: [[XPERIA_BURST[3].label, ...labels(XPERIA_BURST).filter((_, i) => i !== 3)]],
  },
  {
    kind: "burst",
    name: "Sony Xperia predictive capture",
    source: "https://github.com/Majorfi/immich-stack/issues/18",
    files: XPERIA_PREDICTIVE,
    stacks: [[XPERIA_PREDICTIVE[3].label, ...labels(XPERIA_PREDICTIVE.slice(0, 3))]],
  },
  {
    kind: "burst",
    name: "Sony Xperia: frames from 0000",
    source: "https://github.com/deckerst/aves/issues/562",
    files: XPERIA_ZERO,
    stacks: [[XPERIA_ZERO[1].label, XPERIA_ZERO[0].label, XPERIA_ZERO[2].label]],
  },
  oneStack(
    "burst",
    "Samsung Galaxy S9+: 25 frames, the first is the cover",
    "https://github.com/mattdavis90/immich-stacker/issues/8",
    SAMSUNG_S9,
  ),
  oneStack("burst", "Samsung: YYYYMMDD_HHMMSS_NNN", `${ISSUE}/99`, SAMSUNG),
  oneStack(
    "burst",
    "GoPro burst: G023 1111 to 1120",
    "https://toddmricker.com/gopro-file-naming-convention/",
    GOPRO,
  ),
  oneStack(
    "burst",
    "GoPro time lapse: a frame every 5 s",
    "https://git.wxl.best/trek-view/gopro-metadata/blob/main/hero10",
    GOPRO_LAPSE,
  ),
  oneStack(
    "burst",
    "iPhone: consecutive numbers 0.1 s apart",
    "https://github.com/RhetTbull/osxphotos/issues/704",
    IPHONE_BURST,
  ),
  {
    kind: "burst",
    name: "Canon RAW+JPEG burst",
    source: `${ISSUE}/45`,
    files: CANON_PAIRS,
    stacks: [[
      "3H2A0016.JPG",
      "3H2A0016.CR3",
      "3H2A0017.CR3",
      "3H2A0017.JPG",
      "3H2A0018.CR3",
      "3H2A0018.JPG",
      "3H2A0019.CR3",
      "3H2A0019.JPG",
      "3H2A0020.CR3",
      "3H2A0020.JPG",
    ]],
  },
  oneStack(
    "burst",
    "Nikon continuous shooting, auto exposure",
    "simulot/immich-go internal/groups/burst/burst.go",
    NIKON_BURST,
  ),
  oneStack(
    "burst",
    "Fujifilm burst without subseconds: frames share their second",
    "http://www.lightroomsecrets.com/2009/04/stacking-your-bracketed-shots",
    NO_SUBSECONDS,
  ),
];

// ---- Edits and copies ---------------------------------------------------------------------------

/** An original and its version, the version cover first. */
function edited(
  name: string,
  source: string,
  original: CorpusFile,
  version: CorpusFile,
): CorpusCase {
  return {
    kind: "edit",
    name,
    source,
    files: [original, version],
    stacks: [[version.label, original.label]],
  };
}

const GPTH = "TheLastGimbus/GooglePhotosTakeoutHelper lib/extras.dart";
const T1 = "2023-07-01T12:00:00.000Z";

const EDITS: CorpusCase[] = [
  edited(
    "Google Takeout -edited without EXIF, days later",
    "https://github.com/photoprism/photoprism/issues/1051",
    photo("IMG_1087.JPG", "2014-07-24T21:33:39.000Z", IPHONE6, x("1/30", 2.2, 200)),
    photo("IMG_1087-edited.JPG", "2014-07-27T09:12:00.000Z", null, undefined, { undated: true }),
  ),
  edited(
    "Google Takeout in German: -bearbeitet, dated 2 hours later",
    `${ISSUE}/162`,
    photo("IMG_20240214_183015.jpg", "2024-02-14T18:30:15.000Z", P30, x("1/50", 1.8, 320)),
    photo("IMG_20240214_183015-bearbeitet.jpg", "2024-02-14T20:30:15.000Z", P30),
  ),
  edited(
    "Google Takeout in French: -modifié after a Pixel's .PORTRAIT",
    "simulot/immich-go adapters/googlePhotos/matchers.go",
    photo("PXL_20220405_090123740.PORTRAIT.jpg", "2022-04-05T09:01:23.740Z", PIXEL6, x("1/100")),
    photo("PXL_20220405_090123740.PORTRAIT-modifié.jpg", "2022-04-05T09:01:23.740Z", PIXEL6),
  ),
  edited(
    "Google Takeout in French, the accent decomposed (NFD)",
    `${ISSUE}/162`,
    photo("IMG_20210610_140000.jpg", "2021-06-10T14:00:00.000Z", S9, x("1/800", 1.5, 50)),
    photo("IMG_20210610_140000-modifie\u0301.jpg", "2021-06-10T14:00:00.000Z", S9),
  ),
  edited(
    "Google Takeout in Spanish: -editado",
    `${ISSUE}/162`,
    photo("IMG_20230701_120000.jpg", T1, S22, x("1/2000", 1.8, 50)),
    photo("IMG_20230701_120000-editado.jpg", at(T1, 5 * DAY), null, undefined, { undated: true }),
  ),
  edited(
    "Google Takeout in Italian: -modificato",
    GPTH,
    photo("20230815_101112.jpg", "2023-08-15T10:11:12.000Z", S23, x("1/640", 1.8, 50)),
    photo("20230815_101112-modificato.jpg", "2023-08-15T10:11:12.000Z", S23),
  ),
  edited(
    "Google Takeout in Italian, of a photo (la foto): -modificata",
    GPTH,
    photo("IMG_4567.HEIC", "2023-09-02T17:45:10.300Z", IPHONE13, x("1/250", 1.6, 50)),
    photo("IMG_4567-modificata.jpg", "2023-09-02T17:45:10.300Z", IPHONE13),
  ),
  edited(
    "Google Takeout in Dutch: -bewerkt",
    GPTH,
    photo("IMG_20200502_103000.jpg", "2020-05-02T10:30:00.000Z", PIXEL5, x("1/500", 1.7, 60)),
    photo("IMG_20200502_103000-bewerkt.jpg", at("2020-05-02T10:30:00.000Z", 3 * HOUR), null),
  ),
  edited(
    "Google Takeout in Polish: -edytowane",
    GPTH,
    photo("IMG_20191224_190000.jpg", "2019-12-24T19:00:00.000Z", S9, x("1/30", 1.5, 640)),
    photo("IMG_20191224_190000-edytowane.jpg", "2019-12-24T19:00:00.000Z", S9),
  ),
  edited(
    "Google Takeout in Japanese: -編集済み",
    GPTH,
    photo("IMG_0777.JPG", "2022-04-01T08:00:00.000Z", IPHONE12, x("1/400", 1.6, 32)),
    photo("IMG_0777-編集済み.JPG", "2022-04-01T08:00:00.000Z", IPHONE12),
  ),
  edited(
    "Google Takeout in Catalan: -editat",
    GPTH,
    photo("IMG_20220910_181500.jpg", "2022-09-10T18:15:00.000Z", PIXEL6, x("1/160", 1.9, 80)),
    photo("IMG_20220910_181500-editat.jpg", "2022-09-10T18:15:00.000Z", PIXEL6),
  ),
  edited(
    "PhotoSync _edited",
    "https://github.com/photoprism/photoprism/issues/1122",
    photo("IMG_0123.HEIC", "2021-11-30T12:10:00.450Z", IPHONE12, x("1/120", 1.6, 100)),
    photo("IMG_0123_edited.jpg", "2021-11-30T12:10:00.450Z", IPHONE12),
  ),
  edited(
    "Apple Photos: IMG_E is the edited IMG_",
    "https://github.com/RhetTbull/osxphotos/issues/1871",
    photo("IMG_1822.JPG", "2025-06-11T15:42:07.120Z", IPHONE13, x("1/500", 1.6, 50)),
    photo("IMG_E1822.JPG", "2025-06-11T15:42:07.120Z", IPHONE13),
  ),
  edited(
    "Apple Photos: IMG_E of a HEIC, no EXIF date",
    "https://github.com/RhetTbull/osxphotos/pull/1113",
    photo("IMG_4177.HEIC", "2025-04-26T23:47:17.270Z", IPHONE15, x("1/60", 1.8, 400)),
    photo("IMG_E4177.JPG", "2025-04-28T10:02:00.000Z", IPHONE15, undefined, { undated: true }),
  ),
  edited(
    "Google Photos on Android: ~2",
    "https://github.com/Majorfi/immich-stack/issues/8",
    photo("DSC_0565.JPG", "2019-10-15T15:53:55.451Z", D850, x("1/640", 8, 100)),
    photo("DSC_0565~2.JPG", "2019-10-15T15:53:55.451Z", D850),
  ),
  edited(
    "Google Photos on a Pixel: ~3",
    "https://github.com/Majorfi/immich-stack/issues/38",
    photo("PXL_20211221_054835324.jpg", "2021-12-21T05:48:35.324Z", PIXEL6, x("1/30", 1.9, 800)),
    photo("PXL_20211221_054835324~3.jpg", "2021-12-21T05:48:35.324Z", PIXEL6),
  ),
  edited(
    "Samsung gallery: ~2",
    "https://github.com/Majorfi/immich-stack/issues/38",
    photo("20230512_093015.jpg", "2023-05-12T09:30:15.000Z", S22, x("1/1000", 1.8, 50)),
    photo("20230512_093015~2.jpg", at("2023-05-12T09:30:15.000Z", 20 * 60_000), S22),
  ),
  edited(
    "Lightroom and Photoshop: -Edit.tif of a CR2",
    "http://www.digitalphotopro.com/technique/software-technique/the-raw-file-shuffle?start=2",
    photo("IMG_2210.CR2", "2011-08-20T19:05:33.000Z", EOS5D3, x("1/200", 5.6, 100)),
    photo("IMG_2210-Edit.tif", "2011-08-20T19:05:33.000Z", EOS5D3),
  ),
  edited(
    "Lightroom Denoise: -Enhanced-NR.dng",
    "https://github.com/immich-app/immich/issues/14824",
    photo("DSC01234.ARW", "2024-01-05T21:02:11.500Z", A7, x("1/60", 2.8, 12800)),
    photo("DSC01234-Enhanced-NR.dng", "2024-01-05T21:02:11.500Z", A7),
  ),
  edited(
    "Windows Explorer: a second copy named (2)",
    "https://www.wisfile.ai/faq/why-does-windows-auto-rename-pasted-files",
    photo("IMG_3050.JPG", "2020-02-02T11:11:11.000Z", IPHONE12, x("1/100", 1.6, 64)),
    photo("IMG_3050 (2).JPG", "2020-02-02T11:11:11.000Z", IPHONE12, x("1/100", 1.6, 64)),
  ),
  edited(
    "macOS Finder: IMG_3051 copy",
    "https://github.com/photoprism/photoprism/issues/308",
    photo("IMG_3051.JPG", "2020-02-02T11:12:00.000Z", IPHONE12, x("1/100", 1.6, 64)),
    photo("IMG_3051 copy.JPG", "2020-02-02T11:12:00.000Z", IPHONE12, x("1/100", 1.6, 64)),
  ),
  edited(
    "Windows Explorer: - Copy",
    "https://www.wisfile.ai/faq/how-does-windows-handle-file-name-conflicts",
    photo("DSC_2020.JPG", "2020-06-06T06:06:06.000Z", D850, x("1/250", 8, 100)),
    photo("DSC_2020 - Copy.JPG", "2020-06-06T06:06:06.000Z", D850, x("1/250", 8, 100)),
  ),
  edited(
    "GNOME Files: a duplicate named (Copy)",
    "GNOME/nautilus src/nautilus-filename-utilities.c",
    photo("IMG_3060.JPG", "2021-07-14T15:20:00.000Z", IPHONE12, x("1/400", 1.6, 32)),
    photo("IMG_3060 (Copy).JPG", "2021-07-14T15:20:00.000Z", IPHONE12, x("1/400", 1.6, 32)),
  ),
  {
    kind: "edit",
    name: "GNOME Files before 2023: (copy), (another copy)",
    source: "https://github.com/paysonwallach/duplicate/blob/master/src/Duplicator.vala",
    files: [
      photo("DSC_3070.JPG", "2019-05-05T09:30:00.000Z", D850, x("1/320", 7.1, 100)),
      photo("DSC_3070 (copy).JPG", "2019-05-05T09:30:00.000Z", D850, x("1/320", 7.1, 100)),
      photo("DSC_3070 (another copy).JPG", "2019-05-05T09:30:00.000Z", D850, x("1/320", 7.1, 100)),
    ],
    // Both copies are the photo: the cover is either.
    stacks: [["DSC_3070 (another copy).JPG", "DSC_3070 (copy).JPG", "DSC_3070.JPG"]],
  },
  edited(
    "Google Takeout: (1) for a second upload of one photo",
    "https://github.com/Zaczero/google-photos-takeout.sh/issues/2",
    photo("IMG_0484.JPG", "2012-03-10T10:00:00.000Z", IPHONE6, x("1/60", 2.2, 100)),
    photo("IMG_0484(1).JPG", "2012-03-10T10:00:00.000Z", IPHONE6, x("1/60", 2.2, 100)),
  ),
  edited(
    "osxphotos export: (1) for a name taken",
    "https://github.com/RhetTbull/osxphotos/issues/2178",
    photo("IMG_3071.DNG", "2026-06-25T07:21:10.000Z", IPHONE15, x("1/100", 1.8, 80)),
    photo("IMG_3071 (1).DNG", "2026-06-25T07:21:10.000Z", IPHONE15, x("1/100", 1.8, 80)),
  ),
  edited(
    "Exports numbered -2 when the name is taken",
    "https://github.com/opendatakit/briefcase/issues/77",
    photo("DSC_4412.JPG", "2023-04-01T16:00:00.000Z", D850, x("1/500", 5.6, 100)),
    photo("DSC_4412-2.JPG", "2023-04-01T16:00:00.000Z", D850, x("1/500", 5.6, 100)),
  ),
  edited(
    "-final",
    "https://bitbucket.org/agriggio/art/issues/103/option-to-add-suffix-to-saved-file",
    photo("DSC_1000.NEF", "2021-10-10T10:10:10.000Z", D850, x("1/125", 8, 200)),
    photo("DSC_1000-final.jpg", at("2021-10-10T10:10:10.000Z", 2 * DAY), null, undefined, {
      undated: true,
    }),
  ),
  {
    kind: "edit",
    name: "darktable: an export and the export of a duplicate (_01)",
    source: "https://raw.githubusercontent.com/darktable-org/darktable/master/src/libs/duplicate.c",
    files: [
      photo("DSC09250.ARW", "2022-09-03T17:50:00.000Z", A7, x("1/320", 4, 100)),
      photo("DSC09250.jpg", "2022-09-03T17:50:00.000Z", A7, x("1/320", 4, 100)),
      photo("DSC09250_01.jpg", "2022-09-03T17:50:00.000Z", A7, x("1/320", 4, 100)),
    ],
    stacks: [["DSC09250_01.jpg", "DSC09250.jpg", "DSC09250.ARW"]],
  },
  {
    kind: "edit",
    name: "Lightroom: two Photoshop edits, the later one the cover",
    source:
      "http://www.digitalphotopro.com/technique/software-technique/the-raw-file-shuffle?start=2",
    files: [
      photo("IMG_2211.CR2", "2011-08-20T19:06:00.000Z", EOS5D3, x("1/200", 5.6, 100)),
      photo("IMG_2211-Edit.tif", "2011-08-20T19:06:00.000Z", EOS5D3),
      photo("IMG_2211-Edit-2.tif", "2011-08-20T19:06:00.000Z", EOS5D3),
    ],
    stacks: [["IMG_2211-Edit-2.tif", "IMG_2211-Edit.tif", "IMG_2211.CR2"]],
  },
  {
    kind: "edit",
    name: "Epson FastFoto: the enhanced scan _a is the cover, _b the back",
    source: "simulot/immich-go internal/groups/epsonfastfoto/epsonfastfoto_test.go",
    files: [
      photo("SceneryAndWildlife_0001_a.jpg", "2024-01-20T14:00:00.000Z", EPSON),
      photo("SceneryAndWildlife_0001_b.jpg", "2024-01-20T14:00:00.200Z", EPSON),
      photo("SceneryAndWildlife_0001.jpg", "2024-01-20T14:00:00.400Z", EPSON),
    ],
    stacks: [[
      "SceneryAndWildlife_0001_a.jpg",
      "SceneryAndWildlife_0001_b.jpg",
      "SceneryAndWildlife_0001.jpg",
    ]],
  },
  {
    kind: "edit",
    name: "Epson FastFoto without the enhanced scan: the original and the back",
    source: `${ISSUE}/874`,
    files: [
      photo("Family_0042.jpg", "2025-04-10T10:00:00.000Z", EPSON),
      photo("Family_0042_b.jpg", "2025-04-10T10:00:00.300Z", EPSON),
    ],
    stacks: [["Family_0042.jpg", "Family_0042_b.jpg"]],
  },
  {
    kind: "edit",
    name: "Pixel RAW pair and a Google Photos edit of its cover",
    source: "https://github.com/Majorfi/immich-stack/issues/38",
    files: [
      photo(
        "PXL_20250907_130834063.RAW-02.ORIGINAL.dng",
        "2025-09-07T13:08:34.063Z",
        PIXEL9,
        x("1/1000", 1.7, 50),
      ),
      photo(
        "PXL_20250907_130834063.RAW-01.COVER.jpg",
        "2025-09-07T13:08:34.063Z",
        PIXEL9,
        x("1/1000", 1.7, 50),
      ),
      photo(
        "PXL_20250907_130834063.RAW-01.COVER~2.jpg",
        "2025-09-07T13:08:34.063Z",
        PIXEL9,
      ),
    ],
    stacks: [[
      "PXL_20250907_130834063.RAW-01.COVER~2.jpg",
      "PXL_20250907_130834063.RAW-01.COVER.jpg",
      "PXL_20250907_130834063.RAW-02.ORIGINAL.dng",
    ]],
  },
  {
    kind: "edit",
    name: "An edit of a RAW+JPEG pair, exported a week later without EXIF",
    source: "https://github.com/mattdavis90/immich-stacker/issues/15",
    files: [
      photo("DSC_7777.NEF", "2025-10-01T08:00:00.000Z", D850, x("1/250", 8, 100)),
      photo("DSC_7777.JPG", "2025-10-01T08:00:00.000Z", D850, x("1/250", 8, 100)),
      photo("DSC_7777-edited.jpg", "2025-10-08T21:30:00.000Z", null, undefined, {
        undated: true,
      }),
    ],
    stacks: [["DSC_7777-edited.jpg", "DSC_7777.JPG", "DSC_7777.NEF"]],
  },
];

// ---- Brackets -----------------------------------------------------------------------------------

/** A bracket of `times` exposures `gapMs` apart, its middle exposure the cover. */
function bracket(
  name: string,
  source: string,
  names: readonly string[],
  base: string,
  gapMs: number,
  camera: Camera,
  times: readonly string[],
  cover: string,
): CorpusCase {
  const files = names.map((n, i) => photo(n, at(base, i * gapMs), camera, x(times[i], 8, 100)));
  return {
    kind: "bracket",
    name,
    source,
    files,
    stacks: [[cover, ...names.filter((n) => n !== cover)]],
  };
}

const NIKON_BRACKET = [7001, 7002, 7003].flatMap((n, i) => {
  const time = at("2021-05-05T06:30:00.000Z", i * 1_800);
  const exposure = x(["1/500", "1/125", "1/30"][i]);
  return [
    photo(`DSC_${n}.NEF`, time, D850, exposure),
    photo(`DSC_${n}.JPG`, time, D850, exposure),
  ];
});

const BRACKETS: CorpusCase[] = [
  bracket(
    "Canon AEB 0, -2, +2 in continuous shooting",
    "http://outbackphoto.com/CONTENT_2007_01/section_hdr_and_tonemapping/20071018_UsingLightroomStacks/index.html",
    ["IMG_4001.CR3", "IMG_4002.CR3", "IMG_4003.CR3"],
    "2023-09-09T19:20:00.000Z",
    250,
    R5,
    ["1/125", "1/500", "1/30"],
    "IMG_4001.CR3",
  ),
  bracket(
    "Sony: 5 exposures 1.5 s apart",
    "https://subtlelight.siddhantrajchopra.com/understanding-exposure-stacking-hdr",
    ["DSC05001.ARW", "DSC05002.ARW", "DSC05003.ARW", "DSC05004.ARW", "DSC05005.ARW"],
    "2024-04-04T20:00:00.000Z",
    1_500,
    A6700,
    ["1/60", "1/250", "1/15", "1/1000", "1/4"],
    "DSC05001.ARW",
  ),
  {
    kind: "bracket",
    name: "Nikon -, 0, + with RAW+JPEG, 1.8 s apart",
    source: "http://www.lightroomsecrets.com/2009/04/stacking-your-bracketed-shots",
    files: NIKON_BRACKET,
    stacks: [["DSC_7002.JPG", ...labels(NIKON_BRACKET).filter((l) => l !== "DSC_7002.JPG")]],
  },
  bracket(
    "Long exposures 1/4, 1 and 4 s, seconds apart",
    "https://anton-dergunov.github.io/posts/2025/04/automating-hdr-photo-creation-in-adobe-lightroom",
    ["IMG_5001.CR3", "IMG_5002.CR3", "IMG_5003.CR3"],
    "2022-12-24T17:00:00.000Z",
    6_000,
    R5,
    ["1", "1/4", "4"],
    "IMG_5001.CR3",
  ),
  bracket(
    "Canon 5D Mark III: 7 exposures",
    "https://www.darrenskidmorephotography.com/Blog/Creating-HDR-images-using-Automatic-Exposure-Bracketing",
    [6001, 6002, 6003, 6004, 6005, 6006, 6007].map((n) => `IMG_${n}.CR2`),
    "2016-10-01T07:00:00.000Z",
    700,
    EOS5D3,
    ["1/125", "1/250", "1/60", "1/500", "1/30", "1/1000", "1/15"],
    "IMG_6001.CR2",
  ),
  bracket(
    "Fujifilm: 3 exposures a stop apart, -1, 0, +1",
    "https://amateurphotographerguide.com/exposure-bracketing-in-photography/",
    ["DSCF2001.RAF", "DSCF2002.RAF", "DSCF2003.RAF"],
    "2023-02-18T16:40:00.000Z",
    2_200,
    XT4,
    ["1/400", "1/200", "1/100"],
    "DSCF2002.RAF",
  ),
];

// ---- Live and motion photos ---------------------------------------------------------------------

const LIVE: CorpusCase[] = [
  {
    kind: "live",
    name: "iPhone live photo: the HEIC and its MOV are never stacked",
    source: "https://github.com/icloud-photos-downloader/icloud_photos_downloader/issues/1043",
    files: [
      photo("IMG_1234.HEIC", "2024-12-25T09:00:00.200Z", IPHONE15, x("1/60", 1.8, 200)),
      photo("IMG_1234.MOV", "2024-12-25T09:00:00.200Z", IPHONE15),
    ],
    stacks: [],
  },
  {
    kind: "live",
    name: "iCloud export of a live photo: IMG_1235_HEVC.MOV",
    source: "https://github.com/icloud-photos-downloader/icloud_photos_downloader/issues/1043",
    files: [
      photo("IMG_1235.HEIC", "2024-12-25T09:00:05.000Z", IPHONE15, x("1/60", 1.8, 200)),
      photo("IMG_1235_HEVC.MOV", "2024-12-25T09:00:05.000Z", IPHONE15),
    ],
    stacks: [],
  },
  {
    kind: "live",
    name: "Panasonic: a JPEG and the MOV of the same number",
    source:
      "https://www.manualshelf.com/manual/panasonic/dmctz7/2-1-operating-instructions-english/page-136.html",
    files: [
      photo("P1060101.JPG", "2016-03-08T08:00:00.000Z", G9, x("1/500", 5.6, 200)),
      photo("P1060101.MOV", "2016-03-08T08:00:00.000Z", G9),
    ],
    stacks: [],
  },
  {
    kind: "live",
    name: "Pixel motion photo and the Pixel's video of the same second",
    source: "simulot/immich-go internal/filenames/namesdate_test.go",
    files: [
      photo("PXL_20220909_154515546.MP.jpg", "2022-09-09T15:45:15.546Z", PIXEL6, x("1/250", 1.9)),
      photo("PXL_20220909_154515546.TS.mp4", "2022-09-09T15:45:15.546Z", PIXEL6),
    ],
    stacks: [],
  },
  {
    kind: "live",
    name: "Pixel motion: MOTION-01.COVER and MOTION-02.ORIGINAL are one shot",
    source: "simulot/immich-go internal/filenames/pixel_test.go",
    files: [
      photo(
        "PXL_20230330_184138390.MOTION-02.ORIGINAL.jpg",
        "2023-03-30T18:41:38.390Z",
        PIXEL6,
        x("1/120", 1.9, 100),
      ),
      photo(
        "PXL_20230330_184138390.MOTION-01.COVER.jpg",
        "2023-03-30T18:41:38.390Z",
        PIXEL6,
        x("1/120", 1.9, 100),
      ),
    ],
    stacks: [[
      "PXL_20230330_184138390.MOTION-01.COVER.jpg",
      "PXL_20230330_184138390.MOTION-02.ORIGINAL.jpg",
    ]],
  },
  {
    kind: "raw+jpeg",
    name: "Pixel portrait and its original",
    source: "simulot/immich-go internal/filenames/pixel.go",
    files: [
      photo(
        "PXL_20211015_192314061.PORTRAIT.ORIGINAL.jpg",
        "2021-10-15T19:23:14.061Z",
        PIXEL6,
        x("1/60", 1.9, 300),
      ),
      photo(
        "PXL_20211015_192314061.PORTRAIT.jpg",
        "2021-10-15T19:23:14.061Z",
        PIXEL6,
        x("1/60", 1.9, 300),
      ),
    ],
    stacks: [[
      "PXL_20211015_192314061.PORTRAIT.jpg",
      "PXL_20211015_192314061.PORTRAIT.ORIGINAL.jpg",
    ]],
  },
];

// ---- What must not be stacked -------------------------------------------------------------------

/** Photos that look alike and are not one photo: no stack. */
function apart(name: string, source: string, files: readonly CorpusFile[]): CorpusCase {
  return { kind: "apart", name, source, files, stacks: [] };
}

const T2 = "2024-07-20T15:30:12.000Z";

const APART: CorpusCase[] = [
  apart(
    "Two iPhones of one family write IMG_0042.HEIC in the same second",
    "https://github.com/photoprism/photoprism/issues/842",
    [
      photo("IMG_0042.HEIC", T2, IPHONE13, x("1/120", 1.6, 50), { label: "iPhone 13" }),
      photo("IMG_0042.HEIC", at(T2, 300), IPHONE12, x("1/100", 1.6, 64), { label: "iPhone 12" }),
    ],
  ),
  apart(
    "Two iPhones write IMG_0043: one kept HEIC, the other JPEG",
    "https://github.com/photoprism/photoprism/issues/842",
    [
      photo("IMG_0043.HEIC", at(T2, 40_000), IPHONE13, x("1/120", 1.6, 50)),
      photo("IMG_0043.JPG", at(T2, 40_400), IPHONE12, x("1/100", 1.6, 64)),
    ],
  ),
  apart(
    "Two bodies of one model write IMG_0100.JPG in the same second",
    "https://github.com/mattdavis90/immich-stacker/issues/3",
    [
      photo("IMG_0100.JPG", "2024-06-01T14:00:00.000Z", R5, x("1/500", 4, 100), { label: "A" }),
      photo("IMG_0100.JPG", "2024-06-01T14:00:00.000Z", R5_TWO, x("1/800", 2.8, 100), {
        label: "B",
      }),
    ],
  ),
  apart(
    "Two bodies of one model: the RAW of one and the JPEG of the other, same second",
    "https://github.com/mattdavis90/immich-stacker/issues/3",
    [
      photo("IMG_0101.CR3", "2024-06-01T14:01:00.000Z", R5, x("1/500", 4, 100)),
      photo("IMG_0101.JPG", "2024-06-01T14:01:00.400Z", R5_TWO, x("1/800", 2.8, 100)),
    ],
  ),
  apart(
    "Two Samsung phones write 20230512_093015.jpg in the same second",
    `${ISSUE}/99`,
    [
      photo("20230512_093015.jpg", "2023-05-12T09:30:15.000Z", S22, x("1/1000", 1.8, 50), {
        label: "S22",
      }),
      photo("20230512_093015.jpg", "2023-05-12T09:30:15.000Z", S23, x("1/1000", 1.8, 50), {
        label: "S23",
      }),
    ],
  ),
  apart(
    "Two Samsung phones in the same second: a dng of one, a jpg of the other",
    `${ISSUE}/99`,
    [
      photo("20230512_093016.dng", "2023-05-12T09:30:16.000Z", S23, x("1/1000", 1.8, 50)),
      photo("20230512_093016.jpg", "2023-05-12T09:30:16.000Z", S22, x("1/800", 1.8, 50)),
    ],
  ),
  apart(
    "Two Pixels of one model, same millisecond name, other exposures",
    `${ISSUE}/94`,
    [
      photo("PXL_20231226_101010101.jpg", "2023-12-26T10:10:10.101Z", PIXEL8, x("1/100", 1.7, 50)),
      photo("PXL_20231226_101010101.dng", "2023-12-26T10:10:10.101Z", PIXEL8, x("1/400", 1.7, 50)),
    ],
  ),
  apart(
    "The same name on different days (a new card restarts the counter)",
    "https://github.com/photoprism/photoprism/issues/2919",
    [
      photo("IMG_8234.jpg", "2021-08-24T20:38:57.418Z", IPHONE12, x("1/60", 1.6, 320), {
        label: "2021",
      }),
      photo("IMG_8234.jpg", "2022-11-19T13:18:19.000Z", IPHONE13, x("1/60", 1.6, 320), {
        label: "2022",
      }),
    ],
  ),
  apart(
    "The same name on different days, other extensions",
    "https://github.com/photoprism/photoprism/issues/2919",
    [
      photo("IMG_8235.jpg", "2021-08-24T20:40:00.000Z", IPHONE12, x("1/60", 1.6, 320)),
      photo("IMG_8235.HEIC", "2022-11-19T13:20:00.000Z", IPHONE13, x("1/60", 1.6, 320)),
    ],
  ),
  apart(
    "A new SD card starts at DSCF0001 again, one camera",
    "https://github.com/mattdavis90/immich-stacker/issues/3",
    [
      photo("DSCF0001.JPG", "2023-03-04T10:00:00.000Z", XT4, x("1/250", 5.6, 160)),
      photo("DSCF0001.RAF", "2024-07-28T16:30:00.000Z", XT4, x("1/250", 5.6, 160)),
    ],
  ),
  apart(
    "The same name on consecutive days, one camera",
    "https://github.com/mattdavis90/immich-stacker/issues/3",
    [
      photo("DSCF0002.JPG", "2023-03-04T22:15:00.000Z", XT4, x("1/60", 2, 1600), { label: "one" }),
      photo("DSCF0002.JPG", "2023-03-05T09:40:00.000Z", XT4, x("1/500", 8, 160), { label: "two" }),
    ],
  ),
  apart(
    "A counter wraps from 9999 to 0001 in a burst",
    "https://manualsdump.com/en/manuals/nikon-s33/201975/136",
    [
      photo("DSCN9999.JPG", "2024-01-02T12:00:00.000Z", D850, x("1/500", 5.6, 100)),
      photo("DSCN0001.JPG", "2024-01-02T12:00:00.300Z", D850, x("1/500", 5.6, 100)),
    ],
  ),
  apart(
    "After the counter wrapped, IMG_0001 again: years apart",
    "https://manualsdump.com/en/manuals/nikon-s33/201975/136",
    [
      photo("IMG_0001.CR3", "2019-05-01T10:00:00.000Z", R5, x("1/250", 8, 100)),
      photo("IMG_0001.JPG", "2024-09-01T10:00:00.000Z", R5, x("1/250", 8, 100)),
    ],
  ),
  apart(
    "Google Takeout (1): another photo that had the same name",
    "https://github.com/TheLastGimbus/GooglePhotosTakeoutHelper/issues/59",
    [
      photo("IMG_4081.jpg", "2015-05-29T11:44:23.000Z", IPHONE6, x("1/30", 2.2, 100)),
      photo("IMG_4081(1).jpg", "2016-10-02T18:02:00.000Z", IPHONE6, x("1/120", 2.2, 32)),
    ],
  ),
  apart(
    "Google Takeout (1) of the same second, other exposure: another camera's photo",
    "https://github.com/Zaczero/google-photos-takeout.sh/issues/2",
    [
      photo("IMG_0485.JPG", "2012-03-10T10:05:00.000Z", IPHONE6, x("1/60", 2.2, 100)),
      photo("IMG_0485(1).JPG", "2012-03-10T10:05:00.000Z", IPHONE6, x("1/250", 2.2, 32)),
    ],
  ),
  apart(
    "Several Google creations named EFFECTS-edited",
    "https://github.com/mattwilson1024/google-photos-exif/issues/1",
    [
      photo("EFFECTS-edited.jpg", "2019-06-01T10:00:00.000Z", null, undefined, {
        label: "June",
        undated: true,
      }),
      photo("EFFECTS-edited.jpg", "2019-06-09T18:00:00.000Z", null, undefined, {
        label: "later",
        undated: true,
      }),
      photo("EFFECTS-edited(1).jpg", "2019-06-05T12:00:00.000Z", null, undefined, {
        undated: true,
      }),
    ],
  ),
  apart(
    "Photos AirDropped as FullSizeRender",
    "https://github.com/icloud-photos-downloader/icloud_photos_downloader/issues/1065",
    [
      photo("FullSizeRender.jpg", "2025-01-23T10:00:00.000Z", IPHONE13, x("1/200", 1.6, 50), {
        label: "one",
      }),
      photo("FullSizeRender.jpg", "2025-01-23T10:00:30.000Z", IPHONE15, x("1/120", 1.8, 64), {
        label: "two",
      }),
    ],
  ),
  apart(
    "Dotted date and time names seconds apart",
    "https://github.com/photoprism/photoprism/issues/308",
    [
      photo("2016.01.01-17.39.22.jpg", "2016-01-01T17:39:22.000Z", S9, x("1/50", 1.5, 400)),
      photo("2016.01.01-17.39.42.jpg", "2016-01-01T17:39:42.000Z", S9, x("1/60", 1.5, 320)),
    ],
  ),
  apart(
    "Three Google Camera bursts, each only its cover, seconds apart",
    `${ISSUE}/235`,
    [
      photo(
        "00000IMG_00000_BURST20220623114549345_COVER.jpg.jpg",
        "2022-06-23T11:45:49.345Z",
        PIXEL6,
      ),
      photo(
        "00000IMG_00000_BURST20220623114557237_COVER.jpg.jpg",
        "2022-06-23T11:45:57.237Z",
        PIXEL6,
      ),
      photo(
        "00000IMG_00000_BURST20220623114602178_COVER.jpg.jpg",
        "2022-06-23T11:46:02.178Z",
        PIXEL6,
      ),
    ],
  ),
  apart(
    "Samsung photos seconds apart",
    `${ISSUE}/99`,
    [
      photo("20231207_101552.jpg", "2023-12-07T10:15:52.000Z", S22, x("1/500", 1.8, 50)),
      photo("20231207_101553.jpg", "2023-12-07T10:15:53.000Z", S22, x("1/500", 1.8, 50)),
    ],
  ),
  apart(
    "Huawei photos seconds apart",
    `${ISSUE}/100`,
    [
      photo("IMG_20171111_030055.jpg", "2017-11-11T03:00:55.000Z", NEXUS6P, x("1/30", 2, 800)),
      photo("IMG_20171111_030128.jpg", "2017-11-11T03:01:28.000Z", NEXUS6P, x("1/30", 2, 800)),
    ],
  ),
  apart(
    "Consecutive numbers seconds apart, same exposure: two shots, no burst",
    "http://www.lightroomsecrets.com/2009/04/stacking-your-bracketed-shots",
    [
      photo("IMG_2001.JPG", "2023-05-05T12:00:00.000Z", R5, x("1/320", 8, 100)),
      photo("IMG_2002.JPG", "2023-05-05T12:00:03.500Z", R5, x("1/320", 8, 100)),
      photo("IMG_2003.JPG", "2023-05-05T12:00:07.000Z", R5, x("1/400", 8, 100)),
    ],
  ),
  apart(
    "Consecutive numbers from two iPhones a fraction of a second apart",
    "https://github.com/photoprism/photoprism/issues/687",
    [
      photo("IMG_0500.HEIC", "2023-08-19T16:00:00.000Z", IPHONE13, x("1/250", 1.6, 50)),
      photo("IMG_0501.HEIC", "2023-08-19T16:00:00.300Z", IPHONE12, x("1/250", 1.6, 50)),
    ],
  ),
  apart(
    "WhatsApp images received in the same second",
    "https://github.com/immich-app/immich/issues/8661",
    [
      photo("IMG-20230512-WA0001.jpg", "2023-05-12T18:00:00.000Z", null, undefined, {
        undated: true,
      }),
      photo("IMG-20230512-WA0002.jpg", "2023-05-12T18:00:00.000Z", null, undefined, {
        undated: true,
      }),
    ],
  ),
  apart(
    "Screenshots a second apart",
    "simulot/immich-go internal/filenames/namesdate_test.go",
    [
      photo(
        "Screenshot from 2022-12-17 19-45-43.png",
        "2022-12-17T19:45:43.000Z",
        null,
        undefined,
        {
          undated: true,
        },
      ),
      photo(
        "Screenshot from 2022-12-17 19-45-44.png",
        "2022-12-17T19:45:44.000Z",
        null,
        undefined,
        {
          undated: true,
        },
      ),
    ],
  ),
  apart(
    "Epson FastFoto: two prints scanned one after the other",
    "simulot/immich-go internal/groups/epsonfastfoto/epsonfastfoto_test.go",
    [
      photo("SceneryAndWildlife_0004.jpg", "2024-01-20T14:00:01.600Z", EPSON),
      photo("SceneryAndWildlife_0005.jpg", "2024-01-20T14:00:02.400Z", EPSON),
    ],
  ),
];

/** Every case, by kind. */
export const CORPUS: readonly CorpusCase[] = [
  ...RAW_JPEG,
  ...BURSTS,
  ...EDITS,
  ...BRACKETS,
  ...LIVE,
  ...APART,
];
