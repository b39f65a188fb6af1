/**
 * Compares the existing stacks with the computed groups and decides what to change, as a
 * {@linkcode Plan} value. Pure: no I/O, no clock, no logger.
 *
 * The rules are in docs/architecture.md, "Reconcile rules". They are shaped by Immich's merge
 * rule: `POST /stacks` folds in the whole stack of any listed primary and moves listed children
 * out of their stacks. So a create may only list assets whose stacks are already gone, or the assets of
 * one stack that lies wholly inside the group (a grow), and every deletion runs first.
 *
 * @module
 */

import type {
  Action,
  ActionContext,
  Asset,
  AssetLabel,
  ConflictReason,
  CreateAction,
  DeleteAction,
  DeleteReason,
  InSyncStack,
  NeedsReplace,
  Plan,
  ReplaceAction,
  Stack,
} from "../model.ts";

/**
 * The part of a `Group` (src/model.ts) that planning reads: a promoted group, parent first.
 * Every `Group` is one.
 */
export interface PlanGroup {
  readonly key: string;
  readonly assets: readonly Pick<Asset, "id" | "originalFileName">[];
}

/** Settings that change what {@linkcode planStacks} may do. */
export interface PlanOptions {
  /**
   * REPLACE_STACKS: replace conflicting stacks (delete, then create). When false a conflict
   * is left alone and reported in `needsReplace`, and no asset ever leaves a stack.
   */
  readonly replaceStacks: boolean;
  /** REMOVE_SINGLE_ASSET_STACKS: delete every stack that holds exactly one asset. */
  readonly removeSingleAssetStacks: boolean;
  /** RESET_STACKS: delete every stack, then create every group. Wins over the other two. */
  readonly resetStacks: boolean;
  /**
   * File names of assets by id, for display only. Names of group members come from the
   * groups; this adds members of stacks that no group holds. Unknown names show the id.
   *
   * @default {new Map()}
   */
  readonly fileNames?: ReadonlyMap<string, string>;
}

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
 * Plans the changes that make the existing stacks match the groups.
 *
 * For a group `g`, the touched stacks are those holding any asset of `g` (the index covers
 * every member, not only primaries):
 *
 * | touched | condition | result |
 * |---|---|---|
 * | none | | `create` (`new-group`) |
 * | one stack | same members, same primary | in sync, no action |
 * | one stack | same members, other primary | `update-primary` (`primary-changed`) |
 * | one stack | its members a strict subset of `g` | `grow` (`group-grew`) |
 * | one stack | a member outside `g` | conflict (`member-outside-group`) |
 * | two or more | | conflict (`group-spans-stacks`) |
 *
 * A conflict becomes a `replace` with `replaceStacks`, else an entry of `needsReplace`.
 * A 1-asset stack whose asset is in `g` is a subset of `g`, so when it is the only touched
 * stack the group grows from it; Immich folds it in through its primary and nothing is lost.
 * With `removeSingleAssetStacks`, 1-asset stacks are deleted first and groups are planned as
 * if their assets were unstacked. Stacks that no group touches are left alone otherwise.
 *
 * Actions come in execution order: deletions, then replaces, then primary updates, grows and
 * creates, each kind in group order. No stack is deleted twice.
 *
 * @param existing The user's stacks, every member listed (`GET /stacks`).
 * @param groups Promoted groups: parent first, 2+ assets each, no asset in two groups.
 * @param options What the plan may do.
 * @returns The plan.
 *
 * @example Grow an existing stack
 * ```ts
 * import assert from "node:assert/strict";
 * import { planStacks } from "./plan.ts";
 *
 * const asset = (id: string) => ({ id, originalFileName: `${id}.jpg` });
 * const plan = planStacks(
 *   [{ id: "s1", primaryAssetId: "a", assetIds: ["a", "b"] }],
 *   [{ key: "k", assets: [asset("a"), asset("b"), asset("c")] }],
 *   { replaceStacks: false, removeSingleAssetStacks: false, resetStacks: false },
 * );
 * assert.equal(plan.actions.length, 1);
 * assert.equal(plan.actions[0].kind, "grow");
 * assert.deepEqual(plan.actions[0].assetIds, ["a", "b", "c"]);
 * ```
 */
