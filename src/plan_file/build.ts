/**
 * Turns one user's {@linkcode Plan} into the user's part of a plan file: each action with its
 * id, its reason in words, its photos (file names, capture times) and the stacks it touches as
 * they were read. Pure: no I/O.
 *
 * @module
 */
import type { Action, AssetLabel, NeedsReplace, Plan, Stack } from "../model.ts";
import { labelsOf } from "../reconcile/ground.ts";
import { recordStack, type StacksAsRead } from "../state/journal.ts";
import {
  actionId,
  type PlanAction,
  type PlanAsset,
  type PlanConflict,
  type PlanStack,
  type PlanUser,
} from "./format.ts";
import { reasonText } from "./words.ts";

/** What {@linkcode planUser} turns into a plan file's user. */
export interface PlanUserInput {
  /** The key's user. */
  readonly user: { readonly id: string; readonly name: string };
  /** The settings that shaped the plan, by variable name. */
  readonly settings: Readonly<Record<string, unknown>>;
  /** The plan, as `planStacks` made it. */
  readonly plan: Plan;
  /** The stacks it was made from, with the members' file names and trash markers. */
  readonly read: StacksAsRead;
}

/**
 * The user's part of a plan file. Its actions are the plan's, one for one and in the same order.
 *
 * @param input The user, the settings, the plan and the stacks it was made from.
 * @returns The plan file's user.
 * @throws {TypeError} When an action names a stack that is not among the stacks read (a defect).
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { planStacks } from "../reconcile/plan.ts";
 * import { planUser } from "./build.ts";
 *
 * const asset = (id: string) => ({ id, originalFileName: `${id}.jpg`, localDateTime: "2024-05-01T10:00:00.000Z" });
 * const stacks = [{ id: "s1", primaryAssetId: "a", assetIds: ["a", "b"] }];
 * const options = { replaceStacks: false, removeSingleAssetStacks: false, resetStacks: false };
 * const plan = planStacks(stacks, [{ key: "k", assets: [asset("a"), asset("b"), asset("c")] }], options);
 * const user = planUser({
 *   user: { id: "u1", name: "Ada" }, settings: {}, plan,
 *   read: { stacks, fileNames: new Map([["a", "a.jpg"], ["b", "b.jpg"]]) },
 * });
 * assert.equal(user.actions[0].kind, "grow");
 * assert.deepEqual(user.actions[0].added, ["c"]);
 * assert.deepEqual(user.actions[0].stacks[0].assets.map((a) => a.originalFileName), ["a.jpg", "b.jpg"]);
 * ```
 */
export function planUser(input: PlanUserInput): PlanUser {
  const { plan, read } = input;
  const stacks = new Map(read.stacks.map((stack) => [stack.id, stack]));
  const stackOf = (id: string): Stack => {
    const stack = stacks.get(id);
    if (stack === undefined) throw new TypeError(`The plan names stack ${id}, which was not read`);
    return stack;
  };
  return {
    id: input.user.id,
    name: input.user.name,
    settings: input.settings,
    inSync: plan.inSync.length,
    actions: plan.actions.map((action) => planAction(action, stackOf, read)),
    needsReplace: plan.needsReplace.map((conflict) => planConflict(conflict, stackOf, read)),
  };
}

/** A photo: its name from the labels (or the id) and its capture time when it was read. */
function planAsset(id: string, label: AssetLabel | undefined, name?: string): PlanAsset {
  const time = (label as { localDateTime?: unknown } | undefined)?.localDateTime;
  return {
    id,
    originalFileName: name ?? label?.originalFileName ?? id,
    ...(typeof time === "string" ? { localDateTime: time } : {}),
  };
}

function planStack(
  stack: Stack,
  labels: ReadonlyMap<string, AssetLabel>,
  read: StacksAsRead,
): PlanStack {
  const recorded = recordStack(stack, read);
  return {
    id: recorded.id,
    primaryAssetId: recorded.primaryAssetId,
    assets: recorded.assets.map((member) => ({
      ...planAsset(member.id, labels.get(member.id), member.originalFileName),
      ...(member.trashed ? { trashed: true as const } : {}),
      ...(member.hidden ? { hidden: true as const } : {}),
    })),
  };
}

function planAction(
  action: Action,
  stackOf: (id: string) => Stack,
  read: StacksAsRead,
): PlanAction {
  const stackIds = action.kind === "replace"
    ? action.stackIds
    : action.kind === "create"
    ? action.stackIds ?? []
    : [action.stackId];
  // The context lists the assets in the order of assetIds; other labels are looked up only for
  // the stacks an action touches (a first run's creates touch none).
  const { assets } = action.context;
  const labels = stackIds.length > 0 ? labelsOf(action) : undefined;
  const body: Omit<PlanAction, "id"> = {
    kind: action.kind,
    reason: { code: action.reason, text: reasonText(action) },
    ...ruleOf(action),
    assets: action.assetIds.map((id, i) =>
      planAsset(id, assets[i]?.id === id ? assets[i] : labels?.get(id))
    ),
    stacks: stackIds.map((id) => planStack(stackOf(id), labels!, read)),
    ...(action.kind === "replace" ? { deletes: [...action.deleteStackIds] } : {}),
    ...(action.kind === "grow" ? { added: (action.context.added ?? []).map(({ id }) => id) } : {}),
    ...(action.kind === "replace" && action.context.removed !== undefined
      ? { removed: action.context.removed.map(({ id, reason }) => ({ id, reason })) }
      : {}),
  };
  return { id: actionId(body), ...body };
}

function planConflict(
  conflict: NeedsReplace,
  stackOf: (id: string) => Stack,
  read: StacksAsRead,
): PlanConflict {
  const labels = labelsOf(conflict);
  return {
    reason: { code: conflict.reason, text: reasonText(conflict) },
    ...ruleOf(conflict),
    assets: conflict.assetIds.map((id) => planAsset(id, labels.get(id))),
    stacks: conflict.stackIds.map((id) => planStack(stackOf(id), labels, read)),
  };
}

/** The rule that made the entry's group, when the default rules did. */
function ruleOf(entry: Action | NeedsReplace): { rule?: string } {
  const { label } = entry.context;
  return label === undefined ? {} : { rule: label };
}
