/**
 * Albums: FILTER_ALBUM_IDS resolved to ids, names through `GET /albums`.
 *
 * @module
 */
import type { AlbumResponseDto } from "@immich/sdk";
import { z } from "zod";
import type { Fits, Proven } from "./_dto.ts";
import type { Session } from "./session.ts";

const albumsSchema = z.array(z.object({ id: z.string(), albumName: z.string() }));

/** See {@linkcode Fits}: the answers this module reads. */
export type AlbumsDtoCompatibility = Proven<[
  Fits<AlbumResponseDto[], z.input<typeof albumsSchema>>,
]>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The albums of the key's user. */
export interface Albums {
  /** Keeps album ids, resolves album names through `GET /albums`. */
  resolveAlbumIds(namesOrIds: readonly string[]): Promise<string[]>;
}

/**
 * Tells an album id from an album name in FILTER_ALBUM_IDS.
 *
 * @param album An item of FILTER_ALBUM_IDS.
 * @returns True when it is an id (a UUID), false for a name.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { isAlbumId } from "./albums.ts";
 *
 * assert.equal(isAlbumId("Holidays"), false);
 * assert.equal(isAlbumId("b7a7c1a2-1111-4222-8333-444455556666"), true);
 * ```
 */
export function isAlbumId(album: string): boolean {
  return UUID.test(album);
}

/**
 * The albums part of the client.
 *
 * @param session The user's session.
 * @returns {@linkcode Albums.resolveAlbumIds}.
 */
export function albumsOf(session: Session): Albums {
  return {
    async resolveAlbumIds(namesOrIds) {
      const wanted = namesOrIds.filter((item) => item !== "");
      if (wanted.every((item) => UUID.test(item))) return [...wanted];
      const albums = await session.http.request("GET", "/albums", { schema: albumsSchema });
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
  };
}