export function planStacks(
  existing: readonly Stack[],
  groups: readonly PlanGroup[],
  options: PlanOptions,
): Plan {
  if (options.resetStacks) {
    const labels = new Labels(groups, new Set(existing.flatMap(membersOf)), options.fileNames);
    return {
      actions: [
        ...existing.map((stack) => deleteAction(stack, "reset", labels)),
        ...groups.map((group): CreateAction => ({
          kind: "create",
          assetIds: assetIdsOf(group),
          reason: "reset",
          context: { groupKey: group.key, assets: group.assets },
        })),
      ],
      inSync: [],
      needsReplace: [],
    };
  }

  const singles: Stack[] = [];
  const remaining: Stack[] = [];
  for (const stack of existing) {
    if (options.removeSingleAssetStacks && membersOf(stack).length === 1) singles.push(stack);
    else remaining.push(stack);
  }

  const index = new StackIndex(remaining);
  const replaces: PendingReplace[] = [];
  const updates: Action[] = [];
  const grows: Action[] = [];
  const creates: Action[] = [];
  const inSync: InSyncStack[] = [];
  const needsReplace: NeedsReplace[] = [];
  const deletedByReplace = new Set<string>();

  for (const group of groups) {
    // One pass: the first touched stack, whether a second one exists, and how many of the
    // group's assets are stacked at all.
    let entry: Indexed | undefined;
    let spans = false;
    let stacked = 0;
    for (const asset of group.assets) {
      const holder = index.entryOf(asset.id);
      if (holder === undefined) continue;
      stacked++;
      if (entry === undefined) entry = holder;
      else if (holder !== entry) spans = true;
    }
    const context: ActionContext = { groupKey: group.key, assets: group.assets };
    if (entry === undefined) {
      creates.push({ kind: "create", assetIds: assetIdsOf(group), reason: "new-group", context });
      continue;
    }
    const { stack } = entry;
    // Every member of the one touched stack is in the group: it cannot lose an asset.
    if (!spans && stacked === entry.size) {
      if (stacked < group.assets.length) {
        const added = group.assets.filter((asset) => index.entryOf(asset.id) === undefined);
        grows.push({
          kind: "grow",
          stackId: stack.id,
          assetIds: assetIdsOf(group),
          reason: "group-grew",
          context: { ...context, added },
        });
      } else if (stack.primaryAssetId !== group.assets[0].id) {
        updates.push({
          kind: "update-primary",
          stackId: stack.id,
          assetIds: assetIdsOf(group),
          reason: "primary-changed",
          context: { ...context, previousPrimary: labelIn(group, stack.primaryAssetId) },
        });
      } else {
        inSync.push({ stackId: stack.id, groupKey: group.key });
      }
      continue;
    }
    const reason: ConflictReason = spans ? "group-spans-stacks" : "member-outside-group";
    const touched = index.touchedBy(group);
    const stackIds = touched.map((stack) => stack.id);
    if (!options.replaceStacks) {
      needsReplace.push({ stackIds, assetIds: assetIdsOf(group), reason, context });
      continue;
    }
    const deleteStackIds = stackIds.filter((id) => !deletedByReplace.has(id));
    for (const id of deleteStackIds) deletedByReplace.add(id);
    const action = {
      kind: "replace",
      stackIds,
      deleteStackIds,
      assetIds: assetIdsOf(group),
      reason,
      context,
    } as const;
    replaces.push({ action, removedIds: removedBy(group, touched) });
  }

  // File names of assets outside the group at hand come from one scan of all groups, made
  // only for the few assets that need one.
  const labels = new Labels(
    groups,
    new Set([...singles.flatMap(membersOf), ...replaces.flatMap((r) => r.removedIds)]),
    options.fileNames,
  );
  return {
    actions: [
      ...singles.map((stack) => deleteAction(stack, "single-asset-stack", labels)),
      ...replaces.map(({ action, removedIds }): ReplaceAction => ({
        ...action,
        context: {
          ...action.context,
          removed: removedIds.map((id) => ({
            ...labels.of(id),
            reason: labels.isGrouped(id) ? "in-other-group" : "in-no-group",
          })),
        },
      })),
      ...updates,
      ...grows,
      ...creates,
    ],
    inSync,
    needsReplace,
  };
}

/**
 * Counts a plan's actions per kind, with the in-sync and needs-replace entries.
 *
 * @param plan A plan from {@linkcode planStacks}.
 * @returns The counts.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { countPlan } from "./plan.ts";
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
 * @param plan A plan from {@linkcode planStacks}.
 * @returns True when the plan has at least one action.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { hasChanges } from "./plan.ts";
 *
 * assert.equal(hasChanges({ actions: [], inSync: [], needsReplace: [] }), false);
 * ```
 */
