/**
 * The search of a pass: `POST /search/metadata` filtered to the user's own, visible assets and
 * validated page by page, and `POST /search/statistics` to count them.
 *
 * @module
 */
import { getLogger } from "@logtape/logtape";
import { z } from "zod";
import type { Asset, CriterionField } from "../model.ts";
import { asRecord, searchItemId, timeMs } from "./_values.ts";
import { ALL_CRITERION_FIELDS, AssetReader } from "./asset_schema.ts";
import { CameraReader } from "./_camera.ts";
import { PermanentError } from "./errors.ts";
import { type KeyPermissions, STATISTICS_PERMISSION } from "./permissions.ts";
import { pagingError, searchPages, TRASH_EPOCH } from "./search_pages.ts";
import type { Session } from "./session.ts";

const logger = getLogger(["stacksync", "api"]);

const statisticsSchema = z.object({ total: z.number() });

/** Which assets {@linkcode AssetSearch.searchAssets} returns. */
export interface SearchFilter {
  /** Also archived assets (WITH_ARCHIVED). */
  readonly withArchived: boolean;
  /** Also trashed assets (WITH_DELETED). */
  readonly withDeleted: boolean;
  /** Also videos, audio and other types (INCLUDE_VIDEOS); images only otherwise. */
  readonly includeVideos: boolean;
  /** ISO 8601 lower bound of the capture time (FILTER_TAKEN_AFTER). */
  readonly takenAfter?: string;
  /** ISO 8601 upper bound of the capture time (FILTER_TAKEN_BEFORE). */
  readonly takenBefore?: string;
  /** Album ids (resolve names first with `resolveAlbumIds`); assets in any of them. */
  readonly albumIds?: readonly string[];
  /** Ask for EXIF so that assets carry `fileSizeInByte` (size promotions). */
  readonly withFileSize?: boolean;
  /** Ask for EXIF so that assets carry their camera, lens and exposure (the default rules). */
  readonly withCamera?: boolean;
  /**
   * The criterion fields to keep on each asset (the others are neither checked nor kept).
   *
   * @default {every criterion field}
   */
  readonly fields?: readonly CriterionField[];
}

/** An asset the server sent that failed validation, and why. */
export interface InvalidAsset {
  /** The asset's id, or `(missing)`. */
  readonly id: string;
  /** The first offending field, dotted (e.g. `localDateTime`, `exifInfo.fileSizeInByte`). */
  readonly field: string;
  /** What is wrong with it. */
  readonly message: string;
  /** Its `updatedAt` in ms since the epoch, when it has a readable one. */
  readonly updatedAt?: number;
}

/**
 * One search page after filtering: the valid assets and the ones skipped as invalid, and what
 * an incremental pass needs to count and compare them later.
 */
export interface AssetPage {
  readonly assets: Asset[];
  readonly invalid: InvalidAsset[];
  /** Ids of the page's assets that are in the trash (only with `withDeleted`). */
  readonly trashedIds: string[];
  /** The search the page belongs to: its index in {@linkcode searchScopes}. */
  readonly search: number;
  /** Each asset's `updatedAt` in ms since the epoch (-1 when unreadable), as `assets`. */
  readonly updatedAt: number[];
  /** The user's assets of this search that an earlier search of the same call yielded. */
  readonly repeats: string[];
  /**
   * Other users' assets the search returned and that pass its filters: a partner's (which
   * `POST /search/statistics` counts too) or another member's of a shared album.
   */
  readonly others: ChangedIdentity[];
}

/** One search of a pass: a visibility, and an album when FILTER_ALBUM_IDS names some. */
export interface SearchScope {
  readonly visibility: "timeline" | "archive";
  readonly albumId?: string;
}

/** An asset's id and `updatedAt` (ms since the epoch, -1 when unreadable). */
export interface ChangedIdentity {
  readonly id: string;
  readonly updatedAt: number;
}

/** One visibility pass of the search (docs/architecture.md, "Immich versions"). */
export interface Pass {
  readonly visibility: "timeline" | "archive";
  readonly isArchived: boolean;
}

/**
 * The visibility pass of a search.
 *
 * @param scope The search.
 * @returns Its visibility, and whether it searches the archive.
 */
export function passOf(scope: SearchScope): Pass {
  return { visibility: scope.visibility, isArchived: scope.visibility === "archive" };
}

