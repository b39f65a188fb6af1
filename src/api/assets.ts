/**
 * Assets one by one: the stack `GET /assets/{id}` names for an asset, and file names for
 * messages.
 *
 * @module
 */
import { z } from "zod";
import { immichId } from "./_values.ts";
import { isAccessDenied, PermanentError } from "./errors.ts";
import type { Session } from "./session.ts";

/** The part of `GET /assets/{id}` that names the asset's stack. */
export const assetStackSchema = z.object({
  stack: z.object({ id: immichId, primaryAssetId: immichId }).nullish(),
});
const assetNameSchema = z.object({ originalFileName: z.string() });

/** The stack `GET /assets/{id}` names for an asset. */
export interface AssetStack {
  /** The stack's id; absent when Immich names none (see {@linkcode Assets.assetStack}). */
  readonly stackId?: string;
  readonly primaryAssetId?: string;
}

/** Assets looked up one by one. */
export interface Assets {
  /**
   * `GET /assets/{id}`: the stack Immich names for the asset, undefined when the asset is gone.
   * Immich names a stack only when it has a member besides its primary that is on the timeline
   * and not in the trash; `stackWithPrimary` finds the others through their primary.
   */
  assetStack(assetId: string): Promise<AssetStack | undefined>;
  /** `GET /assets/{id}` for each asset: its file name, for messages; assets gone are left out. */
  fileNames(assetIds: readonly string[]): Promise<Map<string, string>>;
}

/**
 * The assets part of the client.
 *
 * @param session The user's session.
 * @returns Asset lookups.
 */
export function assetsOf(session: Session): Assets {
  const { http } = session;
  return {
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
  };
}
