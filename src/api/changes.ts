/**
 * What changed since a time, as an incremental pass reads it (docs/incremental.md): every asset
 * whose `updatedAt` is at or after it, in which searches of the pass it is now, and which of
 * them are in no stack.
 *
 * @module
 */
import type { Asset } from "../model.ts";
import { timeMs } from "./_values.ts";
import { ALL_CRITERION_FIELDS, AssetReader } from "./asset_schema.ts";
import { CameraReader } from "./_camera.ts";
import {
  type ChangedIdentity,
  type InvalidAsset,
  type Pass,
  passes,
  passOf,
  searchBody,
  type SearchFilter,
  searchScopes,
} from "./search.ts";
import { CHANGE_VISIBILITIES, scan, scanEach, visibilityBody } from "./search_pages.ts";
import type { Session } from "./session.ts";

/** An asset changed since a time, as an incremental pass sees it. */
export interface ChangedAsset extends ChangedIdentity {
  /** The key's user owns it (else a partner or a shared album's member does). */
  readonly own: boolean;
  /**
   * The searches of {@linkcode searchScopes} whose filters it passes now, one bit each: 0 when
   * it left them (trashed without WITH_DELETED, archived without WITH_ARCHIVED, hidden, …).
   */
  readonly scopes: number;
  /** In the trash now. */
  readonly trashed: boolean;
  /** Archived now. */
  readonly archived: boolean;
  /** The user's asset as the pass reads it, when it is in some search and valid. */
  readonly asset?: Asset;
  /** Why the user's asset in some search is invalid. */
  readonly invalid?: InvalidAsset;
}

/** The changes since a time. */
export interface AssetChanges {
  /**
   * Every asset (the user's, a partner's) whose `updatedAt` is at or after `since`, in the
   * trash or not, of any visibility but locked: `POST /search/metadata` with `updatedAfter` per
   * visibility, plus with FILTER_ALBUM_IDS the searches of the pass with `updatedAfter` (album
   * membership is known only to the server). Each asset once.
   *
   * @param filter The pass's filter.
   * @param since ms since the epoch.
   * @param limit Stop reading once more than this many assets changed.
   * @returns The changed assets, or undefined when more than `limit` changed.
   */
  changedAssets(
    filter: SearchFilter,
    since: number,
    limit?: number,
  ): Promise<ChangedAsset[] | undefined>;
  /**
   * Of the assets changed at or after `since`, those in no stack now: the same searches with
   * `withStacked: false`, so that a new upload costs no `GET /assets/{id}`.
   */
  unstackedSince(since: number): Promise<Set<string>>;
}

/**
 * Whether an asset found in a search of `visibility` passes the filters of a search of the pass
 * but for its album: what the server's search would keep (visibility, trash, type, capture time
 * on `fileCreatedAt`, bounds included) and what {@linkcode passes} keeps of it.
 */
function inPass(
  item: Record<string, unknown>,
  visibility: string,
  pass: Pass,
  filter: SearchFilter,
): boolean {
  if (visibility !== pass.visibility || !passes(item, pass, filter)) return false;
  const taken = timeMs(item.fileCreatedAt);
  if (filter.takenAfter !== undefined && !(taken >= Date.parse(filter.takenAfter))) return false;
  return filter.takenBefore === undefined || taken <= Date.parse(filter.takenBefore);
}

/** One asset a search for changes found, as the pass sees it. */
function changeOf(
  id: string,
  item: Record<string, unknown>,
  context: {
    readonly visibility: string;
    readonly filter: SearchFilter;
    readonly scopes: ReturnType<typeof searchScopes>;
    readonly inAlbum: ReadonlyMap<string, number>;
    readonly userId: string;
    readonly reader: AssetReader;
  },
): ChangedAsset {
  const { filter, visibility, userId } = context;
  let scopes = 0;
  for (const [index, scope] of context.scopes.entries()) {
    if (inPass(item, visibility, passOf(scope), filter)) scopes |= 1 << index;
  }
  if (filter.albumIds?.length) scopes &= context.inAlbum.get(id) ?? 0;
  const own = item.ownerId === userId;
  const base = {
    id,
    updatedAt: timeMs(item.updatedAt),
    own,
    scopes,
    trashed: item.isTrashed === true,
    archived: visibility === "archive",
  };
  if (!own || scopes === 0) return base;
  const result = context.reader.read(item);
  if ("asset" in result) return { ...base, asset: result.asset };
  const invalid = { id, field: result.field, message: result.message, updatedAt: base.updatedAt };
  return { ...base, invalid };
}

/**
 * The changes part of the client.
 *
 * @param session The user's session.
 * @returns The changed assets and the unstacked ones since a time.
 */
export function assetChangesOf(session: Session): AssetChanges {
  const { http } = session;
  return {
    async changedAssets(filter, since, limit = Infinity) {
      const { id: userId } = await session.me();
      const scopes = searchScopes(filter);
      const updatedAfter = new Date(since).toISOString();
      // With albums only the server knows which search each changed asset is in.
      const inAlbum = new Map<string, number>();
      if (filter.albumIds?.length) {
        for (const [index, scope] of scopes.entries()) {
          const body = { ...searchBody(filter, scope), updatedAfter };
          for (const id of (await scan(http, body)).keys()) {
            inAlbum.set(id, (inAlbum.get(id) ?? 0) | 1 << index);
          }
        }
      }
      const changed: ChangedAsset[] = [];
      const reader = new AssetReader(userId, {
        fields: filter.fields ?? ALL_CRITERION_FIELDS,
        ...(filter.withCamera ? { cameras: new CameraReader() } : {}),
      });
      for (const visibility of CHANGE_VISIBILITIES) {
        const context = { visibility, filter, scopes, inAlbum, userId, reader };
        const body = {
          ...visibilityBody(visibility),
          withDeleted: true,
          updatedAfter,
          ...(filter.withFileSize || filter.withCamera ? { withExif: true } : {}),
        };
        // Page by page: the overlap re-reads every asset of the last writes, which the pass
        // already knows, and their raw answers (with EXIF) would otherwise all be held at once.
        for await (const [id, item] of scanEach(http, body)) {
          if (changed.length >= limit) return undefined;
          changed.push(changeOf(id, item, context));
        }
      }
      return changed;
    },
    async unstackedSince(since) {
      const unstacked = new Set<string>();
      const updatedAfter = new Date(since).toISOString();
      for (const visibility of CHANGE_VISIBILITIES) {
        const body = {
          ...visibilityBody(visibility),
          withDeleted: true,
          withStacked: false,
          updatedAfter,
        };
        for (const id of (await scan(http, body)).keys()) unstacked.add(id);
      }
      return unstacked;
    },
  };
}
