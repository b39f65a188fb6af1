/**
 * Turns a {@linkcode Plan} into text for people, and holds the log messages of every write
 * (immich-stack's wording where it has one) so that a dry run and a real run say the same about
 * the same plan. Pure: no logger, no I/O.
 *
 * @module
 */

import type { Action, AssetLabel, NeedsReplace, Plan, RemovedAsset } from "../model.ts";
import type { StackMove } from "./ground.ts";
import { countPlan } from "./plan_count.ts";

/** Options for {@linkcode writeMessage}. */
export interface WriteMessageOptions {
  /** Say what would be done (`[DRY RUN] Would …`) instead of what was done. */
  readonly dryRun: boolean;
  /** For a real run's `replace`: the stack it created. */
  readonly newStackId?: string;
}

/**
 * The one log line of an action, dry or real, so that a dry run and the real run print one
 * line per action of the same plan, in immich-stack's wording where it has one:
 *
 * | kind | real run | dry run |
 * |---|---|---|
 * | create | `Success! Stack created` | `[DRY RUN] Would create stack with <n> assets` |
 * | grow, update-primary | `Updated stack <id>` | `[DRY RUN] Would update stack <id>` |
 * | replace | `Created stack <new id> replacing <ids>` | `[DRY RUN] Would replace stack <ids>` |
 * | delete | `Deleted stack <id>` | `[DRY RUN] Would delete stack <id>` |
 *
 * A dry run also says which of the default rules made the group, when one did:
 * `[DRY RUN] Would create stack with 2 assets (RAW+JPEG pair)`.
 *
 * A real replace also logs {@linkcode replaceDeletionMessage} for each stack it deletes.
 *
 * @param action The action.
 * @param options Dry run or real, and the stack a real replace created.
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
  const message = writeWords(action, options);
  const { label } = action.context;
  return options.dryRun && label !== undefined ? `${message} (${label})` : message;
}

function writeWords(action: Action, options: WriteMessageOptions): string {
  const { dryRun } = options;
  switch (action.kind) {
    case "create":
      return dryRun
        ? `[DRY RUN] Would create stack with ${action.assetIds.length} assets`
        : "Success! Stack created";
    case "grow":
    case "update-primary":
      return dryRun
        ? `[DRY RUN] Would update stack ${action.stackId}`
        : `Updated stack ${action.stackId}`;
    case "replace": {
      const ids = action.stackIds.join(", ");
      if (dryRun) return `[DRY RUN] Would replace stack ${ids}`;
      return `Created stack ${options.newStackId ?? "(unknown)"} replacing ${ids}`;
    }
    case "delete":
      return dryRun
        ? `[DRY RUN] Would delete stack ${action.stackId}`
        : `Deleted stack ${action.stackId}`;
  }
}

/**
 * The line (immich-stack's) a real run logs for each stack a replace deletes, before it creates
 * the new one.
 *
 * @param stackId The deleted stack.
 * @returns `Deleted stack <id> - replacing child stack with new one`.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { replaceDeletionMessage } from "./render.ts";
 *
 * assert.equal(replaceDeletionMessage("s1"), "Deleted stack s1 - replacing child stack with new one");
 * ```
 */
export function replaceDeletionMessage(stackId: string): string {
  return `Deleted stack ${stackId} - replacing child stack with new one`;
}

/**
 * The line that says a replace takes out of their stacks members the pass never looked at:
 * not fetched (videos, archived, filtered out, hidden), in the trash, or not listed by Immich.
 *
 * @param action The action.
 * @param options Dry run or real.
 * @returns The message, or undefined when the action takes out no such member.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { unfetchedMessage } from "./render.ts";
 *
 * const replace = {
 *   kind: "replace", stackIds: ["s1"], deleteStackIds: ["s1"], previous: [], assetIds: ["a", "b"],
 *   reason: "member-outside-group",
 *   context: { assets: [], removed: [{ id: "v", originalFileName: "VID_1.MP4", reason: "not-fetched" }] },
 * } as const;
 * assert.equal(
 *   unfetchedMessage(replace, { dryRun: false }),
 *   "Replacing stack s1 takes out assets this pass did not fetch: VID_1.MP4",
 * );
 * ```
 */
