/**
 * The read of an incremental pass in which something changed: the cache's library with the
 * changes merged, the stacks of the changed assets read again, and the region a change can
 * touch regrouped. Loaded by `incrementalRead` only then, so that a pass with nothing changed
 * loads none of it (docs/architecture.md, "Start-up").
 *
 * @module
 */
import { searchScopes } from "../api/search.ts";
import { countMismatch, datedBackReason, tooManyChanges } from "../incremental/decide.ts";
import { leftOverlap } from "../incremental/overlap.ts";
import {
  applyWrites,
  type AssetChange,
  datedBack,
  expandStack,
  idOf,
  type Library,
  liveRows,
  mergeChanges,
  recentDigest,
  REMOVED,
  scopeCounts,
  skippedCounts,
  TRASHED,
} from "../incremental/library.ts";
import type { Asset } from "../model.ts";
import { releaseMemory } from "../memory.ts";
import { type CacheHeader, newGeneration } from "../state/cache.ts";
import { type BodyFile, bodyOf } from "../state/cache_body.ts";
import { type CacheRead, readCache, rewriteBody, stackRecords } from "../state/cache_library.ts";
import { type StoredPlan } from "../state/cache_plan.ts";
import { CacheRecorder } from "../state/cache_recorder.ts";
import {
  compareIds,
  type PassInput,
  type Reading,
  recordingOf,
  type Rest,
  unreadable,
} from "./input.ts";
import { refreshStacks } from "./refresh.ts";
import { type Regrouped, regroupRegion } from "./regroup.ts";

import { type CountedOverlap, tooManyFound, type Window } from "./incremental.ts";

/**
 * Something changed: the cache's library with the changes merged, the counts checked, the
 * stacks of the changed assets read again, and the region a change can touch regrouped.
 *
 * @returns What to plan from, or why the pass is full after all.
 */
export async function readRegion(
  reading: Reading,
  header: CacheHeader,
  stored: StoredPlan,
  found: {
    readonly serverCounts: readonly number[];
    readonly changes: readonly AssetChange[];
    readonly window: Window;
    /** How many changes the search takes. */
    readonly limit: number;
    /** With the changes after it only: the overlap counted. */
    readonly overlap?: CountedOverlap;
  },
): Promise<PassInput | string> {
  const { log, filter } = reading;
  const files = reading.files!;
  const { window } = found;
  let read: CacheRead;
  try {
    read = await readCache(files, header);
  } catch (error) {
    return unreadable(error);
  }
  // Reading the cache leaves tens of megabytes of garbage behind. The scans below keep only the
  // region's rows and leave what young-generation collections take: a full one would cost more.
  releaseMemory();
  const { library } = read;
  const overlap = await overlapChanges(reading, header, library, found);
  if (typeof overlap === "string") return overlap;
  const { changes, checkedFrom } = overlap;
  const written = applyWrites(library, read.writes);
  const back = datedBack(library, changes, checkedFrom);
  const merged = mergeChanges(library, changes, header.watermark);
  const tooMany = tooManyChanges(merged.changed.length, reading.query.maxChanges);
  if (tooMany !== undefined) return tooMany;
  const scopes = searchScopes(filter);
  const cachedCounts = scopeCounts(library, scopes.length).map((n, i) => n + header.offsets[i]);
  const mismatch = countMismatch(found.serverCounts, cachedCounts);
  if (mismatch !== undefined) return mismatch;
  if (back !== undefined) return datedBackReason(back);
  log.info(
    merged.changed.length === 1
      ? "Incremental pass: {changed} asset changed since {since}"
      : "Incremental pass: {changed} assets changed since {since}",
    { pass: "incremental", changed: merged.changed.length, since: window.sinceText },
  );

  const refreshed = await refreshStacks(reading, library, merged.changed, window.since);
  const regrouped = await regroupRegion(reading, library, {
    files,
    header,
    merged,
    written,
    refreshed,
    volatile: stored.entries.volatile,
  });
  return await regionInput(reading, library, { header, stored, regrouped, window });
}

/**
 * The changes a region is read from: those after the overlap when each search counts in it the
 * assets the last pass found there less those changed since, which the cache dated there;
 * otherwise every change since the overlap's start, read again.
 *
 * @returns The changes, and from when every asset the cache dates is among them; or why the
 *   pass is full after all.
 */
async function overlapChanges(
  reading: Reading,
  header: CacheHeader,
  library: Library,
  found: {
    readonly changes: readonly AssetChange[];
    readonly window: Window;
    readonly limit: number;
    readonly overlap?: CountedOverlap;
  },
): Promise<{ changes: readonly AssetChange[]; checkedFrom: number } | string> {
  const { window, overlap } = found;
  const scoped = header.recent.scoped;
  if (overlap === undefined || scoped === undefined) {
    return { changes: found.changes, checkedFrom: window.since };
  }
  const left = leftOverlap(library, found.changes, {
    since: window.since,
    until: overlap.after,
    searches: scoped.length,
  });
  if (overlap.counted.every((count, i) => count === scoped[i] - left[i])) {
    return { changes: found.changes, checkedFrom: overlap.after };
  }
  const changes = await reading.client.changedAssets(reading.filter, window.since, found.limit);
  if (changes === undefined) return tooManyFound(reading.query.maxChanges);
  return { changes, checkedFrom: window.since };
}

