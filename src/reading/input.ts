/**
 * What a pass plans from, whichever way it was read (`full.ts`, `incremental.ts`, chosen by
 * `choose.ts`), and what every way of reading shares: the user's reading, the options of the
 * cache, the warnings given once and the log lines about grouping. docs/incremental.md explains
 * the ways of reading.
 *
 * @module
 */
import type { Logger } from "@logtape/logtape";
import { literal } from "../log.ts";
import type { ImmichClient } from "../api/immich.ts";
import type { SearchFilter } from "../api/search.ts";
import type { UnlistedLookups } from "../api/unlisted_members.ts";
import { compare } from "../grouping/compare.ts";
import type { GroupingResult } from "../grouping/group.ts";
import type { PlanEntries } from "../incremental/entries.ts";
import type { Asset, Group, Plan, SkippedAsset, Stack, User } from "../model.ts";
import type { PromotedGroup } from "../promotion/parent.ts";
import type { CacheFiles } from "../state/cache.ts";
import { CacheLoss, type CacheRecording, type PassCache } from "../state/cache_recorder.ts";
import type { RecordedStack } from "../state/journal.ts";
import type { LibraryQuery } from "./query.ts";

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
  /**
   * This computer's clock, ms since the epoch: it can only bring a full pass forward
   * (FULL_PASS_INTERVAL); the watermark comes from the server's data.
   */
  readonly now: () => number;
  /** The stacksync version, for the cache's header. */
  readonly version: string;
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
    /**
     * The stacks of trashed and hidden members as the last pass looked them up (the cache's),
     * read when first asked for; undefined when there are none or they cannot be read.
     */
    readonly known?: () => Promise<UnlistedLookups | undefined>;
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

/** Everything one user's reading needs. */
export interface Reading {
  readonly client: ImmichClient;
  readonly user: User;
  readonly query: LibraryQuery;
  readonly options: ReadingOptions;
  readonly memory: PassMemory;
  readonly log: Logger;
  /** The searches, albums resolved to ids. */
  readonly filter: SearchFilter;
  /** The cache's files; undefined when there is no STATE_DIR. */
  readonly files?: CacheFiles;
  /** What the pass does when its cache cannot be written; with the files. */
  readonly loss?: CacheLoss;
  /** The settings the cache depends on, as text by variable name. */
  readonly settingsText: Record<string, string>;
  readonly immich: string;
  /** This computer's clock when the pass started (ms since the epoch). */
  readonly startedAt: number;
}

/**
 * What the cache's recorder of a reading needs.
 *
 * @param reading The user's reading.
 * @param files The cache.
 * @returns The recording.
 */
export function recordingOf(reading: Reading, files: CacheFiles): CacheRecording {
  const { user, options, query } = reading;
  const loss = reading.loss ?? new CacheLoss(files, reading.log);
  return {
    files,
    record: options.record && !loss.lost,
    loss,
    log: reading.log,
    identity: {
      server: query.server,
      user: { id: user.id, name: user.name },
      stacksync: options.version,
      settings: reading.settingsText,
      immich: reading.immich,
    },
    maxChanges: query.maxChanges,
  };
}

/**
 * The server's data time a search began at, at the latest: the largest `updatedAt` it found
 * was dated before its last answer, and the search lasted this long by this computer's steady
 * clock (docs/incremental.md, "Server time").
 *
 * @param newest The largest `updatedAt` the search found.
 * @param started `performance.now()` when the search began.
 * @returns ms since the epoch.
 */
export function watermarkOf(newest: number, started: number): number {
  return newest - Math.ceil(performance.now() - started);
}

/** Orders stacks by id. */
export function compareIds(a: Stack, b: Stack): number {
  return compare(a.id, b.id);
}

/** Warns once per process and user that a cache cannot be kept, and why. */
export function warnOnce(reading: Reading, topic: string, message: string): void {
  const key = `${reading.user.id}:${topic}`;
  if (reading.memory.warned.has(key)) return;
  reading.memory.warned.add(key);
  reading.log.warn(literal(message));
}

/** The warning of a key that cannot count assets: every pass is full. */
export const NO_STATISTICS = "The API key cannot count assets (POST /search/statistics needs the " +
  "permission asset.statistics, from Immich v1.118): every pass reads the whole library; add " +
  "the permission to read only what changed";

/** Why a pass is full when a file of the cache cannot be read. */
export function unreadable(error: unknown): string {
  return `the cache cannot be read: ${error instanceof Error ? error.message : error}`;
}

/** Assets left out of grouping by reason, the invalid ones included. */
export function countSkipped(grouping: GroupingResult, invalid: number): Record<string, number> {
  const counts: Record<string, number> = {};
  if (invalid > 0) counts["invalid-data"] = invalid;
  for (const { reason } of grouping.skipped) counts[reason] = (counts[reason] ?? 0) + 1;
  return counts;
}

/** The log lines about grouping: assets left out, and each group's parent at debug. */
export function logGrouping(
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