export function unfetchedMessage(
  action: Action,
  options: { readonly dryRun: boolean },
): string | undefined {
  if (action.kind !== "replace") return undefined;
  const names = unfetchedNames(action.context.removed ?? [], action.context.unseenStackIds ?? []);
  if (names.length === 0) return undefined;
  const ids = action.stackIds.join(", ");
  const what = `assets this pass did not fetch: ${names.join(", ")}`;
  return options.dryRun
    ? `[DRY RUN] Replacing stack ${ids} would take out ${what}`
    : `Replacing stack ${ids} takes out ${what}`;
}

/** Names of removed members the pass did not judge, marked where they are. */
function unfetchedNames(
  removed: readonly RemovedAsset[],
  unseenStackIds: readonly string[],
): string[] {
  return [
    ...removed.filter((asset) => asset.reason === "not-fetched").map((a) => a.originalFileName),
    ...removed.filter((asset) => asset.reason === "in-trash").map((asset) =>
      `${asset.originalFileName} (in the trash)`
    ),
    ...unseenStackIds.map((id) => `any member of ${id} that Immich does not list`),
  ];
}

/**
 * The file names of an action's assets for its log line: cover first, the first `max` names,
 * then how many more.
 *
 * @param labels The assets, cover first.
 * @param max How many names to show.
 * @returns E.g. `a.jpg (parent), b.dng, and 3 more`.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { fileList } from "./render.ts";
 *
 * const labels = ["a.jpg", "b.dng", "c.jpg"].map((name) => ({ id: name, originalFileName: name }));
 * assert.equal(fileList(labels, 2), "a.jpg (parent), b.dng, and 1 more");
 * ```
 */
export function fileList(labels: readonly AssetLabel[], max = 5): string {
  return new NameList(max).group(labels);
}

/**
 * File names, none marked as the parent, cut after `max`: for photos that are no group (those
 * a move to the trash takes).
 *
 * @param labels The assets.
 * @param max How many names to show.
 * @returns The names, e.g. `a.dng, b.jpg, and 3 more`.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { nameList } from "./render.ts";
 *
 * const labels = ["a.dng", "b.jpg", "c.jpg"].map((name) => ({ id: name, originalFileName: name }));
 * assert.equal(nameList(labels, 2), "a.dng, b.jpg, and 1 more");
 * ```
 */
export function nameList(labels: readonly AssetLabel[], max = 5): string {
  return new NameList(max).plain(labels);
}

/**
 * How the stacks an action changes moved since the pass read them, in words, for the line that
 * says why the action is sent as planned again or not sent (docs/safety.md, "Fresh ground").
 *
 * @param moves The stacks that moved.
 * @param labels File names of the assets, by id; an id stands in for a name not known.
 * @returns E.g. `stack s1 has another cover: IMG_1_edited.jpg instead of IMG_1.jpg`.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { movesText } from "./render.ts";
 *
 * const moves = [
 *   { stackId: "s1", gone: false, cover: { then: "a", now: "b" }, joined: [], left: [] },
 *   { stackId: "s2", gone: false, joined: ["c"], left: ["d"] },
 * ];
 * const labels = new Map([["a", { id: "a", originalFileName: "IMG_1.jpg" }]]);
 * assert.equal(
 *   movesText(moves, labels),
 *   "stack s1 has another cover: b instead of IMG_1.jpg; c joined stack s2; d left stack s2",
 * );
 * ```
 */
