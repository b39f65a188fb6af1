/**
 * Fresh ground: an action that changes a stack that exists (a new cover, a grow, a replace, a
 * deletion) is judged again, just before its write, against the stacks it changes as read then.
 * The pass may have planned on ground that moved since: a cache that cannot see a cover chosen by
 * hand (it moves no asset's `updatedAt`), a user at work in Immich's web page while the pass runs.
 * Pure: the shell reads the stacks (`src/reconcile/apply.ts`) and this module compares and plans
 * again, with the planner of the pass and the same rules (docs/safety.md, "Fresh ground").
 *
 * - The ground holds (same cover, same members): the action is sent as planned.
 * - Only covers moved: a grow or a new cover is planned again from the stack as read now, on the
 *   action's group alone (`planStacks`), so a grow lists a cover the pass did not fetch first
 *   and the stack keeps every member; it may now be in sync. A deletion or a replace does not
 *   depend on the cover: it is kept, and puts back the cover read now if it must put it back.
 * - Members joined or left, or the stack is gone: the action is left alone, as where those
 *   members went is not known without more reads; they moved some asset's `updatedAt`, so the
 *   next pass reads them.
 *
 * @module
 */
import type {
  Action,
  AssetLabel,
  GroundStack,
  NeedsReplace,
  RecordedStack,
  Stack,
} from "../model.ts";
import { membersOf, type PlanGroup, type PlanOptions, planStacks } from "./plan.ts";

/** The rules a pass planned with, which the check plans again with. */
export interface GroundRules extends Omit<PlanOptions, "fileNames"> {
  /**
   * Members of the planned stacks that `GET /stacks/{id}` does not list (in the trash, hidden),
   * which the pass looked up: a read of the stack does not show them, and they are still there.
   *
   * @default {new Set()}
   */
  readonly unlisted?: ReadonlySet<string>;
}

/** How a stack read just before a write differs from the ground its action was planned on. */
export interface StackMove {
  readonly stackId: string;
  /** The stack is gone. */
  readonly gone: boolean;
  /** Its cover as planned and as read now, when they differ. */
  readonly cover?: { readonly then: string; readonly now: string };
  /** Members read now that the ground did not hold. */
  readonly joined: readonly string[];
  /** Members of the ground that Immich lists and no longer does. */
  readonly left: readonly string[];
}

/**
 * What becomes of an action once the stacks it changes are read again: sent as planned
 * (`holds`), sent as planned again (`replanned`), or not sent: the stack is in sync already,
 * conflicts with the group now (left alone without REPLACE_STACKS), or changed in a way the
 * pass cannot judge (`changed`, left for the next pass).
 */
export type FreshVerdict =
  | {
    readonly kind: "holds" | "replanned";
    /** The action to send. */
    readonly action: Action;
    /** The stacks it changes as read now, every member the pass knows: the journal's record. */
    readonly ground: readonly RecordedStack[];
    readonly moves: readonly StackMove[];
  }
  | {
    readonly kind: "in-sync" | "needs-replace" | "changed";
    readonly moves: readonly StackMove[];
    /** For `needs-replace`: the conflict, as a plan would list it. */
    readonly conflict?: NeedsReplace;
  };

const NONE: ReadonlySet<string> = new Set();

/**
 * The stacks an action changes, as it was planned on them: none for a create, which lists only
 * assets whose stacks are gone.
 *
 * @param action An action of a plan.
 * @returns The stacks, in the order the action names them.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { groundOf } from "./ground.ts";
 *
 * const remove = {
 *   kind: "delete", stackId: "s1", assetIds: ["a"], trashedAssetIds: [], reason: "single-asset-stack",
 *   context: { assets: [] },
 * } as const;
 * assert.deepEqual(groundOf(remove), [{ id: "s1", primaryAssetId: "a", assetIds: ["a"] }]);
 * ```
 */
export function groundOf(action: Action): readonly GroundStack[] {
  switch (action.kind) {
    case "create":
      return [];
    case "delete":
      return [{
        id: action.stackId,
        primaryAssetId: action.assetIds[0],
        assetIds: action.assetIds,
      }];
    case "replace":
      return action.previous;
    case "grow":
    case "update-primary":
      return [action.ground];
  }
}

