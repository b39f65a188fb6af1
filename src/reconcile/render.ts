/**
 * Turns a {@linkcode Plan} into text for people, and holds the log messages of every write
 * (immich-stack's wording, which people's log filters match) so that `apply` and the rendered
 * plan say the same words. Pure: no logger, no I/O.
 *
 * @module
 */

import type { Action, AssetLabel, Plan } from "../model.ts";
import { countPlan } from "./plan.ts";

/** Options for {@linkcode writeMessage}. */
export interface WriteMessageOptions {
  /** Say what would be done (`[DRY RUN] Would …`) instead of what was done. */
  readonly dryRun: boolean;
  /**
   * The stack the line is about. Needed for a `replace`, which logs one line per stack it
   * deletes; other kinds name their own stack.
   *
   * @default {the action's own stack}
   */
  readonly stackId?: string;
}

/**
 * The log message for a write of an action, word for word as immich-stack logs it:
 *
 * | kind | real run | dry run |
 * |---|---|---|
 * | create | `Success! Stack created` | `[DRY RUN] Would create stack with <n> assets` |
 * | grow, update-primary | `Updated stack <id>` | `[DRY RUN] Would update stack <id>` |
 * | replace (per stack deleted) | `Deleted stack <id> - replacing child stack with new one` | `[DRY RUN] Would replace stack <id>` |
 * | delete | `Deleted stack <id>` | `[DRY RUN] Would delete stack <id>` |
 *
 * @param action The action.
 * @param options Dry run or real, and the stack for a replace line.
 * @returns The message.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { writeMessage } from "./render.ts";
 *
 * const action = { kind: "create", assetIds: ["a", "b"], reason: "new-group", context: { assets: [] } } as const;
 * assert.equal(writeMessage(action, { dryRun: true }), "[DRY RUN] Would create stack with 2 assets");
 * assert.equal(writeMessage(action, { dryRun: false }), "Success! Stack created");
 * ```
 */
export function writeMessage(action: Action, options: WriteMessageOptions): string {
  const { dryRun } = options;
  switch (action.kind) {
    case "create":
      return dryRun
        ? `[DRY RUN] Would create stack with ${action.assetIds.length} assets`
        : "Success! Stack created";
    case "grow":
    case "update-primary": {
      const id = options.stackId ?? action.stackId;
      return dryRun ? `[DRY RUN] Would update stack ${id}` : `Updated stack ${id}`;
    }
    case "replace": {
      const id = options.stackId ?? action.stackIds.join(", ");
      return dryRun
        ? `[DRY RUN] Would replace stack ${id}`
        : `Deleted stack ${id} - replacing child stack with new one`;
    }
    case "delete": {
      const id = options.stackId ?? action.stackId;
      return dryRun ? `[DRY RUN] Would delete stack ${id}` : `Deleted stack ${id}`;
    }
  }
}

/** Options for {@linkcode renderPlan}. */
export interface RenderPlanOptions {
  /**
   * How many file names a note lists before it says "and N more".
   *
   * @default {5}
   */
  readonly maxNames?: number;
}

/**
 * Renders a plan as lines of text, the way a dry run shows it.
 *
 * Each action gets one line with its dry-run message (a replace names every stack it
 * replaces) and then an indented note starting with `# ` that gives the reason code and the
 * files involved. Each conflict left alone gets a `Needs replace: stack <ids>` line and a
 * note. The last line counts the actions per kind, like Terraform's `Plan:` line, or says
 * `No changes: …` when there is nothing to do.
 *
 * @param plan The plan.
 * @param options How much detail the notes carry.
 * @returns The lines, without line breaks.
 *
 * @example An up-to-date library
 * ```ts
 * import assert from "node:assert/strict";
 * import { renderPlan } from "./render.ts";
 *
 * const lines = renderPlan({ actions: [], inSync: [{ stackId: "s1", groupKey: "k" }], needsReplace: [] });
 * assert.deepEqual(lines, ["No changes: 1 stack in sync"]);
 * ```
 */
