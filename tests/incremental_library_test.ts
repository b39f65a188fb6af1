/**
 * The cached library: its rows' columns and groups, and its merge of what the search for changes
 * found (which records are changes).
 */
import assert from "node:assert/strict";
import {
  addRow,
  type AssetChange,
  bucketsOf,
  emptyLibrary,
  findRows,
  Groups,
  idOf,
  mergeChanges,
  REMOVED,
  setBuckets,
} from "../src/incremental/library.ts";

const LAST_PASS = 1_000_000;

/** A change of the user's own asset that no search of the pass finds (in the trash, hidden). */
function outside(id: string, updatedAt: number): AssetChange {
  return { id, own: true, updatedAt, scopes: 0, trashed: true, archived: false };
}

Deno.test("mergeChanges() counts an asset outside the searches only when it moved since the last pass or sits in a cached stack", () => {
  const library = emptyLibrary();
  library.stacks.set("s1", { id: "s1", primary: "in-stack", members: [], archived: [] });
  const merged = mergeChanges(library, [
    // Found again by the overlap: the last pass read the library after it changed.
    outside("before", LAST_PASS - 60_000),
    // Changed after the last pass began: it may have left a stack.
    outside("after", LAST_PASS + 1),
    // A member of a cached stack: its stack is read again.
    outside("in-stack", LAST_PASS - 60_000),
  ], LAST_PASS);
  assert.deepEqual(merged.changed.map((change) => change.id), ["after", "in-stack"]);
  // All three are remembered, so that the next search for changes finds what it expects, and
  // the same record found again is no change.
  assert.deepEqual(
    [...library.seen],
    [["before", LAST_PASS - 60_000], ["after", LAST_PASS + 1], ["in-stack", LAST_PASS - 60_000]],
  );
  const again = mergeChanges(library, [outside("after", LAST_PASS + 1)], LAST_PASS);
  assert.deepEqual(again.changed, []);
});

Deno.test("A library keeps each row's id, time, flags and buckets as given, UUIDs or not, past its first room", () => {
  const library = emptyLibrary({ rows: 2, groups: 1 });
  const ids = [
    "7d6bbb24-602e-94ef-136f-400508849e84",
    "00000000-0000-0000-0000-000000000000",
    "7D6BBB24-602E-94EF-136F-400508849E84",
    "7d6bbb24-602e-94ef-136f-400508849e8",
    "7d6bbb24-602e-94ef-136f-400508849e8g",
    "7d6bbb24x602e-94ef-136f-400508849e84",
    "a1",
    "",
    "ffffffff-ffff-ffff-ffff-ffffffffffff",
  ];
  for (const [i, id] of ids.entries()) addRow(library, id, 1_700_000_000_000 + i, i);
  assert.equal(library.rows, ids.length);
  assert.deepEqual(ids.map((_, row) => idOf(library, row)), ids);
  assert.deepEqual([...library.updatedAt.subarray(0, 3)], [
    1_700_000_000_000,
    1_700_000_000_001,
    1_700_000_000_002,
  ]);
  setBuckets(library, 0, 5);
  setBuckets(library, 1, [6, 7]);
  setBuckets(library, 2, []);
  setBuckets(library, 3, [8]);
  assert.deepEqual([0, 1, 2, 3, 4].map((row) => bucketsOf(library, row)), [
    [5],
    [6, 7],
    [],
    [8],
    [],
  ]);
  setBuckets(library, 1, 9);
  assert.deepEqual(bucketsOf(library, 1), [9]);

  // Found by id, the zero UUID apart from the rows whose id is no UUID, removed rows on demand.
  library.flags[6] = REMOVED;
  const wanted = new Set([...ids, "b2"]);
  assert.deepEqual(
    [...findRows(library, wanted)].sort((a, b) => a[1] - b[1]),
    ids.map((id, row) => [id, row]).filter(([, row]) => row !== 6),
  );
  assert.deepEqual(findRows(library, new Set(["a1"]), { removed: true }), new Map([["a1", 6]]));
  assert.deepEqual(findRows(library, new Set(["a1"])), new Map());
});

Deno.test("Groups keeps each group's rows by its place, and a dropped group's place stays taken", () => {
  const groups = new Groups(1);
  for (let g = 0; g < 100; g++) groups.add([g, g + 1000, g + 2000]);
  groups.drop(3);
  groups.drop(3);
  groups.add([7]);
  assert.equal(groups.count, 101);
  assert.equal(groups.live, 100);
  assert.deepEqual(groups.rows(0), [0, 1000, 2000]);
  assert.equal(groups.rows(3), undefined);
  assert.deepEqual(groups.rows(99), [99, 1099, 2099]);
  assert.deepEqual(groups.rows(100), [7]);
  assert.equal(groups.some(3, () => true), false);
  assert.equal(groups.some(4, (row) => row === 2004), true);
  assert.equal(groups.some(4, (row) => row === 2005), false);
});
