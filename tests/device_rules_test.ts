import assert from "node:assert/strict";
import type { Asset, Group } from "../src/model.ts";
import { DEVICE_RULES } from "../src/grouping/criteria.ts";
import { bucketList, groupAssets } from "../src/grouping/group.ts";
import { readName } from "../src/grouping/devices/names.ts";
import { type Random, seededRandom, shuffled } from "./_random.ts";

const T0 = Date.parse("2024-05-01T10:00:00.000Z");

interface Fields {
  readonly camera?: string;
  readonly lens?: string;
  readonly exposure?: number;
  readonly undated?: true;
}

/** A photo `ms` after T0, of a Canon unless told otherwise. */
function photo(id: string, name: string, ms = 0, fields: Fields = {}): Asset {
  return {
    id,
    originalFileName: name,
    localDateTime: new Date(T0 + ms).toISOString(),
    camera: "Canon EOS R5",
    ...fields,
  };
}

/** Groups as `label: id,id (preferred)`. */
function summary(groups: readonly Group[]): string[] {
  return groups.map((g) =>
    `${g.label}: ${g.assets.map((a) => a.id).join(",")} (${g.preferred?.join(",") ?? "-"})`
  );
}

Deno.test("the default rules say which rule made each group and which photos they prefer", () => {
  const { groups } = groupAssets([
    photo("a1", "IMG_0001.CR3"),
    photo("a2", "IMG_0001.JPG"),
    photo("a3", "IMG_0001-Edit.tif", 3_600_000),
    photo("b1", "IMG_0100.JPG", 60_000),
    photo("b2", "IMG_0101.JPG", 60_200),
    photo("b3", "IMG_0102.JPG", 60_400),
    photo("c1", "IMG_0200.CR3", 120_000, { exposure: 0 }),
    photo("c2", "IMG_0201.CR3", 122_000, { exposure: -24 }),
    photo("c3", "IMG_0202.CR3", 124_000, { exposure: 24 }),
    photo("d1", "20231207_101605_001.jpg", 180_000, { camera: "samsung SM-S901B" }),
    photo("d2", "20231207_101605_002.jpg", 180_100, { camera: "samsung SM-S901B" }),
    photo("e1", "SceneryAndWildlife_0001.jpg", 240_000),
    photo("e2", "SceneryAndWildlife_0001_a.jpg", 240_200),
    photo("e3", "SceneryAndWildlife_0001_b.jpg", 240_400),
  ], DEVICE_RULES);
  assert.deepEqual(summary(groups), [
    "Samsung burst, 2 frames: d1,d2 (d1)",
    "RAW+JPEG pair; edited copy of IMG_0001.JPG: a1,a2,a3 (a3)",
    "Canon burst, 3 frames: b1,b2,b3 (b1)",
    "HDR bracket, 3 exposures: c1,c2,c3 (c1)",
    "back of SceneryAndWildlife_0001.jpg; enhanced scan of SceneryAndWildlife_0001.jpg: e1,e2,e3 (e2)",
  ]);
});

Deno.test("frames that say no exposure are taken for a bracket 1 to 3 s apart, not 4 s", () => {
  const { groups } = groupAssets([
    photo("a", "IMG_0300.JPG"),
    photo("b", "IMG_0301.JPG", 2_000),
    photo("c", "IMG_0302.JPG", 4_500),
    photo("d", "IMG_0400.JPG", 60_000),
    photo("e", "IMG_0401.JPG", 62_000),
    photo("f", "IMG_0402.JPG", 66_000),
  ], DEVICE_RULES);
  assert.deepEqual(summary(groups), ["Bracket, 3 frames: a,b,c (a)"]);
});

Deno.test("a copy of an original may be dated days later; a copy of a version must be of its time", () => {
  const { groups } = groupAssets([
    photo("a", "IMG_0484.JPG", 0, { exposure: 5 }),
    photo("b", "IMG_0484(1).JPG", 3 * 86_400_000, { camera: undefined, undated: true }),
    photo("c", "EFFECTS-edited.jpg", 0, { camera: undefined, undated: true }),
    photo("d", "EFFECTS-edited(1).jpg", 86_400_000, { camera: undefined, undated: true }),
    photo("e", "IMG_0600.JPG", 0, { exposure: 5 }),
    photo("f", "IMG_0600 (2).JPG", 500, { exposure: 30 }),
  ], DEVICE_RULES);
  assert.deepEqual(summary(groups), ["copy of IMG_0484.JPG: a,b (b)"]);
});

Deno.test("the default rules group alike whatever order the photos come in", () => {
  const assets = randomLibrary(seededRandom(7), 400);
  const expected = summary(groupAssets(assets, DEVICE_RULES).groups);
  assert.ok(expected.length > 20, `${expected.length} groups`);
  for (let round = 0; round < 5; round++) {
    const again = groupAssets(shuffled(assets, seededRandom(round)), DEVICE_RULES).groups;
    assert.deepEqual(summary(again), expected);
  }
});

