import assert from "node:assert/strict";
import { StackStore, StackStoreError } from "./immich_stacks.ts";

function sequentialStore(): StackStore {
  let n = 0;
  return new StackStore({ newId: () => `s${++n}` });
}

Deno.test("StackStore.create() makes the first id the primary, members in request order", () => {
  const store = sequentialStore();
  const stack = store.create(["b0", "b1", "b2", "b3"]);
  assert.deepEqual(stack, { id: "s1", primaryAssetId: "b0", assetIds: ["b0", "b1", "b2", "b3"] });
  assert.deepEqual(store.stackOf("b2"), stack);
  assert.deepEqual(store.list(), [stack]);
});

Deno.test("StackStore.create() moves a non-primary member and leaves its old stack with one asset", () => {
  // fixtures 021, 025-028
  const store = sequentialStore();
  store.create(["jpg", "dng"]);
  const moved = store.create(["edited", "dng"]);
  assert.deepEqual(moved, { id: "s2", primaryAssetId: "edited", assetIds: ["edited", "dng"] });
  assert.deepEqual(store.get("s1"), { id: "s1", primaryAssetId: "jpg", assetIds: ["jpg"] });
  assert.deepEqual(store.list().map((stack) => stack.id), ["s1", "s2"]);
});

Deno.test("StackStore.create() pulls in the whole stack of a listed primary and deletes it", () => {
  // fixtures 029-031: a request for 2 ids gives a stack of 3
  const store = sequentialStore();
  store.create(["jpg", "dng"]);
  const merged = store.create(["edited", "jpg"]);
  assert.deepEqual(merged, {
    id: "s2",
    primaryAssetId: "edited",
    assetIds: ["edited", "dng", "jpg"],
  });
  assert.equal(store.get("s1"), undefined);
  assert.equal(store.stackOf("dng")?.id, "s2");
  assert.throws(
    () => store.delete("s1"),
    new StackStoreError("Not found or no stack.delete access"),
  );
});

Deno.test("StackStore.create() always makes a new id, even for the same members", () => {
  const store = sequentialStore();
  store.create(["a", "b"]);
  const again = store.create(["a", "b"]);
  assert.deepEqual(store.list(), [{ id: "s2", primaryAssetId: "a", assetIds: ["a", "b"] }]);
  assert.equal(again.id, "s2");
});

Deno.test("StackStore.create() merges several stacks and moves members in one call", () => {
  const store = sequentialStore();
  store.create(["a", "b"]); // s1: pulled in whole through its primary a
  store.create(["c", "d", "e"]); // s2: only d moves
  const stack = store.create(["d", "a", "x"]);
  assert.equal(stack.primaryAssetId, "d");
  assert.deepEqual([...stack.assetIds].sort(), ["a", "b", "d", "x"]);
  assert.equal(store.get("s1"), undefined);
  assert.deepEqual(store.get("s2"), { id: "s2", primaryAssetId: "c", assetIds: ["c", "e"] });
});

Deno.test("StackStore.create() folds duplicate ids into a 1-asset stack", () => {
  // fixture 043
  const store = sequentialStore();
  assert.deepEqual(store.create(["a", "a"]), { id: "s1", primaryAssetId: "a", assetIds: ["a"] });
});

Deno.test("StackStore.create() refuses an empty list", () => {
  const store = sequentialStore();
  assert.throws(
    () => store.create([]),
    new StackStoreError("Cannot create a stack without assets: no asset id given"),
  );
});

Deno.test("StackStore.updatePrimary() lists the new primary first and keeps the others' order", () => {
  // fixtures 033, 034
  const store = sequentialStore();
  store.create(["p0", "p1", "p2", "p3"]);
  assert.deepEqual(store.updatePrimary("s1", "p2").assetIds, ["p2", "p0", "p1", "p3"]);
  assert.deepEqual(store.updatePrimary("s1", "p1").assetIds, ["p1", "p0", "p2", "p3"]);
});

Deno.test("StackStore.updatePrimary() refuses a non-member and an unknown stack", () => {
  // fixture 035
  const store = sequentialStore();
  store.create(["a", "b"]);
  assert.throws(
    () => store.updatePrimary("s1", "z"),
    new StackStoreError("Primary asset must be in the stack"),
  );
  assert.throws(
    () => store.updatePrimary("nope", "a"),
    new StackStoreError("Not found or no stack.update access"),
  );
});

Deno.test("StackStore.delete() unstacks the members and refuses a second delete", () => {
  // fixtures 052-054
  const store = sequentialStore();
  store.create(["a", "b"]);
  store.delete("s1");
  assert.equal(store.stackOf("a"), undefined);
  assert.equal(store.stackOf("b"), undefined);
  assert.deepEqual(store.list(), []);
  assert.throws(
    () => store.delete("s1"),
    new StackStoreError("Not found or no stack.delete access"),
  );
});

