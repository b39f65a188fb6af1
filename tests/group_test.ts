import assert from "node:assert/strict";
import type { Asset } from "../src/model.ts";
import {
  BOOLEAN_KEYS,
  criterionFields,
  DEFAULT_CRITERIA,
  parseCriteria,
  TIME_KEYS,
} from "../src/grouping/criteria.ts";
import { groupAssets, type GroupingResult } from "../src/grouping/group.ts";
import { seededRandom, shuffled } from "./_random.ts";

// Timelines below count milliseconds from this instant.
const T0 = Date.parse("2024-05-01T10:00:00.000Z");

/** ISO time `ms` after T0. */
function at(ms: number): string {
  return new Date(T0 + ms).toISOString();
}

/** An image taken `ms` after T0, with every other field as a plain Immich photo has it. */
function asset(id: string, originalFileName: string, ms = 0, more: Partial<Asset> = {}): Asset {
  const time = at(ms);
  return {
    id,
    originalFileName,
    originalPath: `/library/2024/${originalFileName}`,
    localDateTime: time,
    fileCreatedAt: time,
    fileModifiedAt: time,
    updatedAt: time,
    type: "IMAGE",
    checksum: `sum-${id}`,
    ownerId: "user-1",
    isFavorite: false,
    isArchived: false,
    isTrashed: false,
    isOffline: false,
    hasMetadata: true,
    duration: null,
    ...more,
  };
}

/** Groups as `key: id,id` and skips as `id reason key`, easy to compare in tables. */
function summary(result: GroupingResult): { groups: string[]; skipped: string[] } {
  return {
    groups: result.groups.map((g) => `${g.key}: ${g.assets.map((a) => a.id).join(",")}`),
    skipped: result.skipped.map((s) => `${s.asset.id} ${s.reason} ${s.key}`),
  };
}

function expression(node: unknown): unknown {
  return { mode: "advanced", expression: node };
}

interface Case {
  name: string;
  criteria?: unknown;
  assets: Asset[];
  groups: string[];
  skipped?: string[];
}

function runCases(cases: Case[]) {
  return async (t: Deno.TestContext) => {
    for (const c of cases) {
      await t.step(c.name, () => {
        const criteria = c.criteria === undefined ? DEFAULT_CRITERIA : parseCriteria(c.criteria);
        assert.deepEqual(summary(groupAssets(c.assets, criteria)), {
          groups: c.groups,
          skipped: c.skipped ?? [],
        });
      });
    }
  };
}

Deno.test(
  "groupAssets() groups camera files with the default criteria",
  runCases([
    {
      name: "RAW+JPEG pair",
      assets: [
        asset("b", "IMG_1234.CR3"),
        asset("a", "IMG_1234.JPG"),
        asset("c", "IMG_1235.JPG"),
      ],
      groups: [`IMG_1234|${at(0)}: a,b`],
    },
    {
      name: "~2 copies join their original",
      assets: [
        asset("a", "IMG_1234.JPG"),
        asset("b", "IMG_1234~2.JPG", 400),
        asset("c", "IMG_1234~3.JPG", 800),
      ],
      groups: [`IMG_1234|${at(0)}: a,b,c`],
    },
    {
      name: "Pixel RAW cover and original",
      assets: [
        asset("b", "PXL_20230503_152823814.RAW-02.ORIGINAL.dng", 20),
        asset("a", "PXL_20230503_152823814.RAW-01.COVER.jpg"),
      ],
      groups: [`PXL_20230503_152823814|${at(0)}: a,b`],
    },
    {
      name: "same name but far apart in time stays apart",
      assets: [asset("a", "IMG_0001.JPG"), asset("b", "IMG_0001.JPG", 86_400_000)],
      groups: [],
    },
  ]),
);

