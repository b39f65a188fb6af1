/**
 * The Immich endpoints stacksync uses, turned into the lean values of `src/model.ts`.
 *
 * One body shape serves every server version from v1.118 to v3.x (docs/architecture.md, "Immich
 * versions"): servers ignore the fields they do not know, so each search sends both the old
 * (`isArchived`, `isVisible`) and the new (`visibility`) filters.
 *
 * @module
 */
import type {
  AlbumResponseDto,
  ApiKeyResponseDto,
  AssetResponseDto,
  SearchResponseDto,
  ServerVersionResponseDto,
  StackResponseDto,
  UserAdminResponseDto,
} from "@immich/sdk";
import { getLogger } from "@logtape/logtape";
import { z } from "zod";
import type {
  Asset,
  CriterionField,
  CriterionFields,
  ServerVersion,
  Stack,
  User,
} from "../model.ts";
import { parseJsonObjectArray } from "./_json_array.ts";
import { CameraReader } from "./_camera.ts";
import { shownUrl } from "../shown_url.ts";
import {
  createHttpClient,
  type HttpClientOptions,
  InvalidResponseError,
  isAccessDenied,
  PermanentError,
} from "./http.ts";

const logger = getLogger(["stacksync", "api"]);

/** Immich allows at most 1000 items per search page. */
const PAGE_SIZE = 1000;

/**
 * The most search pages one search may take (5 000 000 assets): a server that keeps answering
 * fresh pages past it is taken to be broken rather than followed forever.
 */
const MAX_SEARCH_PAGES = 5000;

/**
 * The most `GET /assets/{id}` lookups a pass makes to find the stacks of trashed and hidden
 * assets that are in a stack (the trash empties itself after 30 days by default, and hidden
 * live-photo parts are almost never stacked).
 */
const MAX_UNLISTED_LOOKUPS = 1000;

/** A lower bound of every trash date: searching from it searches the whole trash only. */
const TRASH_EPOCH = "1970-01-01T00:00:00.000Z";

/** The searches of the trash, by visibility: servers before v3 search one at a time. */
const TRASH_SEARCHES: readonly Readonly<Record<string, unknown>>[] = (
  ["timeline", "archive"] as const
).map((visibility) => ({
  ...visibilityBody(visibility),
  withDeleted: true,
  trashedAfter: TRASH_EPOCH,
}));

/** The search of hidden assets (live-photo motion parts), in the trash or not. */
const HIDDEN_SEARCH: Readonly<Record<string, unknown>> = {
  ...visibilityBody("hidden"),
  withDeleted: true,
};

/** A stack id that cannot exist (Immich makes random ones): the target of permission probes. */
const PROBE_STACK_ID = "00000000-0000-4000-8000-000000000000";

/** The first Immich version with `GET /api-keys/me`. */
const API_KEYS_ME = { major: 1, minor: 139 } as const;

/**
 * Requests that Immich answers 403 without the permission and 400 with it, changing nothing:
 * its guard checks the permission before anything reads the body or the id.
 */
const WRITE_PROBES: Readonly<
  Record<string, { method: "POST" | "PUT" | "DELETE"; path: string; body?: unknown }>
> = {
  "stack.create": { method: "POST", path: "/stacks", body: {} },
  "stack.update": { method: "PUT", path: `/stacks/${PROBE_STACK_ID}`, body: {} },
  "stack.delete": { method: "DELETE", path: `/stacks/${PROBE_STACK_ID}` },
  "asset.delete": { method: "DELETE", path: "/assets", body: {} },
};

/** Every permission a real run needs; `all` grants them all. */
export const REQUIRED_PERMISSIONS: readonly string[] = [
  "user.read",
  "asset.read",
  "stack.read",
  "stack.create",
  "stack.update",
  "stack.delete",
];

/**
 * The permission `POST /search/statistics` needs: optional, an incremental pass counts assets
 * with it and a key without it gets full passes.
 */
export const STATISTICS_PERMISSION = "asset.statistics";

/** The permissions of a dry run, which only reads. */
const READ_PERMISSIONS: readonly string[] = REQUIRED_PERMISSIONS.slice(0, 3);

/** What a run does that needs permissions; see {@linkcode neededPermissions}. */
export interface PermissionNeeds {
  /** A dry run only reads. */
  readonly dryRun: boolean;
  /** FILTER_ALBUM_IDS as given: album names (not ids) are resolved through `GET /albums`. */
  readonly albums?: readonly string[];
  /**
   * Whether it searches the assets (`asset.read`); a backup reads stacks only.
   * @default {true}
   */
  readonly searches?: boolean;
  /**
   * Whether it writes stacks (`stack.create`, `stack.update`, `stack.delete`).
   * @default {true}
   */
  readonly stacks?: boolean;
  /**
   * Whether it moves photos to or from the trash (`asset.delete`): fix-trash, or an undo of it.
   * @default {false}
   */
  readonly trash?: boolean;
}

/**
 * The permissions a run needs, so the preflight names every missing one before any write.
 *
 * @param needs Dry run or real, and the album filter.
 * @returns The permissions: the three reads, the stack writes unless dry, `asset.delete` for a
 * real move to or from the trash, and `album.read` when an album is given by name.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { neededPermissions } from "./immich.ts";
 *
 * assert.deepEqual(neededPermissions({ dryRun: true, albums: ["Holidays"] }), [
 *   "user.read", "asset.read", "stack.read", "album.read",
 * ]);
 * assert.equal(neededPermissions({ dryRun: false }).length, 6);
 * assert.deepEqual(neededPermissions({ dryRun: true, searches: false }), ["user.read", "stack.read"]);
 * assert.deepEqual(neededPermissions({ dryRun: false, stacks: false, trash: true }), [
 *   "user.read", "asset.read", "stack.read", "asset.delete",
 * ]);
 * ```
 */
export function neededPermissions(needs: PermissionNeeds): string[] {
  const writes = !needs.dryRun && needs.stacks !== false;
  const needed = [...writes ? REQUIRED_PERMISSIONS : READ_PERMISSIONS]
    .filter((permission) => needs.searches !== false || permission !== "asset.read");
  if (!needs.dryRun && needs.trash === true) needed.push("asset.delete");
  if (needs.albums?.some((album) => !UUID.test(album))) needed.push("album.read");
  return needed;
}

/**
 * API_URLs that reached Immich's web page, each with the address of its API found by adding
 * `/api`: learned once per process, so that the next user's client goes there at once and the
 * warning is said once.
 */