Deno.test("StackStore.removeAsset() takes out a child and refuses the primary and non-members", () => {
  // fixtures 037-039
  const store = sequentialStore();
  store.create(["a", "b", "c"]);
  store.removeAsset("s1", "c");
  assert.deepEqual(store.get("s1")?.assetIds, ["a", "b"]);
  assert.equal(store.stackOf("c"), undefined);
  assert.throws(
    () => store.removeAsset("s1", "a"),
    new StackStoreError("Cannot remove stack's primary asset"),
  );
  assert.throws(() => store.removeAsset("s1", "c"), new StackStoreError("Asset not in stack"));
  assert.throws(
    () => store.removeAsset("nope", "a"),
    new StackStoreError("Not found or no stack.update access"),
  );
});

Deno.test("StackStore.create() keeps 50 000 stacks consistent through merges", () => {
  const store = sequentialStore();
  for (let i = 0; i < 50_000; i++) store.create([`p${i}`, `c${i}`, `d${i}`]);
  // merge every stack into a new one through its primary: each call touches one stack
  for (let i = 0; i < 50_000; i++) store.create([`n${i}`, `p${i}`]);
  const stacks = store.list();
  assert.equal(stacks.length, 50_000);
  assert.deepEqual(store.stackOf("d49999")?.assetIds, ["n49999", "c49999", "d49999", "p49999"]);
});

/** A store whose `trashed` assets are in the trash and `hidden` ones hidden. */
function storeWith(trashed: readonly string[], hidden: readonly string[] = []): StackStore {
  let n = 0;
  return new StackStore({
    newId: () => `s${++n}`,
    isTrashed: (id) => trashed.includes(id),
    isListed: (id) => !trashed.includes(id) && !hidden.includes(id),
  });
}

Deno.test("StackStore.create() drops the trashed members of a stack it merges, as recorded", () => {
  // The stack {edited, jpg, dng}, then dng trashed; a grow through the primary.
  const trashed = ["dng"];
  const store = storeWith(trashed);
  store.create(["edited", "jpg", "dng"]);
  const grown = store.create(["edited", "jpg", "new"]);
  assert.deepEqual(grown, {
    id: "s2",
    primaryAssetId: "edited",
    assetIds: ["edited", "jpg", "new"],
  });
  assert.equal(store.stackOf("dng"), undefined);
  assert.equal(store.get("s1"), undefined);
});

Deno.test("StackStore.create() keeps hidden members of a stack it merges", () => {
  // Immich's merge leaves out only members in the trash (deletedAt), not hidden ones.
  const store = storeWith([], ["motion"]);
  store.create(["still", "motion"]);
  const grown = store.create(["still", "raw"]);
  assert.deepEqual([...grown.assetIds].sort(), ["motion", "raw", "still"]);
});

Deno.test("StackStore.create() makes a trashed asset listed first the primary, and leaves out one listed later", () => {
  const store = storeWith(["t1", "t2"]);
  // [photo, trashed]: a 1-asset stack, the trashed asset stays without a stack.
  assert.deepEqual(store.create(["a", "t1"]), { id: "s1", primaryAssetId: "a", assetIds: ["a"] });
  assert.equal(store.stackOf("t1"), undefined);
  // [trashed, photo]: the trashed asset is the primary and a member.
  assert.deepEqual(store.create(["t2", "b"]), {
    id: "s2",
    primaryAssetId: "t2",
    assetIds: ["t2", "b"],
  });
});

Deno.test("StackStore.create() leaves a trashed asset listed later in the stack it is in", () => {
  const trashed: string[] = [];
  const store = storeWith(trashed);
  store.create(["a", "t"]);
  trashed.push("t");
  store.create(["x", "y", "t"]);
  assert.deepEqual(store.get("s1"), { id: "s1", primaryAssetId: "a", assetIds: ["a", "t"] });
  assert.deepEqual(store.get("s2")?.assetIds, ["x", "y"]);
});

Deno.test("StackStore.updatePrimary() refuses a member Immich does not list", () => {
  const store = storeWith(["t"], ["h"]);
  store.create(["a", "h"]);
  store.create(["t", "b"]);
  for (const [stack, member] of [["s1", "h"], ["s2", "t"]]) {
    assert.throws(
      () => store.updatePrimary(stack, member),
      new StackStoreError("Primary asset must be in the stack"),
      `${member} in ${stack}`,
    );
  }
});