Deno.test(
  "groupAssets() chains time gaps instead of cutting at bucket boundaries",
  runCases([
    {
      name: "a burst 100-900 ms apart across second boundaries is one group",
      criteria: [{ key: "localDateTime", delta: { milliseconds: 1000 } }],
      assets: [
        asset("a", "IMG_0001.JPG", 650), // 10:00:00.650
        asset("b", "IMG_0002.JPG", 1100), // +450, next second
        asset("c", "IMG_0003.JPG", 1200), // +100
        asset("d", "IMG_0004.JPG", 2100), // +900, next second
        asset("e", "IMG_0005.JPG", 2850), // +750
      ],
      groups: [`${at(650)}: a,b,c,d,e`],
    },
    {
      name: "two bursts 5 s apart are two groups",
      criteria: [{ key: "localDateTime", delta: { milliseconds: 1000 } }],
      assets: [
        asset("a", "IMG_0001.JPG", 0), // group 1
        asset("b", "IMG_0002.JPG", 300),
        asset("c", "IMG_0003.JPG", 900),
        asset("d", "IMG_0004.JPG", 5900), // group 2, 5 s after c
        asset("e", "IMG_0005.JPG", 6200),
      ],
      groups: [`${at(0)}: a,b,c`, `${at(5900)}: d,e`],
    },
    {
      name: "a gap of exactly the delta still chains, one more millisecond does not",
      criteria: [{ key: "localDateTime", delta: { milliseconds: 1000 } }],
      assets: [
        asset("a", "x.jpg", 0),
        asset("b", "x.jpg", 1000),
        asset("c", "x.jpg", 2001),
        asset("d", "x.jpg", 3001),
      ],
      groups: [`${at(0)}: a,b`, `${at(2001)}: c,d`],
    },
    {
      name: "a time without delta groups equal times only",
      criteria: [{ key: "localDateTime" }],
      assets: [asset("a", "x.jpg", 0), asset("b", "y.jpg", 0), asset("c", "z.jpg", 1)],
      groups: [`${at(0)}: a,b`],
    },
    {
      name: "times agree across offsets",
      criteria: [{ key: "localDateTime" }],
      assets: [
        asset("a", "x.jpg", 0, { localDateTime: "2024-05-01T10:00:00.000Z" }),
        asset("b", "y.jpg", 0, { localDateTime: "2024-05-01T12:00:00+02:00" }),
      ],
      groups: [`${at(0)}: a,b`],
    },
    {
      name: "chaining runs only among assets whose other criteria agree",
      assets: [
        asset("a", "IMG_0001.JPG", 0),
        asset("b", "IMG_0002.JPG", 500),
        asset("c", "IMG_0001.CR3", 900),
      ],
      groups: [`IMG_0001|${at(0)}: a,c`],
    },
    {
      name: "several time criteria refine one after another",
      criteria: [
        { key: "localDateTime", delta: { milliseconds: 1000 } },
        { key: "fileCreatedAt", delta: { milliseconds: 0 } },
      ],
      assets: [
        asset("a", "x.jpg", 0, { fileCreatedAt: at(50) }),
        asset("b", "x.jpg", 700, { fileCreatedAt: at(50) }),
        asset("c", "x.jpg", 1400, { fileCreatedAt: at(60) }),
        asset("d", "x.jpg", 2100, { fileCreatedAt: at(60) }),
      ],
      groups: [`${at(0)}|${at(50)}: a,b`, `${at(1400)}|${at(60)}: c,d`],
    },
  ]),
);

