import assert from "node:assert/strict";
import { UpdatedIndex } from "./immich_updated_index.ts";

/** What a scan of every item would find: the reference the index must agree with. */
function scan(items: readonly { id: string; updatedAt: number }[], time: number): string[] {
  return items.filter((item) => item.updatedAt >= time).sort((a, b) => a.updatedAt - b.updatedAt)
    .map((item) => item.id);
}

Deno.test("UpdatedIndex finds what a scan finds, through changes, a clock set back and deletions", () => {
  let clock = 100;
  const items = Array.from({ length: 50 }, (_, i) => ({ id: `a${i}`, updatedAt: clock++ }));
  const index = new UpdatedIndex(items);
  const ids = (time: number) => index.since(time).map((item) => item.id);
  const change = (i: number) => {
    items[i].updatedAt = clock++;
    index.changed(items[i]);
  };
  // Thousands of changes to a few items: stale entries pile up and are dropped.
  for (let round = 0; round < 3000; round++) change(round % 7);
  for (const time of [0, 120, clock - 5, clock]) assert.deepEqual(ids(time), scan(items, time));
  // A clock set back: a change dated before others.
  clock -= 4000;
  change(30);
  clock += 8000;
  change(31);
  for (const time of [0, clock - 4010, clock - 1]) assert.deepEqual(ids(time), scan(items, time));
  // Deleted for good: gone from every search.
  const [gone] = items.splice(31, 1);
  index.remove(gone);
  assert.deepEqual(ids(0), scan(items, 0));
  // Put back as it was.
  index.reset(items);
  assert.deepEqual(ids(150), scan(items, 150));
});