const API_ADDRESSES = new Map<string, string>();

/** Settings of {@linkcode createImmichClient}: those of the HTTP client. */
export type ImmichClientOptions = HttpClientOptions;

/** Which assets {@linkcode ImmichClient.searchAssets} returns. */
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

/** The stack `GET /assets/{id}` names for an asset. */
export interface AssetStack {
  /** The stack's id; absent when Immich names none (see {@linkcode ImmichClient.assetStack}). */
  readonly stackId?: string;
  readonly primaryAssetId?: string;
}

/** A stack as `POST /stacks` or `PUT /stacks/{id}` answered it, with its members' `updatedAt`. */
export interface AnsweredStack extends Stack {
  /**
   * Each member's `updatedAt` after the write, ms since the epoch, in `assetIds` order. Read
   * when asked: only the cache's delta needs them, and a first run keeps none (150 000 times
   * to read at 200 000 assets).
   */
  updatedAt(): readonly number[];
}

/** A stack member that `GET /stacks` does not list: it is in the trash, or hidden. */
export interface UnlistedMember {
  readonly id: string;
  readonly originalFileName: string;
  readonly stackId: string;
  readonly trashed: boolean;
}

/** What {@linkcode ImmichClient.findUnlistedMembers} found. */
export interface UnlistedMembers {
  /** Trashed and hidden members, each with the stack Immich names for it. */
  readonly members: readonly UnlistedMember[];
  /**
   * Stacks that may hold a trashed or hidden member Immich would not name: `GET /assets/{id}`
   * names the stack only when it has a member besides its primary on the timeline.
   */
  readonly unseenStackIds: readonly string[];
}

/** The Immich API of one user. */
export interface ImmichClient {
  /** `GET /server/version` (public), cached. */
  serverVersion(): Promise<ServerVersion>;
  /** `GET /users/me`, cached: the key's user. */
  me(): Promise<User>;
  /** `GET /api-keys/me`, cached: the key's permissions (v1.139+ only). */
  keyPermissions(): Promise<readonly string[]>;
  /**
   * Whether the key has a permission, as far as `GET /api-keys/me` said; undefined when it was
   * not asked (before v1.139, or before the preflight).
   */
  grants(permission: string): boolean | undefined;
  /**
   * The key's permissions when the server lists them (v1.139+, the preflight's answer reused),
   * else undefined: before v1.139 only a request needing a permission tells whether the key has it.
   */
  grantedPermissions(): Promise<readonly string[] | undefined>;
  /**
   * Checks the key's permissions: through `GET /api-keys/me` from v1.139, before that by
   * probing each stack write the run needs with a request that changes nothing.
   * @throws {MissingPermissionsError} Naming every missing permission at once.
   */
  requirePermissions(needed?: readonly string[]): Promise<void>;
  /**
   * `GET /stacks`, streamed: every stack with every member id it lists. With `fileNames`, the
   * members' file names are put in that map as well.
   */
  listStacks(options?: ListStacksOptions): Promise<Stack[]>;
  /**
   * Finds the stack members `GET /stacks` leaves out: assets in the trash and hidden assets
   * that are in a stack (a search of the trash and of hidden assets, with and without stacked
   * ones), each looked up with `GET /assets/{id}`.
   * @param stacks The stacks `listStacks` returned.
   * @throws {PermanentError} When more than {@linkcode MAX_UNLISTED_LOOKUPS} need a lookup.
   */
  findUnlistedMembers(stacks: readonly Stack[]): Promise<UnlistedMembers>;
  /** `GET /stacks?primaryAssetId=…`: the stack whose primary the asset is, if any. */
  stackWithPrimary(assetId: string): Promise<Stack | undefined>;
  /** `GET /assets/{id}` for each asset: its file name, for messages; assets gone are left out. */
  fileNames(assetIds: readonly string[]): Promise<Map<string, string>>;
  /** `POST /search/metadata` page by page, filtered to the user's own, visible assets. */
  searchAssets(filter: SearchFilter): AsyncIterable<AssetPage>;
  /**
   * `POST /search/statistics` for each search of {@linkcode searchScopes} (twice with
   * WITH_DELETED: statistics counts the trash only through a trash date): how many assets it
   * finds, a partner's included.
   *
   * @returns The counts in scope order, or undefined when the key lacks `asset.statistics` or
   *   the server has no such route.
   */
  countAssets(filter: SearchFilter): Promise<number[] | undefined>;
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
  /**
   * `GET /assets/{id}`: the stack Immich names for the asset, undefined when the asset is gone.
   * Immich names a stack only when it has a member besides its primary that is on the timeline
   * and not in the trash; `stackWithPrimary` finds the others through their primary.
   */
  assetStack(assetId: string): Promise<AssetStack | undefined>;
  /** `GET /stacks/{id}`: the stack with every member it lists, undefined when it is gone. */
  getStack(stackId: string): Promise<Stack | undefined>;
  /**
   * The stacks read through the timeline, for a server that cannot answer `GET /stacks`: one
   * request per month of the timeline, the archive and the trash (`withStacked` gives each
   * cover's stack and count), then `GET /stacks/{id}` for each stack with more than its cover
   * among the members it counts; archived members are found through the search of the archive.
   *
   * @throws {PermanentError} On a server before v2, whose timeline has another shape.
   */
  listStacksByTimeline(): Promise<Stack[]>;
  /**
   * The server's clock at its latest answer (its `Date` header, whole seconds, rounded down),
   * in ms since the epoch; undefined before any dated answer.
   */
  serverTime(): number | undefined;
  /** How many attempts failed in a way worth retrying (5xx, 429, network, time-out) so far. */
  faults(): number;
  /** Keeps album ids, resolves album names through `GET /albums`. */
  resolveAlbumIds(namesOrIds: readonly string[]): Promise<string[]>;
  /**
   * `POST /stacks`: the first id becomes the primary; a listed primary brings its whole stack
   * (docs/architecture.md, "Immich's merge rule").
   * One id makes a 1-asset stack: Immich wants two, and folds an id given twice (recorded
   * exchange 043).
   */
  createStack(assetIds: readonly string[]): Promise<AnsweredStack>;
  /** `PUT /stacks/{id}` with a new primary that is already a member. */
  updateStackPrimary(stackId: string, primaryAssetId: string): Promise<AnsweredStack>;
  /** `DELETE /stacks/{id}`; the assets stay. */
  deleteStack(stackId: string): Promise<void>;
  /**
   * The user's own photos in the trash (timeline and archive), by id with their file names: a
   * search of the trash alone.
   */
  trashedAssets(): Promise<Map<string, string>>;
  /** `DELETE /assets` with `force: false`: to the trash, never deleted for good. */
  trashAssets(assetIds: readonly string[]): Promise<void>;
  /** `POST /trash/restore/assets`: back out of the trash; photos not in it stay as they are. */
  restoreAssets(assetIds: readonly string[]): Promise<void>;
  /**
   * `GET /assets/{id}/thumbnail?size=thumbnail`: the asset's small picture (WebP), which needs
   * the permission `asset.view`.
   */
  thumbnail(assetId: string): Promise<Uint8Array>;
  /** Closes the connection pool. */
  close(): void;
}

