/**
 * The cached library: its rows' columns and groups, and its merge of what the search for changes
 * found (which records are changes).
 */
import assert from "node:assert/strict";
import { IdList } from "../src/incremental/ids.ts";
import {
  addRow,
  type AssetChange,
  bucketsOf,
  type CompactStack,
  emptyLibrary,
  findRows,
  Groups,
  idOf,
  mergeChanges,
  type OtherAsset,
  OtherTable,
  type Ref,
  REMOVED,
  setBuckets,
  StackTable,
} from "../src/incremental/library.ts";
import { seededRandom } from "./_random.ts";

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
  const library = emptyLibrary({ rows: 2, stacks: 1, groups: 1, others: 1 });
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

/** Ids as Immich writes them, the zero UUID, and others, a few of them twice. */
function someIds(random: () => number, count: number): string[] {
  const hex = (n: number) =>
    Array.from({ length: n }, () => Math.floor(random() * 16).toString(16)).join("");
  const made = Array.from(
    { length: count },
    (_, i) =>
      i % 17 === 0
        ? `s${i}`
        : i % 29 === 0
        ? "00000000-0000-0000-0000-000000000000"
        : `${hex(8)}-${hex(4)}-${hex(4)}-${hex(4)}-${hex(12)}`,
  );
  return [...made, ...made.slice(0, 5)];
}

Deno.test("StackTable and OtherTable keep what a Map would, in its order, through random sets and deletes", () => {
  for (let seed = 1; seed <= 20; seed++) {
    const random = seededRandom(seed);
    const ids = someIds(random, 40);
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
    const ref = (): Ref => random() < 0.2 ? pick(ids) : Math.floor(random() * 1000);
    const stacks = new StackTable(2);
    const stacksModel = new Map<string, CompactStack>();
    const others = new OtherTable(1);
    const othersModel = new Map<string, OtherAsset>();
    for (let step = 0; step < 300; step++) {
      const id = pick(ids);
      if (random() < 0.3) {
        assert.equal(stacks.delete(id), stacksModel.delete(id));
        assert.equal(others.delete(id), othersModel.delete(id));
        continue;
      }
      const list = () => Array.from({ length: Math.floor(random() * 4) }, ref);
      const stack = { id, primary: ref(), members: list(), archived: list() };
      stacks.set(id, stack);
      stacksModel.set(id, stack);
      const other = { updatedAt: 1_700_000_000_000 + step, scopes: 1 + Math.floor(random() * 7) };
      others.set(id, other);
      othersModel.set(id, other);
    }
    assert.deepEqual([...stacks.values()], [...stacksModel.values()], `seed ${seed}`);
    assert.equal(stacks.size, stacksModel.size);
    for (const id of ids) assert.deepEqual(stacks.get(id), stacksModel.get(id));
    assert.deepEqual([...others], [...othersModel], `seed ${seed}`);
    assert.deepEqual([...others.values()], [...othersModel.values()]);
    assert.equal(others.size, othersModel.size);

    // each() and forEachRef() see the primary and the listed members, not the archived ones.
    const listed = (stack: CompactStack) => [stack.primary, ...stack.members];
    const refs: Ref[] = [];
    stacks.forEachRef((ref) => refs.push(ref));
    assert.deepEqual(refs, [...stacksModel.values()].flatMap(listed));
    const small = (ref: Ref) => typeof ref === "number" && ref < 100;
    const visited: CompactStack[] = [];
    stacks.each(small, (stack) => visited.push(stack));
    assert.deepEqual(visited, [...stacksModel.values()].filter((s) => listed(s).some(small)));
  }
});

Deno.test("IdList finds ids by scan and by index, UUIDs or not, through its growth", () => {
  const random = seededRandom(3);
  const list = new IdList(1);
  const ids = someIds(random, 300);
  for (const id of ids) list.add(id);
  const bytes = new TextEncoder().encode(`x${ids[1]}y`);
  const fromBytes = list.addFromBytes(bytes, 1, bytes.length - 1);
  assert.equal(list.id(fromBytes), ids[1]);
  assert.deepEqual(Array.from({ length: ids.length }, (_, slot) => list.id(slot)), ids);
  for (const [slot, id] of ids.entries()) {
    assert.equal(list.find(id), ids.indexOf(id), id);
    assert.equal(list.find(id, (found) => found >= slot), slot, id);
  }
  assert.equal(list.find("not-there"), -1);
  assert.equal(list.find("ffffffff-ffff-ffff-ffff-ffffffffffff"), -1);
  const wanted = new Set([ids[0], ids[1], ids[17], ids[29], "b2"]);
  const found: [string, number][] = [];
  list.match(wanted, (id, slot) => found.push([id, slot]));
  assert.deepEqual(
    found.sort((a, b) => a[1] - b[1]),
    [...ids, ids[1]].map((id, slot): [string, number] => [id, slot]).filter(([id]) =>
      wanted.has(id)
    ),
  );
});
