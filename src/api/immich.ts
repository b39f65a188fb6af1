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
import { shownUrl } from "../shown_url.ts";
import { createHttpClient, type HttpClientOptions, PermanentError } from "./http.ts";

const logger = getLogger(["stacksync", "api"]);

/** Immich allows at most 1000 items per search page. */
const PAGE_SIZE = 1000;

/** Every permission a real run needs; `all` grants them all. */
export const REQUIRED_PERMISSIONS: readonly string[] = [
  "user.read",
  "asset.read",
  "stack.read",
  "stack.create",
  "stack.update",
  "stack.delete",
];

/** The permissions of a dry run, which only reads. */
const READ_PERMISSIONS: readonly string[] = REQUIRED_PERMISSIONS.slice(0, 3);

/** What a run does that needs permissions; see {@linkcode neededPermissions}. */
export interface PermissionNeeds {
  /** A dry run only reads. */
  readonly dryRun: boolean;
  /** FILTER_ALBUM_IDS as given: album names (not ids) are resolved through `GET /albums`. */
  readonly albums?: readonly string[];
}

/**
 * The permissions a run needs, so the preflight names every missing one before any write.
 *
 * @param needs Dry run or real, and the album filter.
 * @returns The permissions: the three reads, the stack writes unless dry, and `album.read`
 * when an album is given by name.
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
 * ```
 */
export function neededPermissions(needs: PermissionNeeds): string[] {
  const needed = [...needs.dryRun ? READ_PERMISSIONS : REQUIRED_PERMISSIONS];
  if (needs.albums?.some((album) => !UUID.test(album))) needed.push("album.read");
  return needed;
}

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
}

/** One search page after filtering: the valid assets and the ones skipped as invalid. */
export interface AssetPage {
  readonly assets: Asset[];
  readonly invalid: InvalidAsset[];
}

/** The Immich API of one user. */
export interface ImmichClient {
  /** `GET /server/version` (public), cached. */
  serverVersion(): Promise<ServerVersion>;
  /** `GET /users/me`, cached: the key's user. */
  me(): Promise<User>;
  /** `GET /api-keys/me`: the key's permissions (v2+ only; older servers have none). */
  keyPermissions(): Promise<readonly string[]>;
  /**
   * Checks the key's permissions on v2+ servers (v1 keys have none to check).
   * @throws {MissingPermissionsError} Naming every missing permission at once.
   */
  requirePermissions(needed?: readonly string[]): Promise<void>;
  /** `GET /stacks`, streamed: every stack with every member id. */
  listStacks(): Promise<Stack[]>;
  /** `POST /search/metadata` page by page, filtered to the user's own, visible assets. */
  searchAssets(filter: SearchFilter): AsyncIterable<AssetPage>;
  /** Keeps album ids, resolves album names through `GET /albums`. */
  resolveAlbumIds(namesOrIds: readonly string[]): Promise<string[]>;
  /**
   * `POST /stacks`: the first id becomes the primary (Immich merges: docs/architecture.md,
   * "Immich's merge rule").
   */
  createStack(assetIds: readonly string[]): Promise<Stack>;
  /** `PUT /stacks/{id}` with a new primary that is already a member. */
  updateStackPrimary(stackId: string, primaryAssetId: string): Promise<Stack>;
  /** `DELETE /stacks/{id}`; the assets stay. */
  deleteStack(stackId: string): Promise<void>;
  /** Closes the connection pool. */
  close(): void;
}

/** The key lacks permissions the run needs; thrown before any write. */
export class MissingPermissionsError extends PermanentError {
  /** Every missing permission. */
  readonly missing: readonly string[];