Deno.test(
  "groupAssets() groups by every text key and option",
  runCases([
    {
      name: "originalFileName without options drops only the extension",
      criteria: [{ key: "originalFileName" }],
      assets: [
        asset("a", "IMG_1.JPG"),
        asset("b", "IMG_1.CR3"),
        asset("c", "IMG_1~2.JPG"),
        asset("d", "README"),
        asset("e", "README", 5),
      ],
      groups: ["IMG_1: a,b", "README: d,e"],
    },
    {
      name: "split index picks a later part",
      criteria: [{ key: "originalFileName", split: { delimiters: ["_"], index: 1 } }],
      assets: [asset("a", "IMG_0001.JPG"), asset("b", "DSC_0001.ARW"), asset("c", "DSC_0002.ARW")],
      groups: ["0001: a,b"],
    },
    {
      name: "split applies delimiters one after another",
      criteria: [{ key: "originalFileName", split: { delimiters: ["_edit", "_"], index: 1 } }],
      assets: [asset("a", "IMG_1_edit.jpg"), asset("b", "IMG_1.jpg"), asset("c", "IMG_2.jpg")],
      groups: ["1: a,b"],
    },
    {
      name: "regex on a file name sees the extension",
      criteria: [{ key: "originalFileName", regex: { key: "\\.(JPG|CR3)$", index: 1 } }],
      assets: [asset("a", "IMG_1.JPG"), asset("b", "IMG_2.JPG"), asset("c", "IMG_3.CR3")],
      groups: ["JPG: a,b"],
    },
    {
      name: "regex index 0 is the whole match",
      criteria: [{ key: "originalFileName", regex: { key: "PXL_\\d{8}" } }],
      assets: [asset("a", "PXL_20230503_1.jpg"), asset("b", "PXL_20230503_2.jpg")],
      groups: ["PXL_20230503: a,b"],
    },
    {
      name: "originalPath split is taken as given, extension included",
      criteria: [{ key: "originalPath", split: { delimiters: ["/"], index: 4 } }],
      assets: [
        asset("a", "IMG_1.jpg", 0, { originalPath: "/photos/2023/trip/IMG_1.jpg" }),
        asset("b", "IMG_1.jpg", 0, { originalPath: "/photos/2024/home/IMG_1.jpg" }),
        asset("c", "IMG_1.png", 0, { originalPath: "/photos/2024/home/IMG_1.png" }),
      ],
      groups: ["IMG_1.jpg: a,b"],
    },
    {
      name: "originalPath split by folder",
      criteria: [{ key: "originalPath", split: { delimiters: ["/"], index: 3 } }],
      assets: [
        asset("a", "IMG_1.jpg", 0, { originalPath: "/photos/2023/trip/IMG_1.jpg" }),
        asset("b", "IMG_2.jpg", 0, { originalPath: "/photos/2023/trip/IMG_2.jpg" }),
        asset("c", "IMG_3.jpg", 0, { originalPath: "/photos/2023/home/IMG_3.jpg" }),
      ],
      groups: ["trip: a,b"],
    },
    {
      name: "originalPath regex",
      criteria: [{ key: "originalPath", regex: { key: "^/photos/(\\d{4})/", index: 1 } }],
      assets: [
        asset("a", "IMG_1.jpg", 0, { originalPath: "/photos/2023/trip/IMG_1.jpg" }),
        asset("b", "IMG_2.jpg", 0, { originalPath: "/photos/2023/home/IMG_2.jpg" }),
        asset("c", "IMG_3.jpg", 0, { originalPath: "/photos/2024/home/IMG_3.jpg" }),
      ],
      groups: ["2023: a,b"],
    },
    {
      name: "type",
      criteria: [{ key: "type" }],
      assets: [
        asset("a", "a.jpg"),
        asset("b", "b.jpg"),
        asset("c", "c.mp4", 0, { type: "VIDEO" }),
      ],
      groups: ["IMAGE: a,b"],
    },
    {
      name: "type with a regex",
      criteria: [{ key: "type", regex: { key: "^(IMAGE|VIDEO)$", index: 1 } }],
      assets: [
        asset("a", "a.mp4", 0, { type: "VIDEO" }),
        asset("b", "b.mp4", 0, { type: "VIDEO" }),
        asset("c", "c.mp3", 0, { type: "AUDIO" }),
      ],
      groups: ["VIDEO: a,b"],
      skipped: ["c regex-miss type"],
    },
    {
      name: "checksum",
      criteria: [{ key: "checksum" }],
      assets: [
        asset("a", "a.jpg", 0, { checksum: "same" }),
        asset("b", "copy of a.jpg", 0, { checksum: "same" }),
        asset("c", "c.jpg"),
      ],
      groups: ["same: a,b"],
    },
    {
      name: "ownerId",
      criteria: [{ key: "ownerId" }],
      assets: [
        asset("a", "a.jpg"),
        asset("b", "b.jpg"),
        asset("c", "c.jpg", 0, { ownerId: "user-2" }),
      ],
      groups: ["user-1: a,b"],
    },
    {
      name: "duration; an image without one is skipped",
      criteria: [{ key: "duration" }],
      assets: [
        asset("a", "a.mp4", 0, { type: "VIDEO", duration: "0:00:05.00000" }),
        asset("b", "b.mp4", 0, { type: "VIDEO", duration: "0:00:05.00000" }),
        asset("c", "c.jpg"),
      ],
      groups: ["0:00:05.00000: a,b"],
      skipped: ["c missing-value duration"],
    },
    {
      name: "an empty value is skipped",
      criteria: [{ key: "ownerId" }],
      assets: [asset("a", "a.jpg", 0, { ownerId: "" }), asset("b", "b.jpg", 0, { ownerId: "" })],
      groups: [],
      skipped: ["a missing-value ownerId", "b missing-value ownerId"],
    },
  ]),
);

Deno.test(
  "groupAssets() uses boolean keys as values in the legacy form",
  runCases(BOOLEAN_KEYS.map((key) => ({
    name: key,
    criteria: [{ key }],
    assets: [
      asset("a", "a.jpg", 0, { [key]: true }),
      asset("b", "b.jpg", 0, { [key]: true }),
      asset("c", "c.jpg", 0, { [key]: false }),
      asset("d", "d.jpg", 0, { [key]: false }),
    ],
    groups: ["false: c,d", "true: a,b"],
  }))),
);

