import assert from "node:assert/strict";
import { readName } from "../src/grouping/devices/names.ts";
import { derivationOf } from "../src/grouping/devices/derivatives.ts";
import { CameraReader } from "../src/api/_camera.ts";

Deno.test("readName() finds the shot of a name: the stem, without marks and a Pixel's tokens", () => {
  const cases: [string, string][] = [
    ["IMG_1234.CR3", "IMG_1234"],
    ["PXL_20231207_032108788.RAW-01.MP.COVER.jpg", "PXL_20231207_032108788"],
    ["PXL_20220405_090123740.PORTRAIT-modifié.jpg", "PXL_20220405_090123740"],
    ["PXL_20250907_130834063.RAW-01.COVER~2.jpg", "PXL_20250907_130834063"],
    ["IMG_1234.HEIC.jpg", "IMG_1234"],
    ["2016.01.01-17.39.22.jpg", "2016.01.01-17.39.22"],
    ["Screenshot 2023-05-12 at 10.15.32.png", "Screenshot 2023-05-12 at 10.15.32"],
    ["IMG_E1822.JPG", "IMG_1822"],
    ["IMG_1087-edited(1).JPG", "IMG_1087"],
    ["IMG_2211-Edit-2.tif", "IMG_2211"],
    ["DSC_2020 - Copy (2).JPG", "DSC_2020"],
    ["noextension", "noextension"],
  ];
  for (const [name, stem] of cases) assert.equal(readName(name).stem, stem, name);
});

Deno.test("readName() tells originals from versions, and how far a version is", () => {
  const kinds: [string, string | undefined][] = [
    ["IMG_1234.JPG", undefined],
    ["IMG_1234-edited.jpg", "edit"],
    ["IMG_1234-bearbeitet.jpg", "edit"],
    ["IMG_1234-modifie\u0301.jpg", "edit"],
    ["IMG_1234-ha editado.jpg", "edit"],
    ["IMG_1234_edited.jpg", "edit"],
    ["IMG_1234~2.jpg", "edit"],
    ["IMG_1234-2.jpg", "edit"],
    ["DSC09250_01.jpg", "edit"],
    ["IMG_1234-final.jpg", "edit"],
    ["IMG_1234(1).jpg", "copy"],
    ["IMG_1234 (12).jpg", "copy"],
    ["IMG_1234 copy 3.jpg", "copy"],
    ["IMG_1234 (Copy 2).jpg", "copy"],
    ["IMG_1234 (another copy).jpg", "copy"],
    ["IMG_1234 (3rd copy).jpg", "copy"],
    ["IMG_1234 (copyright).jpg", undefined],
    ["Scan_0001_b.jpg", "back"],
    ["Scan_0001_a.jpg", "edit"],
    // Numbers that are no marks: a date, a time, a Pixel's file of a shot, a Samsung frame.
    ["2023-05-12.png", undefined],
    ["Screenshot_2023-05-12_10_15_32.png", undefined],
    ["PXL_20231207_032111247.RAW-01.COVER.jpg", undefined],
    ["20231207_101605_001.jpg", undefined],
    ["Holiday_b.jpg", undefined],
    ["(1).jpg", undefined],
  ];
  for (const [name, kind] of kinds) assert.equal(readName(name).derivation?.kind, kind, name);
  assert.deepEqual(derivationOf("EFFECTS-edited(1)", true)?.kinds, ["copy", "edit"]);
});

