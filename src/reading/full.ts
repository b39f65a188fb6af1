/**
 * A full pass's reading: every stack and every asset from the server, grouped and promoted, and
 * a new cache recorded from them (docs/incremental.md).
 *
 * @module
 */
import { searchScopes } from "../api/search.ts";
import { type BucketHashes, groupAssets } from "../grouping/group.ts";
import type { GroupingRules } from "../grouping/criteria.ts";
import { OVERLAP_MS } from "../incremental/decide.ts";
import { MAX_SCOPES, type OtherAsset } from "../incremental/library.ts";
import type { Asset } from "../model.ts";
import { createParentOrder } from "../promotion/parent.ts";
import { releaseMemory } from "../memory.ts";
import { newGeneration } from "../state/cache.ts";
import { type InvalidRow, type SearchedRows, uncounted } from "../state/cache_full_body.ts";
import { CacheRecorder } from "../state/cache_recorder.ts";
import {
  countSkipped,
  logGrouping,
  NO_STATISTICS,
  type PassInput,
  type Reading,
  recordingOf,
  warnOnce,
  watermarkOf,
} from "./input.ts";
import { readStacks } from "./timeline.ts";

/**
 * Search pages between two {@linkcode releaseMemory} calls while assets stream in. Each page of
 * 1 000 assets with EXIF leaves 3-5 MB of garbage in the old generation (its text and what
 * `JSON.parse` made of it outlive the young one), which V8 lets reach twice what is live before
 * it collects: at 200 000 assets the search peaked at 250 MB collecting every 100 pages, 185 MB
 * every 20 (9 collections of 40-100 ms, where V8 then needs fewer of its own).
 */
const PAGES_PER_RELEASE = 20;

/**
 * Reads the whole library, logging `Full pass: <why>`.
 *
 * @param reading The user's reading.
 * @param reason Why the pass is full.
 * @returns What to plan from, and the recorder of a new cache when one is kept.
 */
export async function fullRead(reading: Reading, reason: string): Promise<PassInput> {
  const { client, log, filter, files, options } = reading;
  log.info("Full pass: {why}", { pass: "full", why: reason });
  const scopes = searchScopes(filter);
  const keep = files !== undefined && options.record && !reading.loss?.lost &&
    scopes.length <= MAX_SCOPES;
  const serverCounts = keep ? await client.countAssets(filter) : undefined;
  if (keep && serverCounts === undefined) warnOnce(reading, "statistics", NO_STATISTICS);
  // Assets before stacks: a stack that changes between the two reads moves its members'
  // updatedAt past what the cache records, so the next pass reads it again; read the other way
  // round, the cache would record the new updatedAt beside the old stack and never look again.
  const searched = await searchLibrary(reading);
  const { assets, trashed, invalid } = searched;
  log.debug("Fetched {count} assets", { count: assets.length });
  releaseMemory();
  // Members keep their asset's id string: one copy of each id instead of two.
  let knownIds: Map<string, string> | undefined = new Map();
  for (const asset of assets) knownIds.set(asset.id, asset.id);
  const stacks = await readStacks(client, log, knownIds);
  knownIds = undefined;
  releaseMemory();
  log.debug("Fetched {count} stacks", { count: stacks.length });

  let computeMs = 0;
  const timed = <T>(step: () => T): T => {
    const started = performance.now();
    const result = step();
    computeMs += performance.now() - started;
    return result;
  };
  const cached = serverCounts !== undefined;
  let stacked = 0;
  for (const stack of stacks) stacked += stack.assetIds.length;
  // Most of the library unstacked (a first run): the plan moves more assets than
  // INCREMENTAL_MAX_CHANGES and the cache keeps no body, so grouping leaves out the buckets only
  // the body needs (27 MB at 200 000 assets, at grouping's peak); grouped again if it keeps one.
  const criteria = reading.query.criteria;
  const bucketsNow = cached && stacked * 2 >= assets.length;
  const grouping = timed(() => groupAssets(assets, criteria, { buckets: bucketsNow }));
  releaseMemory();
  const order = createParentOrder(reading.query.promotion);
  // No collection after promotion: it leaves next to no garbage (1-2 MB of 110 at 200 000).
  const groups = timed(() => grouping.groups.map((group) => order.promote(group)));
  logGrouping(reading, grouping, groups);
  const skippedAssets = countSkipped(grouping, invalid.length);
  if (!cached || files === undefined) {
    return { kind: "full", assets, stacks, groups, trashed, skippedAssets, computeMs };
  }

  // The new cache's header is known now; its body is written below or once planned
  // (docs/state.md, "The cache").
  const watermark = searched.watermark ?? 0;
  const cache = new CacheRecorder(recordingOf(reading, files), {
    generation: newGeneration(),
    watermark,
    fullPassAt: watermark,
    fullPassClock: reading.startedAt,
    ...uncounted(watermark - OVERLAP_MS),
    sizes: { assets: assets.length + invalid.length, stacks: stacks.length, groups: groups.length },
    sums: {},
    skippedAssets,
  }, {
    ...searched,
    archived: scopes.map((scope) => scope.visibility === "archive"),
    buckets: bucketsOf(assets, criteria, grouping.buckets),
    skipped: grouping.skipped,
    stacks,
    groups,
    serverCounts,
  });
  // Where the stacks hold about as many assets as the groups, few writes are coming: the body
  // is written now, before planning adds its data to the peak of memory, and its garbage
  // collected. Otherwise (a first run) the plan decides (CacheRecorder.planned).
  let grouped = 0;
  for (const group of groups) grouped += group.assets.length;
  if (grouped - stacked <= reading.query.maxChanges) {
    await cache.writeBody();
    releaseMemory();
  }
  return { kind: "full", assets, stacks, groups, trashed, skippedAssets, computeMs, cache };
}