Deno.test(
  "groupAssets() chains every time key by its own field",
  runCases(TIME_KEYS.map((key) => ({
    name: key,
    criteria: [{ key, delta: { milliseconds: 1000 } }],
    // Only `key` differs between the assets; the other times are all T0.
    assets: [
      asset("a", "a.jpg", 0, { ...sameTimes(), [key]: at(0) }),
      asset("b", "b.jpg", 0, { ...sameTimes(), [key]: at(900) }),
      asset("c", "c.jpg", 0, { ...sameTimes(), [key]: at(5000) }),
    ],
    groups: [`${at(0)}: a,b`],
  }))),
);

function sameTimes(): Partial<Asset> {
  return Object.fromEntries(TIME_KEYS.map((key) => [key, at(0)]));
}

Deno.test(
  "groupAssets() takes assets without a value out of grouping",
  runCases([
    {
      name: "regex miss",
      criteria: [{ key: "originalFileName", regex: { key: "^PXL_(\\d{8})", index: 1 } }],
      assets: [
        asset("a", "PXL_20230503_1.jpg"),
        asset("b", "PXL_20230503_2.jpg"),
        asset("c", "IMG_20230503_1.jpg"),
      ],
      groups: ["20230503: a,b"],
      skipped: ["c regex-miss originalFileName"],
    },
    {
      name: "regex with an empty capture",
      criteria: [{ key: "originalFileName", regex: { key: "^(PXL_)?IMG", index: 1 } }],
      assets: [asset("a", "IMG_1.jpg"), asset("b", "IMG_2.jpg")],
      groups: [],
      skipped: ["a regex-miss originalFileName", "b regex-miss originalFileName"],
    },
    {
      name: "regex with an empty-string capture",
      criteria: [{ key: "originalFileName", regex: { key: "^IMG_(\\d*)", index: 1 } }],
      assets: [asset("a", "IMG_x.jpg"), asset("b", "IMG_y.jpg")],
      groups: [],
      skipped: ["a regex-miss originalFileName", "b regex-miss originalFileName"],
    },
    {
      name: "split index out of range",
      criteria: [{ key: "originalFileName", split: { delimiters: ["_"], index: 2 } }],
      assets: [
        asset("a", "IMG_0001_HDR.jpg"),
        asset("b", "DSC_0002_HDR.jpg"),
        asset("c", "IMG_HDR.jpg"),
      ],
      groups: ["HDR: a,b"],
      skipped: ["c split-out-of-range originalFileName"],
    },
    {
      name: "empty split part",
      assets: [asset("a", "~2.jpg"), asset("b", "~3.jpg")],
      groups: [],
      skipped: ["a missing-value originalFileName", "b missing-value originalFileName"],
    },
    {
      name: "a miss in one AND criterion keeps the asset out even when others agree",
      criteria: [
        { key: "originalPath", split: { delimiters: ["/"], index: 2 } },
        { key: "originalFileName", regex: { key: "^(IMG)_", index: 1 } },
      ],
      assets: [asset("a", "IMG_1.jpg"), asset("b", "IMG_2.jpg"), asset("c", "DSC_3.jpg")],
      groups: ["2024|IMG: a,b"],
      skipped: ["c regex-miss originalFileName"],
    },
    {
      name: "unparseable time",
      assets: [
        asset("a", "IMG_1.JPG"),
        asset("b", "IMG_1.CR3", 0, { localDateTime: "2024-05-01 10:00:00" }),
        asset("c", "IMG_2.JPG"),
        asset("d", "IMG_2.CR3", 0, { localDateTime: "" }),
      ],
      groups: [],
      skipped: ["b invalid-time localDateTime", "d invalid-time localDateTime"],
    },
    {
      name: "an unparseable time keeps the asset out even where an OR branch matches",
      criteria: {
        mode: "advanced",
        groups: [{
          operator: "OR",
          criteria: [{ key: "checksum" }, { key: "fileCreatedAt", delta: { milliseconds: 10 } }],
        }],
      },
      assets: [
        asset("a", "a.jpg", 0, { checksum: "same" }),
        asset("b", "b.jpg", 0, { checksum: "same", fileCreatedAt: "soon" }),
      ],
      groups: [],
      skipped: ["b invalid-time fileCreatedAt"],
    },
    {
      name: "a time key the criteria do not use is not parsed",
      assets: [
        asset("a", "IMG_1.JPG", 0, { updatedAt: "garbage" }),
        asset("b", "IMG_1.CR3", 0, { fileCreatedAt: "garbage" }),
      ],
      groups: [`IMG_1|${at(0)}: a,b`],
    },
  ]),
);

