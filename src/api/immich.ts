/**
 * The Immich client of one user: the parts of `src/api/` put together on one session. Each part
 * serves one concern and can be used on its own through its interface; a caller that needs only
 * some of them takes the narrow interface (e.g. {@linkcode Thumbnails}) rather than the whole
 * {@linkcode ImmichClient}.
 *
 * One body shape serves every server version from v1.118 to v3.x (docs/architecture.md, "Immich
 * versions").
 *
 * @module
 */
import { type Albums, albumsOf } from "./albums.ts";
import { type AssetChanges, assetChangesOf } from "./changes.ts";
import { type Assets, assetsOf } from "./assets.ts";
import { type KeyPermissions, keyPermissionsOf } from "./permissions.ts";
import { type AssetSearch, assetSearchOf } from "./search.ts";
import { createSession, type ImmichConnection, type SessionOptions } from "./session.ts";
import { type Stacks, stacksOf } from "./stacks.ts";
import { type TimelineStacks, timelineStacksOf } from "./stacks_by_timeline.ts";
import { type Thumbnails, thumbnailsOf } from "./thumbnails.ts";
import { type Trash, trashOf } from "./trash.ts";
import { type UnlistedMemberSearch, unlistedMemberSearchOf } from "./unlisted_members.ts";

/** Settings of {@linkcode createImmichClient}: those of the HTTP client. */
export type ImmichClientOptions = SessionOptions;

/** The Immich API of one user: every part on one session. */
export interface ImmichClient
  extends
    ImmichConnection,
    KeyPermissions,
    Stacks,
    TimelineStacks,
    UnlistedMemberSearch,
    AssetSearch,
    AssetChanges,
    Assets,
    Trash,
    Albums,
    Thumbnails {}

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
 *   () =>
 *     Response.json({
 *       id: "3f0b6a52-1c7e-4d0a-9b8e-2f6d1c0a7e41",
 *       name: "Ann",
 *       email: "ann@example.test",
 *     }),
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
  const session = createSession(options);
  // The transport stays inside: callers go through the parts.
  const { http: _transport, ...connection } = session;
  const keys = keyPermissionsOf(session);
  const stacks = stacksOf(session);
  return {
    ...connection,
    ...keys,
    ...stacks,
    ...timelineStacksOf(session, stacks),
    ...unlistedMemberSearchOf(session),
    ...assetSearchOf(session, keys),
    ...assetChangesOf(session),
    ...assetsOf(session),
    ...trashOf(session),
    ...albumsOf(session),
    ...thumbnailsOf(session),
  };
}
