/**
 * An incremental pass's reading: the cache of the last pass plus what changed since, the last
 * plan reused whole when nothing changed, otherwise the part of the library a change can touch
 * read again, regrouped and planned (docs/incremental.md, "An incremental pass, step by step").
 *
 * @module
 */
import { countMismatch, fullPassDue, OVERLAP_MS } from "../incremental/decide.ts";
import { mergeEntries } from "../incremental/entries.ts";
import { DigestBuilder } from "../incremental/digest.ts";
import type { AssetChange } from "../incremental/library.ts";
import type { CacheHeader } from "../state/cache.ts";
import { readStoredPlan, type StoredPlan } from "../state/cache_plan.ts";
import { CacheRecorder } from "../state/cache_recorder.ts";
import {
  NO_STATISTICS,
  type PassInput,
  type Reading,
  recordingOf,
  unreadable,
  warnOnce,
  watermarkOf,
} from "./input.ts";

/** Where this pass searched for changes from, and where the next one will. */
export interface Window {
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
  // Loaded only when something changed: a quiet pass loads no regrouping, nor the library's cache.
  const { readRegion } = await import("./region_read.ts");
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
export interface CountedOverlap {
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

/** Why a pass is full when its search for changes stopped at its limit. */
export function tooManyFound(max: number): string {
  return `more assets changed since the last pass than INCREMENTAL_MAX_CHANGES (${max})`;
}