  /**
   * @param missing The permissions the key lacks.
   * @param granted The permissions the key has.
   */
  constructor(missing: readonly string[], granted: readonly string[]) {
    const current = granted.length === 0 ? "none" : granted.join(", ");
    super(
      `Cannot use the API key as it lacks the permissions ${missing.join(", ")}: ` +
        `current permissions are ${current}`,
      {
        method: "GET",
        path: "/api-keys/me",
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
  assets: z.array(z.object({ id: z.string() })),
});
const searchSchema = z.object({
  assets: z.object({
    items: z.array(z.unknown()),
    nextPage: z.string().nullable().optional(),
  }),
});
const anything = z.unknown();

// Both `…Z` (search) and `…+00:00` (stacks) forms are valid.
const timestamp = z.iso.datetime({ offset: true });
/** What every asset needs: the fields promotion and planning read, and EXIF for sizes. */
const coreAssetSchema = z.object({
  id: z.string(),
  originalFileName: z.string(),
  localDateTime: timestamp,
  exifInfo: z.object({ fileSizeInByte: z.number().nullish() }).nullish(),
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
    [F in CriterionField]: Fits<AssetResponseDto[F], z.input<typeof criterionFieldSchemas[F]>>;
  }[CriterionField][],
]>;

/** Every field criteria can read: what the client keeps when not told otherwise. */
const ALL_CRITERION_FIELDS = Object.keys(CRITERION_FIELD_SCHEMAS) as CriterionField[];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function toStack(stack: z.infer<typeof stackSchema>): Stack {
  return {
    id: stack.id,
    primaryAssetId: stack.primaryAssetId,
    assetIds: stack.assets.map((asset) => asset.id),
  };
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
  if (field === "ownerId") asset.ownerId = shared.ownerId;
  else if (field === "type") asset.type = ASSET_TYPES[value as keyof typeof ASSET_TYPES];
  else if (value === shared.localDateTime) {
    asset[field] = shared.localDateTime as CriterionFields[F];
  } else asset[field] = value;
  return undefined;
}

/** One visibility pass of the search (docs/architecture.md, "Immich versions"). */
interface Pass {
  readonly visibility: "timeline" | "archive";
  readonly isArchived: boolean;
}

/**
 * Keeps what stacksync may stack, checked on the raw item before validation so that partner
 * assets and hidden parts are never reported as invalid: the user's own assets, never hidden
 * live-photo motion parts or locked ones, and (in case a server ignored a filter field) only
 * the pass's archive state, trashed only when asked, images only unless asked.
 */
function belongs(
  item: Record<string, unknown>,
  userId: string,
  pass: Pass,
  filter: SearchFilter,
): boolean {
  if (item.ownerId !== userId) return false;
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
  const http = createHttpClient(options);
  let version: Promise<ServerVersion> | undefined;
  let user: Promise<User> | undefined;

  async function* searchPass(
    filter: SearchFilter,
    userId: string,
    pass: Pass,
    albumId: string | undefined,
  ): AsyncGenerator<AssetPage> {
    let page: number | undefined = 1;
    while (page !== undefined) {
      const body: Record<string, unknown> = {
        page,
        size: PAGE_SIZE,
        visibility: pass.visibility,
        isArchived: pass.isArchived,
        isVisible: true,
        withDeleted: filter.withDeleted,
        ...(filter.includeVideos ? {} : { type: "IMAGE" }),
        ...(filter.takenAfter === undefined ? {} : { takenAfter: filter.takenAfter }),
        ...(filter.takenBefore === undefined ? {} : { takenBefore: filter.takenBefore }),
        ...(albumId === undefined ? {} : { albumIds: [albumId] }),
        ...(filter.withFileSize ? { withExif: true } : {}),
      };
      const answer: z.infer<typeof searchSchema> = await http.request("POST", "/search/metadata", {
        body,
        schema: searchSchema,
      });
      yield validatePage(answer.assets.items, userId, pass, filter);
      const next = answer.assets.nextPage;
      page = typeof next === "string" && next !== "" ? Number(next) : undefined;
      if (page !== undefined && !Number.isSafeInteger(page)) {
        throw new PermanentError(
          `Cannot follow the search pages as nextPage is not a number: current value is ${next}`,
          {
            method: "POST",
            path: "/search/metadata",
            status: 200,
            serverMessage: `nextPage ${next}`,
            attempt: 1,
          },
        );
      }
    }
  }

  function validatePage(
    items: readonly unknown[],
    userId: string,
    pass: Pass,
    filter: SearchFilter,
  ): AssetPage {
    const assets: Asset[] = [];
    const invalid: InvalidAsset[] = [];
    for (const item of items) {
      const record = (typeof item === "object" && item !== null ? item : {}) as Record<
        string,
        unknown
      >;
      if (!belongs(record, userId, pass, filter)) continue;
      const result = toAsset(record, userId, filter.fields ?? ALL_CRITERION_FIELDS);
      if ("asset" in result) {
        assets.push(result.asset);
        continue;
      }
      const skipped = {
        id: typeof record.id === "string" ? record.id : "(missing)",
        field: result.field,
        message: result.message,
      };
      invalid.push(skipped);
      logger.warn("Invalid asset data", {
        assetID: skipped.id,
        field: skipped.field,
        reason: skipped.message,
        filename: typeof record.originalFileName === "string" ? record.originalFileName : undefined,
      });
    }
    return { assets, invalid };
  }

  const client: ImmichClient = {
    serverVersion() {
      version ??= http.request("GET", "/server/version", { schema: versionSchema }).catch(
        (error) => {
          // The first request of a pass: a 404 means API_URL points at something else.
          if (!(error instanceof PermanentError) || error.status !== 404) throw error;
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
        },
      );
      return version;
    },
    me() {
      user ??= http.request("GET", "/users/me", { schema: userSchema });
      return user;
    },
    async keyPermissions() {
      const key = await http.request("GET", "/api-keys/me", { schema: apiKeySchema });
      return key.permissions;
    },
    async requirePermissions(needed = REQUIRED_PERMISSIONS) {
      if ((await client.serverVersion()).major < 2) return;
      const granted = await client.keyPermissions();
      if (granted.includes("all")) return;
      const missing = needed.filter((permission) => !granted.includes(permission));
      if (missing.length > 0) throw new MissingPermissionsError(missing, granted);
    },
    listStacks() {
      return http.stream("GET", "/stacks", {
        async read(body, invalid) {
          const stacks: Stack[] = [];
          try {
            for await (const item of parseJsonObjectArray(body)) {
              const result = stackSchema.safeParse(item);
              if (!result.success) {
                const issue = result.error.issues[0];
                throw invalid(
                  `Invalid stack data: GET /stacks answered a stack without a valid ` +
                    `${issue?.path.join(".") || "shape"}: ${JSON.stringify(item).slice(0, 200)}`,
                );
              }
              stacks.push(toStack(result.data));
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
      const passes: Pass[] = [{ visibility: "timeline", isArchived: false }];
      if (filter.withArchived) passes.push({ visibility: "archive", isArchived: true });
      const albums = filter.albumIds?.length ? filter.albumIds : [undefined];
      // An asset in two of the albums comes back twice; only then is a seen-set needed.
      const seen = albums.length > 1 ? new Set<string>() : undefined;
      for (const pass of passes) {
        for (const albumId of albums) {
          for await (const page of searchPass(filter, userId, pass, albumId)) {
            if (seen === undefined) {
              yield page;
              continue;
            }
            const fresh = page.assets.filter((asset) => !seen.has(asset.id));
            for (const asset of fresh) seen.add(asset.id);
            yield { assets: fresh, invalid: page.invalid };
          }
        }
      }
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
        body: { assetIds },
        schema: stackSchema,
      });
      return toStack(stack);
    },
    async updateStackPrimary(stackId, primaryAssetId) {
      const stack = await http.request("PUT", `/stacks/${encodeURIComponent(stackId)}`, {
        body: { primaryAssetId },
        schema: stackSchema,
      });
      return toStack(stack);
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
    close() {
      http.close();
    },
  };
  return client;
}
