/**
 * The one shape of a stack written to a file (a plan file, a backup): its id, its primary, and
 * its assets with the primary first. Each file format says which fields of an asset it keeps.
 *
 * @module
 */

import { z } from "zod";

/**
 * The schema of a stack as a file holds it, for the given schema of its assets.
 *
 * @param asset The schema of one asset of the stack; it must have an `id`.
 * @returns A schema that takes a stack of at least one asset whose first asset is its primary.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { stackSchemaOf } from "./stack_schema.ts";
 *
 * const schema = stackSchemaOf(z.object({ id: z.string() }));
 * const stack = { id: "s", primaryAssetId: "a", assets: [{ id: "a" }, { id: "b" }] };
 * assert.ok(schema.safeParse(stack).success);
 * assert.ok(!schema.safeParse({ ...stack, primaryAssetId: "b" }).success);
 * ```
 */
export function stackSchemaOf<A extends { id: string }>(asset: z.ZodType<A>) {
  return z.object({
    id: z.string(),
    primaryAssetId: z.string(),
    assets: z.array(asset).min(1),
  }).refine((stack) => stack.assets[0].id === stack.primaryAssetId, {
    message: "the first asset of a stack must be its primary",
  });
}