Deno.test("groupAssets() describes why an asset was skipped", () => {
  const criteria = parseCriteria([
    { key: "originalFileName", regex: { key: "^PXL_(\\d{8})", index: 1 } },
    { key: "localDateTime" },
  ]);
  const assets = [
    asset("a", "IMG_1.jpg"),
    asset("b", "PXL_20230503_1.jpg", 0, { localDateTime: "later" }),
  ];
  assert.deepEqual(groupAssets(assets, criteria).skipped, [
    {
      asset: assets[0],
      reason: "regex-miss",
      key: "originalFileName",
      detail: '/^PXL_(\\d{8})/ does not match "IMG_1.jpg"',
    },
    {
      asset: assets[1],
      reason: "invalid-time",
      key: "localDateTime",
      detail: 'cannot parse "later" as an ISO 8601 time',
    },
  ]);
  const split = parseCriteria([{
    key: "originalFileName",
    split: { delimiters: ["_"], index: 3 },
  }]);
  assert.deepEqual(
    groupAssets([assets[0]], split).skipped[0].detail,
    '"IMG_1" has 2 parts, index 3 asked',
  );
});

Deno.test(
  "groupAssets() evaluates expressions with AND, OR and NOT",
  runCases([
    {
      name: "NOT excludes archived assets",
      criteria: expression({
        operator: "AND",
        children: [
          { criteria: { key: "originalFileName", split: { delimiters: ["~", "."], index: 0 } } },
          { operator: "NOT", children: [{ criteria: { key: "isArchived" } }] },
        ],
      }),
      assets: [
        asset("a", "IMG_1.JPG"),
        asset("b", "IMG_1.CR3"),
        asset("c", "IMG_1~2.JPG", 0, { isArchived: true }),
      ],
      groups: ["IMG_1: a,b"],
      skipped: ["c excluded isArchived"],
    },
    {
      name: "NOT of a regex keeps the assets it does not match",
      criteria: expression({
        operator: "AND",
        children: [
          { criteria: { key: "ownerId" } },
          {
            operator: "NOT",
            children: [{ criteria: { key: "originalFileName", regex: { key: "_edit\\." } } }],
          },
        ],
      }),
      assets: [asset("a", "IMG_1.jpg"), asset("b", "IMG_2.jpg"), asset("c", "IMG_1_edit.jpg")],
      groups: ["user-1: a,b"],
      skipped: ["c excluded originalFileName"],
    },
    {
      name: "a boolean leaf is a filter and adds nothing to the key",
      criteria: expression({
        operator: "AND",
        children: [{ criteria: { key: "type" } }, { criteria: { key: "isFavorite" } }],
      }),
      assets: [
        asset("a", "a.jpg", 0, { isFavorite: true }),
        asset("b", "b.jpg", 0, { isFavorite: true }),
        asset("c", "c.jpg"),
      ],
      groups: ["IMAGE: a,b"],
      skipped: ["c excluded isFavorite"],
    },
    {
      name: "nested OR inside AND with a time delta",
      criteria: expression({
        operator: "AND",
        children: [
          {
            operator: "OR",
            children: [
              { criteria: { key: "originalFileName", regex: { key: "^PXL_(\\d{8})", index: 1 } } },
              { criteria: { key: "originalFileName", regex: { key: "^IMG_(\\d{8})", index: 1 } } },
            ],
          },
          { criteria: { key: "localDateTime", delta: { milliseconds: 2000 } } },
        ],
      }),
      assets: [
        asset("a", "PXL_20230503_1.jpg", 0), // Pixel burst
        asset("b", "PXL_20230503_2.jpg", 1500),
        asset("c", "IMG_20230503_1.jpg", 500), // iPhone burst, same date and time
        asset("d", "IMG_20230503_2.jpg", 1000),
        asset("e", "PXL_20230503_3.jpg", 10_000), // alone: 8.5 s after b
        asset("f", "DSC_0001.jpg", 0), // neither branch
      ],
      groups: [`20230503|${at(0)}: a,b`, `20230503|${at(500)}: c,d`],
      skipped: ["f regex-miss originalFileName"],
    },
    {
      name: "an asset matching two OR branches links both",
      criteria: expression({
        operator: "AND",
        children: [
          {
            operator: "OR",
            children: [
              { criteria: { key: "originalFileName", regex: { key: "PXL_(\\d{8})", index: 1 } } },
              { criteria: { key: "originalFileName", regex: { key: "IMG_(\\d{8})", index: 1 } } },
            ],
          },
          { criteria: { key: "localDateTime", delta: { milliseconds: 2000 } } },
        ],
      }),
      assets: [
        asset("a", "PXL_20230503_1.jpg", 0),
        asset("b", "PXL_20230503_2.jpg", 1500),
        asset("c", "IMG_20230503_1.jpg", 500),
        asset("d", "IMG_20230503_2.jpg", 1000),
        asset("g", "PXL_20230503_IMG_20230503.jpg", 700),
      ],
      groups: [`20230503|${at(0)}: a,b,c,d,g`],
    },
    {
      name: "two leaves on the same key both count",
      criteria: expression({
        operator: "AND",
        children: [
          { criteria: { key: "originalFileName", regex: { key: "^([A-Z]+)_", index: 1 } } },
          { criteria: { key: "originalFileName", regex: { key: "_(\\d+)\\.", index: 1 } } },
        ],
      }),
      assets: [
        asset("a", "IMG_1.jpg"),
        asset("b", "IMG_1.png"),
        asset("c", "IMG_2.jpg"),
        asset("d", "DSC_1.jpg"),
      ],
      groups: ["IMG|1: a,b"],
    },
    {
      name: "an OR branch that only filters adds no group",
      criteria: expression({
        operator: "OR",
        children: [
          { criteria: { key: "isFavorite" } },
          { criteria: { key: "originalFileName", regex: { key: "^(PXL)_", index: 1 } } },
        ],
      }),
      assets: [
        asset("a", "IMG_1.jpg", 0, { isFavorite: true }),
        asset("b", "IMG_2.jpg", 0, { isFavorite: true }),
        asset("c", "PXL_1.jpg", 0, { isFavorite: true }),
        asset("d", "PXL_2.jpg"),
      ],
      groups: ["PXL: c,d"],
      skipped: ["a regex-miss originalFileName", "b regex-miss originalFileName"],
    },
  ]),
);