/**
 * The searches a pass makes, in order: the timeline, then the archive with WITH_ARCHIVED; each
 * once per album of FILTER_ALBUM_IDS. Assets, counts and incremental passes are told apart by
 * their position here.
 *
 * @param filter The pass's filter.
 * @returns One scope per search.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { searchScopes } from "./search.ts";
 *
 * assert.deepEqual(
 *   searchScopes({ withArchived: true, withDeleted: false, includeVideos: false }),
 *   [{ visibility: "timeline" }, { visibility: "archive" }],
 * );
 * ```
 */
export function searchScopes(filter: SearchFilter): SearchScope[] {
  const visibilities = filter.withArchived
    ? ["timeline", "archive"] as const
    : ["timeline"] as const;
  const albums = filter.albumIds?.length ? filter.albumIds : [undefined];
  return visibilities.flatMap((visibility) =>
    albums.map((albumId) => albumId === undefined ? { visibility } : { visibility, albumId })
  );
}

/**
 * Keeps what stacksync may stack of anyone's assets (the caller tells the user's from a
 * partner's), checked on the raw item before validation so that hidden parts are never reported
 * as invalid: never hidden live-photo motion parts or locked ones, and (in case a server ignored
 * a filter field) only the pass's archive state, trashed only when asked, images only unless
 * asked.
 *
 * @param item The raw search item.
 * @param pass The search's visibility pass.
 * @param filter The pass's filter.
 * @returns Whether stacksync may stack the item.
 */
export function passes(item: Record<string, unknown>, pass: Pass, filter: SearchFilter): boolean {
  if (item.visibility === "hidden" || item.visibility === "locked") return false;
  if (typeof item.isArchived === "boolean" && item.isArchived !== pass.isArchived) return false;
  if (!filter.withDeleted && item.isTrashed === true) return false;
  return filter.includeVideos || item.type === undefined || item.type === "IMAGE";
}

/**
 * The body of one search of a pass, as every server version understands it.
 *
 * @param filter The pass's filter.
 * @param scope The search: its visibility and album.
 * @returns The search's filter fields, without page and size.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { searchBody } from "./search.ts";
 *
 * assert.deepEqual(
 *   searchBody({ withArchived: true, withDeleted: false, includeVideos: true }, {
 *     visibility: "archive",
 *   }),
 *   { visibility: "archive", isArchived: true, isVisible: true, withDeleted: false },
 * );
 * ```
 */
export function searchBody(filter: SearchFilter, scope: SearchScope) {
  const pass = passOf(scope);
  const albumId = scope.albumId;
  return {
    visibility: pass.visibility,
    isArchived: pass.isArchived,
    isVisible: true,
    withDeleted: filter.withDeleted,
    ...(filter.includeVideos ? {} : { type: "IMAGE" }),
    ...(filter.takenAfter === undefined ? {} : { takenAfter: filter.takenAfter }),
    ...(filter.takenBefore === undefined ? {} : { takenBefore: filter.takenBefore }),
    ...(albumId === undefined ? {} : { albumIds: [albumId] }),
    ...(filter.withFileSize || filter.withCamera ? { withExif: true } : {}),
  };
}

/**
 * Validates one page into assets. `seen` maps each asset met so far to the search it came
 * in: an asset met before is dropped (albums overlap, and an upload between two pages shifts
 * Immich's offset pages), and a page whose assets all came earlier in the same search is a
 * page sent twice.
 */
