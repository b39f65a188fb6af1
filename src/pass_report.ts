/**
 * What one user's pass did, counted from its plan and outcomes, and the summary line that says
 * it (`Summary for <user>: …`); `stacksync runs` counts a run's journal the same way.
 *
 * @module
 */
import type { Outcome, Plan } from "./model.ts";
import { needReplacing, plural } from "./reconcile/render.ts";
import type { TrashOutcome } from "./trash/apply.ts";

/** Counts of one user's pass; `failed` is the number of actions that failed. */
export interface PassCounts {
  readonly inSync: number;
  readonly created: number;
  readonly updated: number;
  readonly replaced: number;
  readonly deleted: number;
  readonly needsReplace: number;
  readonly failed: number;
  /** Actions not carried out because of a shutdown signal or a failed deletion. */
  readonly notDone: number;
  /** For an undo: stacks left alone because they changed after the run it puts back. */
  readonly changedSince: number;
  /** Photos moved to the trash (fix-trash), and brought back out of it (its undo). */
  readonly trashed: number;
  readonly restored: number;
}

/** What became of one user in one pass. */
export interface UserReport {
  /** The user's name, or `user <n>` (1-based key position) when it could not be fetched. */
  readonly user: string;
  /**
   * `done`: every step ran (actions may still have failed); `stopped`: the server refused the
   * key (401 or 403) while writing, so no further write was sent; `failed`: the user was
   * skipped before any write.
   */
  readonly status: "done" | "stopped" | "failed";
  /** Why the user was skipped or stopped. */
  readonly error?: string;
  readonly counts: PassCounts;
  /** Assets left out of grouping or invalid, by reason. */
  readonly skippedAssets: Readonly<Record<string, number>>;
}

/** The counts of a pass that did nothing. */
export const ZERO: PassCounts = {
  inSync: 0,
  created: 0,
  updated: 0,
  replaced: 0,
  deleted: 0,
  needsReplace: 0,
  failed: 0,
  notDone: 0,
  changedSince: 0,
  trashed: 0,
  restored: 0,
};

/**
 * Counts what a pass did from its plan and the outcomes of its actions. In a dry run the
 * counts say what would have been done.
 *
 * @param plan The user's plan.
 * @param outcomes What `applyPlan` recorded.
 * @param dryRun Count dry-run skips as would-be changes.
 * @returns The counts.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { countOutcomes } from "./pass_report.ts";
 *
 * const action = { kind: "create", assetIds: ["a", "b"], reason: "new-group", context: { assets: [] } } as const;
 * const plan = { actions: [action], inSync: [{ stackId: "s", groupKey: "k" }], needsReplace: [] };
 * const counts = countOutcomes(plan, [{ action, status: "ok", stackId: "n" }], false);
 * assert.equal(counts.created, 1);
 * assert.equal(counts.inSync, 1);
 * ```
 */
export function countOutcomes(
  plan: Plan,
  outcomes: readonly Outcome[],
  dryRun: boolean,
): PassCounts {
  const counts = { ...ZERO, inSync: plan.inSync.length, needsReplace: plan.needsReplace.length };
  for (const outcome of outcomes) {
    if (outcome.status === "failed") {
      counts.failed++;
      continue;
    }
    if (outcome.status === "skipped" && outcome.because === "in-sync") {
      counts.inSync++;
      continue;
    }
    if (outcome.status === "skipped" && outcome.because === "needs-replace") {
      counts.needsReplace++;
      continue;
    }
    if (outcome.status === "skipped" && !(dryRun && outcome.because === "dry-run")) {
      counts.notDone++;
      continue;
    }
    switch (outcome.action.kind) {
      case "create":
        counts.created++;
        break;
      case "grow":
      case "update-primary":
        counts.updated++;
        break;
      case "replace":
        counts.replaced++;
        // Every stack a replace deleted counts, as `stacksync runs` counts it.
        counts.deleted += outcome.action.deleteStackIds.length;
        break;
      case "delete":
        counts.deleted++;
        break;
    }
  }
  return counts;
}

/**
 * The one-line summary of a user's pass.
 *
 * @param report The user's report.
 * @param dryRun Word the counts as what would be done.
 * @param options `stacks: false` for a pass that writes no stacks (fix-trash): it says only
 *   how many photos moved.
 * @returns The line.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { summaryLine } from "./pass_report.ts";
 *
 * const counts = { inSync: 4, created: 2, updated: 1, replaced: 0, deleted: 0, needsReplace: 1, failed: 0, notDone: 0, changedSince: 0, trashed: 0, restored: 0 };
 * assert.equal(
 *   summaryLine({ user: "Ann", status: "done", counts, skippedAssets: { "regex-miss": 3 } }, false),
 *   "Summary for Ann: 2 created, 1 updated, 0 replaced, 0 deleted, 4 in sync, 1 needs replacing, 0 failed, 3 assets skipped (3 regex-miss)",
 * );
 * ```
 */
export function summaryLine(
  report: UserReport,
  dryRun: boolean,
  options: { readonly stacks?: boolean } = {},
): string {
  const c = report.counts;
  const skipped = Object.entries(report.skippedAssets);
  const skippedTotal = skipped.reduce((sum, [, n]) => sum + n, 0);
  const reasons = skipped.length === 0
    ? ""
    : ` (${skipped.map(([reason, n]) => `${n} ${reason}`).join(", ")})`;
  const verb = dryRun ? "would be " : "";
  const stacks = options.stacks !== false;
  const parts = stacks
    ? [
      `${c.created} ${verb}created`,
      `${c.updated} ${verb}updated`,
      `${c.replaced} ${verb}replaced`,
      `${c.deleted} ${verb}deleted`,
      `${c.inSync} in sync`,
      needReplacing(c.needsReplace),
    ]
    : [];
  if (c.restored > 0) parts.push(`${plural(c.restored, "photo")} ${verb}restored from the trash`);
  if (c.trashed > 0 || !stacks) {
    parts.push(`${plural(c.trashed, "photo")} ${verb}moved to the trash`);
  }
  parts.push(`${c.failed} failed`);
  if (c.notDone > 0) parts.push(`${c.notDone} not done`);
  if (c.changedSince > 0) parts.push(`${c.changedSince} changed since, left alone`);
  parts.push(`${plural(skippedTotal, "asset")} skipped${reasons}`);
  const stopped = report.status === "stopped"
    ? `; stopped as the server refused the key: ${report.error}`
    : "";
  return `Summary for ${report.user}${dryRun ? " (dry run)" : ""}: ${parts.join(", ")}${stopped}`;
}

/**
 * Adds the moves to or from the trash to a pass's counts: photos moved, failed moves, and
 * moves not done (a shutdown, a refused key). In a dry run the photos that would move count.
 *
 * @param counts The counts of the stack plan.
 * @param outcomes What became of each move.
 * @returns The counts with the moves.
 */
export function addTrashOutcomes(
  counts: PassCounts,
  outcomes: readonly TrashOutcome[],
): PassCounts {
  const added = { ...counts };
  for (const outcome of outcomes) {
    if (outcome.status === "failed") added.failed++;
    else if (outcome.status === "skipped" && outcome.because !== "dry-run") added.notDone++;
    else if (outcome.action.kind === "trash") added.trashed += outcome.action.assetIds.length;
    else added.restored += outcome.action.assetIds.length;
  }
  return added;
}

/** Whether every user of a pass finished with no failed or unfinished action. */
export function passSucceeded(reports: readonly UserReport[]): boolean {
  return reports.every((r) =>
    r.status === "done" && r.counts.failed === 0 && r.counts.notDone === 0 &&
    r.counts.changedSince === 0
  );
}
