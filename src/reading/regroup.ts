/**
 * Regrouping the part of the cached library a change can touch: the assets that share a
 * grouping bucket with a changed asset, closed under shared buckets, give the groups the whole
 * library gives them (docs/incremental.md, "Regrouping a part is exact").
 *
 * @module
 */
import type { GroupingRules } from "../grouping/criteria.ts";
import { bucketList, groupAssets } from "../grouping/group.ts";
import { byPlace, smallestId } from "../incremental/entries.ts";
import {
  idOf,
  type Library,
  type MergedChanges,
  type Region,
  regionOf,
  REMOVED,
  rowsInBuckets,
  setBuckets,
} from "../incremental/library.ts";
import type { Group } from "../model.ts";
import { createParentOrder, type PromotedGroup } from "../promotion/parent.ts";
import type { CacheFiles, CacheHeader } from "../state/cache.ts";
import { readRows, type RowContent } from "../state/cache_library.ts";
import { logGrouping, type Reading } from "./input.ts";

/** What an incremental pass plans again. */
export interface Regrouped {
  readonly region: Region;
  /** The contents of the region's rows: from the cache, or from the changes. */
  readonly contents: Map<number, RowContent>;
  /** The region's groups, parent first, in grouping's order. */
  readonly groups: readonly Group[];
  /** The groups made anew. */
  readonly promoted: readonly PromotedGroup[];
  /** The cached groups that are gone, by their place. */
  readonly droppedGroups: ReadonlySet<number>;
  /** The rows of the regrouped assets, by asset id. */
  readonly rowOfId: ReadonlyMap<string, number>;
  /** Grouping and promotion time. */
  readonly computeMs: number;
}

/**
 * Regroups the region of the changes: buckets of the changed assets now and before, the rows
 * in them, the region they and the changed stacks join, its rows read in full from the cache,
 * grouped and promoted; the cached groups the region holds are kept where none of their rows
 * is regrouped. The library's buckets, skips and groups are updated in place.
 *
 * @param reading The user's reading (criteria, promotion, logger).
 * @param library The cached library, the changes merged.
 * @param parts The cache, the changes, the last pass's writes, and stacks that changed.
 * @returns The region and its groups.
 */
export async function regroupRegion(
  reading: Reading,
  library: Library,
  parts: {
    readonly files: CacheFiles;
    readonly header: CacheHeader;
    readonly merged: MergedChanges;
    readonly written: { readonly stacks: ReadonlySet<string>; readonly rows: ReadonlySet<number> };
    /** The stacks read again. */
    readonly refreshed: Iterable<string>;
    /** The stacks the last plan left to plan again. */
    readonly volatile: readonly string[];
  },
): Promise<Regrouped> {
  const { merged, written } = parts;
  const { criteria, promotion } = reading.query;
  let computeMs = 0;
  const started = performance.now();
  // The changed assets' buckets now; with those they had, the buckets to regroup.
  const fresh = [...merged.rows].filter(([, row]) => row.asset !== undefined);
  const freshBuckets = groupAssets(fresh.map(([, row]) => row.asset!), criteria, {
    buckets: true,
  }).buckets!;
  const wanted = new Set(merged.previousBuckets);
  for (const [i, [row]] of fresh.entries()) {
    setBuckets(library, row, freshBuckets[i]);
    for (const hash of bucketList(freshBuckets[i])) wanted.add(hash);
  }
  const regroupRows = rowsInBuckets(library, wanted);
  const region = regionOf(
    library,
    [...regroupRows, ...merged.rows.keys(), ...merged.removed, ...written.rows],
    [...parts.refreshed, ...written.stacks, ...parts.volatile],
  );
  computeMs += performance.now() - started;

  // The region in full: its rows' assets and its groups' keys, from the cache.
  const read = await readRows(
    parts.files,
    parts.header,
    new Set([...region.rows].filter((row) => !merged.rows.has(row))),
    region.groups,
  );
  const contents = read.rows;
  for (const [row, data] of merged.rows) contents.set(row, data);
  const started2 = performance.now();
  const assetOf = (row: number) =>
    library.flags[row] === REMOVED ? undefined : contents.get(row)?.asset;
  const regrouping = [...regroupRows].filter((row) => assetOf(row) !== undefined);
  const regrouped = groupAssets(regrouping.map((row) => assetOf(row)!), criteria, {
    buckets: true,
  });
  const rowOfId = new Map(regrouping.map((row) => [idOf(library, row), row]));
  for (const [i, row] of regrouping.entries()) {
    setBuckets(library, row, regrouped.buckets![i]);
    library.skips.delete(row);
  }
  for (const skip of regrouped.skipped) library.skips.set(rowOfId.get(skip.asset.id)!, skip.reason);
  const order = createParentOrder(promotion);
  const promoted = regrouped.groups.map((group) => order.promote(group));
  const droppedGroups = new Set<number>();
  const kept: Group[] = [];
  for (const index of region.groups) {
    const rows = library.groups.rows(index)!;
    if (rows.some((row) => regroupRows.has(row) || library.flags[row] === REMOVED)) {
      droppedGroups.add(index);
      library.groups.drop(index);
      continue;
    }
    kept.push(
      labelled({ key: read.keys.get(index)!, assets: rows.map((row) => assetOf(row)!) }, criteria),
    );
  }
  const groups = [...kept, ...promoted]
    .map((group) => ({ group, key: group.key, first: smallestId(group) }))
    .sort(byPlace)
    .map(({ group }) => group);
  computeMs += performance.now() - started2;
  logGrouping(reading, regrouped, promoted);
  reading.log.debug("Planning {groups} groups and {stacks} stacks again", {
    groups: groups.length,
    stacks: region.stacks.size,
  });
  return { region, contents, groups, promoted, droppedGroups, rowOfId, computeMs };
}

/**
 * A group kept from the cache, with the rule that made it when the default rules did: they say
 * it again from the group's assets alone, which is what made it (docs/incremental.md).
 */
function labelled(group: Group, criteria: GroupingRules): Group {
  if (criteria.form !== "devices") return group;
  const label = groupAssets(group.assets, criteria).groups[0]?.label;
  return label === undefined ? group : { ...group, label };
}