Deno.test("readName() reads the bursts makers name and the counters cameras run", () => {
  const bursts: [string, string | undefined, string | undefined, number | undefined][] = [
    ["IMG_20231014_183246_BURST001_COVER.jpg", "suffix", "img_20231014_183246", 1],
    ["IMG20240828140543_BURST019.jpg", "suffix", "img20240828140543", 19],
    ["00015IMG_00015_BURST20171111030039_COVER.jpg", "google", "20171111030039", 15],
    ["00100lPORTRAIT_00100_BURST20181229213517346_COVER.jpg", "google", "20181229213517346", 100],
    ["00002IMG_00002_BURST1723801037429.jpg", "nothing", "1723801037429", 2],
    ["DSCPDC_0003_BURST20180828114700954_COVER.JPG", "xperia", "20180828114700954", 3],
    ["20190818_212242_025.jpg", "samsung", "20190818_212242", 25],
    ["G0231120.JPG", "gopro", "023", 1120],
    ["20190818_212242.jpg", undefined, undefined, undefined],
    ["GOPR0056.JPG", undefined, undefined, undefined],
  ];
  for (const [name, family, key, index] of bursts) {
    const { burst } = readName(name);
    assert.deepEqual([burst?.family, burst?.key, burst?.index], [family, key, index], name);
  }
  const counters: [string, string | undefined, number | undefined][] = [
    ["IMG_0503.JPG", "img_", 503],
    ["DSC01234.ARW", "dsc", 1234],
    ["_DSC8829.NEF", "_dsc", 8829],
    ["P1060097.RW2", "p", 1060097],
    ["3H2A0040.CR3", "3h2a", 40],
    ["PC082629.ORF", "pc", 82629],
    ["IMG_20171111_030055.jpg", undefined, undefined],
    ["IMG-20230512-WA0001.jpg", undefined, undefined],
    ["SceneryAndWildlife_0004.jpg", undefined, undefined],
    ["IMG_1234-edited.jpg", undefined, undefined],
  ];
  for (const [name, prefix, number] of counters) {
    const { counter } = readName(name);
    assert.deepEqual([counter?.prefix, counter?.number], [prefix, number], name);
  }
});

Deno.test("readName() marks the files a Pixel writes of one shot, and videos and RAW files", () => {
  const cover = readName("PXL_20231207_032111247.RAW-01.COVER.jpg");
  assert.deepEqual([cover.cover, cover.original, cover.multiFile, cover.timed], [
    true,
    false,
    true,
    true,
  ]);
  const original = readName("PXL_20211015_192314061.PORTRAIT.ORIGINAL.jpg");
  assert.deepEqual([original.cover, original.original, original.multiFile], [false, true, true]);
  const motion = readName("PXL_20211014_171433750.MP.jpg");
  assert.deepEqual([motion.multiFile, motion.cover], [false, false]);
  assert.deepEqual([readName("IMG_1234.MOV").video, readName("IMG_1234.mov").raw], [true, false]);
  assert.deepEqual([readName("IMG_1234.dng").raw, readName("IMG_1234.HEIC").raw], [true, false]);
});

Deno.test("CameraReader reads one camera name for a make written in the model or not", () => {
  const reader = new CameraReader();
  const read = (exif: Record<string, unknown> | null) => {
    const asset: Record<string, unknown> = {};
    reader.read(exif, asset);
    return asset;
  };
  const canon = read({ make: "Canon", model: "Canon EOS R5", dateTimeOriginal: "x" });
  const short = read({ make: "Canon", model: "EOS R5", dateTimeOriginal: "x" });
  assert.equal(canon.camera, "Canon EOS R5");
  // One string for every asset of one camera.
  assert.equal(canon.camera, short.camera);
  assert.equal(read({ make: "Apple", model: "iPhone 13" }).camera, "Apple iPhone 13");
  assert.equal(read({ make: null, model: "  FC3411 " }).camera, "FC3411");
  assert.deepEqual(read({ make: "", model: null, dateTimeOriginal: null }), {
    camera: undefined,
    lens: undefined,
    exposure: undefined,
    undated: true,
  });
  // No EXIF at all: nothing is known, not even that it is undated.
  assert.equal(read(null).undated, undefined);
  // A stop more light is 12 more; 1/200 s, f/8, ISO 400 and 1/400 s, f/8, ISO 800 are one.
  const exposure = (t: string, f: number, iso: number) =>
    read({ exposureTime: t, fNumber: f, iso }).exposure as number;
  assert.equal(exposure("1/100", 8, 100) - exposure("1/200", 8, 100), 12);
  assert.equal(exposure("1/200", 8, 400), exposure("1/400", 8, 800));
  assert.equal(exposure("0.5", 8, 100) - exposure("1/4", 8, 100), 12);
  assert.equal(read({ exposureTime: "fast", fNumber: 8, iso: 100 }).exposure, undefined);
});