export function movesText(
  moves: readonly StackMove[],
  labels: ReadonlyMap<string, AssetLabel>,
): string {
  const names = (ids: readonly string[]) =>
    nameList(ids.map((id) => labels.get(id) ?? { id, originalFileName: id }));
  return moves.flatMap((move) => {
    const stack = `stack ${move.stackId}`;
    if (move.gone) return [`${stack} was deleted`];
    return [
      ...move.cover === undefined ? [] : [
        `${stack} has another cover: ${names([move.cover.now])} instead of ${
          names([move.cover.then])
        }`,
      ],
      ...move.joined.length === 0 ? [] : [`${names(move.joined)} joined ${stack}`],
      ...move.left.length === 0 ? [] : [`${names(move.left)} left ${stack}`],
    ];
  }).join("; ");
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
 * Renders a plan as lines of text, in plan wording (never the dry-run `[DRY RUN] Would …`, so
 * that a real run's debug log does not read like a dry run).
 *
 * Each action gets one line (`Create stack with <n> assets`, `Grow stack <id>`, `Update stack
 * <id>`, `Replace stack <ids>`, `Delete stack <id>`) and then an indented note starting with
 * `# ` that gives the reason code (and, in brackets, which of the default rules made the group,
 * when one did: `# new-group (RAW+JPEG pair): …`) and the files involved. Each conflict left
 * alone gets a `Needs replace: stack <ids>` line and a note. The last line counts the actions
 * per kind, like Terraform's `Plan:` line, or says `No changes: …` when there is nothing to do.
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
    lines.push(planLine(action), `  # ${reasonOf(action)}: ${note(action, names)}`);
  }
  for (const conflict of plan.needsReplace) {
    lines.push(
      `Needs replace: stack ${conflict.stackIds.join(", ")}`,
      `  # ${reasonOf(conflict)}: group ${names.group(conflict.context.assets)}; ` +
        "set REPLACE_STACKS=true to replace",
    );
  }
  lines.push(summarizePlan(plan));
  return lines;
}

/** The reason code, with the rule that made the group when the default rules did. */
function reasonOf(entry: Action | NeedsReplace): string {
  const { label } = entry.context;
  return label === undefined ? entry.reason : `${entry.reason} (${label})`;
}

function planLine(action: Action): string {
  switch (action.kind) {
    case "create":
      return `Create stack with ${action.assetIds.length} assets`;
    case "grow":
      return `Grow stack ${action.stackId}`;
    case "update-primary":
      return `Update stack ${action.stackId}`;
    case "replace":
      return `Replace stack ${action.stackIds.join(", ")}`;
    case "delete":
      return `Delete stack ${action.stackId}`;
  }
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
      const unfetched = unfetchedNames(removed, context.unseenStackIds ?? []);
      return [
        `new stack ${names.group(context.assets)}`,
        ...(unstacked.length > 0 ? [`leaves ${names.plain(unstacked)} unstacked`] : []),
        ...(moved.length > 0 ? [`moves ${names.plain(moved)} to another group`] : []),
        ...(unfetched.length > 0
          ? [`takes out ${names.join(unfetched)}, which this pass did not fetch`]
          : []),
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
    // Only the names shown are made: a burst of hundreds logs five (every action logs one line).
    const shown = labels.slice(0, this.#max).map((label, i) =>
      i === 0 ? `${label.originalFileName} (parent)` : label.originalFileName
    );
    return this.#finish(shown, labels.length);
  }

  plain(labels: readonly AssetLabel[]): string {
    return this.join(labels.map((label) => label.originalFileName));
  }

  join(names: readonly string[]): string {
    return this.#finish(names.slice(0, this.#max), names.length);
  }

  #finish(shown: readonly string[], total: number): string {
    const more = total - shown.length;
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
    (counts.needsReplace > 0 ? `, ${needReplacing(counts.needsReplace)}` : "");
  if (plan.actions.length === 0) return `No changes: ${kept}`;
  return `Plan: ${counts.create} to create, ${counts.grow} to grow, ${counts.updatePrimary} to update, ` +
    `${counts.replace} to replace, ${counts.delete} to delete; ${kept}`;
}

/**
 * How many stacks need replacing (REPLACE_STACKS), as summaries say it.
 *
 * @param count How many.
 * @returns The text, e.g. `1 needs replacing`, `6 need replacing`.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { needReplacing } from "./render.ts";
 *
 * assert.equal(needReplacing(1), "1 needs replacing");
 * assert.equal(needReplacing(6), "6 need replacing");
 * ```
 */
export function needReplacing(count: number): string {
  return `${count} ${count === 1 ? "needs" : "need"} replacing`;
}

/**
 * A count with its noun, plural unless the count is 1.
 *
 * @param count How many.
 * @param noun The noun in the singular; its plural adds an `s`.
 * @returns The text, e.g. `3 stacks`.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { plural } from "./render.ts";
 *
 * assert.equal(plural(1, "photo"), "1 photo");
 * assert.equal(plural(2, "photo"), "2 photos");
 * ```
 */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