function validatePage(
  items: readonly unknown[],
  context: {
    readonly userId: string;
    readonly pass: Pass;
    readonly filter: SearchFilter;
    readonly seen: Map<string, number>;
    readonly search: number;
    readonly reader: AssetReader;
  },
): AssetPage & { readonly repeated: boolean } {
  const { userId, pass, filter, seen, search, reader } = context;
  const assets: Asset[] = [];
  const updatedAt: number[] = [];
  const invalid: InvalidAsset[] = [];
  const trashedIds: string[] = [];
  const repeats: string[] = [];
  const others: ChangedIdentity[] = [];
  let mine = 0;
  let fresh = 0;
  for (const item of items) {
    const record = asRecord(item);
    if (!passes(record, pass, filter)) continue;
    const id = searchItemId(record);
    if (record.ownerId !== userId) {
      if (id !== undefined) others.push({ id, updatedAt: timeMs(record.updatedAt) });
      continue;
    }
    mine++;
    if (id !== undefined) {
      const before = seen.get(id);
      if (before !== search) fresh++;
      seen.set(id, search);
      if (before !== undefined) {
        if (before !== search) repeats.push(id);
        continue;
      }
    }
    const result = reader.read(record);
    if ("asset" in result) {
      assets.push(result.asset);
      updatedAt.push(timeMs(record.updatedAt));
      if (record.isTrashed === true) trashedIds.push(result.asset.id);
      continue;
    }
    const skipped = {
      id: typeof record.id === "string" ? record.id : "(missing)",
      field: result.field,
      message: result.message,
      updatedAt: timeMs(record.updatedAt),
    };
    invalid.push(skipped);
    logger.warn("Invalid asset data", {
      assetID: skipped.id,
      field: skipped.field,
      reason: skipped.message,
      filename: typeof record.originalFileName === "string" ? record.originalFileName : undefined,
    });
  }
  return {
    assets,
    invalid,
    trashedIds,
    search,
    updatedAt,
    repeats,
    others,
    repeated: mine > 0 && fresh === 0,
  };
}

/** A range of `updatedAt`, in ms since the epoch, both ends included. */
export interface UpdatedRange {
  readonly after: number;
  readonly before: number;
}

/** The search of the user's assets. */
export interface AssetSearch {
  /** `POST /search/metadata` page by page, filtered to the user's own, visible assets. */
  searchAssets(filter: SearchFilter): AsyncIterable<AssetPage>;
  /**
   * `POST /search/statistics` for each search of {@linkcode searchScopes} (twice with
   * WITH_DELETED: statistics counts the trash only through a trash date): how many assets it
   * finds, a partner's included.
   *
   * @param filter The pass's filter.
   * @param updated Only assets whose `updatedAt` is in this range, both ends included.
   * @returns The counts in scope order, or undefined when the key lacks `asset.statistics` or
   *   the server has no such route.
   */
  countAssets(filter: SearchFilter, updated?: UpdatedRange): Promise<number[] | undefined>;
}

/**
 * The search part of the client.
 *
 * @param session The user's session.
 * @param keys Whether the key may count (`asset.statistics`).
 * @returns The search and the count of the user's assets.
 */
export function assetSearchOf(
  session: Session,
  keys: Pick<KeyPermissions, "grants">,
): AssetSearch {
  const { http } = session;
  async function count(body: Record<string, unknown>): Promise<number> {
    const answer = await http.request("POST", "/search/statistics", {
      body,
      schema: statisticsSchema,
    });
    return answer.total;
  }
  return {
    async *searchAssets(filter) {
      const { id: userId } = await session.me();
      const seen = new Map<string, number>();
      const reader = new AssetReader(userId, {
        fields: filter.fields ?? ALL_CRITERION_FIELDS,
        ...(filter.withCamera ? { cameras: new CameraReader() } : {}),
      });
      for (const [search, scope] of searchScopes(filter).entries()) {
        const pass = passOf(scope);
        let page = 0;
        for await (
          const items of searchPages(http, searchBody(filter, scope), { ahead: true })
        ) {
          page++;
          const { repeated, ...assetPage } = validatePage(items, {
            userId,
            pass,
            filter,
            seen,
            search,
            reader,
          });
          if (repeated) throw pagingError("answered a page it had already sent", page);
          yield assetPage;
        }
      }
    },
    async countAssets(filter, updated) {
      if (keys.grants(STATISTICS_PERMISSION) === false) return undefined;
      const range = updated === undefined ? {} : {
        updatedAfter: new Date(updated.after).toISOString(),
        updatedBefore: new Date(updated.before).toISOString(),
      };
      const counts: number[] = [];
      try {
        for (const scope of searchScopes(filter)) {
          const { withExif: _, ...searched } = searchBody(filter, scope);
          const body = { ...searched, ...range };
          let total = await count(body);
          if (filter.withDeleted) total += await count({ ...body, trashedAfter: TRASH_EPOCH });
          counts.push(total);
        }
      } catch (error) {
        if (error instanceof PermanentError && (error.status === 403 || error.status === 404)) {
          return undefined;
        }
        throw error;
      }
      return counts;
    },
  };
}
