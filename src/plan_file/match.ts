/**
 * Decides what `stacksync apply` carries out: the approved plan file against a plan made now, on
 * the server as it is. An action is applied only when the plan made now holds the very same
 * action (same id: same kind, photos and stacks as read, so its ground has not moved). An
 * approved action the plan made now does not hold is done already (its stack is as it wants),
 * or stale, with the reason in words. The plan made now keeps every safety rule of a run's plan,
 * so applying a file never does what a run would not do on the same server. Pure: no I/O.
 *
 * @module
 */
import type { Action, Plan, Stack } from "../model.ts";
import type { StacksAsRead } from "../state/journal.ts";
import type { PlanAction, PlanAsset, PlanStack, PlanUser } from "./format.ts";
import { describeAction, names } from "./words.ts";

/** The plan made now, three ways. */
export interface FreshPlan {
  /** As `planStacks` made it: what `applyPlan` carries out. */
  readonly plan: Plan;
  /** As a plan file's user (`planUser`), action for action. */
  readonly user: PlanUser;
  /** The stacks it was made from. */
  readonly read: StacksAsRead;
}

/** An approved action that is not applied, and why. */
export interface StaleAction {
  readonly action: PlanAction;
  readonly reason: string;
}

/** What becomes of the approved plan. */
export interface Approval {
  /** The actions to carry out: the fresh plan's, in its order. */
  readonly apply: readonly Action[];
  /** Approved actions whose stacks are already as they want. */
  readonly done: readonly PlanAction[];
  /** Approved actions left alone, with the reason. */
  readonly stale: readonly StaleAction[];
  /** Actions of the plan made now that the file does not approve: left alone too. */
  readonly unapproved: readonly PlanAction[];
}

/**
 * Groups the actions that stand or fall together: those that share a stack or a photo. An
 * action that lists a photo of a stack another action deletes, or replaces that share a
 * stack, cannot be carried out without the other one (Immich's merge would swallow the stack,
 * or take photos out of it), so `apply` carries out a group whole or not at all, and the page
 * ticks and unticks a group at once.
 *
 * @param actions The actions of one user's plan.
 * @returns For each action, the index of the first action of its group.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { togetherGroups } from "./match.ts";
 *
 * const action = (id: string, assets: string[], stacks: string[]) => ({
 *   id, kind: "create", reason: { code: "new-group", text: "" },
 *   assets: assets.map((a) => ({ id: a, originalFileName: a })),
 *   stacks: stacks.map((s) => ({ id: s, primaryAssetId: assets[0], assets: [] })),
 * }) as const;
 * assert.deepEqual(
 *   togetherGroups([action("1", ["a", "b"], []), action("2", ["c", "d"], ["s"]), action("3", ["e"], ["s"])]),
 *   [0, 1, 1],
 * );
 * ```
 */
export function togetherGroups(actions: readonly PlanAction[]): number[] {
  const parent = actions.map((_, i) => i);
  const root = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]];
    return i;
  };
  const first = new Map<string, number>();
  const join = (key: string, i: number) => {
    const other = first.get(key);
    if (other === undefined) first.set(key, i);
    else {
      const [a, b] = [root(other), root(i)];
      if (a !== b) parent[Math.max(a, b)] = Math.min(a, b);
    }
  };
  actions.forEach((action, i) => {
    for (const asset of action.assets) join(`a:${asset.id}`, i);
    for (const stack of action.stacks) {
      join(`s:${stack.id}`, i);
      for (const member of stack.assets) join(`a:${member.id}`, i);
    }
  });
  return actions.map((_, i) => root(i));
}

/**
 * Matches the approved actions of one user with the plan made now.
 *
 * @param approved The user's part of the approved plan file.
 * @param fresh The plan made now.
 * @returns What to carry out, what is done already, what is stale and why, and what the file
 *   does not approve.
 *
 * @example A stack deleted since the plan makes its grow stale
 * ```ts
 * import assert from "node:assert/strict";
 * import { planStacks } from "../reconcile/plan.ts";
 * import { planUser } from "./build.ts";
 * import { approve } from "./match.ts";
 *
 * const asset = (id: string) => ({ id, originalFileName: `${id}.jpg` });
 * const group = { key: "k", assets: [asset("a"), asset("b"), asset("c")] };
 * const options = { replaceStacks: false, removeSingleAssetStacks: false, resetStacks: false };
 * const userOf = (stacks: { id: string; primaryAssetId: string; assetIds: string[] }[]) => {
 *   const read = { stacks, fileNames: new Map<string, string>() };
 *   const plan = planStacks(stacks, [group], options);
 *   return { plan, read, user: planUser({ user: { id: "u1", name: "Ada" }, settings: {}, plan, read }) };
 * };
 * const then = userOf([{ id: "s1", primaryAssetId: "a", assetIds: ["a", "b"] }]);
 * assert.equal(approve(then.user, then).apply.length, 1);
 * const now = approve(then.user, userOf([]));
 * assert.equal(now.apply.length, 0);
 * assert.equal(now.stale[0].reason, "stack s1 (cover a.jpg) was deleted");
 * ```
 */
