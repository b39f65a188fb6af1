/**
 * Compares the existing stacks with the computed groups and decides what to change, as a
 * {@linkcode Plan} value. Pure: no I/O, no clock, no logger.
 *
 * The rules are in docs/safety.md. They are shaped by Immich's merge rule: `POST /stacks`
 * folds in the whole stack of any listed primary (but its members in the trash) and moves
 * listed children out of their stacks. So a create may only list assets whose stacks are
 * already gone, or the assets of one stack that lies wholly inside the group (a grow), never an
 * asset in the trash, and every deletion runs first.
 *
 * @module
 */

import type { Action, Asset, AssetLabel, CreateAction, Plan, Stack } from "../model.ts";
import {
  contextOf,
  Decided,
  deleteAction,
  idsOf,
  type Listing,
  listingsOf,
} from "./plan_decided.ts";
import { Labels, Membership, membersOf, StackIndex } from "./plan_index.ts";

export { membersOf } from "./plan_index.ts";

export { countPlan, hasChanges, type PlanCounts } from "./plan_count.ts";

/**
 * The part of a `Group` (src/model.ts) that planning reads: a promoted group, parent first.
 * Every `Group` is one.
 */
export interface PlanGroup {
  readonly key: string;
  readonly assets: readonly Pick<Asset, "id" | "originalFileName">[];
  /** Which rule made it, for people (default rules only). */
  readonly label?: string;
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
  /**
   * Stack members the pass did not fetch: videos without INCLUDE_VIDEOS, archived photos
   * without WITH_ARCHIVED, photos outside the album and date filters, hidden live-photo parts,
   * members in the trash. Grouping never saw them, so they are not "outside the group": they
   * stay in their stack unless a replace or reset deletes it (and then the plan names them), and
   * a stack whose cover is one of them keeps that cover.
   *
   * @default {new Set()}
   */
  readonly notFetched?: ReadonlySet<string>;
  /**
   * Assets in the trash, stack members or fetched with WITH_DELETED. Immich leaves a trashed
   * asset out of a stack it merges, and out of a new stack unless it is listed first, when it
   * becomes the cover while in the trash. So no create lists one, a stack holding one never
   * grows, and a trashed asset stays in the stack it is in, whatever its group.
   *
   * @default {new Set()}
   */
  readonly trashed?: ReadonlySet<string>;
  /**
   * Ids of stacks that may hold members Immich lists nowhere (a trashed or hidden asset whose
   * stack Immich would not name): such a stack is never counted as holding one asset and never
   * grows.
   *
   * @default {new Set()}
   */
  readonly unseenMembers?: ReadonlySet<string>;
  /**
   * Exact targets, for undo and restore: the groups are the whole desired state of these assets
   * (`"all"`: of every asset). A stack that no group touches and that holds one of them is
   * deleted (`not-in-target`). A group may then hold a single asset: a 1-asset stack to make.
   *
   * @default {undefined: stacks no group touches are left alone}
   */
  readonly exactFor?: ReadonlySet<string> | "all";
}

/**
 * Plans the changes that make the existing stacks match the groups.
 *
 * Each group is first reduced to what a create may list: its assets in order, without assets in
 * the trash and without repeats; a group left with fewer than 2 assets is dropped. The touched
 * stacks are those holding any listed asset (the index covers every member, not only
 * primaries). A stack's *fetched* members are those neither in `notFetched` nor in `trashed`:
 *
 * | touched | condition | result |
 * |---|---|---|
 * | none | | `create` (`new-group`) |
 * | one stack | fetched members = group, same primary or a cover not fetched | in sync, no action |
 * | one stack | fetched members = group, other primary | `update-primary` (`primary-changed`) |
 * | one stack | fetched members a strict subset of the group, none trashed | `grow` (`group-grew`) |
 * | one stack | fetched members a strict subset, a member in the trash | conflict (`member-in-trash`) |
 * | one stack | a fetched member outside the group | conflict (`member-outside-group`) |
 * | two or more | | conflict (`group-spans-stacks`) |
 *
 * A conflict becomes a `replace` with `replaceStacks`, else an entry of `needsReplace`.
 * With `exactFor`, the stacks no group touches that hold an asset of that set are deleted too.
 * A grow lists the stack's cover first when the pass did not fetch it, so the cover stays.
 * A 1-asset stack whose asset is in the group is a subset of it, so when it is the only touched
 * stack the group grows from it; Immich folds it in through its primary and nothing is lost.
 * With `removeSingleAssetStacks`, stacks of exactly one member (members Immich hides counted)
 * are deleted first and groups are planned as if their assets were unstacked. Stacks that no
 * group touches are left alone otherwise.
 *
 * Actions come in execution order: deletions, then replaces, then primary updates, grows and
 * creates, each kind in group order. No stack is deleted twice.
 *
 * @param existing The user's stacks, every member listed (those Immich hides included).
 * @param groups Promoted groups: parent first, 2+ assets each (1+ with `exactFor`), no asset
 *   in two groups.
 * @param options What the plan may do, and which members the pass did not fetch.
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
 *
 * @example A video the pass did not fetch stays in its stack
 * ```ts
 * import assert from "node:assert/strict";
 * import { planStacks } from "./plan.ts";
 *
 * const asset = (id: string) => ({ id, originalFileName: `${id}.jpg` });
 * const plan = planStacks(
 *   [{ id: "s1", primaryAssetId: "a", assetIds: ["a", "b", "clip"] }],
 *   [{ key: "k", assets: [asset("a"), asset("b")] }],
 *   {
 *     replaceStacks: false,
 *     removeSingleAssetStacks: false,
 *     resetStacks: false,
 *     notFetched: new Set(["clip"]),
 *   },
 * );
 * assert.deepEqual(plan.inSync, [{ stackId: "s1", groupKey: "k" }]);
 * ```
 */
