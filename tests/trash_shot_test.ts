/**
 * What one shot is for fix-trash (`src/trash/shot.ts`), as a table of real file names, and
 * `planTrash()` following a photo in the trash to its shot alone, or with `wholeGroup` to its
 * whole group, reporting the photos that go beyond the shot. File names after the cameras and
 * editors of the README's recipes (Lightroom's `-Edit`, Google Photos' `-edited`, Apple Photos'
 * `IMG_E`, Pixel's `.RAW-01.`).
 */
import assert from "node:assert/strict";
import { parseCriteria } from "../src/grouping/criteria.ts";
import type { Asset } from "../src/model.ts";
import { createParentOrder } from "../src/promotion/parent.ts";
import { planTrash } from "../src/trash/plan.ts";
import { sameShot, shotBase } from "../src/trash/shot.ts";

Deno.test("shotBase() reads the base of a shot's files", async (t) => {
  const cases: [string, string][] = [
    ["IMG_1234.CR3", "IMG_1234"],
    ["IMG_1234.JPG", "IMG_1234"],
    ["IMG_1234-edited.jpg", "IMG_1234"],
    ["IMG_1234_edited.jpg", "IMG_1234"],
    ["IMG_1234-Edit.jpg", "IMG_1234"],
    ["IMG_1234-Edit-2.jpg", "IMG_1234"],
    ["IMG_1234 (edited).jpg", "IMG_1234"],
    ["IMG_E1234.JPG", "IMG_1234"],
    ["IMG_1234~2.jpg", "IMG_1234"],
    ["PXL_20230503_152823814.RAW-01.MP.COVER.jpg", "PXL_20230503_152823814"],
    ["PXL_20230503_152823814.RAW-02.ORIGINAL.dng", "PXL_20230503_152823814"],
    // Frames keep their own bases: a number is no edit marker.
    ["20240115_143022_001.jpg", "20240115_143022_001"],
    ["IMG_1234-2.jpg", "IMG_1234-2"],
    ["DSC_0102.JPG", "DSC_0102"],
    ["credit.jpg", "credit"],
  ];
  for (const [name, base] of cases) {
    await t.step(name, () => assert.equal(shotBase(name), base));
  }
});

Deno.test("sameShot() needs the same base and capture times at most a second apart", () => {
  const photo = (originalFileName: string, localDateTime: string) => ({
    originalFileName,
    localDateTime,
  });
  const jpeg = photo("IMG_1.jpg", "2024-05-01T10:00:00.000Z");
  assert.equal(sameShot(jpeg, photo("IMG_1.dng", "2024-05-01T10:00:00.200Z")), true);
  assert.equal(sameShot(jpeg, photo("IMG_1.dng", "2024-05-01T10:00:01.000Z")), true);
  // The camera's counter wrapped: the same name a day later is another shot.
  assert.equal(sameShot(jpeg, photo("IMG_1.dng", "2024-05-02T10:00:00.000Z")), false);
  assert.equal(sameShot(jpeg, photo("IMG_2.jpg", "2024-05-01T10:00:00.000Z")), false);
  assert.equal(sameShot(photo("a.jpg", "bad"), photo("a.dng", "bad")), true);
  assert.equal(sameShot(photo("a.jpg", "bad"), photo("a.dng", "worse")), false);
});

Deno.test("planTrash() follows a frame of a burst to its RAW alone, and the whole burst with wholeGroup", () => {
  const photo = (id: string, name: string, ms: number) =>
    ({
      id,
      originalFileName: name,
      localDateTime: new Date(Date.parse("2024-05-01T10:00:00.000Z") + ms).toISOString(),
      isArchived: false,
    }) as Asset;
  const input = {
    active: [
      photo("f1", "F1.jpg", 0),
      photo("f2r", "F2.nef", 300),
      photo("f3", "F3.jpg", 600),
      photo("f3r", "F3.nef", 600),
    ],
    trashed: [photo("f2", "F2.jpg", 300)],
    stacks: [],
    criteria: parseCriteria([{ key: "localDateTime", delta: { milliseconds: 1000 } }]),
    order: createParentOrder({ filenamePromote: [], extPromote: [".jpg"] }),
  };
  const shot = planTrash(input);
  assert.deepEqual(shot.plan.actions.map((action) => action.assetIds), [["f2r"]]);
  assert.deepEqual(shot.plan.actions[0].context.cause?.map((asset) => asset.id), ["f2"]);
  assert.deepEqual(shot.report.beyondShot, []);

  const whole = planTrash({ ...input, wholeGroup: true });
  assert.deepEqual(whole.plan.actions.map((action) => [...action.assetIds].sort()), [
    ["f1", "f2r", "f3", "f3r"],
  ]);
  assert.deepEqual(whole.report.beyondShot, [
    { cause: [{ id: "f2", originalFileName: "F2.jpg" }], beyond: 3, outside: 4 },
  ]);
});
