/**
 * An incremental pass's reading: the cache of the last pass plus what changed since, the last
 * plan reused whole when nothing changed, otherwise the part of the library a change can touch
 * read again, regrouped and planned (docs/incremental.md, "An incremental pass, step by step").
 *
 * @module
 */
import { searchScopes } from "../api/search.ts";
import {
  countMismatch,
  datedBackReason,
  fullPassDue,
  OVERLAP_MS,
  tooManyChanges,
} from "../incremental/decide.ts";
import { mergeEntries } from "../incremental/entries.ts";
import { leftOverlap } from "../incremental/overlap.ts";
import {
  applyWrites,
  type AssetChange,
  datedBack,
  DigestBuilder,
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
import { readStoredPlan, type StoredPlan } from "../state/cache_plan.ts";
import { CacheRecorder } from "../state/cache_recorder.ts";
import {
  compareIds,
  NO_STATISTICS,
  type PassInput,
  type Reading,
  recordingOf,
  type Rest,
  unreadable,
  warnOnce,
  watermarkOf,
} from "./input.ts";
import { refreshStacks } from "./refresh.ts";
import { type Regrouped, regroupRegion } from "./regroup.ts";

/** Where this pass searched for changes from, and where the next one will. */
interface Window {
  /** This pass's search: changes at or after it. */
  readonly since: number;
  /** The server time the next pass's search starts from, before its overlap. */
  readonly watermark: number;
  /** The next pass's search: `watermark` minus the overlap. */
  readonly nextSince: number;
  /** The last pass's watermark, for the log. */
  readonly sinceText: string;
}

/**
 * An incremental pass: the cache, and what changed since its pass; a reason instead when the
 * pass must read everything after all.
 *
 * @param reading The user's reading.
 * @param since Search for changes at or after this server time.
 * @param header The cache's header.
 * @returns What to plan from, or why the pass is full after all.
 */
export async function incrementalRead(
  reading: Reading,
  since: number,
  header: CacheHeader,
): Promise<PassInput | string> {
  const { client, filter, files } = reading;
  if (files === undefined) return "no STATE_DIR to keep a cache in";
  let stored: StoredPlan | undefined;
  try {
    stored = await readStoredPlan(files, header.generation, header.sums.plan);
  } catch (error) {
    return unreadable(error);
  }
  if (stored === undefined) {
    return "the cache holds no library (a pass whose writes move more assets than " +
      "INCREMENTAL_MAX_CHANGES keeps none)";
  }
  const serverCounts = await client.countAssets(filter);
  if (serverCounts === undefined) {
    warnOnce(reading, "statistics", NO_STATISTICS);
    return "the API key cannot count assets (asset.statistics)";
  }
  const max = reading.query.maxChanges;
  const limit = max + header.recent.count + header.written;
  const searching = performance.now();
  const afterOverlap = await changesAfterOverlap(reading, header, { since, limit });
  const changes = afterOverlap?.changes ?? await client.changedAssets(filter, since, limit);
  if (changes === undefined) return tooManyFound(max);
  let newest = -1;
  for (const change of changes) if (change.updatedAt > newest) newest = change.updatedAt;
  // Never back: the last watermark was the server's time before this search too.
  const watermark = newest < 0
    ? header.watermark
    : Math.max(header.watermark, watermarkOf(newest, searching));
  const due = fullPassDue(
    { ...header, watermark },
    reading.startedAt,
    reading.query.fullPassInterval,
  );
  if (due !== undefined) return due;
  const window: Window = {
    since,
    watermark,
    nextSince: watermark - OVERLAP_MS,
    sinceText: new Date(header.watermark).toISOString(),
  };
  const expected = header.counts.map((count, i) => count + header.offsets[i]);
  // Stacks planned with trashed or hidden members (volatile) do not stop it: such a member, or
  // the stack Immich would name for it, changes only with some asset's updatedAt, which the
  // search sees (docs/incremental.md, "What only a full pass sees").
  const quiet = afterOverlap === undefined ? changes : changes.length === 0 ? "settled" : undefined;
  if (
    quiet !== undefined && header.steady && countMismatch(serverCounts, expected) === undefined
  ) {
    const reused = reusePlan(reading, header, stored, quiet, window);
    if (reused !== undefined) return reused;
  }
  return await readRegion(reading, header, stored, {
    serverCounts,
    changes,
    window,
    limit,
    ...(afterOverlap === undefined ? {} : { overlap: afterOverlap.overlap }),
  });
}

/**
 * The largest overlap read again rather than counted: reading a few assets costs about what the
 * count's request does, while reading a first run's writes on every pass cost a small library's
 * quiet pass a third of its CPU (800 assets at 880 files, BENCHMARKS.md).
 */
const OVERLAP_READ_MAX = 100;

/** The overlap before the watermark, counted: what each search of the pass counts in it now. */
interface CountedOverlap {
  /** Per search, as the last pass's `recent.scoped`. */
  readonly counted: readonly number[];
  /** The end of the overlap counted, included; the changes after it start there. */
  readonly after: number;
}

/**
 * The changes after the newest one the last pass found, and the overlap before it counted by
 * each search of the pass (`POST /search/statistics` with `updatedAfter` and `updatedBefore`).
 * After a pass of many writes the overlap holds every asset they moved, so reading it again on
 * every pass would cost a search page per thousand of them (docs/incremental.md, "Server
 * time"). With nothing changed after it, the counts alone tell whether the overlap is as the
 * last pass found it; otherwise `readRegion` tells, once the cache says which of the changed
 * assets it dated there.
 *
 * @param reading The user's reading.
 * @param header The cache's header.
 * @param search Where this pass's search for changes starts, and how many changes it takes.
 * @returns The changes after the overlap and its counts, or undefined when the overlap must be
 *   read.
 */
async function changesAfterOverlap(
  reading: Reading,
  header: CacheHeader,
  search: { readonly since: number; readonly limit: number },
): Promise<{ changes: AssetChange[]; overlap: CountedOverlap } | undefined> {
  const { newest, scoped, since, count } = header.recent;
  if (since !== search.since || newest === undefined || scoped === undefined) return undefined;
  if (count < OVERLAP_READ_MAX) return undefined;
  const { client, filter } = reading;
  // Searches compare whole milliseconds and Immich keeps microseconds: an update in the last
  // pass's newest millisecond is counted with the overlap, one a millisecond later found here.
  const after = newest + 1;
  const counted = await client.countAssets(filter, { after: since, before: after });
  if (counted === undefined || counted.length !== scoped.length) return undefined;
  const changes = await client.changedAssets(filter, after, search.limit);
  if (changes === undefined) return undefined;
  if (changes.length === 0 && counted.some((count, i) => count !== scoped[i])) return undefined;
  return { changes, overlap: { counted, after } };
}

/**
 * A pass that planned no change, and nothing changed since: its plan holds. Nothing changed
 * when the search finds exactly the records the cache knows changed in its window.
 *
 * @returns The reused plan, or undefined when something changed.
 */
function reusePlan(
  reading: Reading,
  header: CacheHeader,
  stored: StoredPlan,
  changes: readonly AssetChange[] | "settled",
  window: Window,
): PassInput | undefined {
  let recent = header.recent;
  if (changes !== "settled") {
    const found = new DigestBuilder();
    for (const change of changes) found.add(change.id, change.updatedAt);
    const digest = found.build();
    if (
      header.recent.since !== window.since || digest.count !== header.recent.count ||
      digest.digest !== header.recent.digest
    ) {
      return undefined;
    }
    const next = new DigestBuilder(header.counts.length);
    for (const change of changes) {
      if (change.updatedAt >= window.nextSince) {
        next.add(change.id, change.updatedAt, change.scopes);
      }
    }
    recent = { ...next.build(), since: window.nextSince };
  }
  reading.log.info("Incremental pass: nothing changed since {since}", {
    pass: "incremental",
    since: window.sinceText,
    changed: 0,
  });
  const cache = new CacheRecorder(recordingOf(reading, reading.files!), {
    generation: header.generation,
    watermark: window.watermark,
    fullPassAt: header.fullPassAt,
    fullPassClock: header.fullPassClock,
    offsets: header.offsets,
    counts: header.counts,
    recent,
    sizes: header.sizes,
    sums: { ...header.sums, delta: undefined },
    skippedAssets: stored.skippedAssets,
    reuse: true,
  });
  const { plan } = mergeEntries(
    { actions: [], inSync: [], needsReplace: [] },
    { inSync: [], needsReplace: [], volatile: [] },
    stored.entries,
    { stacks: new Set(), assets: new Set() },
  );
  return { kind: "incremental", reused: plan, skippedAssets: stored.skippedAssets, cache };
}

/**
 * Something changed: the cache's library with the changes merged, the counts checked, the
 * stacks of the changed assets read again, and the region a change can touch regrouped.
 *
 * @returns What to plan from, or why the pass is full after all.
 */
async function readRegion(
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

/** Why a pass is full when its search for changes stopped at its limit. */
function tooManyFound(max: number): string {
  return `more assets changed since the last pass than INCREMENTAL_MAX_CHANGES (${max})`;
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