export function renderPlan(plan: Plan, options: RenderPlanOptions = {}): string[] {
  const names = new NameList(options.maxNames ?? 5);
  const lines: string[] = [];
  for (const action of plan.actions) {
    lines.push(
      writeMessage(action, { dryRun: true }),
      `  # ${action.reason}: ${note(action, names)}`,
    );
  }
  for (const conflict of plan.needsReplace) {
    lines.push(
      `Needs replace: stack ${conflict.stackIds.join(", ")}`,
      `  # ${conflict.reason}: group ${names.group(conflict.context.assets)}; ` +
        "set REPLACE_STACKS=true to replace",
    );
  }
  lines.push(summarizePlan(plan));
  return lines;
}

function note(action: Action, names: NameList): string {
  const { context } = action;
  switch (action.kind) {
    case "delete":
    case "create":
      return names.group(context.assets);
    case "update-primary": {
      const previous = context.previousPrimary?.originalFileName ?? "another asset";
      return `${context.assets[0].originalFileName} replaces ${previous} as parent`;
    }
    case "grow":
      return `adds ${names.plain(context.added ?? [])} to ${names.group(context.assets)}`;
    case "replace": {
      const removed = context.removed ?? [];
      const unstacked = removed.filter((asset) => asset.reason === "in-no-group");
      const moved = removed.filter((asset) => asset.reason === "in-other-group");
      return [
        `new stack ${names.group(context.assets)}`,
        ...(unstacked.length > 0 ? [`leaves ${names.plain(unstacked)} unstacked`] : []),
        ...(moved.length > 0 ? [`moves ${names.plain(moved)} to another group`] : []),
      ].join("; ");
    }
  }
}

/** File-name lists cut at `max` names: `a.jpg (parent), b.dng, and 3 more`. */
class NameList {
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  /** A group or stack: the first label is its parent. */
  group(labels: readonly AssetLabel[]): string {
    return this.#join(
      labels.map((label, i) =>
        i === 0 ? `${label.originalFileName} (parent)` : label.originalFileName
      ),
    );
  }

  plain(labels: readonly AssetLabel[]): string {
    return this.#join(labels.map((label) => label.originalFileName));
  }

  #join(names: readonly string[]): string {
    const shown = names.slice(0, this.#max);
    const more = names.length - shown.length;
    return more > 0 ? `${shown.join(", ")}, and ${more} more` : shown.join(", ");
  }
}

/**
 * The closing line of {@linkcode renderPlan}: the actions per kind, like Terraform's `Plan:`
 * line, or `No changes: …` when there is nothing to do. Cheap at any size, so a run logs it at
 * info and renders the whole plan only at debug.
 *
 * @param plan The plan.
 * @returns The line.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { summarizePlan } from "./render.ts";
 *
 * const action = { kind: "create", assetIds: ["a", "b"], reason: "new-group", context: { assets: [] } } as const;
 * assert.equal(
 *   summarizePlan({ actions: [action], inSync: [], needsReplace: [] }),
 *   "Plan: 1 to create, 0 to grow, 0 to update, 0 to replace, 0 to delete; 0 stacks in sync",
 * );
 * ```
 */
export function summarizePlan(plan: Plan): string {
  const counts = countPlan(plan);
  const kept = `${plural(counts.inSync, "stack")} in sync` +
    (counts.needsReplace > 0
      ? `, ${counts.needsReplace} ${needs(counts.needsReplace)} replace`
      : "");
  if (plan.actions.length === 0) return `No changes: ${kept}`;
  return `Plan: ${counts.create} to create, ${counts.grow} to grow, ${counts.updatePrimary} to update, ` +
    `${counts.replace} to replace, ${counts.delete} to delete; ${kept}`;
}

function needs(count: number): string {
  return count === 1 ? "needs" : "need";
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