/** Options of {@linkcode ImmichClient.listStacks}. */
export interface ListStacksOptions {
  /** Receives the file name of every member the answer lists, by asset id. */
  readonly fileNames?: Map<string, string>;
}

/** The key lacks permissions the run needs; thrown before any write. */
export class MissingPermissionsError extends PermanentError {
  /** Every missing permission. */
  readonly missing: readonly string[];

  /**
   * @param missing The permissions the key lacks.
   * @param granted The permissions the key has, or the server version when it cannot list
   *   them (before v1.139) and each was probed.
   */
  constructor(missing: readonly string[], granted: readonly string[] | ServerVersion) {
    const current = !Array.isArray(granted)
      ? `Immich ${versionText(granted as ServerVersion)} refused a harmless request needing ` +
        "each (it lists a key's permissions only from v1.139)"
      : granted.length === 0
      ? "current permissions are none"
      : `current permissions are ${granted.join(", ")}`;
    super(
      `Cannot use the API key as it lacks the permissions ${missing.join(", ")}: ${current}`,
      {
        method: "GET",
        path: Array.isArray(granted) ? "/api-keys/me" : "/stacks",
        status: 200,
        serverMessage: `missing ${missing.join(", ")}`,
        attempt: 1,
      },
    );
    this.name = "MissingPermissionsError";
    this.missing = missing;
  }
}

const versionSchema = z.object({ major: z.number(), minor: z.number(), patch: z.number() });
const userSchema = z.object({ id: z.string(), name: z.string(), email: z.string() });
const apiKeySchema = z.object({ permissions: z.array(z.string()) });
const albumsSchema = z.array(z.object({ id: z.string(), albumName: z.string() }));
const stackSchema = z.object({
  id: z.string(),
  primaryAssetId: z.string(),
  assets: z.array(
    z.object({
      id: z.string(),
      isArchived: z.boolean().optional(),
      visibility: z.string().optional(),
      updatedAt: z.string().optional(),
    }),
  ),
});
const stacksSchema = z.array(stackSchema);
const assetStackSchema = z.object({
  stack: z.object({ id: z.string(), primaryAssetId: z.string() }).nullish(),
});
const statisticsSchema = z.object({ total: z.number() });
const bucketsSchema = z.array(z.object({ timeBucket: z.string(), count: z.number() }));
const bucketSchema = z.object({
  id: z.array(z.string()),
  ownerId: z.array(z.string()),
  visibility: z.array(z.string()),
  isTrashed: z.array(z.boolean()),
  stack: z.array(z.tuple([z.string(), z.string()]).nullable()).optional(),
});
const assetNameSchema = z.object({ originalFileName: z.string() });
const searchSchema = z.object({
  assets: z.object({
    items: z.array(z.unknown()),
    nextPage: z.string().nullable().optional(),
  }),
});
const anything = z.unknown();

// Both `…Z` (search) and `…+00:00` (stacks) forms are valid.
const timestamp = z.iso.datetime({ offset: true });
/** What every asset needs: the fields promotion and planning read, and EXIF for sizes and cameras. */
const coreAssetSchema = z.object({
  id: z.string(),
  originalFileName: z.string(),
  localDateTime: timestamp,
  exifInfo: z.object({
    fileSizeInByte: z.number().nullish(),
    make: z.string().nullish(),
    model: z.string().nullish(),
    lensModel: z.string().nullish(),
    exposureTime: z.string().nullish(),
    fNumber: z.number().nullish(),
    iso: z.number().nullish(),
    dateTimeOriginal: z.string().nullish(),
  }).nullish(),
});

/** One schema per field that only criteria read; an asset is checked on the ones it keeps. */
const criterionFieldSchemas = {
  originalPath: z.string(),
  fileCreatedAt: timestamp,
  fileModifiedAt: timestamp,
  updatedAt: timestamp,
  type: z.enum(["IMAGE", "VIDEO", "AUDIO", "OTHER"]),
  checksum: z.string(),
  ownerId: z.string(),
  isFavorite: z.boolean(),
  isArchived: z.boolean(),
  isTrashed: z.boolean(),
  isOffline: z.boolean(),
  hasMetadata: z.boolean(),
  // A string such as "0:00:05.12300" up to v3.1; the v3.2 DTOs type it as a number.
  duration: z.union([z.string(), z.number()]).nullable().transform((value) =>
    value === null ? null : String(value)
  ),
  // Gone from Immich 3's answers (its DTOs have neither): a criterion on them is left out.
  deviceId: z.string().optional(),
  deviceAssetId: z.string().optional(),
} satisfies {
  readonly [F in CriterionField]: z.ZodType<CriterionFields[F]>;
};

/** The same schemas, typed for access by a generic field name. */
const CRITERION_FIELD_SCHEMAS: { readonly [F in CriterionField]: z.ZodType<CriterionFields[F]> } =
  criterionFieldSchemas;

/** True when every value of type `Dto` passes a schema whose input type is `Input`. */
type Fits<Dto, Input> = [Dto] extends [Input] ? true : false;

/** Compiles only when every check is `true`. */
type Proven<Checks extends readonly true[]> = Checks;

/**
 * Compile-time proof that every answer field the client reads exists in Immich's own DTOs
 * (`@immich/sdk`, types only) with a type its schemas accept: after an SDK upgrade, `deno check`
 * fails here when Immich changed what stacksync relies on.
 */
