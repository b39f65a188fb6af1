/**
 * Thumbnails, for the review page of `plan --html`.
 *
 * @module
 */
import type { Session } from "./session.ts";

/** The small pictures of assets. */
export interface Thumbnails {
  /**
   * `GET /assets/{id}/thumbnail?size=thumbnail`: the asset's small picture (WebP), which needs
   * the permission `asset.view`.
   */
  thumbnail(assetId: string): Promise<Uint8Array>;
}

/**
 * The thumbnails part of the client.
 *
 * @param session The user's session.
 * @returns {@linkcode Thumbnails.thumbnail}.
 */
export function thumbnailsOf(session: Session): Thumbnails {
  return {
    thumbnail(assetId) {
      return session.http.stream(
        "GET",
        `/assets/${encodeURIComponent(assetId)}/thumbnail?size=thumbnail`,
        { read: async (body) => new Uint8Array(await new Response(body).arrayBuffer()) },
      );
    },
  };
}