Deno.test(
  "groupAssets() joins OR values into connected components",
  runCases([
    {
      name: "assets sharing any OR value form one group, keyed by its smallest value",
      criteria: {
        mode: "advanced",
        groups: [{
          operator: "OR",
          criteria: [{ key: "originalPath", split: { delimiters: ["/"], index: 2 } }, {
            key: "checksum",
          }],
        }],
      },
      assets: [
        asset("a", "a.jpg", 0, { originalPath: "/x/trip/a.jpg", checksum: "s1" }),
        asset("b", "b.jpg", 0, { originalPath: "/x/trip/b.jpg", checksum: "s2" }),
        asset("c", "c.jpg", 0, { originalPath: "/x/home/c.jpg", checksum: "s2" }),
        asset("d", "d.jpg", 0, { originalPath: "/x/work/d.jpg", checksum: "s3" }),
      ],
      groups: ["s2: a,b,c"],
    },
    {
      name: "a miss in one OR branch is no skip when another matches",
      criteria: {
        mode: "advanced",
        groups: [{
          operator: "OR",
          criteria: [
            { key: "originalFileName", regex: { key: "^PXL_" } },
            { key: "originalFileName", regex: { key: "^IMG_" } },
          ],
        }],
      },
      assets: [
        asset("a", "PXL_1.jpg"),
        asset("b", "PXL_2.jpg"),
        asset("c", "IMG_1.jpg"),
        asset("d", "IMG_2.jpg"),
        asset("e", "DSC_1.jpg"),
      ],
      groups: ["IMG_: c,d", "PXL_: a,b"],
      skipped: ["e regex-miss originalFileName"],
    },
    {
      name: "several groups are alternatives",
      criteria: {
        mode: "advanced",
        groups: [
          {
            operator: "AND",
            criteria: [
              { key: "originalFileName", split: { delimiters: ["~", "."], index: 0 } },
              { key: "localDateTime", delta: { milliseconds: 1000 } },
            ],
          },
          { operator: "AND", criteria: [{ key: "checksum" }] },
        ],
      },
      assets: [
        asset("a", "IMG_1.JPG", 0),
        asset("b", "IMG_1.CR3", 300),
        asset("c", "duplicate.jpg", 9000, { checksum: "sum-a" }),
        asset("d", "IMG_2.JPG", 0),
      ],
      groups: [`IMG_1|${at(0)}: a,b,c`],
    },
    {
      name: "OR over a path and a time delta",
      criteria: {
        mode: "advanced",
        groups: [{
          operator: "OR",
          criteria: [
            { key: "originalPath", split: { delimiters: ["/"], index: 2 } },
            { key: "localDateTime", delta: { milliseconds: 1000 } },
          ],
        }],
      },
      assets: [
        asset("a", "a.jpg", 0, { originalPath: "/x/trip/a.jpg" }),
        asset("b", "b.jpg", 60_000, { originalPath: "/x/trip/b.jpg" }),
        asset("c", "c.jpg", 60_800, { originalPath: "/x/home/c.jpg" }),
        asset("d", "d.jpg", 120_000, { originalPath: "/x/work/d.jpg" }),
      ],
      groups: [`${at(60_000)}: a,b,c`],
    },
  ]),
);

