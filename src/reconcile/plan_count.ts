/**
 * What a plan holds, counted: small, so that a pass that only reports a plan does not load
 * planning.
 *
 * @module
 */
import type { Plan } from "../model.ts";

/** The number of actions of each kind plus what was left alone; see {@linkcode countPlan}. */
export interface PlanCounts {
  readonly create: number;
  readonly grow: number;
  readonly updatePrimary: number;
  readonly replace: number;
  readonly delete: number;
  readonly inSync: number;
  readonly needsReplace: number;
}

/**
 * Counts a plan's actions per kind, with the in-sync and needs-replace entries.
 *
 * @param plan A plan (`planStacks` in src/reconcile/plan.ts).
 * @returns The counts.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { countPlan } from "./plan_count.ts";
 *
 * const counts = countPlan({
 *   actions: [{ kind: "create", assetIds: ["a", "b"], reason: "new-group", context: { assets: [] } }],
 *   inSync: [{ stackId: "s1", groupKey: "k" }],
 *   needsReplace: [],
 * });
 * assert.equal(counts.create, 1);
 * assert.equal(counts.inSync, 1);
 * assert.equal(counts.replace, 0);
 * ```
 */
export function countPlan(plan: Plan): PlanCounts {
  const byKind = { create: 0, grow: 0, "update-primary": 0, replace: 0, delete: 0 };
  for (const action of plan.actions) byKind[action.kind]++;
  return {
    create: byKind.create,
    grow: byKind.grow,
    updatePrimary: byKind["update-primary"],
    replace: byKind.replace,
    delete: byKind.delete,
    inSync: plan.inSync.length,
    needsReplace: plan.needsReplace.length,
  };
}

/**
 * Tells whether applying the plan would send any write.
 *
 * @param plan A plan (`planStacks` in src/reconcile/plan.ts).
 * @returns True when the plan has at least one action.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { hasChanges } from "./plan_count.ts";
 *
 * assert.equal(hasChanges({ actions: [], inSync: [], needsReplace: [] }), false);
 * ```
 */
export function hasChanges(plan: Plan): boolean {
  return plan.actions.length > 0;
}