export function approve(approved: PlanUser, fresh: FreshPlan): Approval {
  const index = new Map(fresh.user.actions.map((action, i) => [action.id, i]));
  const wanted = new Set<number>();
  const done: PlanAction[] = [];
  const stale: StaleAction[] = [];
  const ground = new Ground(fresh);
  for (const action of approved.actions) {
    const at = index.get(action.id);
    if (at !== undefined) wanted.add(at);
    else if (ground.isDone(action)) done.push(action);
    else stale.push({ action, reason: ground.whyStale(action) });
  }
  const groups = togetherGroups(fresh.user.actions);
  const members = new Map<number, number[]>();
  groups.forEach((group, i) => members.set(group, [...members.get(group) ?? [], i]));
  const apply: Action[] = [];
  const unapproved: PlanAction[] = [];
  fresh.user.actions.forEach((action, i) => {
    if (!wanted.has(i)) {
      unapproved.push(action);
      return;
    }
    const missing = members.get(groups[i])!.find((other) => !wanted.has(other));
    if (missing === undefined) {
      apply.push(fresh.plan.actions[i]);
      return;
    }
    const other = fresh.user.actions[missing];
    stale.push({
      action,
      reason: `it shares photos or stacks with action ${other.id} (${describeAction(other)}), ` +
        "which the plan file does not approve, and goes only together with it",
    });
  });
  return { apply, done, stale, unapproved };
}

/** The server as the plan made now read it. */
class Ground {
  readonly #stacks: ReadonlyMap<string, Stack>;
  readonly #stackOf = new Map<string, Stack>();
  readonly #inSync: ReadonlySet<string>;
  readonly #trashed: ReadonlySet<string>;
  readonly #names: ReadonlyMap<string, string>;
  readonly #fresh: FreshPlan;

  constructor(fresh: FreshPlan) {
    this.#fresh = fresh;
    this.#stacks = new Map(fresh.read.stacks.map((stack) => [stack.id, stack]));
    for (const stack of fresh.read.stacks) {
      this.#stackOf.set(stack.primaryAssetId, stack);
      for (const id of stack.assetIds) this.#stackOf.set(id, stack);
    }
    this.#inSync = new Set(fresh.plan.inSync.map((entry) => entry.stackId));
    this.#trashed = fresh.read.trashed ?? new Set();
    this.#names = fresh.read.fileNames;
  }

  /** Whether the server already is as the action wants: its stack gone, or made and in sync. */
  isDone(action: PlanAction): boolean {
    if (action.kind === "delete") return !this.#stacks.has(action.stacks[0].id);
    const stack = this.#stackOf.get(action.assets[0].id);
    return stack !== undefined && stack.primaryAssetId === action.assets[0].id &&
      this.#inSync.has(stack.id) &&
      action.assets.every((asset) => this.#stackOf.get(asset.id) === stack);
  }

  /** Why an action the plan made now does not hold is not applied, in words. */
  whyStale(action: PlanAction): string {
    const reasons = action.stacks.flatMap((stack) => this.#stackChanges(stack, action));
    const listed = new Set(action.stacks.flatMap((stack) => stack.assets.map((a) => a.id)));
    for (const asset of action.assets) {
      const holder = this.#stackOf.get(asset.id);
      if (!listed.has(asset.id) && holder !== undefined) {
        reasons.push(`${asset.originalFileName} was put in stack ${holder.id}`);
      }
    }
    if (reasons.length > 0) return reasons.slice(0, 3).join("; ");
    const cover = action.assets[0].id;
    const now = this.#fresh.user.actions.find((other) =>
      other.assets.some((asset) => asset.id === cover)
    );
    if (now !== undefined) return `its group changed: a plan made now would ${describeAction(now)}`;
    const conflict = this.#fresh.plan.needsReplace.find((entry) => entry.assetIds.includes(cover));
    if (conflict !== undefined) {
      return `its group now conflicts with stack ${conflict.stackIds.join(", ")}, which is left ` +
        "alone without REPLACE_STACKS";
    }
    return "its photos no longer form this group (deleted, in the trash, archived, or their " +
      "names or times changed)";
  }

  #name(id: string, recorded: readonly PlanAsset[]): string {
    return recorded.find((asset) => asset.id === id)?.originalFileName ?? this.#names.get(id) ??
      id;
  }

  #stackChanges(stack: PlanStack, action: PlanAction): string[] {
    const now = this.#stacks.get(stack.id);
    const recorded = [...stack.assets, ...action.assets];
    const cover = this.#name(stack.primaryAssetId, recorded);
    if (now === undefined) return [`stack ${stack.id} (cover ${cover}) was deleted`];
    const changes: string[] = [];
    if (now.primaryAssetId !== stack.primaryAssetId) {
      changes.push(
        `stack ${stack.id} has another cover: ${this.#name(now.primaryAssetId, recorded)} ` +
          `instead of ${cover}`,
      );
    }
    const then = new Set(stack.assets.map((asset) => asset.id));
    // Members GET /stacks does not list are in the stacks read now only when that plan looked
    // them up: one the record marks is no change when it is missing.
    const unlisted = new Set(
      stack.assets.filter((asset) => asset.trashed || asset.hidden).map((asset) => asset.id),
    );
    const members = new Set([now.primaryAssetId, ...now.assetIds]);
    const label = (id: string) => ({ originalFileName: this.#name(id, recorded) });
    const joined = [...members].filter((id) => !then.has(id)).map(label);
    const left = [...then].filter((id) => !members.has(id) && !unlisted.has(id)).map(label);
    if (joined.length > 0) changes.push(`${names(joined)} joined stack ${stack.id}`);
    if (left.length > 0) changes.push(`${names(left)} left stack ${stack.id}`);
    const trashedThen = new Set(
      stack.assets.filter((asset) => asset.trashed).map((asset) => asset.id),
    );
    if (
      joined.length === 0 && left.length === 0 &&
      [...members].some((id) => then.has(id) && trashedThen.has(id) !== this.#trashed.has(id))
    ) {
      changes.push(`a photo of stack ${stack.id} went to the trash or came back from it`);
    }
    return changes;
  }
}
