/**
 * The pictures of the review page: which photos get one (at most PLAN_THUMBNAILS, covers
 * first), and fetching them from Immich a few at a time, with the client's retries. A key
 * without `asset.view` gets one warning and a page of file names.
 *
 * @module
 */
import type { Logger } from "@logtape/logtape";
import { ApiError } from "../api/errors.ts";
import type { KeyPermissions } from "../api/permissions.ts";
import type { Thumbnails } from "../api/thumbnails.ts";
import type { PlanUser } from "../plan_file/format.ts";

/** The permission `GET /assets/{id}/thumbnail` needs. */
export const THUMBNAIL_PERMISSION = "asset.view";

/**
 * The photos of a user's plan that get a picture, in the order the page shows them: each
 * card's cover first (the stack it makes, or the stack it deletes), then the other photos of
 * each card and of the stacks it touches, then the conflicts left alone; each photo once.
 *
 * @param user The plan file's user.
 * @param max How many at most.
 * @returns Asset ids.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { picturesOf } from "./thumbnails.ts";
 *
 * const asset = (id: string) => ({ id, originalFileName: `${id}.jpg` });
 * const action = (id: string, ids: string[]) => ({
 *   id, kind: "create", reason: { code: "new-group", text: "" }, stacks: [], assets: ids.map(asset),
 * }) as const;
 * const user = {
 *   id: "u1", name: "Ada", settings: {}, inSync: 0, needsReplace: [],
 *   actions: [action("1", ["a", "b"]), action("2", ["c", "d"])],
 * };
 * assert.deepEqual(picturesOf(user, 3), ["a", "c", "b"]);
 * ```
 */
export function picturesOf(user: PlanUser, max: number): string[] {
  const chosen = new Set<string>();
  const add = (id: string) => {
    if (chosen.size < max) chosen.add(id);
  };
  for (const action of user.actions) add(action.assets[0].id);
  for (const entry of [...user.actions, ...user.needsReplace]) {
    for (const asset of entry.assets) add(asset.id);
    for (const stack of entry.stacks) for (const asset of stack.assets) add(asset.id);
  }
  return [...chosen];
}

/** What {@linkcode fetchThumbnails} reads of the client: the pictures, and the key's permissions. */
export type ThumbnailSource = Thumbnails & Pick<KeyPermissions, "grantedPermissions">;

/** Options of {@linkcode fetchThumbnails}. */
export interface FetchThumbnailsOptions {
  /** Receives each picture as it arrives. */
  readonly save: (assetId: string, bytes: Uint8Array) => Promise<void>;
  /** The user's logger. */
  readonly log: Logger;
  /**
   * How many requests at once.
   * @default {8}
   */
  readonly concurrency?: number;
  /** Stops fetching (the pictures so far are kept). */
  readonly signal?: AbortSignal;
}

/** What {@linkcode fetchThumbnails} did. */
export interface FetchedThumbnails {
  readonly fetched: number;
  readonly failed: number;
  /** The key lacks `asset.view`: nothing more was asked. */
  readonly denied: boolean;
}

/**
 * Fetches the pictures of the given photos. Whether the key may is decided from its
 * permissions where the server lists them, else by the first answer: a 403 stops the fetching
 * with one warning naming the permission. Any other failure leaves that photo without a
 * picture; their number is told once at the end.
 *
 * @param client The user's Immich client.
 * @param assetIds The photos, in the order wanted.
 * @param options Where the pictures go, the logger, how many at once.
 * @returns How many came, failed, and whether the key was refused.
 */
export async function fetchThumbnails(
  client: ThumbnailSource,
  assetIds: readonly string[],
  options: FetchThumbnailsOptions,
): Promise<FetchedThumbnails> {
  const { log } = options;
  const warnDenied = () =>
    log.warn(
      "Showing file names instead of pictures on the review page as the API key lacks the " +
        "permission {permission}: add it to the key to see the photos",
      { permission: THUMBNAIL_PERMISSION },
    );
  const granted = await client.grantedPermissions();
  if (
    granted !== undefined && !granted.includes("all") && !granted.includes(THUMBNAIL_PERMISSION)
  ) {
    if (assetIds.length > 0) warnDenied();
    return { fetched: 0, failed: 0, denied: true };
  }
  let next = 0;
  let fetched = 0;
  let failed = 0;
  let denied = false;
  const worker = async () => {
    while (next < assetIds.length && !denied && !options.signal?.aborted) {
      const id = assetIds[next++];
      let bytes: Uint8Array;
      try {
        bytes = await client.thumbnail(id);
      } catch (error) {
        if (error instanceof ApiError && error.status === 403) {
          if (!denied) warnDenied();
          denied = true;
          return;
        }
        if (options.signal?.aborted) return;
        failed++;
        log.debug("Could not fetch the picture of {assetID}: {error}", {
          assetID: id,
          error: error instanceof Error ? error.message : String(error),
        });
        continue;
      }
      await options.save(id, bytes);
      fetched++;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 8 }, worker));
  if (failed > 0) {
    log.warn(
      "Could not fetch {failed} of {pictures} pictures for the review page: those photos show " +
        "their file names (LOG_LEVEL=debug names each)",
      { failed, pictures: assetIds.length },
    );
  }
  return { fetched, failed, denied };
}

/**
 * The kind of a picture from its first bytes, for its file's extension and its data URL.
 *
 * @param bytes The picture.
 * @returns `jpeg`, `png` or (Immich's default) `webp`.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { pictureType } from "./thumbnails.ts";
 *
 * assert.equal(pictureType(new Uint8Array([0xff, 0xd8, 0xff])), "jpeg");
 * ```
 */
export function pictureType(bytes: Uint8Array): "webp" | "jpeg" | "png" {
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return "jpeg";
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) {
    return "png";
  }
  return "webp";
}