Deno.test("groupAssets() orders groups by key and members by id", () => {
  const { groups } = groupAssets([
    asset("z2", "B.JPG"),
    asset("m1", "A.JPG", 5000),
    asset("z1", "B.CR3"),
    asset("a9", "A.CR3", 5000),
    asset("k", "C.JPG"),
  ], DEFAULT_CRITERIA);
  assert.deepEqual(groups.map((g) => [g.key, g.assets.map((a) => a.id)]), [
    [`A|${at(5000)}`, ["a9", "m1"]],
    [`B|${at(0)}`, ["z1", "z2"]],
  ]);
});

Deno.test("groupAssets() skips an asset that lacks a field its criteria read", async (t) => {
  // The client keeps only the fields the criteria read; should one be missing, it counts as no
  // value rather than grouping every such asset under "undefined".
  const bare = (id: string, name: string): Asset => ({
    id,
    originalFileName: name,
    localDateTime: at(0),
  });
  const cases: [string, unknown, string][] = [
    ["text", [{ key: "originalPath" }], "missing-value originalPath"],
    ["boolean", [{ key: "isFavorite" }], "missing-value isFavorite"],
    ["time", [{ key: "fileCreatedAt" }], "invalid-time fileCreatedAt"],
  ];
  for (const [name, input, reason] of cases) {
    await t.step(name, () => {
      const result = groupAssets([bare("a", "A.JPG"), bare("b", "A.CR3")], parseCriteria(input));
      assert.deepEqual(summary(result), { groups: [], skipped: [`a ${reason}`, `b ${reason}`] });
    });
  }
});

Deno.test("criterionFields() names what the client must keep for the criteria", () => {
  assert.deepEqual(criterionFields(DEFAULT_CRITERIA), []);
  assert.deepEqual(
    criterionFields(parseCriteria({
      mode: "advanced",
      expression: {
        operator: "AND",
        children: [
          { criteria: { key: "originalPath", split: { delimiters: ["/"], index: 2 } } },
          { criteria: { key: "fileCreatedAt", delta: { milliseconds: 500 } } },
          { operator: "NOT", children: [{ criteria: { key: "isTrashed" } }] },
        ],
      },
    })),
    ["originalPath", "fileCreatedAt", "isTrashed"],
  );
});

Deno.test("groupAssets() returns nothing for no assets", () => {
  assert.deepEqual(groupAssets([], DEFAULT_CRITERIA), { groups: [], skipped: [] });
});

// Property tests over random libraries -----------------------------------------------------

/** A library with few names, folders and checksums, times in bursts, some bad times. */
function library(seed: number, size: number): Asset[] {
  const next = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  const assets: Asset[] = [];
  let ms = 0;
  for (let i = 0; i < size; i++) {
    ms += pick([0, 100, 400, 900, 1000, 1001, 3000, 60_000]);
    const base = pick(["IMG_0001", "IMG_0002", "PXL_20230503_1", "DSC_7", "IMG_20230503_5"]);
    const name = `${base}${pick(["", "", "~2", ".RAW-01.COVER"])}.${pick(["JPG", "CR3", "heic"])}`;
    assets.push(asset(`id-${seed}-${i}`, name, ms, {
      originalPath: `/lib/${pick(["trip", "home", "work"])}/${name}`,
      checksum: pick(["s1", "s2", "s3", "s4", "s5", "s6"]),
      isArchived: next() < 0.2,
      localDateTime: next() < 0.05 ? "not a time" : at(ms),
    }));
  }
  return assets;
}