export type ImmichDtoCompatibility = Proven<[
  Fits<ServerVersionResponseDto, z.input<typeof versionSchema>>,
  Fits<UserAdminResponseDto, z.input<typeof userSchema>>,
  Fits<ApiKeyResponseDto, z.input<typeof apiKeySchema>>,
  Fits<AlbumResponseDto[], z.input<typeof albumsSchema>>,
  Fits<StackResponseDto, z.input<typeof stackSchema>>,
  Fits<SearchResponseDto, z.input<typeof searchSchema>>,
  Fits<AssetResponseDto, z.input<typeof coreAssetSchema>>,
  ...{
    [F in CurrentField]: Fits<AssetResponseDto[F], z.input<typeof criterionFieldSchemas[F]>>;
  }[CurrentField][],
]>;

/** The criterion fields Immich 3 still sends. */
type CurrentField = Exclude<CriterionField, "deviceId" | "deviceAssetId">;

/** Every field criteria can read: what the client keeps when not told otherwise. */
const ALL_CRITERION_FIELDS = Object.keys(CRITERION_FIELD_SCHEMAS) as CriterionField[];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * An Immich time in ms since the epoch, fractions beyond the millisecond cut (search answers
 * show milliseconds, write answers microseconds: both give the same number); -1 when unreadable.
 */
function timeMs(value: unknown): number {
  const ms = typeof value === "string" ? Date.parse(value) : NaN;
  return Number.isNaN(ms) ? -1 : ms;
}

function answered(stack: z.infer<typeof stackSchema>): AnsweredStack {
  const { assets } = stack;
  return { ...toStack(stack), updatedAt: () => assets.map((asset) => timeMs(asset.updatedAt)) };
}

function toStack(stack: z.infer<typeof stackSchema>): Stack {
  const archived = stack.assets.filter((asset) =>
    asset.isArchived === true || asset.visibility === "archive"
  );
  return {
    id: stack.id,
    primaryAssetId: stack.primaryAssetId,
    assetIds: stack.assets.map((asset) => asset.id),
    ...(archived.length > 0 ? { archivedAssetIds: archived.map((asset) => asset.id) } : {}),
  };
}

/** Puts the file names of a `GET /stacks` item's members in `names`. */
function keepFileNames(item: unknown, names: Map<string, string>): void {
  const assets = (item as { assets?: unknown }).assets;
  if (!Array.isArray(assets)) return;
  for (const asset of assets) {
    const { id, originalFileName } = asset as { id?: unknown; originalFileName?: unknown };
    if (typeof id === "string" && typeof originalFileName === "string") {
      names.set(id, originalFileName);
    }
  }
}

/** A search item's fields, or none when the server sent something else than an object. */
function asRecord(item: unknown): Record<string, unknown> {
  return (typeof item === "object" && item !== null ? item : {}) as Record<string, unknown>;
}

function versionText(version: ServerVersion): string {
  return `${version.major}.${version.minor}.${version.patch}`;
}

/** Whether the server has `GET /api-keys/me`. */
function listsKeyPermissions(version: ServerVersion): boolean {
  return version.major > API_KEYS_ME.major ||
    (version.major === API_KEYS_ME.major && version.minor >= API_KEYS_ME.minor);
}

/** A search answer that breaks Immich's paging contract, named with the page. */
function pagingError(problem: string, page: number): PermanentError {
  return new PermanentError(
    `Cannot follow the search pages as the server ${problem}: current page is ${page}`,
    {
      method: "POST",
      path: "/search/metadata",
      status: 200,
      serverMessage: problem,
      attempt: 1,
    },
  );
}

const ASSET_TYPES = { IMAGE: "IMAGE", VIDEO: "VIDEO", AUDIO: "AUDIO", OTHER: "OTHER" } as const;

type MutableAsset = { -readonly [K in keyof Asset]: Asset[K] };

/** The asset, or the first field that failed validation. */
type AssetResult = { readonly asset: Asset } | { readonly field: string; readonly message: string };

/**
 * Validates one search item into the lean asset kept for the whole pass, with only the
 * criterion fields the run reads. 200 000 of them are held at once, so strings that repeat
 * share one copy instead of one per asset: the owner (already checked to be the user), the
 * type, and capture times that equal localDateTime, as they mostly do. Every asset gets its
 * fields in the same order, so all share one compact hidden class.
 */
function toAsset(
  item: Record<string, unknown>,
  ownerId: string,
  fields: readonly CriterionField[],
  cameras?: CameraReader,
): AssetResult {
  const core = coreAssetSchema.safeParse(item);
  if (!core.success) {
    const issue = core.error.issues[0];
    return { field: issue?.path.join(".") || "(asset)", message: issue?.message ?? "invalid" };
  }
  const local = core.data.localDateTime;
  const asset: MutableAsset = {
    id: core.data.id,
    originalFileName: core.data.originalFileName,
    localDateTime: local,
  };
  const shared = { ownerId, localDateTime: local };
  for (const field of fields) {
    const problem = copyField(asset, field, item[field], shared);
    if (problem !== undefined) return { field, message: problem };
  }
  const size = core.data.exifInfo?.fileSizeInByte;
  if (size !== undefined && size !== null) asset.fileSizeInByte = size;
  cameras?.read(core.data.exifInfo, asset);
  return { asset };
}

/** Checks one criterion field and sets it, sharing repeated strings; returns the problem. */
function copyField<F extends CriterionField>(
  asset: { -readonly [K in CriterionField]?: CriterionFields[K] },
  field: F,
  raw: unknown,
  shared: { readonly ownerId: string; readonly localDateTime: string },
): string | undefined {
  const result = CRITERION_FIELD_SCHEMAS[field].safeParse(raw);
  if (!result.success) return result.error.issues[0]?.message ?? "invalid";
  const value: CriterionFields[F] = result.data;
  // A field the server does not send (the device fields from Immich 3) stays off the asset.
  if (value === undefined) return undefined;
  if (field === "ownerId") asset.ownerId = shared.ownerId;
  else if (field === "type") asset.type = ASSET_TYPES[value as keyof typeof ASSET_TYPES];
  else if (value === shared.localDateTime) {
    asset[field] = shared.localDateTime as CriterionFields[F];
  } else asset[field] = value;
  return undefined;
}

/**
 * The stacks that may hold a trashed or hidden member Immich would not name: `GET /assets/{id}`
 * shows a member's stack only when the stack has a member besides its primary that is on the
 * timeline, so a stack listed with nothing but its primary and archived members may be one.
 */
function mayHideMembers(stacks: readonly Stack[]): string[] {
  return stacks.filter((stack) => {
    const archived = new Set(stack.archivedAssetIds);
    return stack.assetIds.every((id) => id === stack.primaryAssetId || archived.has(id));
  }).map((stack) => stack.id);
}

