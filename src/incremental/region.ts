/**
 * The dirty region of an incremental pass: the rows that share a grouping bucket with a change,
 * and every group and stack connected to them through a shared asset.
 *
 * @module
 */
import { bucketsOf, type CompactStack, type Library, REMOVED } from "./library.ts";

/**
 * The rows whose buckets are among `wanted`, closed under shared buckets (OR criteria give an
 * asset several): exactly the assets a regroup of those buckets must take in.
 *
 * @param library The library.
 * @param wanted Bucket hashes.
 * @returns The rows.
 */
export function rowsInBuckets(library: Library, wanted: ReadonlySet<number>): Set<number> {
  const hashes = new Set(wanted);
  const rows = new Set<number>();
  for (let grew = true; grew;) {
    grew = false;
    for (let row = 0; row < library.rows; row++) {
      if (rows.has(row) || library.flags[row] === REMOVED) continue;
      const bucket = library.buckets[row];
      // The common case, one bucket, without a list.
      if (bucket >= 0 && !hashes.has(bucket)) continue;
      const buckets = bucketsOf(library, row);
      if (!buckets.some((hash) => hashes.has(hash))) continue;
      rows.add(row);
      for (const hash of buckets) {
        if (!hashes.has(hash)) hashes.add(hash), grew = true;
      }
    }
  }
  return rows;
}

/** The dirty region: what an incremental pass reads in full and plans. */
export interface Region {
  readonly rows: Set<number>;
  readonly stacks: Set<string>;
  /** Indexes in {@linkcode Library.groups}. */
  readonly groups: Set<number>;
}

/**
 * The part of the library connected to the given rows and stacks through shared assets: a
 * group with an asset in the region brings its assets, a stack with an asset in the region
 * brings its members, until nothing more joins. Planning is local to such a part: a group's
 * plan depends only on the stacks its assets are in and on those stacks' members.
 *
 * @param library The library.
 * @param rows Rows that changed or must be regrouped.
 * @param stacks Stacks that changed (their ids, gone ones included).
 * @returns The region.
 */
export function regionOf(
  library: Library,
  rows: Iterable<number>,
  stacks: Iterable<string>,
): Region {
  const region: Region = { rows: new Set(rows), stacks: new Set(), groups: new Set() };
  const addStack = (stack: CompactStack) => {
    region.stacks.add(stack.id);
    for (const ref of [stack.primary, ...stack.members]) {
      if (typeof ref === "number") region.rows.add(ref);
    }
  };
  for (const id of stacks) {
    region.stacks.add(id);
    const stack = library.stacks.get(id);
    if (stack !== undefined) addStack(stack);
  }
  for (let grew = true; grew;) {
    grew = false;
    library.stacks.each((ref) => typeof ref === "number" && region.rows.has(ref), (stack) => {
      if (region.stacks.has(stack.id)) return;
      addStack(stack);
      grew = true;
    });
    const { groups } = library;
    for (let index = 0; index < groups.count; index++) {
      if (region.groups.has(index) || !groups.some(index, (row) => region.rows.has(row))) continue;
      region.groups.add(index);
      for (const row of groups.rows(index)!) region.rows.add(row);
      grew = true;
    }
  }
  return region;
}
