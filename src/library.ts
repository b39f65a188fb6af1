/**
 * How a pass obtains the library it plans from, at the edge of the functional core: the whole
 * library from the server (a full pass), or the cache of the last pass plus what changed since
 * (an incremental pass), and how the pass's writes and its end are recorded in the cache. Each
 * pass logs which kind it is and why. docs/incremental.md explains the choice, what is cached
 * and what only a full pass sees.
 *
 * @module
 */
import type { Logger } from "@logtape/logtape";
import { literal } from "./log.ts";
import { TransientError } from "./api/http.ts";
import { displayUrl } from "./shown_url.ts";
import type { AnsweredStack, ImmichClient, SearchFilter } from "./api/immich.ts";
import { searchScopes } from "./api/immich.ts";
import { SETTINGS, type Settings } from "./config.ts";
import { criterionFields, type GroupingRules, promotionInputs } from "./grouping/criteria.ts";
import {
  type BucketHashes,
  bucketList,
  compare,
  groupAssets,
  type GroupingResult,
} from "./grouping/group.ts";
import {
  countMismatch,
  decidePass,
  type Decision,
  OVERLAP_MS,
  tooManyChanges,
} from "./incremental/decide.ts";
import { byPlace, mergeEntries, type PlanEntries, smallestId } from "./incremental/entries.ts";
import { membersOf } from "./reconcile/plan.ts";
import {
  applyWrites,
  compactStack,
  DigestBuilder,
  expandStack,
  findRows,
  flagsOf,
  idOf,
  type Library,
  liveRows,
  matchRows,
  MAX_SCOPES,
  mergeChanges,
  type OtherAsset,
  recentDigest,
  type Ref,
  regionOf,
  REMOVED,
  rowsInBuckets,
  scopeCounts,
  setBuckets,
  skippedCounts,
  TRASHED,
} from "./incremental/library.ts";
import type { Action, Asset, Group, Outcome, Plan, SkippedAsset, Stack, User } from "./model.ts";
import {
  createParentOrder,
  needsFileSize,
  type PromotedGroup,
  type PromotionOptions,
} from "./promotion/parent.ts";
import {
  BodyWriter,
  type CacheFiles,
  cacheFilesOf,
  type CacheHeader,
  type CacheRead,
  DeltaWriter,
  earlierSettings,
  newGeneration,
  pruneCache,
  readCache,
  readCacheHeader,
  readRows,
  readStoredPlan,
  rewriteBody,
  stackRecords,
  type StoredPlan,
  writeCacheHeader,
  writeStoredPlan,
} from "./state/cache.ts";
import type { AnsweringStackWriter, RecordedStack } from "./state/journal.ts";

/**
 * Search pages between two {@linkcode releaseMemory} calls while assets stream in: every 50
 * pages cost a full pass at 200 000 assets 0.3-0.5 s of CPU more for no lower peak.
 */
const PAGES_PER_RELEASE = 100;

/**
 * Runs a full garbage collection when the runtime exposes one (`--v8-flags=--expose-gc`, as
 * `deno task start` and the binaries run). A pass parses a stack list of 150 MB and 200 search
 * pages to keep a few tens of megabytes, and grouping and promotion build scratch data as large
 * as what they keep; left to itself V8 lets that garbage pile up in the old generation between
 * collections, which at 200 000 assets adds over 100 MB to the peak on a small NAS. Collecting
 * where a phase's garbage has just died costs a few hundred milliseconds.
 */