/** One visibility pass of the search (docs/architecture.md, "Immich versions"). */
interface Pass {
  readonly visibility: "timeline" | "archive";
  readonly isArchived: boolean;
}

function passOf(scope: SearchScope): Pass {
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
 * import { searchScopes } from "./immich.ts";
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
 * The timeline queries that show every stack's cover but locked ones: the timeline, the
 * archive, hidden assets, and the trash (timeline and archive, then hidden).
 */
const TIMELINE_SCOPES: readonly Readonly<Record<string, string>>[] = [
  { visibility: "timeline" },
  { visibility: "archive" },
  { visibility: "hidden" },
  { isTrashed: "true" },
  { isTrashed: "true", visibility: "hidden" },
];

/** Searches of the user's assets off the timeline: archived, hidden, in the trash. */
const OFF_TIMELINE: readonly Readonly<Record<string, unknown>>[] = [
  { ...visibilityBody("archive"), withDeleted: false },
  HIDDEN_SEARCH,
  ...TRASH_SEARCHES,
];

/** The visibilities a search for changes covers: all but locked, which a key cannot read. */
const CHANGE_VISIBILITIES = ["timeline", "archive", "hidden"] as const;

/** The body of a search of one visibility, as every server version understands it. */
function visibilityBody(visibility: (typeof CHANGE_VISIBILITIES)[number]) {
  return {
    visibility,
    isArchived: visibility === "archive",
    isVisible: visibility !== "hidden",
  };
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

/**
 * Keeps what stacksync may stack of anyone's assets (the caller tells the user's from a
 * partner's), checked on the raw item before validation so that hidden parts are never reported
 * as invalid: never hidden live-photo motion parts or locked ones, and (in case a server ignored
 * a filter field) only the pass's archive state, trashed only when asked, images only unless
 * asked.
 */
function passes(item: Record<string, unknown>, pass: Pass, filter: SearchFilter): boolean {
  if (item.visibility === "hidden" || item.visibility === "locked") return false;
  if (typeof item.isArchived === "boolean" && item.isArchived !== pass.isArchived) return false;
  if (!filter.withDeleted && item.isTrashed === true) return false;
  return filter.includeVideos || item.type === undefined || item.type === "IMAGE";
}

/**
 * Creates the Immich client of one user.
 *
 * @param options The HTTP client settings: base URL, key, time-out, retry settings.
 * @returns The client; call `close()` when the user is done.
 * @throws {TypeError} When the base URL is not a URL.
 *
 * @example Usage
 * ```ts
 * import { createImmichClient } from "./immich.ts";
 * import assert from "node:assert/strict";
 *
 * const server = Deno.serve(
 *   { hostname: "127.0.0.1", port: 0, onListen() {} },
 *   () => Response.json({ id: "u1", name: "Ann", email: "ann@example.test" }),
 * );
 * const immich = createImmichClient({
 *   baseUrl: `http://127.0.0.1:${server.addr.port}/api`,
 *   apiKey: "example-key",
 * });
 * assert.equal((await immich.me()).name, "Ann");
 * immich.close();
 * await server.shutdown();
 * ```
 */
export function createImmichClient(options: ImmichClientOptions): ImmichClient {
  let serverDate: number | undefined;
  let dateText: string | null = null;
  let granted: readonly string[] | undefined;
  let faultCount = 0;
  // Every answer tells the server's clock; every failed attempt counts as a fault of the pass.
  const connect = (baseUrl: string) =>
    createHttpClient({
      ...options,
      baseUrl,
      observer: {
        answered(response) {
          options.observer?.answered?.(response);
          // Whole seconds: parsed once per second, not for each of a first run's 48 000 answers.
          const text = response.headers.get("date");
          if (text === null || text === dateText) return;
          dateText = text;
          const date = Date.parse(text);
          if (!Number.isNaN(date)) serverDate = date;
        },
        failed(error) {
          options.observer?.failed?.(error);
          faultCount++;
        },
      },
    });
  const learned = API_ADDRESSES.get(options.baseUrl);
  let http = connect(learned ?? options.baseUrl);
  let version: Promise<ServerVersion> | undefined;

  /**
   * `GET /server/version`; when API_URL lacks `/api` and so reaches Immich's web page, the same
   * at the address with `/api` added, which the client then keeps, saying so once.
   */
  async function readVersion(): Promise<ServerVersion> {
    try {
      return await http.request("GET", "/server/version", { schema: versionSchema });
    } catch (error) {
      // The first request of a pass: a 404 means API_URL points at something else.
      if (error instanceof PermanentError && error.status === 404) {
        throw new PermanentError(
          `Cannot find the Immich API at API_URL as GET /server/version answered 404 ` +
            `${error.serverMessage}: check the address, which ends in /api (e.g. ` +
            `http://immich:2283/api): current value is ${shownUrl(options.baseUrl)}`,
          {
            method: "GET",
            path: "/server/version",
            status: 404,
            serverMessage: error.serverMessage,
            correlationId: error.correlationId,
            attempt: error.attempt,
            cause: error,
          },
        );
      }
      const withApi = `${options.baseUrl.replace(/\/+$/, "")}/api`;
      if (
        !(error instanceof InvalidResponseError) || error.serverMessage !== "HTML page" ||
        learned !== undefined || /\/api$/.test(new URL(options.baseUrl).pathname)
      ) throw error;
      const retried = connect(withApi);
      let found: ServerVersion;
      try {
        found = await retried.request("GET", "/server/version", { schema: versionSchema });
      } catch {
        retried.close();
        throw error;
      }
      http.close();
      http = retried;
      API_ADDRESSES.set(options.baseUrl, withApi);
      logger.warn(
        "API_URL {apiUrl} answers Immich's web page, not its API: using {usedUrl}; add /api to " +
          "API_URL",
        { apiUrl: shownUrl(options.baseUrl), usedUrl: shownUrl(withApi) },
      );
      return found;
    }
  }
  let user: Promise<User> | undefined;
  let permissions: Promise<readonly string[]> | undefined;
  const cameras = new CameraReader();
  const camerasOf = (filter: SearchFilter) => (filter.withCamera ? cameras : undefined);

  /**
   * The answers of one search, page by page, checked against Immich's paging contract: a page
   * announces the next only when it is full, and the next is the following number. A server
   * that breaks it would otherwise be followed forever.
   */
  async function* searchPages(body: Record<string, unknown>): AsyncGenerator<readonly unknown[]> {
    for (let page = 1;; page++) {
      if (page > MAX_SEARCH_PAGES) {
        throw pagingError(`kept announcing pages past ${MAX_SEARCH_PAGES}`, page);
      }
      const answer: z.infer<typeof searchSchema> = await http.request("POST", "/search/metadata", {
        body: { ...body, page, size: PAGE_SIZE },
        schema: searchSchema,
      });
      const { items, nextPage } = answer.assets;
      yield items;
      if (nextPage === null || nextPage === undefined || nextPage === "") return;
      if (nextPage !== String(page + 1)) {
        throw pagingError(`answered nextPage ${JSON.stringify(nextPage)} after page ${page}`, page);
      }
      if (items.length < PAGE_SIZE) {
        throw pagingError(
          `announced page ${page + 1} after a page of only ${items.length} assets`,
          page,
        );
      }
    }
  }

  /** The search body of one visibility pass, as every server version understands it. */
  function searchBody(filter: SearchFilter, pass: Pass, albumId: string | undefined) {
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
    },
  ): AssetPage & { readonly repeated: boolean } {
    const { userId, pass, filter, seen, search } = context;
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
      if (record.ownerId !== userId) {
        if (typeof record.id === "string") {
          others.push({ id: record.id, updatedAt: timeMs(record.updatedAt) });
        }
        continue;
      }
      mine++;
      if (typeof record.id === "string") {
        const before = seen.get(record.id);
        if (before !== search) fresh++;
        seen.set(record.id, search);
        if (before !== undefined) {
          if (before !== search) repeats.push(record.id);
          continue;
        }
      }
      const result = toAsset(
        record,
        userId,
        filter.fields ?? ALL_CRITERION_FIELDS,
        camerasOf(filter),
      );
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

  /**
   * The assets of one search, every page, each once, by id: only the user's own with `userId`,
   * anyone's without (a partner's changes count too).
   */
  async function scan(
    body: Record<string, unknown>,
    userId: string | undefined,
    stopAfter = Infinity,
  ): Promise<Map<string, Record<string, unknown>>> {
    const found = new Map<string, Record<string, unknown>>();
    let page = 0;
    for await (const items of searchPages(body)) {
      if (found.size > stopAfter) break;
      page++;
      let fresh = 0;
      let mine = 0;
      for (const item of items) {
        const record = asRecord(item);
        if (typeof record.id !== "string") continue;
        if (userId !== undefined && record.ownerId !== userId) continue;
        mine++;
        if (found.has(record.id)) continue;
        fresh++;
        found.set(record.id, record);
      }
      if (mine > 0 && fresh === 0) throw pagingError("answered a page it had already sent", page);
    }
    return found;
  }

  /**
   * The user's assets of one search that are in a stack: Immich names no stack in search
   * results, but leaves stacked assets out of the same search with `withStacked: false`.
   */
  async function stackedIn(
    body: Readonly<Record<string, unknown>>,
    userId: string,
  ): Promise<Map<string, Record<string, unknown>>> {
    const found = await scan(body, userId);
    for (const id of (await scan({ ...body, withStacked: false }, userId)).keys()) found.delete(id);
    return found;
  }

  async function count(body: Record<string, unknown>): Promise<number> {
    const answer = await http.request("POST", "/search/statistics", {
      body,
      schema: statisticsSchema,
    });
    return answer.total;
  }

  /** The stacks through the timeline: see {@linkcode ImmichClient.listStacksByTimeline}. */
  async function readStacksByTimeline(): Promise<Stack[]> {
    const version = await client.serverVersion();
    if (version.major < 2) {
      throw new PermanentError(
        `Cannot read the stacks through the timeline as Immich ${versionText(version)} ` +
          "serves it in another shape: upgrade Immich to v2 or newer",
        {
          method: "GET",
          path: "/timeline/bucket",
          status: 200,
          serverMessage: "timeline before v2",
          attempt: 1,
        },
      );
    }
    const { id: userId } = await client.me();
    /** By stack id: its cover, and how many members the timeline counts (cover included). */
    const covers = new Map<string, { primaryAssetId: string; counted: number; alone: boolean }>();
    /** The user's assets off the timeline that the timeline shows without a stack. */
    const shownAlone = new Set<string>();
    for (const scope of TIMELINE_SCOPES) {
      const query = new URLSearchParams({ withStacked: "true", ...scope });
      const buckets = await http.request("GET", `/timeline/buckets?${query}`, {
        schema: bucketsSchema,
      });
      for (const { timeBucket } of buckets) {
        query.set("timeBucket", timeBucket);
        const columns = await http.request("GET", `/timeline/bucket?${query}`, {
          schema: bucketSchema,
        });
        for (const [i, id] of columns.id.entries()) {
          if (columns.ownerId[i] !== userId) continue;
          const stack = columns.stack?.[i];
          if (stack === null || stack === undefined) {
            if (scope.visibility !== "timeline") shownAlone.add(id);
            continue;
          }
          const counted = Number(stack[1]);
          // The count is of members on the timeline and not in the trash: 1 with such a cover
          // is the cover alone, unless archived members hide (checked below).
          const alone = counted === 1 && columns.visibility[i] === "timeline" &&
            !columns.isTrashed[i];
          covers.set(stack[0], { primaryAssetId: id, counted, alone });
        }
      }
    }
    const stacks = new Map<string, Stack>();
    const alone: string[] = [];
    for (const [stackId, { primaryAssetId, alone: coverAlone }] of covers) {
      if (coverAlone) {
        stacks.set(stackId, { id: stackId, primaryAssetId, assetIds: [primaryAssetId] });
        alone.push(stackId);
        continue;
      }
      const stack = await client.getStack(stackId);
      if (stack !== undefined) stacks.set(stackId, stack);
    }
    // A stack none of whose members is on the timeline outside the trash has no count: its
    // cover is off the timeline, in a stack (the searches with and without stacked assets
    // tell), and shown without one.
    const stacked = new Map<string, boolean>();
    for (const body of OFF_TIMELINE) {
      for (const [id, record] of await stackedIn(body, userId)) {
        stacked.set(id, record.visibility === "archive" && record.isTrashed !== true);
      }
    }
    const loose = () => {
      const held = new Set([...stacks.values()].flatMap((s) => [s.primaryAssetId, ...s.assetIds]));
      return [...stacked.keys()].filter((id) => !held.has(id));
    };
    for (const id of loose()) {
      if (!shownAlone.has(id)) continue;
      const stack = await client.stackWithPrimary(id);
      if (stack !== undefined) stacks.set(stack.id, stack);
    }
    // No count shows archived members either: one no stack holds yet belongs to a stack
    // counted as its cover alone.
    if (loose().some((id) => stacked.get(id))) {
      for (const stackId of alone) {
        const stack = await client.getStack(stackId);
        if (stack === undefined) stacks.delete(stackId);
        else stacks.set(stackId, stack);
      }
    }
    return [...stacks.values()];
  }

  const client: ImmichClient = {
    serverVersion() {
      version ??= readVersion();
      return version;
    },
    me() {
      user ??= http.request("GET", "/users/me", { schema: userSchema });
      return user;
    },
    keyPermissions() {
      permissions ??= http.request("GET", "/api-keys/me", { schema: apiKeySchema })
        .then((key) => {
          granted = key.permissions;
          return key.permissions;
        });
      return permissions;
    },
    async grantedPermissions() {
      if (!listsKeyPermissions(await client.serverVersion())) return undefined;
      return await client.keyPermissions();
    },
    grants(permission) {
      return granted === undefined
        ? undefined
        : granted.includes("all") || granted.includes(permission);
    },
    async requirePermissions(needed = REQUIRED_PERMISSIONS) {
      const version = await client.serverVersion();
      if (listsKeyPermissions(version)) {
        const granted = await client.keyPermissions();
        if (granted.includes("all")) return;
        const missing = needed.filter((permission) => !granted.includes(permission));
        if (missing.length > 0) throw new MissingPermissionsError(missing, granted);
        return;
      }
      // No GET /api-keys/me: try each stack write the run needs in a form Immich refuses
      // after its permission guard. Reads need no probe: the pass reads before it writes.
      const missing: string[] = [];
      for (const permission of needed) {
        const probe = WRITE_PROBES[permission];
        if (probe === undefined) continue;
        try {
          await http.request(probe.method, probe.path, { body: probe.body, schema: anything });
        } catch (error) {
          if (!(error instanceof PermanentError)) throw error;
          if (error.status === 403) missing.push(permission);
          else if (error.status !== 400) throw error;
        }
      }
      if (missing.length > 0) throw new MissingPermissionsError(missing, version);
    },
    listStacks(options = {}) {
      const names = options.fileNames;
      return http.stream("GET", "/stacks", {
        async read(body, invalid) {
          const stacks: Stack[] = [];
          try {
            for await (const item of parseJsonObjectArray(body, { nullBelow: 3 })) {
              const result = stackSchema.safeParse(item);
              if (!result.success) {
                const issue = result.error.issues[0];
                throw invalid(
                  `Invalid stack data: GET /stacks answered a stack without a valid ` +
                    `${issue?.path.join(".") || "shape"}: ${JSON.stringify(item).slice(0, 200)}`,
                );
              }
              stacks.push(toStack(result.data));
              if (names !== undefined) keepFileNames(item, names);
            }
          } catch (error) {
            if (!(error instanceof SyntaxError)) throw error;
            throw invalid(`Cannot parse the answer of GET /stacks as JSON: ${error.message}`);
          }
          return stacks;
        },
      });
    },
    async *searchAssets(filter) {
      const { id: userId } = await client.me();
      const seen = new Map<string, number>();
      for (const [search, scope] of searchScopes(filter).entries()) {
        const pass = passOf(scope);
        let page = 0;
        for await (const items of searchPages(searchBody(filter, pass, scope.albumId))) {
          page++;
          const { repeated, ...assetPage } = validatePage(items, {
            userId,
            pass,
            filter,
            seen,
            search,
          });
          if (repeated) throw pagingError("answered a page it had already sent", page);
          yield assetPage;
        }
      }
    },
    async countAssets(filter) {
      if (client.grants(STATISTICS_PERMISSION) === false) return undefined;
      const counts: number[] = [];
      try {
        for (const scope of searchScopes(filter)) {
          const { withExif: _, ...body } = searchBody(filter, passOf(scope), scope.albumId);
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
    async changedAssets(filter, since, limit = Infinity) {
      const { id: userId } = await client.me();
      const scopes = searchScopes(filter);
      const updatedAfter = new Date(since).toISOString();
      // With albums only the server knows which search each changed asset is in.
      const inAlbum = new Map<string, number>();
      if (filter.albumIds?.length) {
        for (const [index, scope] of scopes.entries()) {
          const body = { ...searchBody(filter, passOf(scope), scope.albumId), updatedAfter };
          for (const id of (await scan(body, undefined)).keys()) {
            inAlbum.set(id, (inAlbum.get(id) ?? 0) | 1 << index);
          }
        }
      }
      const changed: ChangedAsset[] = [];
      for (const visibility of CHANGE_VISIBILITIES) {
        const body = {
          ...visibilityBody(visibility),
          withDeleted: true,
          updatedAfter,
          ...(filter.withFileSize || filter.withCamera ? { withExif: true } : {}),
        };
        const found = await scan(body, undefined, limit - changed.length);
        if (changed.length + found.size > limit) return undefined;
        for (const item of found.values()) {
          const id = item.id as string;
          let scopesIn = 0;
          for (const [index, scope] of scopes.entries()) {
            if (inPass(item, visibility, passOf(scope), filter)) scopesIn |= 1 << index;
          }
          if (filter.albumIds?.length) scopesIn &= inAlbum.get(id) ?? 0;
          const own = item.ownerId === userId;
          const base = {
            id,
            updatedAt: timeMs(item.updatedAt),
            own,
            trashed: item.isTrashed === true,
            archived: visibility === "archive",
          };
          if (!own || scopesIn === 0) {
            changed.push({ ...base, scopes: scopesIn });
            continue;
          }
          const result = toAsset(
            item,
            userId,
            filter.fields ?? ALL_CRITERION_FIELDS,
            camerasOf(filter),
          );
          changed.push(
            "asset" in result ? { ...base, scopes: scopesIn, asset: result.asset } : {
              ...base,
              scopes: scopesIn,
              invalid: {
                id,
                field: result.field,
                message: result.message,
                updatedAt: base.updatedAt,
              },
            },
          );
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
        for (const id of (await scan(body, undefined)).keys()) unstacked.add(id);
      }
      return unstacked;
    },
    async assetStack(assetId) {
      try {
        const answer = await http.request("GET", `/assets/${encodeURIComponent(assetId)}`, {
          schema: assetStackSchema,
        });
        const stack = answer.stack;
        return stack === null || stack === undefined
          ? {}
          : { stackId: stack.id, primaryAssetId: stack.primaryAssetId };
      } catch (error) {
        if (error instanceof PermanentError && error.status === 400) {
          return undefined;
        }
        throw error;
      }
    },
    async getStack(stackId) {
      try {
        const stack = await http.request("GET", `/stacks/${encodeURIComponent(stackId)}`, {
          schema: stackSchema,
        });
        return toStack(stack);
      } catch (error) {
        if (error instanceof PermanentError && error.status === 400) return undefined;
        throw error;
      }
    },
    listStacksByTimeline() {
      return readStacksByTimeline();
    },
    serverTime() {
      return serverDate;
    },
    faults() {
      return faultCount;
    },
    async findUnlistedMembers(stacks) {
      const { id: userId } = await client.me();
      const unlisted = new Map<string, { name: string; trashed: boolean }>();
      for (const body of [...TRASH_SEARCHES, HIDDEN_SEARCH]) {
        for (const [id, record] of await stackedIn(body, userId)) {
          const name = typeof record.originalFileName === "string" ? record.originalFileName : id;
          unlisted.set(id, { name, trashed: record.isTrashed === true });
        }
      }
      const byPrimary = new Map(stacks.map((stack) => [stack.primaryAssetId, stack.id]));
      const lookups = [...unlisted.keys()].filter((id) => !byPrimary.has(id));
      if (lookups.length > MAX_UNLISTED_LOOKUPS) {
        throw new PermanentError(
          `Cannot find the stacks of ${lookups.length} trashed or hidden assets that are in ` +
            `stacks, more than ${MAX_UNLISTED_LOOKUPS}: empty the trash or restore them`,
          {
            method: "GET",
            path: "/assets/{id}",
            status: 200,
            serverMessage: `${lookups.length} lookups`,
            attempt: 1,
          },
        );
      }
      const known = new Set(stacks.map((stack) => stack.id));
      const members: UnlistedMember[] = [];
      let unnamed = 0;
      for (const [id, { name, trashed }] of unlisted) {
        const stackId = byPrimary.get(id) ??
          (await http.request("GET", `/assets/${encodeURIComponent(id)}`, {
            schema: assetStackSchema,
          })).stack?.id;
        if (stackId === undefined) unnamed++;
        // A stack made after GET /stacks is not in the plan: nothing acts on it.
        else if (known.has(stackId)) members.push({ id, originalFileName: name, stackId, trashed });
      }
      return { members, unseenStackIds: unnamed === 0 ? [] : mayHideMembers(stacks) };
    },
    async fileNames(assetIds) {
      const names = new Map<string, string>();
      for (const id of assetIds) {
        try {
          const asset = await http.request("GET", `/assets/${encodeURIComponent(id)}`, {
            schema: assetNameSchema,
          });
          names.set(id, asset.originalFileName);
        } catch (error) {
          // A name is only for messages: an asset gone meanwhile keeps its id.
          if (!(error instanceof PermanentError) || isAccessDenied(error)) throw error;
        }
      }
      return names;
    },
    async stackWithPrimary(assetId) {
      const stacks = await http.request(
        "GET",
        `/stacks?primaryAssetId=${encodeURIComponent(assetId)}`,
        { schema: stacksSchema },
      );
      const stack = stacks.find((candidate) => candidate.primaryAssetId === assetId);
      return stack === undefined ? undefined : toStack(stack);
    },
    async resolveAlbumIds(namesOrIds) {
      const wanted = namesOrIds.filter((item) => item !== "");
      if (wanted.every((item) => UUID.test(item))) return [...wanted];
      const albums = await http.request("GET", "/albums", { schema: albumsSchema });
      return wanted.map((item) => {
        if (UUID.test(item)) return item;
        const matches = albums.filter((album) => album.albumName === item);
        if (matches.length === 0) {
          throw new RangeError(
            `Cannot find the album named in FILTER_ALBUM_IDS: current value is ${
              JSON.stringify(item)
            }`,
          );
        }
        if (matches.length > 1) {
          throw new RangeError(
            `Cannot tell which album FILTER_ALBUM_IDS means as ${matches.length} albums share ` +
              `its name, give an id instead: current value is ${JSON.stringify(item)}`,
          );
        }
        return matches[0].id;
      });
    },
    async createStack(assetIds) {
      const stack = await http.request("POST", "/stacks", {
        body: { assetIds: assetIds.length === 1 ? [assetIds[0], assetIds[0]] : assetIds },
        schema: stackSchema,
      });
      return answered(stack);
    },
    async updateStackPrimary(stackId, primaryAssetId) {
      const stack = await http.request("PUT", `/stacks/${encodeURIComponent(stackId)}`, {
        body: { primaryAssetId },
        schema: stackSchema,
      });
      return answered(stack);
    },
    async deleteStack(stackId) {
      try {
        await http.request("DELETE", `/stacks/${encodeURIComponent(stackId)}`, {
          schema: anything,
        });
      } catch (error) {
        // The first attempt may have deleted it before its answer was lost.
        const goneOnRetry = error instanceof PermanentError && error.attempt > 1 &&
          error.status === 400 && /^not found/i.test(error.serverMessage);
        if (!goneOnRetry) throw error;
      }
    },
    async trashedAssets() {
      const { id: userId } = await client.me();
      const names = new Map<string, string>();
      for (const body of TRASH_SEARCHES) {
        for (const [id, record] of await scan(body, userId)) {
          if (record.isTrashed !== true) continue;
          const name = record.originalFileName;
          names.set(id, typeof name === "string" ? name : id);
        }
      }
      return names;
    },
    async trashAssets(assetIds) {
      await http.request("DELETE", "/assets", {
        body: { ids: assetIds, force: false },
        schema: anything,
      });
    },
    async restoreAssets(assetIds) {
      await http.request("POST", "/trash/restore/assets", {
        body: { ids: assetIds },
        schema: anything,
      });
    },
    thumbnail(assetId) {
      return http.stream(
        "GET",
        `/assets/${encodeURIComponent(assetId)}/thumbnail?size=thumbnail`,
        { read: async (body) => new Uint8Array(await new Response(body).arrayBuffer()) },
      );
    },
    close() {
      http.close();
    },
  };
  return client;
}