const PROPERTY_CRITERIA: { name: string; input: unknown }[] = [
  { name: "default", input: undefined },
  {
    name: "OR groups",
    input: {
      mode: "advanced",
      groups: [{
        operator: "OR",
        criteria: [
          { key: "originalPath", split: { delimiters: ["/"], index: 2 } },
          { key: "localDateTime", delta: { milliseconds: 1000 } },
        ],
      }],
    },
  },
  {
    name: "expression",
    input: expression({
      operator: "AND",
      children: [
        {
          operator: "OR",
          children: [
            { criteria: { key: "originalFileName", regex: { key: "^(PXL|IMG)_", index: 1 } } },
            { criteria: { key: "checksum" } },
          ],
        },
        { operator: "NOT", children: [{ criteria: { key: "isArchived" } }] },
        { criteria: { key: "localDateTime", delta: { milliseconds: 1500 } } },
      ],
    }),
  },
];

Deno.test("groupAssets() returns disjoint groups of 2+ that ignore input order", async (t) => {
  for (const { name, input } of PROPERTY_CRITERIA) {
    await t.step(name, () => {
      const criteria = parseCriteria(input);
      for (let seed = 1; seed <= 40; seed++) {
        const assets = library(seed, 1 + (seed * 7) % 60);
        const result = groupAssets(assets, criteria);
        const seen = new Set<string>();
        for (const group of result.groups) {
          assert.ok(group.assets.length >= 2, `seed ${seed}: group ${group.key} has one asset`);
          for (const a of group.assets) {
            assert.ok(!seen.has(a.id), `seed ${seed}: ${a.id} is in two groups`);
            seen.add(a.id);
          }
        }
        for (const s of result.skipped) {
          assert.ok(!seen.has(s.asset.id), `seed ${seed}: skipped ${s.asset.id} is in a group`);
        }
        assert.deepEqual(
          summary(groupAssets(shuffled(assets, seededRandom(seed)), criteria)),
          summary(result),
          `seed ${seed}: shuffling changed the result`,
        );
      }
    });
  }
});

/**
 * Connected components of the "linked" relation, by comparing every pair: the obvious
 * quadratic definition that the engine must agree with. In one dimension, chaining gaps of at
 * most a delta is exactly the closure of "within delta of each other".
 */
function pairwiseGroups(assets: readonly Asset[], linked: (a: Asset, b: Asset) => boolean) {
  const component = assets.map((_, i) => i);
  const rootOf = (i: number): number => component[i] === i ? i : rootOf(component[i]);
  for (let i = 0; i < assets.length; i++) {
    for (let j = i + 1; j < assets.length; j++) {
      if (linked(assets[i], assets[j])) component[rootOf(j)] = rootOf(i);
    }
  }
  const groups = new Map<number, string[]>();
  assets.forEach((a, i) => groups.set(rootOf(i), [...groups.get(rootOf(i)) ?? [], a.id]));
  return [...groups.values()].filter((ids) => ids.length > 1).map((ids) => ids.sort().join(","))
    .sort();
}

function memberSets(result: GroupingResult): string[] {
  return result.groups.map((g) => g.assets.map((a) => a.id).join(",")).sort();
}

Deno.test("groupAssets() agrees with pairwise comparison on random libraries", async (t) => {
  const within = (a: Asset, b: Asset, ms: number) =>
    Math.abs(Date.parse(a.localDateTime) - Date.parse(b.localDateTime)) <= ms;
  const cases = [
    {
      name: "default criteria",
      criteria: DEFAULT_CRITERIA,
      linked: (a: Asset, b: Asset) =>
        a.originalFileName.split(/[~.]/)[0] === b.originalFileName.split(/[~.]/)[0] &&
        within(a, b, 1000),
    },
    {
      name: "OR groups",
      criteria: parseCriteria(PROPERTY_CRITERIA[1].input),
      linked: (a: Asset, b: Asset) =>
        a.originalPath?.split("/")[2] === b.originalPath?.split("/")[2] || within(a, b, 1000),
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      for (let seed = 100; seed < 140; seed++) {
        const all = library(seed, 1 + (seed * 13) % 80);
        const timed = all.filter((a) => !Number.isNaN(Date.parse(a.localDateTime)));
        assert.deepEqual(
          memberSets(groupAssets(all, c.criteria)),
          pairwiseGroups(timed, c.linked),
          `seed ${seed}`,
        );
      }
    });
  }
});
