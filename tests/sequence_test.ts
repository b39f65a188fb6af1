import assert from "node:assert/strict";
import { detectNumericLists, parseSequenceKeyword } from "../src/promotion/sequence.ts";

const SONY_BURST = "DSCPDC_0001_BURST20240101120000";

Deno.test("parseSequenceKeyword() reads the numbers of each form", async (t) => {
  const table: readonly {
    readonly item: string;
    readonly stem: string;
    readonly numbers: readonly string[] | undefined;
  }[] = [
    { item: "sequence", stem: "IMG_0001", numbers: ["0001"] },
    { item: "sequence", stem: "a_1", numbers: ["1"] },
    { item: "sequence", stem: "IMG", numbers: undefined },
    { item: "sequence", stem: "20240101_123456_001", numbers: ["20240101", "123456", "001"] },
    { item: "SEQUENCE", stem: "a_7", numbers: ["7"] },
    { item: "sequence:", stem: "a_7", numbers: ["7"] },
    { item: "sequence:4", stem: SONY_BURST, numbers: ["0001"] },
    { item: "sequence:4", stem: "IMG_123", numbers: undefined },
    { item: "sequence:4", stem: "IMG_12345", numbers: undefined },
    { item: "sequence:4", stem: "20240101_000123", numbers: undefined },
    { item: "sequence:3", stem: "20240101_123456_001", numbers: ["001"] },
    { item: "sequence:IMG_", stem: "IMG_0042", numbers: ["0042"] },
    { item: "sequence:IMG_", stem: "img_0042", numbers: ["0042"] },
    { item: "sequence:IMG_", stem: "DSC_0042", numbers: undefined },
    { item: "sequence:IMG_", stem: "IMG_E1234", numbers: undefined },
    { item: "sequence:IMG_", stem: "XIMG_0005_IMG_0006", numbers: ["0005", "0006"] },
    { item: "sequence:BURST", stem: SONY_BURST, numbers: ["20240101120000"] },
    { item: "sequence:RAW-", stem: "PXL_20240101_123456789.RAW-02.ORIGINAL", numbers: ["02"] },
    { item: "sequence:a.b", stem: "axb1", numbers: undefined },
  ];
  for (const { item, stem, numbers } of table) {
    await t.step(`${item} on ${stem}`, () => {
      const matcher = parseSequenceKeyword(item);
      assert.ok(matcher !== undefined);
      assert.equal(matcher.label, item);
      assert.deepEqual(matcher.match(stem)?.numbers, numbers);
    });
  }
});

Deno.test("parseSequenceKeyword() returns undefined for other items", () => {
  for (const item of ["cover", "", "sequences", "my sequence", "biggestNumber", "0001"]) {
    assert.equal(parseSequenceKeyword(item), undefined, item);
  }
});

Deno.test("parseSequenceKeyword() keys order numbers by value and shorter first", () => {
  const matcher = parseSequenceKeyword("sequence")!;
  const stems = ["a_10", "a_9", "a_0100", "a_9_1", "a_09", "a_123456789012345678901"];
  const sorted = stems
    .map((stem) => ({ stem, key: matcher.match(stem)!.key }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.stem < b.stem ? -1 : 1))
    .map(({ stem }) => stem);
  assert.deepEqual(sorted, ["a_09", "a_9", "a_9_1", "a_10", "a_0100", "a_123456789012345678901"]);
  assert.equal(matcher.match("a_09")!.key, matcher.match("a_9")!.key);
});

Deno.test("parseSequenceKeyword() matches again after each call", () => {
  const matcher = parseSequenceKeyword("sequence:4")!;
  assert.deepEqual(matcher.match("IMG_0001_0002")?.numbers, ["0001", "0002"]);
  assert.deepEqual(matcher.match("IMG_0003")?.numbers, ["0003"]);
});

Deno.test("parseSequenceKeyword() rejects forms that can never match", () => {
  assert.throws(() => parseSequenceKeyword("sequence:0"), {
    name: "RangeError",
    message: "Cannot use PARENT_FILENAME_PROMOTE as a sequence digit count must be at least 1: " +
      "current value is sequence:0",
  });
  assert.throws(() => parseSequenceKeyword("sequence:IMG_1"), {
    name: "RangeError",
    message: "Cannot use PARENT_FILENAME_PROMOTE as a sequence prefix must not end in a digit: " +
      "current value is sequence:IMG_1",
  });
});