/**
 * What an incremental pass plans from once its region is regrouped: the region's assets and
 * stacks, the rest of the library, and, in a real pass, the body of the next generation written
 * and the recorder of the pass.
 *
 * @param reading The user's reading.
 * @param library The library, the changes merged and regrouped.
 * @param parts The cache's header and plan, the region regrouped, the search's window.
 * @returns What to plan from.
 */
async function regionInput(
  reading: Reading,
  library: Library,
  parts: {
    readonly header: CacheHeader;
    readonly stored: StoredPlan;
    readonly regrouped: Regrouped;
    readonly window: Window;
  },
): Promise<PassInput> {
  const { header, regrouped, window } = parts;
  const files = reading.files!;
  const { region, contents, groups, promoted } = regrouped;
  const assetOf = (row: number) =>
    library.flags[row] === REMOVED ? undefined : contents.get(row)?.asset;
  const assets: Asset[] = [];
  const trashed = new Set<string>();
  for (const row of region.rows) {
    const asset = assetOf(row);
    if (asset === undefined) continue;
    assets.push(asset);
    if (library.flags[row] & TRASHED) trashed.add(asset.id);
  }
  const stacks = [...region.stacks].flatMap((id) => {
    const stack = library.stacks.get(id);
    return stack === undefined ? [] : [expandStack(library, stack)];
  }).sort(compareIds);
  const skippedAssets = skippedCounts(library);
  const generation = newGeneration();
  // The journal's snapshot reads names from the body the pass writes, or from the last one
  // when it cannot write one (rows new since are then named by id).
  let body: BodyFile = bodyOf(header);
  const rest = restOf(library, region, {
    kept: parts.stored,
    groups: library.groups.live + promoted.length,
    records: (marks) => stackRecords(files, body, library, marks),
  });
  const base = {
    kind: "incremental" as const,
    assets,
    stacks,
    groups,
    trashed,
    skippedAssets,
    computeMs: regrouped.computeMs,
    rest,
  };
  const loss = reading.loss!;
  if (!reading.options.record || loss.lost) return base;
  const newGroups = promoted.map((group) => ({
    key: group.key,
    rows: group.assets.map((asset) => regrouped.rowOfId.get(asset.id)!),
  }));
  try {
    const sum = await rewriteBody(files, header, generation, library, {
      rows: contents,
      droppedGroups: regrouped.droppedGroups,
      newGroups,
    });
    body = { generation, sum };
  } catch (error) {
    // Planned from all the same: the next pass is full.
    await loss.note(error);
    return base;
  }
  for (const group of newGroups) library.groups.add(group.rows);
  const cache = new CacheRecorder(recordingOf(reading, files), {
    generation,
    watermark: window.watermark,
    fullPassAt: header.fullPassAt,
    fullPassClock: header.fullPassClock,
    offsets: header.offsets,
    counts: scopeCounts(library, searchScopes(reading.filter).length),
    recent: {
      ...recentDigest(library, window.nextSince, searchScopes(reading.filter).length),
      since: window.nextSince,
    },
    sizes: {
      assets: liveRows(library),
      stacks: library.stacks.size,
      groups: rest.groups,
    },
    sums: { body: body.sum },
    skippedAssets,
  });
  return { ...base, cache };
}

/**
 * The rest of the library, outside the region an incremental pass plans.
 *
 * @param library The library.
 * @param region The region's stacks and rows.
 * @param parts The last plan's entries, the number of groups, the journal's records.
 * @returns The rest.
 */
function restOf(
  library: Library,
  region: { readonly stacks: ReadonlySet<string>; readonly rows: ReadonlySet<number> },
  parts: {
    readonly kept: StoredPlan;
    readonly groups: number;
    readonly records: Rest["records"];
  },
): Rest {
  return {
    kept: parts.kept.entries,
    dirty: {
      stacks: region.stacks,
      assets: new Set([...region.rows].map((row) => idOf(library, row))),
    },
    otherStacks: () =>
      [...library.stacks.values()].filter((stack) => !region.stacks.has(stack.id)).map(
        (stack) => {
          const primaryAssetId = expandStack(library, stack).primaryAssetId;
          return { id: stack.id, primaryAssetId, assetIds: [primaryAssetId] };
        },
      ),
    groups: parts.groups,
    // Read from the cache's body: its names and records are garbage once written.
    records: function* (marks) {
      yield* parts.records(marks);
      releaseMemory();
    },
  };
}
