/**
 * How an incremental pass reads again the stacks that its changed assets left or joined.
 *
 * @module
 */
import {
  compactStack,
  findRows,
  type Library,
  matchRows,
  type Ref,
} from "../incremental/library.ts";
import type { Stack } from "../model.ts";
import { membersOf } from "../reconcile/plan.ts";
import type { Reading } from "./input.ts";

/**
 * Reads again the stacks the changed assets left or joined: `GET /assets/{id}` names an
 * asset's stack (a search without stacked assets first spares new uploads the request),
 * `GET /stacks?primaryAssetId=` finds the stacks Immich does not name there, and
 * `GET /stacks/{id}` reads each stack once. The library's stacks are updated in place.
 *
 * @param reading The user's reading.
 * @param library The cached library.
 * @param changed The assets that changed.
 * @param since Where the search for changes started.
 * @returns The ids of the stacks read again or gone.
 */
export async function refreshStacks(
  reading: Reading,
  library: Library,
  changed: readonly { readonly id: string; readonly updatedAt: number }[],
  since: number,
): Promise<Set<string>> {
  const touched = new Set<string>();
  if (changed.length === 0) return touched;
  const { client } = reading;
  const ids = new Set(changed.map((change) => change.id));
  // Their rows, those the pass found gone included: a stack still names them.
  const changedRows = new Set<number>();
  matchRows(library, ids, { removed: true }, (_, row) => changedRows.add(row));
  const changedRef = (ref: Ref) => typeof ref === "number" ? changedRows.has(ref) : ids.has(ref);
  library.stacks.each(changedRef, (stack) => touched.add(stack.id));
  // Only the changed assets' answers count: the search starts at the earliest of them, not at
  // the overlap's start, which after many writes holds a page per thousand of them.
  let earliest = Infinity;
  for (const change of changed) earliest = Math.min(earliest, change.updatedAt);
  const unstacked = await client.unstackedSince(Math.max(since, earliest));
  const found = new Map<string, Stack>();
  for (const change of changed) {
    if (unstacked.has(change.id)) continue;
    const named = await client.assetStack(change.id);
    if (named === undefined) continue;
    if (named.stackId !== undefined) {
      touched.add(named.stackId);
      continue;
    }
    const stack = await client.stackWithPrimary(change.id);
    if (stack !== undefined) found.set(stack.id, stack);
  }
  for (const stackId of touched) {
    if (found.has(stackId)) continue;
    const stack = await client.getStack(stackId);
    if (stack === undefined) library.stacks.delete(stackId);
    else found.set(stackId, stack);
  }
  const rows = findRows(library, new Set([...found.values()].flatMap((s) => membersOf(s))));
  for (const stack of found.values()) {
    library.stacks.set(stack.id, compactStack(stack, (id) => rows.get(id) ?? id));
    touched.add(stack.id);
  }
  reading.log.debug("Read {count} stacks again", { count: touched.size });
  return touched;
}
