/**
 * How many stacks a plan deletes, and whether that is more than MAX_STACK_DELETIONS allows: a
 * CRITERIA edit with REPLACE_STACKS can turn hundreds of stacks into one, so a pass that deletes
 * many stacks waits for consent (docs/safety.md, "Mass deletion"). Pure: the shell decides what
 * to do with the answer.
 *
 * @module
 */
import type { Plan } from "../model.ts";

/**
 * MAX_STACK_DELETIONS: a number of stacks, or a share of the user's stacks in per cent that
 * always allows {@linkcode SHARE_FLOOR} stacks.
 */
export type DeletionLimit = { readonly count: number } | { readonly percent: number };

/** The stacks a share never refuses: a small library may lose 20 stacks in one pass. */
export const SHARE_FLOOR = 20;

/** The limit that refuses nothing: `--force`, a plan file being applied. */
export const NO_DELETION_LIMIT: DeletionLimit = { percent: 100 };

/**
 * The number of stacks a plan deletes: one per deletion (REMOVE_SINGLE_ASSET_STACKS, RESET_STACKS,
 * an undo's `not-in-target`) and every stack each replace deletes before it creates.
 *
 * @param plan The plan.
 * @returns How many stacks it deletes.
 *
 * @example A replace that makes one stack of three deletes three
 * ```ts
 * import assert from "node:assert/strict";
 * import { stacksDeleted } from "./deletions.ts";
 *
 * const replace = {
 *   kind: "replace", stackIds: ["s1", "s2", "s3"], deleteStackIds: ["s1", "s2", "s3"],
 *   previous: [], assetIds: ["a", "b", "c"], reason: "group-spans-stacks", context: { assets: [] },
 * } as const;
 * assert.equal(stacksDeleted({ actions: [replace], inSync: [], needsReplace: [] }), 3);
 * ```
 */
export function stacksDeleted(plan: Plan): number {
  let deleted = 0;
  for (const action of plan.actions) {
    if (action.kind === "delete") deleted++;
    else if (action.kind === "replace") deleted += action.deleteStackIds.length;
  }
  return deleted;
}

/**
 * Whether deleting `deleted` of a user's `stacks` stacks is more than the limit allows: more than
 * the count, or, for a share, more than that share of the stacks and more than
 * {@linkcode SHARE_FLOOR}.
 *
 * @param deleted The stacks a plan deletes ({@linkcode stacksDeleted}).
 * @param stacks Every stack of the user.
 * @param limit MAX_STACK_DELETIONS.
 * @returns True when the pass needs consent.
 *
 * @example The default, 10 % and at least 20
 * ```ts
 * import assert from "node:assert/strict";
 * import { exceedsLimit } from "./deletions.ts";
 *
 * assert.equal(exceedsLimit(20, 30, { percent: 10 }), false);
 * assert.equal(exceedsLimit(21, 300, { percent: 10 }), false);
 * assert.equal(exceedsLimit(31, 300, { percent: 10 }), true);
 * assert.equal(exceedsLimit(51, 300, { count: 50 }), true);
 * ```
 */
export function exceedsLimit(deleted: number, stacks: number, limit: DeletionLimit): boolean {
  if ("count" in limit) return deleted > limit.count;
  // Whole numbers compared: 10 % of 210 stacks allows exactly 21.
  return deleted > SHARE_FLOOR && deleted * 100 > limit.percent * stacks;
}