/**
 * How a stack read now differs from its ground.
 *
 * @param ground The stack as the action was planned on it.
 * @param now The stack as `GET /stacks/{id}` lists it now; undefined when it is gone.
 * @param unlisted Members the read does not show (in the trash, hidden).
 * @returns The difference, or undefined when the ground holds.
 *
 * @example A cover chosen by hand
 * ```ts
 * import assert from "node:assert/strict";
 * import { stackMove } from "./ground.ts";
 *
 * const ground = { id: "s1", primaryAssetId: "jpg", assetIds: ["jpg", "dng", "edit"] };
 * const now = { id: "s1", primaryAssetId: "edit", assetIds: ["edit", "jpg", "dng"] };
 * assert.deepEqual(stackMove(ground, now, new Set()), {
 *   stackId: "s1", gone: false, cover: { then: "jpg", now: "edit" }, joined: [], left: [],
 * });
 * ```
 */
export function stackMove(
  ground: GroundStack,
  now: Stack | undefined,
  unlisted: ReadonlySet<string>,
): StackMove | undefined {
  if (now === undefined) return { stackId: ground.id, gone: true, joined: [], left: [] };
  const held = new Set(ground.assetIds);
  const members = new Set(membersOf(now));
  const joined = [...members].filter((id) => !held.has(id));
  const left = ground.assetIds.filter((id) =>
    !members.has(id) && (id === ground.primaryAssetId || !unlisted.has(id))
  );
  const cover = now.primaryAssetId === ground.primaryAssetId
    ? undefined
    : { then: ground.primaryAssetId, now: now.primaryAssetId };
  if (cover === undefined && joined.length === 0 && left.length === 0) return undefined;
  return {
    stackId: ground.id,
    gone: false,
    ...(cover === undefined ? {} : { cover }),
    joined,
    left,
  };
}

/**
 * Judges an action against the stacks it changes, as read just before its write (see the module
 * comment). A grow or a new cover whose stack only has another cover is planned again with
 * `planStacks` on its group alone and the pass's rules.
 *
 * @param action The action as planned.
 * @param now The stacks of {@linkcode groundOf} as read now, by id; undefined for one gone.
 * @param rules The pass's plan options, and the members the reads do not show.
 * @returns What to send, if anything, and how the stacks moved.
 *
 * @example A grow planned from a stale cover lists the cover read now first
 * ```ts
 * import assert from "node:assert/strict";
 * import { freshVerdict } from "./ground.ts";
 * import { planStacks } from "./plan.ts";
 *
 * const label = (id: string) => ({ id, originalFileName: `${id}.jpg` });
 * const rules = {
 *   replaceStacks: false, removeSingleAssetStacks: false, resetStacks: false,
 *   notFetched: new Set(["edit"]),
 * };
 * const stale = { id: "s1", primaryAssetId: "jpg", assetIds: ["jpg", "dng", "edit"] };
 * const [grow] = planStacks([stale], [{ key: "k", assets: ["jpg", "dng", "new"].map(label) }], rules).actions;
 * assert.deepEqual(grow.assetIds, ["jpg", "dng", "new"]);
 * const now = { id: "s1", primaryAssetId: "edit", assetIds: ["edit", "jpg", "dng"] };
 * const verdict = freshVerdict(grow, new Map([["s1", now]]), rules);
 * assert.equal(verdict.kind, "replanned");
 * assert.deepEqual(verdict.kind === "replanned" ? verdict.action.assetIds : [], ["edit", "jpg", "dng", "new"]);
 * ```
 */
export function freshVerdict(
  action: Action,
  now: ReadonlyMap<string, Stack | undefined>,
  rules: GroundRules,
): FreshVerdict {
  const unlisted = rules.unlisted ?? NONE;
  const grounds = groundOf(action);
  const moves: StackMove[] = [];
  for (const ground of grounds) {
    const move = stackMove(ground, now.get(ground.id), unlisted);
    if (move !== undefined) moves.push(move);
  }
  if (moves.some((move) => move.gone || move.joined.length > 0 || move.left.length > 0)) {
    return { kind: "changed", moves };
  }
  // Only covers moved, if anything: the stacks read now, with the members the reads do not show.
  const fresh = grounds.map((ground) => coverNow(ground, now.get(ground.id)!.primaryAssetId));
  const labels = labelsOf(action);
  const ground = fresh.map((stack) => recordOf(stack, rules, labels));
  if (moves.length === 0) return { kind: "holds", action, ground, moves };
  switch (action.kind) {
    case "create":
      return { kind: "holds", action, ground, moves };
    case "delete":
      return {
        kind: "replanned",
        action: {
          ...action,
          assetIds: fresh[0].assetIds,
          context: {
            ...action.context,
            assets: fresh[0].assetIds.map((id) => labelOf(labels, id)),
          },
        },
        ground,
        moves,
      };
    case "replace": {
      const previous = action.previous.map((stack, i) => ({ ...stack, ...fresh[i] }));
      // What leaves is named in the order of the members, cover first, as a plan names it.
      const order = fresh.flatMap((stack) => stack.assetIds);
      const removed = action.context.removed === undefined ? {} : {
        removed: order.flatMap((id) => action.context.removed!.filter((label) => label.id === id)),
      };
      return {
        kind: "replanned",
        action: { ...action, previous, context: { ...action.context, ...removed } },
        ground,
        moves,
      };
    }
    case "grow":
    case "update-primary":
      return replanned(action, fresh[0], { rules, moves, ground });
  }
}