export function planStacks(
  existing: readonly Stack[],
  groups: readonly PlanGroup[],
  options: PlanOptions,
): Plan {
  const members = new Membership(options);
  const listings = listingsOf(groups, members.trashed, options.exactFor === undefined ? 2 : 1);
  if (options.resetStacks) return planReset(existing, listings, { groups, options, members });

  const singles: Stack[] = [];
  const remaining: Stack[] = [];
  for (const stack of existing) {
    if (options.removeSingleAssetStacks && members.isSingle(stack)) singles.push(stack);
    else remaining.push(stack);
  }
  const decided = new Decided(new StackIndex(remaining), members, options);
  for (const listing of listings) decided.plan(listing);
  return decided.assemble(singles, groups);
}

/** What {@linkcode planReset} and {@linkcode Decided} read beside the stacks. */
interface Planning {
  readonly groups: readonly PlanGroup[];
  readonly options: PlanOptions;
  readonly members: Membership;
}

/** RESET_STACKS: every stack deleted, every group created. */
function planReset(
  existing: readonly Stack[],
  listings: readonly Listing[],
  { groups, options, members }: Planning,
): Plan {
  const index = new StackIndex(existing);
  const labels = new Labels(groups, new Set(existing.flatMap(membersOf)), options.fileNames);
  return {
    actions: [
      ...existing.map((stack) => deleteAction(stack, "reset", labels, members)),
      ...listings.map(({ group, assets }): CreateAction => {
        const stackIds = index.touchedBy(assets).map((stack) => stack.id);
        return {
          kind: "create",
          assetIds: idsOf(assets),
          reason: "reset",
          ...(stackIds.length > 0 ? { stackIds } : {}),
          context: contextOf(group, assets),
        };
      }),
    ],
    inSync: [],
    needsReplace: [],
  };
}

/**
 * Tells whether the plan deletes, grows or replaces a stack: the only actions whose safety
 * depends on members Immich does not list (trashed and hidden ones). A plan without them
 * stays the same when those members are known, so the run looks them up only for such a plan.
 *
 * @param plan A plan from {@linkcode planStacks}.
 * @returns True when some action deletes or merges an existing stack.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { actsOnStackMembers } from "./plan.ts";
 *
 * const create = { kind: "create", assetIds: ["a", "b"], reason: "new-group", context: { assets: [] } } as const;
 * assert.equal(actsOnStackMembers({ actions: [create], inSync: [], needsReplace: [] }), false);
 * ```
 */
export function actsOnStackMembers(plan: Plan): boolean {
  return plan.actions.some((action) =>
    action.kind === "delete" || action.kind === "grow" || action.kind === "replace"
  );
}

/**
 * The assets the plan names only by id (no file name was known): members of stacks it
 * deletes or replaces that the pass did not fetch.
 *
 * @param plan A plan from {@linkcode planStacks}.
 * @returns Their ids, each once.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { unnamedAssets } from "./plan.ts";
 *
 * const remove = {
 *   kind: "delete", stackId: "s1", assetIds: ["v"], trashedAssetIds: [], reason: "single-asset-stack",
 *   context: { assets: [{ id: "v", originalFileName: "v" }] },
 * } as const;
 * assert.deepEqual(unnamedAssets({ actions: [remove], inSync: [], needsReplace: [] }), ["v"]);
 * ```
 */
export function unnamedAssets(plan: Plan): string[] {
  const ids = new Set<string>();
  for (const action of plan.actions) {
    const labels = action.kind === "replace"
      ? action.context.removed ?? []
      : action.kind === "delete"
      ? action.context.assets
      : [];
    for (const label of labels) if (label.originalFileName === label.id) ids.add(label.id);
  }
  return [...ids];
}

/**
 * The plan with file names filled in where it named an asset by id.
 *
 * @param plan A plan from {@linkcode planStacks}.
 * @param fileNames File names by asset id.
 * @returns The same plan, its deletes and replaces labelled with the names known.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { withFileNames } from "./plan.ts";
 *
 * const remove = {
 *   kind: "delete", stackId: "s1", assetIds: ["v"], trashedAssetIds: [], reason: "single-asset-stack",
 *   context: { assets: [{ id: "v", originalFileName: "v" }] },
 * } as const;
 * const named = withFileNames({ actions: [remove], inSync: [], needsReplace: [] }, new Map([["v", "V.MP4"]]));
 * assert.equal(named.actions[0].context.assets[0].originalFileName, "V.MP4");
 * ```
 */
export function withFileNames(plan: Plan, fileNames: ReadonlyMap<string, string>): Plan {
  const name = <T extends AssetLabel>(label: T): T =>
    label.originalFileName === label.id && fileNames.has(label.id)
      ? { ...label, originalFileName: fileNames.get(label.id)! }
      : label;
  return {
    ...plan,
    actions: plan.actions.map((action): Action => {
      if (action.kind === "delete") {
        return {
          ...action,
          context: { ...action.context, assets: action.context.assets.map(name) },
        };
      }
      if (action.kind === "replace" && action.context.removed !== undefined) {
        return {
          ...action,
          context: { ...action.context, removed: action.context.removed.map(name) },
        };
      }
      return action;
    }),
  };
}
