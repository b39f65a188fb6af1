/**
 * The trash: the user's photos in it, and moves to and from it (fix-trash, and its undo).
 *
 * @module
 */
import { z } from "zod";
import { scan, TRASH_SEARCHES } from "./search_pages.ts";
import type { Session } from "./session.ts";

const anything = z.unknown();

/** The user's trash. */
export interface Trash {
  /**
   * The user's own photos in the trash (timeline and archive), by id with their file names: a
   * search of the trash alone.
   */
  trashedAssets(): Promise<Map<string, string>>;
  /** `DELETE /assets` with `force: false`: to the trash, never deleted for good. */
  trashAssets(assetIds: readonly string[]): Promise<void>;
  /** `POST /trash/restore/assets`: back out of the trash; photos not in it stay as they are. */
  restoreAssets(assetIds: readonly string[]): Promise<void>;
}

/**
 * The trash part of the client.
 *
 * @param session The user's session.
 * @returns The trash's photos, and moves to and from it.
 */
export function trashOf(session: Session): Trash {
  const { http } = session;
  return {
    async trashedAssets() {
      const { id: userId } = await session.me();
      const names = new Map<string, string>();
      for (const body of TRASH_SEARCHES) {
        for (const [id, record] of await scan(http, body, { userId })) {
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
  };
}