Deno.test("detectNumericLists() finds runs of numbered items", async (t) => {
  const table: readonly {
    readonly name: string;
    readonly items: readonly string[];
    readonly lists: readonly (readonly [start: number, end: number, label: string])[];
  }[] = [
    { name: "padded numbers", items: ["0000", "0001", "0002"], lists: [[0, 3, "0000,0001,0002"]] },
    {
      name: "a run after a word",
      items: ["cover", "0000", "0001", "biggestNumber"],
      lists: [[1, 3, "0000,0001"]],
    },
    {
      name: "prefixed items",
      items: ["IMG_0001", "IMG_0002"],
      lists: [[0, 2, "IMG_0001,IMG_0002"]],
    },
    { name: "suffixed items", items: ["1a", "2a", "3a"], lists: [[0, 3, "1a,2a,3a"]] },
    { name: "gaps between numbers", items: ["1", "5", "9"], lists: [[0, 3, "1,5,9"]] },
    {
      name: "a long list shortens its label",
      items: ["0000", "0001", "0002", "0003", "0004"],
      lists: [[0, 5, "0000,…,0004"]],
    },
    {
      name: "a prefix compared case-insensitively",
      items: ["img_1", "IMG_2"],
      lists: [[0, 2, "img_1,IMG_2"]],
    },
    {
      name: "two runs split by a word",
      items: ["1", "2", "x", "a1", "a2"],
      lists: [[0, 2, "1,2"], [3, 5, "a1,a2"]],
    },
    { name: "a single numbered item", items: ["cover", "0001"], lists: [] },
    { name: "descending numbers", items: ["0002", "0001"], lists: [] },
    { name: "a repeated number", items: ["0001", "0001"], lists: [] },
    { name: "different prefixes", items: ["IMG_1", "DSC_2"], lists: [] },
    { name: "different suffixes", items: ["1a", "2b"], lists: [] },
    { name: "two numbers in one item", items: ["2024_01", "2024_02"], lists: [] },
    { name: "mixed padding widths", items: ["9", "010"], lists: [] },
    { name: "sequence keywords are not items", items: ["sequence:1", "sequence:2"], lists: [] },
    { name: "an empty item breaks a run", items: ["1", "", "2"], lists: [] },
  ];
  for (const { name, items, lists } of table) {
    await t.step(name, () => {
      const found = detectNumericLists(items).map((
        list,
      ) => [list.start, list.end, list.matcher.label]);
      assert.deepEqual(found, lists);
    });
  }
});

Deno.test("detectNumericLists() matchers match whole digit runs", async (t) => {
  const table: readonly {
    readonly items: readonly string[];
    readonly stem: string;
    readonly numbers: readonly string[] | undefined;
  }[] = [
    { items: ["0000", "0001", "0002"], stem: "DSC_0120", numbers: ["0120"] },
    { items: ["0000", "0001", "0002"], stem: SONY_BURST, numbers: ["0001"] },
    { items: ["0000", "0001", "0002"], stem: "20240101_000123", numbers: undefined },
    { items: ["0000", "0001", "0002"], stem: "DSC_12345", numbers: undefined },
    { items: ["000", "001", "002"], stem: "20240101_120001_005", numbers: ["005"] },
    { items: ["1", "2", "3"], stem: "a_120", numbers: ["120"] },
    { items: ["09", "10"], stem: "a_7_100", numbers: undefined },
    { items: ["IMG_0001", "IMG_0002"], stem: "img_0300", numbers: ["0300"] },
    { items: ["IMG_0001", "IMG_0002"], stem: "DSC_0001", numbers: undefined },
    { items: ["1a", "2a"], stem: "shot_12a", numbers: ["12"] },
    { items: ["1a", "2a"], stem: "shot_12b", numbers: undefined },
    { items: ["1a", "2a"], stem: "shot_123a4a", numbers: ["123", "4"] },
  ];
  for (const { items, stem, numbers } of table) {
    await t.step(`${items.join(",")} on ${stem}`, () => {
      const [list] = detectNumericLists(items);
      assert.deepEqual(list.matcher.match(stem)?.numbers, numbers);
    });
  }
});