Deno.test("same shots only: the files of a shot and its versions, never a burst", () => {
  const assets = [
    photo("a", "IMG_0100.JPG"),
    photo("b", "IMG_0100.CR3"),
    photo("c", "IMG_0101.JPG", 200),
    photo("d", "IMG_0101-edited.jpg", 86_400_000, { camera: undefined, undated: true }),
    photo("e", "IMG_20231014_183246_BURST001_COVER.jpg", 500),
    photo("f", "IMG_20231014_183246_BURST002.jpg", 600),
  ];
  const ids = (sameShot: boolean) =>
    groupAssets(assets, DEVICE_RULES, { sameShot }).groups.map((g) =>
      g.assets.map((a) => a.id).join("")
    );
  assert.deepEqual(ids(false), ["abcd", "ef"]);
  assert.deepEqual(ids(true), ["ab", "cd"]);
});

Deno.test("the default rules skip a photo whose time does not parse, and nothing else", () => {
  const { groups, skipped } = groupAssets(
    [
      photo("a", "IMG_0001.JPG"),
      { ...photo("b", "IMG_0001.CR3"), localDateTime: "yesterday" },
      photo("c", "whatever"),
    ],
    DEVICE_RULES,
    { buckets: true },
  );
  assert.deepEqual(groups, []);
  assert.deepEqual(skipped.map((s) => [s.asset.id, s.reason]), [["b", "invalid-time"]]);
});

/**
 * A random library of what the rules meet: two cameras counting IMG_ numbers that wrap, pairs,
 * bursts, brackets, edits days later and without a camera, copies, named bursts, timestamped
 * phone photos, ties (one name twice in a second), over a few weeks.
 */
function randomLibrary(random: Random, size: number): Asset[] {
  const assets: Asset[] = [];
  const int = (n: number) => Math.floor(random() * n);
  let time = 0;
  const counters = [int(9999) + 1, int(9999) + 1];
  const cameras = ["Canon EOS R5", "Apple iPhone 13"];
  const next = (c: number) => (counters[c] = counters[c] % 9999 + 1);
  while (assets.length < size) {
    time += int(4) === 0 ? int(30_000) : int(6 * 3_600_000);
    const c = int(2);
    const camera = cameras[c];
    const add = (name: string, ms: number, fields: Fields = {}) =>
      assets.push(photo(`a${assets.length}`, name, ms, { camera, ...fields }));
    const name = (n: number) => `IMG_${String(n).padStart(4, "0")}`;
    switch (int(8)) {
      case 0: {
        const base = name(next(c));
        add(`${base}.JPG`, time, { exposure: 3 });
        add(`${base}.CR3`, time, { exposure: 3 });
        if (random() < 0.5) {
          add(`${base}-edited.jpg`, time + int(5) * 86_400_000, {
            camera: undefined,
            undated: true,
          });
        }
        break;
      }
      case 1:
        for (let i = int(4) + 2; i > 0; i--) add(`${name(next(c))}.JPG`, time += 150);
        break;
      case 2:
        for (const exposure of [0, -24, 24]) {
          add(`${name(next(c))}.CR3`, time += 2_000, { exposure });
        }
        break;
      case 3: {
        const base = name(next(c));
        add(`${base}.JPG`, time);
        add(`${base}${random() < 0.5 ? "(1)" : "~2"}.JPG`, time + int(3) * 3_600_000);
        break;
      }
      case 4: {
        const key = `IMG_2024050${int(9)}_1${int(9)}0000`;
        for (let i = 1; i <= int(3) + 2; i++) {
          add(`${key}_BURST00${i}${i === 1 ? "_COVER" : ""}.jpg`, time += 100);
        }
        break;
      }
      case 5:
        add(`PXL_2024050${int(9)}_1${int(9)}0000${int(999)}.jpg`, time);
        break;
      case 6: {
        // Ties: one name twice in one second beside its RAW, a copy of each.
        const base = name(next(c));
        add(`${base}.JPG`, time);
        add(`${base}.JPG`, time);
        add(`${base}.CR3`, time);
        add(`${base}(1).JPG`, time + 1_000);
        break;
      }
      default:
        // The same number as an earlier photo: a wrap, or the other camera.
        add(`${name(int(40) + counters[c] - 20)}.JPG`, time);
    }
  }
  return assets;
}