/**
 * The assets' grouping buckets for the cache's body: those grouping gave, or grouped again when
 * it gave none. A function of its own, so that it keeps only these alive until the body is
 * written, not the rest of the read.
 */
function bucketsOf(
  assets: readonly Asset[],
  criteria: GroupingRules,
  buckets: readonly BucketHashes[] | undefined,
): () => readonly BucketHashes[] {
  return () => buckets ?? groupAssets(assets, criteria, { buckets: true }).buckets!;
}

/** What the searches of a full pass found. */
interface Searched extends SearchedRows {
  readonly trashed: Set<string>;
  /** The server's data time the searches began at, at the latest; undefined when none found. */
  readonly watermark?: number;
}

/**
 * Reads every asset the pass's searches find, page by page: the user's valid and invalid ones,
 * which searches found each, the trashed ones, and other users' assets by id.
 *
 * @param reading The user's reading.
 * @returns What the searches found.
 */
async function searchLibrary(reading: Reading): Promise<Searched> {
  const { client, filter } = reading;
  const assets: Asset[] = [];
  const updatedAt: number[] = [];
  const scopeBits: number[] = [];
  const trashed = new Set<string>();
  const invalid: InvalidRow[] = [];
  const others = new Map<string, OtherAsset>();
  // Albums overlap: an asset found again by another album's search belongs to it too.
  const indexOf = filter.albumIds?.length ? new Map<string, number>() : undefined;
  let pages = 0;
  let newest = -1;
  const started = performance.now();
  for await (const page of client.searchAssets(filter)) {
    // Before a page, not after: never just before the collection that follows the last page.
    if (pages > 0 && pages % PAGES_PER_RELEASE === 0) releaseMemory();
    pages++;
    const bit = 1 << page.search;
    for (const [i, asset] of page.assets.entries()) {
      indexOf?.set(asset.id, assets.length);
      assets.push(asset);
      updatedAt.push(page.updatedAt[i]);
      scopeBits.push(bit);
      if (page.updatedAt[i] > newest) newest = page.updatedAt[i];
    }
    for (const id of page.trashedIds) trashed.add(id);
    for (const item of page.invalid) {
      invalid.push({ ...item, updatedAt: item.updatedAt ?? -1, bits: bit });
    }
    for (const id of page.repeats) {
      const index = indexOf?.get(id);
      if (index !== undefined) scopeBits[index] |= bit;
      const bad = invalid.find((item) => item.id === id);
      if (bad !== undefined) bad.bits |= bit;
    }
    for (const other of page.others) {
      const known = others.get(other.id);
      others.set(other.id, { updatedAt: other.updatedAt, scopes: (known?.scopes ?? 0) | bit });
    }
  }
  indexOf?.clear();
  const found = { assets, updatedAt, scopeBits, trashed, invalid, others };
  return newest < 0 ? found : { ...found, watermark: watermarkOf(newest, started) };
}
