/**
 * The words of fix-trash and of its undo: one line per move to or from the trash, the same in a
 * dry run and a real one, the plan's summary and the user's closing line. Pure.
 *
 * @module
 */
import type { TrashPlan, TrashWrite } from "../model.ts";
import { nameList, plural } from "../reconcile/render.ts";
import type { TrashReport } from "./plan.ts";

/** How many file names a line names before it says how many more. */
const MAX_NAMES = 10;

/**
 * The one line of a move to or from the trash, dry (`[DRY RUN] Would move …`) or done, with the
 * photos and why:
 *
 * | reason | line |
 * |---|---|
 * | follows-trashed | `Moved to the trash: IMG_1.dng, IMG_1_edited.jpg (they group with IMG_1.jpg, in the trash)` |
 * | orphaned-raw | `Moved to the trash: IMG_9.dng (RAW without a developed photo in its group or stack)` |
 * | undo, restore | `Restored from the trash: IMG_1.dng, IMG_1_edited.jpg` |
 *
 * @param action The move.
 * @param options Dry run or done.
 * @returns The line.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { trashMessage } from "./render.ts";
 *
 * const action = {
 *   kind: "trash", assetIds: ["r"], reason: "follows-trashed",
 *   context: { assets: [{ id: "r", originalFileName: "IMG_1.dng" }], cause: [{ id: "j", originalFileName: "IMG_1.jpg" }] },
 * } as const;
 * assert.equal(
 *   trashMessage(action, { dryRun: true }),
 *   "[DRY RUN] Would move to the trash: IMG_1.dng (it groups with IMG_1.jpg, in the trash)",
 * );
 * ```
 */
export function trashMessage(action: TrashWrite, options: { readonly dryRun: boolean }): string {
  const names = nameList(action.context.assets, MAX_NAMES);
  const verb = action.kind === "restore"
    ? options.dryRun ? "[DRY RUN] Would restore from the trash" : "Restored from the trash"
    : options.dryRun
    ? "[DRY RUN] Would move to the trash"
    : "Moved to the trash";
  switch (action.reason) {
    case "follows-trashed": {
      const they = action.assetIds.length === 1 ? "it groups" : "they group";
      const cause = nameList(action.context.cause ?? [], MAX_NAMES);
      return `${verb}: ${names} (${they} with ${cause}, in the trash)`;
    }
    case "orphaned-raw":
      return `${verb}: ${names} (RAW without a developed photo in its group or stack)`;
    case "undo":
      return `${verb}: ${names}`;
  }
}

/**
 * The line that states fix-trash's plan before anything is moved: how many photos go and why,
 * and what stays that might have gone.
 *
 * @param report What the planner decided.
 * @returns The line.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { summarizeTrash } from "./render.ts";
 *
 * const report = {
 *   active: 100, following: 3, orphaned: 0, notFollowed: [], archivedKept: [], stackedRawsKept: [],
 *   beyondShot: [],
 * };
 * assert.equal(
 *   summarizeTrash(report),
 *   "Trash plan: 3 photos to move to the trash (3 in the group of a photo in the trash, " +
 *     "0 orphaned RAW files) of 100 outside the trash",
 * );
 * ```
 */
export function summarizeTrash(report: TrashReport): string {
  const total = report.following + report.orphaned;
  const kept = [
    ...(report.notFollowed.length > 0
      ? [
        `${
          plural(report.notFollowed.length, "photo")
        } in the trash not followed as a copy is outside it`,
      ]
      : []),
    ...(report.archivedKept.length > 0
      ? [`${plural(report.archivedKept.length, "archived photo")} kept`]
      : []),
    ...(report.stackedRawsKept.length > 0
      ? [
        `${
          plural(report.stackedRawsKept.length, "RAW file")
        } kept in a stack with a developed photo`,
      ]
      : []),
  ];
  const head = total === 0
    ? "Trash plan: nothing to move to the trash"
    : `Trash plan: ${plural(total, "photo")} to move to the trash (${report.following} in the ` +
      `group of a photo in the trash, ${plural(report.orphaned, "orphaned RAW file")}) of ` +
      `${report.active} outside the trash`;
  return kept.length === 0 ? head : `${head}; ${kept.join("; ")}`;
}

/**
 * The line that states an undo's moves to and from the trash before they are made.
 *
 * @param plan The moves.
 * @returns The line.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { summarizeMoves } from "./render.ts";
 *
 * const restore = { kind: "restore", assetIds: ["a", "b"], reason: "undo", context: { assets: [] } } as const;
 * assert.equal(summarizeMoves({ actions: [restore] }), "Trash plan: 2 photos to restore from the trash");
 * ```
 */
export function summarizeMoves(plan: TrashPlan): string {
  let restore = 0;
  let trash = 0;
  for (const action of plan.actions) {
    if (action.kind === "restore") restore += action.assetIds.length;
    else trash += action.assetIds.length;
  }
  const parts = [
    ...(restore > 0 || trash === 0
      ? [`${plural(restore, "photo")} to restore from the trash`]
      : []),
    ...(trash > 0 ? [`${plural(trash, "photo")} to move to the trash again`] : []),
  ];
  return `Trash plan: ${parts.join(", ")}`;
}