/** The assets that share a bucket with any of `seeds`, closed under shared buckets. */
function closure(assets: readonly Asset[], seeds: readonly number[]): Set<number> {
  const { buckets } = groupAssets(assets, DEVICE_RULES, { buckets: true });
  const byBucket = new Map<number, number[]>();
  buckets!.forEach((hashes, i) => {
    for (const hash of bucketList(hashes)) byBucket.set(hash, [...byBucket.get(hash) ?? [], i]);
  });
  const found = new Set(seeds);
  const queue = [...seeds];
  while (queue.length > 0) {
    for (const hash of bucketList(buckets![queue.pop()!])) {
      for (const other of byBucket.get(hash)!) {
        if (!found.has(other)) found.add(other), queue.push(other);
      }
    }
  }
  return found;
}

Deno.test("regrouping the photos that share buckets with some gives the whole library's groups (docs/incremental.md)", () => {
  for (let seed = 0; seed < 60; seed++) {
    const random = seededRandom(seed);
    const assets = randomLibrary(random, 150 + Math.floor(random() * 150));
    const whole = groupAssets(assets, DEVICE_RULES).groups;
    const seeds = Array.from({ length: 3 }, () => Math.floor(random() * assets.length));
    const region = closure(assets, seeds);
    const part = groupAssets(assets.filter((_, i) => region.has(i)), DEVICE_RULES).groups;
    const ids = new Set([...region].map((i) => assets[i].id));
    const touched = whole.filter((g) => g.assets.some((a) => ids.has(a.id)));
    // A group is in the region whole, or not at all.
    for (const group of touched) assert.ok(group.assets.every((a) => ids.has(a.id)), `${seed}`);
    assert.deepEqual(part, touched, `seed ${seed}`);
    // And the region stays small: buckets of weeks and days, not of the whole library.
    assert.ok(region.size < assets.length / 2, `seed ${seed}: ${region.size} of ${assets.length}`);
  }
});

// Renaming tools number the files of a shot once for its RAW and JPEG alike, e.g. Smart
// Shooter's and CaptureGrid's batch number ("[N]_[B]": "Session_12.NEF", "Session_12.JPG";
// https://capturegrid.com/name_policy.html): the name reads as a version of "Session", and the
// two files are still one shot.
Deno.test("a RAW+JPEG pair renamed with a number is one shot; other numbers stay apart", () => {
  const { groups } = groupAssets([
    photo("a1", "Session_12.NEF", 0, { camera: "NIKON D850" }),
    photo("a2", "Session_12.JPG", 0, { camera: "NIKON D850" }),
    photo("b1", "Session_13.NEF", 30_000, { camera: "NIKON D850" }),
    photo("b2", "Session_13.JPG", 30_000, { camera: "NIKON D850" }),
    photo("c1", "Trip-7.CR3", 600_000),
    photo("c2", "Trip-7.JPG", 600_000),
    // The same name from another camera in the same second: two photos, not a pair.
    photo("d1", "Party_10.JPG", 900_000, { camera: "Apple iPhone 13" }),
    photo("d2", "Party_10.DNG", 900_000, { camera: "Google Pixel 8" }),
  ], DEVICE_RULES);
  assert.deepEqual(summary(groups), [
    // Both read as versions, so both are preferred: promotion takes the JPEG, as of any pair.
    "RAW+JPEG pair: a1,a2 (a1,a2)",
    "RAW+JPEG pair: b1,b2 (b1,b2)",
    "RAW+JPEG pair: c1,c2 (c1,c2)",
  ]);
});

Deno.test("a file number is read as its pattern reads it, whatever comes before the digits", () => {
  // The pattern of docs/default-rules.md ("A file number"), which the name reader follows by hand.
  const pattern = /^([A-Za-z0-9_]{0,4}[A-Za-z_-])(\d{3,7})$/;
  const random = seededRandom(7);
  const alphabet = "aZ09_-.~ é";
  const names = [
    "IMG_1234",
    "DSC01234",
    "P1010001",
    "3H2A0040",
    "_DSC1234",
    "IMG-1234",
    "DSCF12",
    "AB12345678",
    "ABCDEF1234",
    "1234567",
    "-1234",
    "A-B1234",
    "IMG_E1234",
    "img_0001",
  ];
  for (let i = 0; i < 5000; i++) {
    let name = "";
    for (let k = int(random, 6); k > 0; k--) name += alphabet[int(random, alphabet.length)];
    for (let k = int(random, 9); k > 0; k--) name += String(int(random, 10));
    names.push(name);
  }
  let counters = 0;
  for (const name of names) {
    const read = readName(`${name}.JPG`);
    // Versions and bursts have no file number of their own.
    const match = read.derivation !== undefined || read.burst !== undefined ||
        read.stem.length > 12
      ? null
      : pattern.exec(read.stem);
    const expected = match === null
      ? undefined
      : { prefix: match[1].toLowerCase(), number: Number(match[2]) };
    assert.deepEqual(read.counter, expected, name);
    if (expected !== undefined) counters++;
  }
  assert.ok(counters > 200, `only ${counters} names with a file number`);
});

function int(random: Random, below: number): number {
  return Math.floor(random() * below);
}