export function hasChanges(plan: Plan): boolean {
  return plan.actions.length > 0;
}

/** A stack in the index with its number of distinct members, the primary included. */
interface Indexed {
  readonly stack: Stack;
  size: number;
}

/**
 * Stacks by member, every member included (indexing only primaries would make the other
 * members look unstacked, to be stacked again on every run), and stack sizes.
 */
class StackIndex {
  // Keyed by asset id strings only: 50 000 stacks are indexed on every pass, and keying maps
  // by object identity is markedly slower in V8.
  readonly #entryOf = new Map<string, Indexed>();

  constructor(stacks: readonly Stack[]) {
    for (const stack of stacks) {
      const entry: Indexed = { stack, size: 0 };
      this.#add(entry, stack.primaryAssetId);
      for (const assetId of stack.assetIds) this.#add(entry, assetId);
    }
  }

  entryOf(assetId: string): Indexed | undefined {
    return this.#entryOf.get(assetId);
  }

  /** The distinct stacks holding any asset of the group, in the order first met. */
  touchedBy(group: PlanGroup): Stack[] {
    const touched = new Map<string, Stack>();
    for (const asset of group.assets) {
      const stack = this.#entryOf.get(asset.id)?.stack;
      if (stack !== undefined) touched.set(stack.id, stack);
    }
    return [...touched.values()];
  }

  #add(entry: Indexed, assetId: string): void {
    const holder = this.#entryOf.get(assetId);
    if (holder === entry) return;
    entry.size++;
    // Immich keeps an asset in one stack; should a listing ever repeat one, the first wins,
    // and the other stack then has a member outside every group: it is left alone.
    if (holder === undefined) this.#entryOf.set(assetId, entry);
  }
}

/**
 * The distinct members of a stack, primary first, its primary included even if the listing
 * left it out (a trashed primary): such a stack then has a member outside every group and is
 * never grown, because the merge rule would not fold it in.
 */
function membersOf(stack: Stack): string[] {
  return [...new Set([stack.primaryAssetId, ...stack.assetIds])];
}

/** A replace whose display context still lacks the labels of the assets it removes. */
interface PendingReplace {
  readonly action: ReplaceAction;
  readonly removedIds: readonly string[];
}

/** Members of the touched stacks that a replace leaves out of its group. */
function removedBy(group: PlanGroup, touched: readonly Stack[]): string[] {
  const inGroup = new Set(assetIdsOf(group));
  return touched.flatMap(membersOf).filter((assetId) => !inGroup.has(assetId));
}

function deleteAction(stack: Stack, reason: DeleteReason, labels: Labels): DeleteAction {
  const assetIds = membersOf(stack);
  return {
    kind: "delete",
    stackId: stack.id,
    assetIds,
    reason,
    context: { assets: assetIds.map((id) => labels.of(id)) },
  };
}

function assetIdsOf(group: PlanGroup): string[] {
  return group.assets.map((asset) => asset.id);
}

/** The group's own label for one of its assets. */
function labelIn(group: PlanGroup, assetId: string): AssetLabel | undefined {
  return group.assets.find((asset) => asset.id === assetId);
}

/** File names for display of the `wanted` assets, found in one scan of the groups. */
class Labels {
  readonly #grouped = new Map<string, AssetLabel>();
  readonly #fileNames: ReadonlyMap<string, string>;

  constructor(
    groups: readonly PlanGroup[],
    wanted: ReadonlySet<string>,
    fileNames: ReadonlyMap<string, string> = new Map(),
  ) {
    this.#fileNames = fileNames;
    if (wanted.size === 0) return;
    for (const group of groups) {
      for (const asset of group.assets) {
        if (wanted.has(asset.id)) this.#grouped.set(asset.id, asset);
      }
    }
  }

  /** Whether a wanted asset belongs to some group. */
  isGrouped(assetId: string): boolean {
    return this.#grouped.has(assetId);
  }

  /** A wanted asset's label: its group's, else the caller's file name, else the id. */
  of(assetId: string): AssetLabel {
    return this.#grouped.get(assetId) ??
      { id: assetId, originalFileName: this.#fileNames.get(assetId) ?? assetId };
  }
}