export function releaseMemory(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** What the reading side keeps from pass to pass of one process (cron mode). */
export class PassMemory {
  /** The users whose pass this process started already. */
  readonly started = new Set<string>();
  /** Warnings already given, by user and topic: each is given once per process. */
  readonly warned = new Set<string>();
}

/** Where the cache is and what a pass may do with it. */
export interface ReadingOptions {
  /** STATE_DIR; undefined when there is none to use: every pass is full. */
  readonly stateDir?: string;
  /** Write the cache (a real run); a dry run only reads it. */
  readonly record: boolean;
  /** Why every pass reads the whole library whatever the cache says (`--full`, apply). */
  readonly full?: string;
  /** Cron mode: the process's first pass is full. */
  readonly cron?: boolean;
  /** What the process's earlier passes left; a pass of its own without it. */
  readonly memory?: PassMemory;
  /** The clock that schedules full passes (FULL_PASS_INTERVAL), ms since the epoch. */
  readonly now: () => number;
  /** The stacksync version, for the cache's header. */
  readonly version: string;
}

/** The end of a pass, as the cache records it. */
export interface PassEnd {
  readonly plan: Plan;
  readonly outcomes: readonly Outcome[];
  /** Why the pass did not finish cleanly (failed actions, errors from the server, a signal). */
  readonly unfinished?: string;
}

/** Records a pass's plan, writes and end in the cache. */
export interface PassCache {
  /** Wraps the writer so that each write's answer is recorded. */
  writes(writer: AnsweringWriter): AnsweringStackWriter;
  /**
   * Keeps the plan's entries (where nothing changes, the next pass plans the same), and writes
   * a full pass's library if the next pass can use it.
   */
  planned(entries: PlanEntries, plan: Plan): Promise<void>;
  /** Records how the pass ended; the next pass reads from here. */
  finish(end: PassEnd): Promise<void>;
}

/**
 * A cache recorder whose pass counts as unfinished whatever its end: for a pass that leaves
 * planned actions undone on purpose (apply carries out only its file's). The next incremental
 * pass keeps the last plan outside what changed, trusting that all of it was carried out, so it
 * must be full instead.
 *
 * @param cache The pass's recorder.
 * @param why What the next pass's `Full pass: …` line says.
 * @returns The recorder.
 */
export function leavingUndone(cache: PassCache, why: string): PassCache {
  return {
    writes: (writer) => cache.writes(writer),
    planned: (entries, plan) => cache.planned(entries, plan),
    finish: (end) => cache.finish({ ...end, unfinished: end.unfinished ?? why }),
  };
}

/** A writer whose creates and updates answer with the members' `updatedAt` (the Immich client). */
export interface AnsweringWriter extends AnsweringStackWriter {
  createStack(assetIds: readonly string[]): Promise<AnsweredStack>;
  updateStackPrimary(stackId: string, primaryAssetId: string): Promise<AnsweredStack>;
}

/**
 * What an incremental pass adds to what it plans from: only the dirty region is planned; the
 * rest of the plan is the last one's.
 */
export interface Rest {
  /** The last plan's entries; those that touch the region are left out when merging. */
  readonly kept: PlanEntries;
  /** The region's stacks and assets. */
  readonly dirty: { readonly stacks: ReadonlySet<string>; readonly assets: ReadonlySet<string> };
  /**
   * The stacks outside the region, by their cover alone: the search for trashed and hidden
   * members tells the covers of every stack from other assets.
   */
  otherStacks(): Stack[];
  /** How many groups the whole library has. */
  readonly groups: number;
  /** Every stack as the journal records it, read from the cache when the journal opens. */
  records(marks: {
    readonly trashed: ReadonlySet<string>;
    readonly unlisted: ReadonlySet<string>;
  }): Iterable<RecordedStack>;
}

/** What a pass plans from. */
export type PassInput =
  | {
    readonly kind: "full" | "incremental";
    /** The user's assets grouping read (valid ones); for an incremental pass, the region's. */
    readonly assets: readonly Asset[];
    /** The stacks as `GET /stacks` lists them, by id; for an incremental pass, the region's. */
    readonly stacks: readonly Stack[];
    /** Promoted groups, parent first, in grouping's order; for an incremental pass, the region's. */
    readonly groups: readonly Group[];
    /** Assets the pass read that are in the trash (WITH_DELETED). */
    readonly trashed: Set<string>;
    readonly skippedAssets: Readonly<Record<string, number>>;
    /** Grouping and promotion time, for the debug line. */
    readonly computeMs: number;
    readonly cache?: PassCache;
    /** For an incremental pass: the rest of the library. */
    readonly rest?: Rest;
  }
  | {
    readonly kind: "incremental";
    /**
     * Nothing changed since a pass that planned no change: its plan, which planning the same
     * library again would give.
     */
    readonly reused: Plan;
    readonly skippedAssets: Readonly<Record<string, number>>;
    readonly cache?: PassCache;
  };

/**
 * The settings a cache's content and plan depend on (reading, grouping, planning), as text by
 * variable name.
 *
 * @param settings The run's settings.
 * @param albumIds FILTER_ALBUM_IDS resolved to ids.
 * @returns The values.
 */
function cacheSettings(
  settings: Settings,
  albumIds: readonly string[] | undefined,
): Record<string, string> {
  const text = (value: unknown) => value === undefined ? "" : JSON.stringify(value);
  return {
    [SETTINGS.criteria.env]: text(settings.criteria),
    [SETTINGS.parentFilenamePromote.env]: text(settings.parentFilenamePromote),
    [SETTINGS.parentExtPromote.env]: text(settings.parentExtPromote),
    [SETTINGS.withArchived.env]: text(settings.withArchived),
    [SETTINGS.withDeleted.env]: text(settings.withDeleted),
    [SETTINGS.includeVideos.env]: text(settings.includeVideos),
    [SETTINGS.filterAlbumIds.env]: text(albumIds),
    [SETTINGS.filterTakenAfter.env]: text(settings.filterTakenAfter),
    [SETTINGS.filterTakenBefore.env]: text(settings.filterTakenBefore),
    [SETTINGS.replaceStacks.env]: text(settings.replaceStacks),
    [SETTINGS.removeSingleAssetStacks.env]: text(settings.removeSingleAssetStacks),
  };
}

/**
 * The promotion options of the settings and criteria: the promote lists, the regex promotions
 * and the delimiters `biggestNumber` reads after.
 *
 * @param settings PARENT_FILENAME_PROMOTE and PARENT_EXT_PROMOTE.
 * @param criteria The parsed CRITERIA.
 * @returns The options for `createParentOrder`.
 */
export function promotionOptions(
  settings: Pick<Settings, "parentFilenamePromote" | "parentExtPromote">,
  criteria: GroupingRules,
): PromotionOptions {
  const { regexPromotions, delimiters } = promotionInputs(criteria);
  return {
    filenamePromote: settings.parentFilenamePromote,
    extPromote: settings.parentExtPromote,
    regexPromotions,
    // Without an originalFileName split, biggestNumber reads after the default delimiters.
    ...(delimiters.length > 0 ? { delimiters } : {}),
  };
}

function compareIds(a: Stack, b: Stack): number {
  return compare(a.id, b.id);
}

/** Everything one user's reading needs. */
interface Reading {
  readonly client: ImmichClient;
  readonly user: User;
  readonly settings: Settings;
  readonly criteria: GroupingRules;
  readonly options: ReadingOptions;
  readonly memory: PassMemory;
  readonly log: Logger;
  readonly filter: SearchFilter;
  readonly promotion: PromotionOptions;
  /** The cache's files; undefined when there is no STATE_DIR. */
  readonly files?: CacheFiles;
  readonly settingsText: Record<string, string>;
  readonly immich: string;
  /** Server time at the start of the pass (its Date), if the server dates its answers. */
  readonly startedAt?: number;
}

/**
 * Reads the library a user's pass plans from, fully or incrementally, and logs which and why.
 *
 * @param client The user's client.
 * @param user The key's user.
 * @param settings The run's settings.
 * @param criteria The parsed CRITERIA.
 * @param options Where the cache is and what the pass may do with it.
 * @param log The user's logger.
 * @returns What to plan from, and the cache's recorder.
 */
export async function readPassInput(
  client: ImmichClient,
  user: User,
  settings: Settings,
  criteria: GroupingRules,
  options: ReadingOptions,
  log: Logger,
): Promise<PassInput> {
  const promotion = promotionOptions(settings, criteria);
  const albumIds = settings.filterAlbumIds === undefined
    ? undefined
    : await client.resolveAlbumIds(settings.filterAlbumIds);
  const filter: SearchFilter = {
    withArchived: settings.withArchived,
    withDeleted: settings.withDeleted,
    includeVideos: settings.includeVideos,
    takenAfter: settings.filterTakenAfter,
    takenBefore: settings.filterTakenBefore,
    albumIds,
    withFileSize: needsFileSize(promotion),
    withCamera: criteria.form === "devices",
    fields: criterionFields(criteria),
  };
  const version = await client.serverVersion();
  const settingsText = cacheSettings(settings, albumIds);
  const files = options.stateDir === undefined
    ? undefined
    : cacheFilesOf(options.stateDir, displayUrl(settings.apiUrl), user.id, settingsText);
  const startedAt = client.serverTime();
  const memory = options.memory ?? new PassMemory();
  const reading: Reading = {
    memory,
    client,
    user,
    settings,
    criteria,
    options,
    log,
    filter,
    promotion,
    ...(files === undefined ? {} : { files }),
    settingsText,
    immich: `${version.major}.${version.minor}.${version.patch}`,
    ...(startedAt === undefined ? {} : { startedAt }),
  };
  const firstPass = !memory.started.has(user.id);
  memory.started.add(user.id);
  const decision = await decide(reading, firstPass);
  // Until the pass ends well the cache says it did not: a pass killed midway makes the next full.
  if (options.record && files !== undefined && decision.header !== undefined) {
    await writeCacheHeader(files, { ...decision.header, unfinished: STOPPED });
  }
  if (decision.kind === "full") return await fullRead(reading, decision.reason);
  const read = await incrementalRead(reading, decision.since, decision.header);
  return typeof read === "string" ? await fullRead(reading, read) : read;
}

/** Why the last pass did not finish, as long as a pass has not ended well. */
const STOPPED = "it stopped before its end (killed, or a user was skipped)";

async function decide(
  reading: Reading,
  firstPass: boolean,
): Promise<
  | { kind: "full"; reason: string; header?: CacheHeader }
  | { kind: "incremental"; since: number; header: CacheHeader }
> {
  const { options, settings, files } = reading;
  if (files === undefined) {
    return { kind: "full", reason: options.full ?? "no STATE_DIR to keep a cache in" };
  }
  const read = await readCacheHeader(files);
  const header = "header" in read ? read.header : undefined;
  const forced = options.full !== undefined
    ? options.full
    : settings.resetStacks
    ? "RESET_STACKS"
    : options.cron && firstPass
    ? "the first pass of a cron process reads everything"
    : undefined;
  const decision: Decision = decidePass({
    ...(forced === undefined ? {} : { forced }),
    ...(header === undefined ? {} : { cache: header }),
    ...("unreadable" in read ? { unreadable: read.unreadable } : {}),
    ...("missing" in read ? await earlier(files) : {}),
    settings: reading.settingsText,
    immich: reading.immich,
    now: options.now(),
    fullPassInterval: settings.fullPassInterval,
    maxChanges: settings.incrementalMaxChanges,
  });
  if (decision.kind === "full" || header === undefined) {
    return {
      kind: "full",
      reason: decision.kind === "full" ? decision.reason : "no cache",
      ...(header === undefined ? {} : { header }),
    };
  }
  return { kind: "incremental", since: decision.since, header };
}

async function earlier(files: CacheFiles) {
  const found = await earlierSettings(files);
  return found === undefined ? {} : { earlier: found };
}

/**
 * Says that the cache cannot be written: that costs the next pass its speed, never this pass.
 *
 * @param log The user's logger.
 * @param error Why.
 */
export function warnCacheUnwritten(log: Logger, error: unknown): void {
  log.warn(
    "Cannot write the cache of incremental passes: {error}; the next pass reads everything",
    { error: error instanceof Error ? error.message : String(error) },
  );
}

/** Warns once per process and user that a cache cannot be kept, and why. */
function warnOnce(reading: Reading, topic: string, message: string): void {
  const key = `${reading.user.id}:${topic}`;
  if (reading.memory.warned.has(key)) return;
  reading.memory.warned.add(key);
  reading.log.warn(literal(message));
}

const NO_STATISTICS = "The API key cannot count assets (POST /search/statistics needs the " +
  "permission asset.statistics, from Immich v1.118): every pass reads the whole library; add " +
  "the permission to read only what changed";

/**
 * Reads the stacks with `GET /stacks`, or through the timeline when the server fails to list
 * them (Immich cannot serialise about 100 000 stacks).
 *
 * @param client The user's client.
 * @param log The user's logger: the fallback is logged once, with the reason.
 * @returns The stacks, ordered by id.
 */
async function readStacks(client: ImmichClient, log: Logger): Promise<Stack[]> {
  let stacks: Stack[];
  try {
    stacks = await client.listStacks();
  } catch (error) {
    if (!(error instanceof TransientError) || error.status === undefined || error.status < 500) {
      throw error;
    }
    log.warn(
      "Reading the stacks through the timeline instead, one request per month and per stack, " +
        "as GET /stacks failed: {error}",
      { error: error.message },
    );
    stacks = await client.listStacksByTimeline();
  }
  return stacks.sort(compareIds);
}

/** A full pass: every stack and every asset from the server, and a new cache from them. */
async function fullRead(reading: Reading, reason: string): Promise<PassInput> {
  const { client, log, filter, files, options } = reading;
  log.info("Full pass: {why}", { pass: "full", why: reason });
  const scopes = searchScopes(filter);
  const keep = files !== undefined && options.record && scopes.length <= MAX_SCOPES;
  const serverCounts = keep ? await client.countAssets(filter) : undefined;
  if (keep && serverCounts === undefined) warnOnce(reading, "statistics", NO_STATISTICS);
  const stacks = await readStacks(client, log);
  releaseMemory();
  log.debug("Fetched {count} stacks", { count: stacks.length });

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
  log.debug("Fetched {count} assets", { count: assets.length });
  releaseMemory();

  let computeMs = 0;
  const timed = <T>(step: () => T): T => {
    const started = performance.now();
    const result = step();
    computeMs += performance.now() - started;
    return result;
  };
  const cached = serverCounts !== undefined;
  const grouping = timed(() => groupAssets(assets, reading.criteria, { buckets: cached }));
  releaseMemory();
  const order = createParentOrder(reading.promotion);
  // No collection after promotion: it leaves next to no garbage (1-2 MB of 110 at 200 000).
  const groups = timed(() => grouping.groups.map((group) => order.promote(group)));
  logGrouping(reading, grouping, groups);
  const skippedAssets = countSkipped(grouping, invalid.length);
  if (!cached || files === undefined) {
    return { kind: "full", assets, stacks, groups, trashed, skippedAssets, computeMs };
  }

  // The new cache's header is known now; its body is written below or once planned
  // (docs/state.md, "The cache").
  const watermark = reading.startedAt ?? newest;
  const cache = new CacheRecorder(reading, {
    generation: newGeneration(),
    watermark,
    fullPassAt: options.now(),
    ...uncounted(watermark - OVERLAP_MS),
    sizes: { assets: assets.length + invalid.length, stacks: stacks.length, groups: groups.length },
    skippedAssets,
  }, {
    assets,
    updatedAt,
    scopeBits,
    trashed,
    archived: scopes.map((scope) => scope.visibility === "archive"),
    buckets: grouping.buckets!,
    skipped: grouping.skipped,
    invalid,
    others,
    stacks,
    groups,
    serverCounts,
  });
  // Where the stacks hold about as many assets as the groups, few writes are coming: the body
  // is written now, before planning adds its data to the peak of memory, and its garbage
  // collected. Otherwise (a first run) the plan decides (CacheRecorder.planned).
  let grouped = 0;
  for (const group of groups) grouped += group.assets.length;
  let stacked = 0;
  for (const stack of stacks) stacked += stack.assetIds.length;
  if (grouped - stacked <= reading.settings.incrementalMaxChanges) {
    await cache.writeBody();
    releaseMemory();
  }
  return { kind: "full", assets, stacks, groups, trashed, skippedAssets, computeMs, cache };
}

/** What the next pass compares with the server: known once a body is written. */
type Tally = Pick<Planned, "offsets" | "counts" | "recent">;

/**
 * The tally of a header without a body. No pass reads it: such a cache has no plan, and an
 * incremental pass without one is full. Were it read, its empty counts would differ from the
 * server's, which makes a pass full too.
 *
 * @param since Where the next search for changes would start.
 */
function uncounted(since: number): Tally {
  return { offsets: [], counts: [], recent: { count: 0, digest: "", since } };
}

/** What a full pass's cache body is written from: the reads, grouping and promotion. */
interface BodyRows {
  readonly assets: readonly Asset[];
  /** Per asset. */
  readonly updatedAt: readonly number[];
  /** Per asset: which searches found it. */
  readonly scopeBits: readonly number[];
  readonly trashed: ReadonlySet<string>;
  /** Per search: whether it reads the archive. */
  readonly archived: readonly boolean[];
  /** Per asset. */
  readonly buckets: readonly BucketHashes[];
  readonly skipped: readonly SkippedAsset[];
  readonly invalid: readonly InvalidRow[];
  readonly others: ReadonlyMap<string, OtherAsset>;
  readonly stacks: readonly Stack[];
  readonly groups: readonly Group[];
  /** Per search: how many assets the server counts. */
  readonly serverCounts: readonly number[];
}

/** An asset whose data grouping cannot read, as the body keeps it. */
interface InvalidRow {
  readonly id: string;
  readonly field: string;
  readonly message: string;
  readonly updatedAt: number;
  /** Which searches found it: grows while the searches read. */
  bits: number;
}

/**
 * Writes a full pass's cache body: its rows are the assets in search order, then the invalid
 * ones.
 *
 * @param files The cache.
 * @param generation The body's generation.
 * @param rows What it is written from.
 * @param since Where the next search for changes starts.
 * @returns What the next pass compares with the server.
 */
async function writeBody(
  files: CacheFiles,
  generation: string,
  rows: BodyRows,
  since: number,
): Promise<Tally> {
  const { assets, updatedAt, scopeBits, trashed, buckets } = rows;
  const counts = new Array<number>(rows.serverCounts.length).fill(0);
  const recent = new DigestBuilder();
  const count = (id: string, time: number, bits: number) => {
    for (let i = 0; i < counts.length; i++) if (bits & 1 << i) counts[i]++;
    if (time >= since) recent.add(id, time);
  };
  const body = await BodyWriter.create(files, generation);
  try {
    const rowOf = new Map<string, number>();
    const skipOf = new Map(rows.skipped.map((skip) => [skip.asset, skip.reason]));
    // An index loop: this runs for each of 200 000 rows, and entries() makes a pair per row.
    for (let row = 0; row < assets.length; row++) {
      const asset = assets[row];
      rowOf.set(asset.id, row);
      const bits = scopeBits[row];
      count(asset.id, updatedAt[row], bits);
      body.row({
        id: asset.id,
        asset,
        updatedAt: updatedAt[row],
        flags: flagsOf(bits, {
          trashed: trashed.has(asset.id),
          archived: rows.archived[firstScope(bits)],
        }),
        buckets: bucketList(buckets[row]),
        skip: skipOf.get(asset),
      });
    }
    for (const item of rows.invalid) {
      rowOf.set(item.id, rowOf.size);
      count(item.id, item.updatedAt, item.bits);
      body.row({
        id: item.id,
        invalid: { field: item.field, message: item.message },
        updatedAt: item.updatedAt,
        flags: flagsOf(item.bits, { invalid: true }),
        buckets: [],
      });
    }
    for (const [id, other] of rows.others) {
      count(id, other.updatedAt, other.scopes);
      body.other(id, other);
    }
    const ref = (id: string) => rowOf.get(id) ?? id;
    for (const stack of rows.stacks) body.stack(compactStack(stack, ref));
    for (const group of rows.groups) {
      body.group(group.key, group.assets.map((asset) => rowOf.get(asset.id)!));
    }
    await body.finish();
  } catch (error) {
    await body.abandon();
    throw error;
  }
  return {
    offsets: rows.serverCounts.map((n, i) => n - counts[i]),
    counts,
    recent: { ...recent.build(), since },
  };
}

/** The index of the lowest bit set: the first search that found an asset. */
function firstScope(bits: number): number {
  return 31 - Math.clz32(bits & -bits);
}

function countSkipped(grouping: GroupingResult, invalid: number): Record<string, number> {
  const counts: Record<string, number> = {};
  if (invalid > 0) counts["invalid-data"] = invalid;
  for (const { reason } of grouping.skipped) counts[reason] = (counts[reason] ?? 0) + 1;
  return counts;
}

/** The log lines about grouping: assets left out, and each group's parent at debug. */
function logGrouping(
  reading: Reading,
  grouping: { readonly skipped: readonly SkippedAsset[] },
  groups: readonly PromotedGroup[],
): void {
  const { log } = reading;
  for (const { asset, reason, key, detail } of grouping.skipped) {
    // A time that cannot be read is bad data; a criterion that does not apply is normal.
    const level = reason === "invalid-time" ? "warn" : "debug";
    log[level]("Asset left out of grouping: {reason}", {
      assetID: asset.id,
      filename: asset.originalFileName,
      reason,
      criterion: key,
      detail,
    });
  }
  // Building these properties for 50 000 groups costs time even when debug is off.
  if (!log.isEnabledFor("debug")) return;
  for (const promoted of groups) {
    log.debug("Group {key}: parent {filename} chosen by {rule}", {
      key: promoted.key,
      filename: promoted.assets[0].originalFileName,
      assetID: promoted.assets[0].id,
      rule: promoted.parentRule,
      detail: promoted.parentDetail,
      members: promoted.assets.map((asset) => asset.originalFileName),
    });
  }
}

/**
 * An incremental pass: the cache, and what changed since its pass; a reason instead when the
 * pass must read everything after all.
 */
async function incrementalRead(
  reading: Reading,
  since: number,
  header: CacheHeader,
): Promise<PassInput | string> {
  const { client, log, filter, files, options } = reading;
  if (files === undefined) return "no STATE_DIR to keep a cache in";
  let stored: StoredPlan | undefined;
  try {
    stored = await readStoredPlan(files, header.generation);
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
  const max = reading.settings.incrementalMaxChanges;
  const limit = max + header.recent.count + header.written;
  const changes = await client.changedAssets(filter, since, limit);
  if (changes === undefined) {
    return `more assets changed since the last pass than INCREMENTAL_MAX_CHANGES (${max})`;
  }
  let newest = header.watermark;
  for (const change of changes) if (change.updatedAt > newest) newest = change.updatedAt;
  const watermark = reading.startedAt ?? newest;
  const nextSince = watermark - OVERLAP_MS;
  const sinceText = new Date(header.watermark).toISOString();

  // A pass that planned no change, and nothing changed since: its plan holds.
  if (header.steady && stored.entries.volatile.length === 0) {
    const found = new DigestBuilder();
    for (const change of changes) found.add(change.id, change.updatedAt);
    const digest = found.build();
    const expected = header.counts.map((count, i) => count + header.offsets[i]);
    if (
      header.recent.since === since && digest.count === header.recent.count &&
      digest.digest === header.recent.digest && countMismatch(serverCounts, expected) === undefined
    ) {
      log.info("Incremental pass: nothing changed since {since}", {
        pass: "incremental",
        since: sinceText,
        changed: 0,
      });
      const next = new DigestBuilder();
      for (const change of changes) {
        if (change.updatedAt >= nextSince) next.add(change.id, change.updatedAt);
      }
      const cache = new CacheRecorder(reading, {
        generation: header.generation,
        watermark,
        fullPassAt: header.fullPassAt,
        offsets: header.offsets,
        counts: header.counts,
        recent: { ...next.build(), since: nextSince },
        sizes: header.sizes,
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
  }

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
  const written = applyWrites(library, read.writes);
  const merged = mergeChanges(library, changes, header.watermark);
  const tooMany = tooManyChanges(merged.changed.length, max);
  if (tooMany !== undefined) return tooMany;
  const scopes = searchScopes(filter);
  const cachedCounts = scopeCounts(library, scopes.length).map((n, i) => n + header.offsets[i]);
  const mismatch = countMismatch(serverCounts, cachedCounts);
  if (mismatch !== undefined) return mismatch;
  log.info(
    merged.changed.length === 1
      ? "Incremental pass: {changed} asset changed since {since}"
      : "Incremental pass: {changed} assets changed since {since}",
    { pass: "incremental", changed: merged.changed.length, since: sinceText },
  );

  const refreshed = await refreshStacks(reading, library, merged.changed, since);
  let computeMs = 0;
  const started = performance.now();
  // The changed assets' buckets now; with those they had, the buckets to regroup.
  const fresh = [...merged.rows].filter(([, row]) => row.asset !== undefined);
  const freshBuckets = groupAssets(fresh.map(([, row]) => row.asset!), reading.criteria, {
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
    [...refreshed, ...written.stacks, ...stored.entries.volatile],
  );
  computeMs += performance.now() - started;

  // The region in full: its rows' assets and its groups' keys, from the cache.
  const read2 = await readRows(
    files,
    header,
    new Set([...region.rows].filter((row) => !merged.rows.has(row))),
    region.groups,
  );
  const contents = read2.rows;
  for (const [row, data] of merged.rows) contents.set(row, data);
  const started2 = performance.now();
  const assetOf = (row: number) =>
    library.flags[row] === REMOVED ? undefined : contents.get(row)?.asset;
  const regrouping = [...regroupRows].filter((row) => assetOf(row) !== undefined);
  const regrouped = groupAssets(regrouping.map((row) => assetOf(row)!), reading.criteria, {
    buckets: true,
  });
  const rowOfId = new Map(regrouping.map((row) => [idOf(library, row), row]));
  for (const [i, row] of regrouping.entries()) {
    setBuckets(library, row, regrouped.buckets![i]);
    library.skips.delete(row);
  }
  for (const skip of regrouped.skipped) library.skips.set(rowOfId.get(skip.asset.id)!, skip.reason);
  const order = createParentOrder(reading.promotion);
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
      labelled({ key: read2.keys.get(index)!, assets: rows.map((row) => assetOf(row)!) }, reading),
    );
  }
  const groups = [...kept, ...promoted]
    .map((group) => ({ group, key: group.key, first: smallestId(group) }))
    .sort(byPlace)
    .map(({ group }) => group);
  computeMs += performance.now() - started2;
  logGrouping(reading, regrouped, promoted);
  log.debug("Planning {groups} groups and {stacks} stacks again", {
    groups: groups.length,
    stacks: region.stacks.size,
  });

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
  const rest: Rest = {
    kept: stored.entries,
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
    groups: library.groups.live + promoted.length,
    // Read from the cache's body: its names and records are garbage once written.
    records: function* (marks) {
      yield* stackRecords(files, generation, library, marks);
      releaseMemory();
    },
  };
  const base = {
    kind: "incremental" as const,
    assets,
    stacks,
    groups,
    trashed,
    skippedAssets,
    computeMs,
    rest,
  };
  if (!options.record) return base;
  const newGroups = promoted.map((group) => ({
    key: group.key,
    rows: group.assets.map((asset) => rowOfId.get(asset.id)!),
  }));
  await rewriteBody(files, header, generation, library, {
    rows: contents,
    droppedGroups,
    newGroups,
  });
  for (const group of newGroups) library.groups.add(group.rows);
  const cache = new CacheRecorder(reading, {
    generation,
    watermark,
    fullPassAt: header.fullPassAt,
    offsets: header.offsets,
    counts: scopeCounts(library, scopes.length),
    recent: { ...recentDigest(library, nextSince), since: nextSince },
    sizes: {
      assets: liveRows(library),
      stacks: library.stacks.size,
      groups: rest.groups,
    },
    skippedAssets,
  });
  return { ...base, cache };
}

/**
 * A group kept from the cache, with the rule that made it when the default rules did: they say
 * it again from the group's assets alone, which is what made it (docs/incremental.md).
 */
function labelled(group: Group, reading: Reading): Group {
  if (reading.criteria.form !== "devices") return group;
  const label = groupAssets(group.assets, reading.criteria).groups[0]?.label;
  return label === undefined ? group : { ...group, label };
}

/** Why a pass is full when a file of the cache cannot be read. */
function unreadable(error: unknown): string {
  return `the cache cannot be read: ${error instanceof Error ? error.message : error}`;
}

/**
 * Reads again the stacks the changed assets left or joined: `GET /assets/{id}` names an
 * asset's stack (a search without stacked assets first spares new uploads the request),
 * `GET /stacks?primaryAssetId=` finds the stacks Immich does not name there, and
 * `GET /stacks/{id}` reads each stack once.
 *
 * @returns The ids of the stacks read again or gone.
 */
async function refreshStacks(
  reading: Reading,
  library: Library,
  changed: readonly { readonly id: string }[],
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
  const unstacked = await client.unstackedSince(since);
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

/** What the header of the pass's cache will say, known when the pass has read. */
interface Planned {
  readonly generation: string;
  readonly watermark: number;
  readonly fullPassAt: number;
  readonly offsets: readonly number[];
  readonly counts: readonly number[];
  readonly recent: CacheHeader["recent"];
  readonly sizes: CacheHeader["sizes"];
  /** For the plan file: what the pass left out of grouping. */
  readonly skippedAssets: Readonly<Record<string, number>>;
  /** The pass reuses the plan file of its generation. */
  readonly reuse?: boolean;
}

/**
 * How many assets some actions move: what the header's `written` counts of the actions that
 * succeeded.
 */
function movedAssets(actions: readonly Action[]): number {
  let moved = 0;
  for (const action of actions) moved += action.assetIds.length;
  return moved;
}

/** Records one user's pass in the cache: its writes as they are answered, and its end. */
class CacheRecorder implements PassCache {
  readonly #reading: Reading;
  #planned: Planned;
  /** A full pass's body, until the plan shows whether the next pass can use it. */
  #body: BodyRows | undefined;
  /** The cache keeps the library: no body was left unwritten. */
  #kept: boolean;
  /** Why the body could not be written. */
  #lost: string | undefined;
  #delta: DeltaWriter | undefined;
  #entries: PlanEntries | undefined;

  /**
   * @param reading The user's reading.
   * @param planned What the header will say.
   * @param body For a full pass: what its body is written from, once planned.
   */
  constructor(reading: Reading, planned: Planned, body?: BodyRows) {
    this.#reading = reading;
    this.#planned = planned;
    this.#body = body;
    this.#kept = body === undefined;
    this.#delta = body === undefined ? this.#newDelta() : undefined;
  }

  #newDelta(): DeltaWriter | undefined {
    const { files } = this.#reading;
    return files === undefined || this.#planned.reuse
      ? undefined
      : new DeltaWriter(files, this.#planned.generation);
  }

  writes(writer: AnsweringWriter): AnsweringStackWriter {
    const delta = this.#delta;
    if (delta === undefined) return writer;
    return {
      createStack: async (assetIds) => {
        const stack = await writer.createStack(assetIds);
        delta.record({ op: "create", stack, updatedAt: stack.updatedAt() });
        return stack;
      },
      updateStackPrimary: async (stackId, primaryAssetId) => {
        const stack = await writer.updateStackPrimary(stackId, primaryAssetId);
        delta.record({ op: "update", stack });
        return stack;
      },
      deleteStack: async (stackId) => {
        await writer.deleteStack(stackId);
        delta.record({ op: "delete", stackId });
      },
      stackWithPrimary: (assetId) => writer.stackWithPrimary(assetId),
      trashAssets: (assetIds) => writer.trashAssets(assetIds),
      restoreAssets: (assetIds) => writer.restoreAssets(assetIds),
    };
  }

  async planned(entries: PlanEntries, plan: Plan): Promise<void> {
    this.#entries = entries;
    if (this.#body === undefined) return;
    // Writes that move more assets than INCREMENTAL_MAX_CHANGES make the next pass full
    // (decidePass): a body it would not read costs a first run time for nothing.
    const moving = movedAssets(plan.actions);
    if (moving > this.#reading.settings.incrementalMaxChanges) {
      this.#body = undefined;
      this.#reading.log.debug("The cache keeps no library: the plan moves {moving} assets", {
        moving,
      });
      return;
    }
    await this.writeBody();
  }

  /**
   * Writes a full pass's body now, before the plan is known: for a pass whose stacks already
   * hold about as many assets as its groups, which writes little. A body that cannot be written
   * is warned about, and the pass ends as unfinished: it costs the next pass its speed, never
   * this pass.
   */
  async writeBody(): Promise<void> {
    const body = this.#body;
    const { files } = this.#reading;
    this.#body = undefined;
    if (body === undefined || files === undefined) return;
    const planned = this.#planned;
    try {
      const tally = await writeBody(files, planned.generation, body, planned.recent.since);
      this.#planned = { ...planned, ...tally };
    } catch (error) {
      this.#lost = "its cache could not be written";
      warnCacheUnwritten(this.#reading.log, error);
      return;
    }
    this.#kept = true;
    this.#delta = this.#newDelta();
  }

  async finish(end: PassEnd): Promise<void> {
    const { files, options, user, settings } = this.#reading;
    if (files === undefined || !options.record) return;
    this.#delta?.close();
    const planned = this.#planned;
    const unfinished = end.unfinished ?? this.#lost;
    const clean = unfinished === undefined;
    if (clean && this.#kept && !planned.reuse && this.#entries !== undefined) {
      await writeStoredPlan(files, planned.generation, {
        entries: this.#entries,
        skippedAssets: planned.skippedAssets,
      });
    }
    const header: CacheHeader = {
      server: displayUrl(settings.apiUrl),
      user: { id: user.id, name: user.name },
      stacksync: options.version,
      settings: this.#reading.settingsText,
      immich: this.#reading.immich,
      fullPassAt: planned.fullPassAt,
      watermark: planned.watermark,
      ...(clean ? {} : { unfinished }),
      generation: planned.generation,
      deltaLines: this.#delta?.lines ?? 0,
      offsets: planned.offsets,
      counts: planned.counts,
      recent: planned.recent,
      written: movedAssets(
        end.outcomes.flatMap((outcome) => outcome.status === "ok" ? [outcome.action] : []),
      ),
      steady: clean && end.plan.actions.length === 0,
      sizes: planned.sizes,
    };
    try {
      await writeCacheHeader(files, header);
      await pruneCache(files, planned.generation);
    } catch (error) {
      // The pass warned already that its cache cannot be written.
      if (this.#lost === undefined) throw error;
    }
  }
}