/** A grow or a new cover planned again on its stack as read now. */
function replanned(
  action: Extract<Action, { kind: "grow" | "update-primary" }>,
  stack: GroundStack,
  found: {
    readonly rules: GroundRules;
    readonly moves: readonly StackMove[];
    readonly ground: readonly RecordedStack[];
  },
): FreshVerdict {
  const { rules, moves, ground } = found;
  const plan = planStacks([stack], [groupOf(action, rules)], rules);
  const [again] = plan.actions;
  if (
    plan.actions.length === 1 && (again.kind === "grow" || again.kind === "update-primary") &&
    again.stackId === action.stackId
  ) {
    return { kind: "replanned", action: again, ground, moves };
  }
  if (plan.actions.length === 0 && plan.inSync.length === 1) return { kind: "in-sync", moves };
  if (plan.actions.length === 0 && plan.needsReplace.length === 1) {
    return { kind: "needs-replace", moves, conflict: plan.needsReplace[0] };
  }
  return { kind: "changed", moves };
}

/**
 * The group an action serves, parent first: a grow lists a cover the pass did not fetch before
 * it (`planStacks`), which is no member of the group.
 */
function groupOf(
  action: Extract<Action, { kind: "grow" | "update-primary" }>,
  rules: GroundRules,
): PlanGroup {
  const { assets, groupKey } = action.context;
  const cover = action.ground.primaryAssetId;
  const kept = rules.notFetched?.has(cover) === true || rules.trashed?.has(cover) === true;
  const prepended = action.kind === "grow" && kept && action.assetIds[0] === cover;
  return { key: groupKey ?? "", assets: prepended ? assets.slice(1) : assets };
}

/** The ground with the cover read now first: the members are the same, only covers moved. */
function coverNow(ground: GroundStack, cover: string): GroundStack {
  if (cover === ground.primaryAssetId) return ground;
  return {
    id: ground.id,
    primaryAssetId: cover,
    assetIds: [cover, ...ground.assetIds.filter((id) => id !== cover)],
  };
}

/**
 * The labels an action's (or a conflict's) context holds, by id: its assets, the cover it
 * replaces, the assets it adds and those it takes out.
 *
 * @param entry An action or a conflict of a plan.
 * @returns File names (and, for grouped photos, times) by asset id.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { labelsOf } from "./ground.ts";
 *
 * const create = {
 *   kind: "create", assetIds: ["a"], reason: "new-group",
 *   context: { assets: [{ id: "a", originalFileName: "IMG_1.jpg" }] },
 * } as const;
 * assert.equal(labelsOf(create).get("a")?.originalFileName, "IMG_1.jpg");
 * ```
 */
export function labelsOf(entry: Action | NeedsReplace): Map<string, AssetLabel> {
  const { context } = entry;
  const labels = new Map<string, AssetLabel>();
  for (
    const label of [
      ...context.removed ?? [],
      ...context.previousPrimary === undefined ? [] : [context.previousPrimary],
      ...context.added ?? [],
      ...context.assets,
    ]
  ) {
    labels.set(label.id, label);
  }
  return labels;
}

function labelOf(labels: ReadonlyMap<string, AssetLabel>, id: string): AssetLabel {
  return labels.get(id) ?? { id, originalFileName: id };
}

/** A stack as the journal records it, members marked as in the trash or hidden. */
function recordOf(
  stack: GroundStack,
  rules: GroundRules,
  labels: ReadonlyMap<string, AssetLabel>,
): RecordedStack {
  const unlisted = rules.unlisted ?? NONE;
  return {
    id: stack.id,
    primaryAssetId: stack.primaryAssetId,
    assets: stack.assetIds.map((id) => {
      const name = labels.get(id)?.originalFileName;
      const trashed = rules.trashed?.has(id) === true;
      return {
        id,
        ...(name === undefined || name === id ? {} : { originalFileName: name }),
        ...(trashed ? { trashed: true } : unlisted.has(id) ? { hidden: true } : {}),
      };
    }),
  };
}
