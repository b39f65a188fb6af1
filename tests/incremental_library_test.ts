/**
 * The cached library's merge of what the search for changes found: which records are changes.
 */
import assert from "node:assert/strict";
import { type AssetChange, emptyLibrary, mergeChanges } from "../src/incremental/library.ts";

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
