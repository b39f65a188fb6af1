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

import type {
  Action,
  ActionContext,
  Asset,
  AssetLabel,
  ConflictReason,
  CreateAction,
  DeleteAction,
  DeleteReason,
  GroundStack,
  InSyncStack,
  NeedsReplace,
  Plan,
  PreviousStack,
  RemovedAsset,
  ReplaceAction,
  Stack,
} from "../model.ts";

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

const NONE: ReadonlySet<string> = new Set();

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
  if (options.resetStacks) {
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

  const singles: Stack[] = [];
  const remaining: Stack[] = [];
  for (const stack of existing) {
    if (options.removeSingleAssetStacks && members.isSingle(stack)) singles.push(stack);
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
  const coverLabels: string[] = [];
  /** Stacks some group touches: with `exactFor`, the others holding a target asset go. */
  const touchedByGroups = new Set<Indexed>();

  for (const { group, assets } of listings) {
    // One pass: the first touched stack, whether a second one exists, and how many of the
    // listed assets are stacked at all.
    let entry: Indexed | undefined;
    let spans = false;
    let stacked = 0;
    for (const asset of assets) {
      const holder = index.entryOf(asset.id);
      if (holder === undefined) continue;
      stacked++;
      if (entry === undefined) entry = holder;
      else if (holder !== entry) spans = true;
    }
    const context = contextOf(group, assets);
    const assetIds = idsOf(assets);
    if (options.exactFor !== undefined && entry !== undefined) {
      for (const asset of assets) {
        const holder = index.entryOf(asset.id);
        if (holder !== undefined) touchedByGroups.add(holder);
      }
    }
    // Only exact targets keep 1-asset groups (see listingsOf): a 1-asset stack to make.
    const single = assets.length === 1 ? { single: true as const } : {};
    if (entry === undefined) {
      creates.push({ kind: "create", assetIds, reason: "new-group", ...single, context });
      continue;
    }
    const { stack } = entry;
    let reason: ConflictReason = spans ? "group-spans-stacks" : "member-outside-group";
    // Every fetched member of the one touched stack is listed: it cannot lose an asset.
    if (!spans && stacked === members.fetchedCount(entry)) {
      const coverKept = members.isKept(stack.primaryAssetId);
      if (stacked === assets.length) {
        if (coverKept || stack.primaryAssetId === assetIds[0]) {
          inSync.push({ stackId: stack.id, groupKey: group.key });
        } else {
          updates.push({
            kind: "update-primary",
            stackId: stack.id,
            assetIds,
            reason: "primary-changed",
            ground: groundOf(stack),
            context: { ...context, previousPrimary: labelIn(assets, stack.primaryAssetId) },
          });
        }
        continue;
      }
      if (!members.mayLoseOnMerge(entry)) {
        const added = assets.filter((asset) => index.entryOf(asset.id) === undefined);
        if (coverKept) coverLabels.push(stack.primaryAssetId);
        grows.push({
          kind: "grow",
          stackId: stack.id,
          assetIds: coverKept ? [stack.primaryAssetId, ...assetIds] : assetIds,
          reason: "group-grew",
          ground: groundOf(stack),
          // The kept cover's label is filled in below, with the other names looked up.
          context: { ...context, added },
        });
        continue;
      }
      reason = "member-in-trash";
    }
    const touched = index.touchedBy(assets);
    const stackIds = touched.map((stack) => stack.id);
    if (!options.replaceStacks) {
      needsReplace.push({ stackIds, assetIds, reason, context });
      continue;
    }
    const deleteStacks = touched.filter((stack) => !deletedByReplace.has(stack.id));
    for (const { id } of deleteStacks) deletedByReplace.add(id);
    const unseenStackIds = stackIds.filter((id) => members.unseen.has(id));
    const action: ReplaceAction = {
      kind: "replace",
      stackIds,
      deleteStackIds: deleteStacks.map((stack) => stack.id),
      previous: deleteStacks.map((stack) => members.previous(stack)),
      assetIds,
      ...single,
      reason,
      context: unseenStackIds.length > 0 ? { ...context, unseenStackIds } : context,
    };
    // What leaves is told once, by the replace that deletes the stack.
    replaces.push({ action, removedIds: removedBy(assetIds, deleteStacks) });
  }

  const untargeted = options.exactFor === undefined
    ? []
    : index.untouched(touchedByGroups, options.exactFor);
  // File names of assets outside the group at hand come from one scan of all groups, made
  // only for the few assets that need one.
  const labels = new Labels(
    groups,
    new Set([
      ...singles.flatMap(membersOf),
      ...untargeted.flatMap(membersOf),
      ...replaces.flatMap((r) => r.removedIds),
      ...coverLabels,
    ]),
    options.fileNames,
  );
  return {
    actions: [
      ...singles.map((stack) => deleteAction(stack, "single-asset-stack", labels, members)),
      ...untargeted.map((stack) => deleteAction(stack, "not-in-target", labels, members)),
      ...replaces.map(({ action, removedIds }): ReplaceAction => ({
        ...action,
        context: {
          ...action.context,
          removed: removedIds.map((id) => ({
            ...labels.of(id),
            reason: members.whyRemoved(id, labels),
          })),
        },
      })),
      ...updates,
      ...grows.map((grow) =>
        grow.assetIds[0] === grow.context.assets[0]?.id ? grow : {
          ...grow,
          context: {
            ...grow.context,
            assets: [labels.of(grow.assetIds[0]), ...grow.context.assets],
          },
        }
      ),
      ...creates,
    ],
    inSync,
    needsReplace,
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

/** A group reduced to what a create may list. */
interface Listing {
  readonly group: PlanGroup;
  readonly assets: readonly AssetLabel[];
}

/**
 * Each group's assets without trashed ones and without repeats, dropping groups left with
 * fewer than `least`: no create may list an asset twice (Immich folds the copies, which can make
 * a 1-asset stack) or list an asset in the trash. Exact targets may be single assets (the Immich
 * client makes a 1-asset stack on purpose), stacking groups may not.
 */
function listingsOf(
  groups: readonly PlanGroup[],
  trashed: ReadonlySet<string>,
  least: number,
): Listing[] {
  const listings: Listing[] = [];
  for (const group of groups) {
    const { assets } = group;
    // Groups are small: a scan for repeats costs less than a set per group.
    const clean = assets.every((asset, i) =>
      !trashed.has(asset.id) && !assets.some((other, j) => j < i && other.id === asset.id)
    );
    const kept = clean
      ? assets
      : assets.filter((asset, i) =>
        !trashed.has(asset.id) && assets.findIndex((other) => other.id === asset.id) === i
      );
    if (kept.length >= least) listings.push({ group, assets: kept });
  }
  return listings;
}

/** What the plan knows about stack members beyond their ids. */
class Membership {
  readonly trashed: ReadonlySet<string>;
  readonly notFetched: ReadonlySet<string>;
  readonly unseen: ReadonlySet<string>;

  constructor(options: PlanOptions) {
    this.trashed = options.trashed ?? NONE;
    this.notFetched = options.notFetched ?? NONE;
    this.unseen = options.unseenMembers ?? NONE;
  }

  /** A member grouping never judged: not fetched, or in the trash. */
  isKept(assetId: string): boolean {
    return this.notFetched.has(assetId) || this.trashed.has(assetId);
  }

  /** The number of the stack's members that grouping judged. */
  fetchedCount(entry: Indexed): number {
    entry.fetched ??= membersOf(entry.stack).filter((id) => !this.isKept(id)).length;
    return entry.fetched;
  }

  /** Whether Immich's merge (a grow) could drop a member: one in the trash, or one unseen. */
  mayLoseOnMerge(entry: Indexed): boolean {
    return this.unseen.has(entry.stack.id) ||
      membersOf(entry.stack).some((id) => this.trashed.has(id));
  }

  /** Exactly one member, counting those Immich hides, and none it may hide unseen. */
  isSingle(stack: Stack): boolean {
    return membersOf(stack).length === 1 && !this.unseen.has(stack.id);
  }

  previous(stack: Stack): PreviousStack {
    const ground = groundOf(stack);
    return { ...ground, trashedAssetIds: ground.assetIds.filter((id) => this.trashed.has(id)) };
  }

  whyRemoved(assetId: string, labels: Labels): RemovedAsset["reason"] {
    if (this.trashed.has(assetId)) return "in-trash";
    if (this.notFetched.has(assetId)) return "not-fetched";
    return labels.isGrouped(assetId) ? "in-other-group" : "in-no-group";
  }
}

/** A stack in the index with its number of distinct members, the primary included. */
interface Indexed {
  readonly stack: Stack;
  size: number;
  /** Members grouping judged, counted when first needed. */
  fetched?: number;
}

/** Stacks by member, every member included (not only primaries), and stack sizes. */
class StackIndex {
  // Keyed by asset id strings only: 50 000 stacks are indexed on every pass, and keying maps
  // by object identity is markedly slower in V8.
  readonly #entryOf = new Map<string, Indexed>();
  readonly #stacks: readonly Stack[];

  constructor(stacks: readonly Stack[]) {
    this.#stacks = stacks;
    for (const stack of stacks) {
      const entry: Indexed = { stack, size: 0 };
      this.#add(entry, stack.primaryAssetId);
      for (const assetId of stack.assetIds) this.#add(entry, assetId);
    }
  }

  entryOf(assetId: string): Indexed | undefined {
    return this.#entryOf.get(assetId);
  }

  /**
   * The indexed stacks not in `touched` that hold an asset of `assets` (`"all"`: any stack), in
   * the order given to the index.
   */
  untouched(touched: ReadonlySet<Indexed>, assets: ReadonlySet<string> | "all"): Stack[] {
    const found = new Set<Stack>();
    for (const [assetId, entry] of this.#entryOf) {
      if (touched.has(entry) || found.has(entry.stack)) continue;
      if (assets === "all" || assets.has(assetId)) found.add(entry.stack);
    }
    return this.#stacks.filter((stack) => found.has(stack));
  }

  /** The distinct stacks holding any of the assets, in the order first met. */
  touchedBy(assets: readonly AssetLabel[]): Stack[] {
    const touched = new Map<string, Stack>();
    for (const asset of assets) {
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
 * left it out (a trashed primary).
 *
 * @param stack A stack as read.
 * @returns Its member ids.
 */
export function membersOf(stack: Stack): string[] {
  return [...new Set([stack.primaryAssetId, ...stack.assetIds])];
}

/** A stack as an action that changes it is planned on: its cover and every member. */
function groundOf(stack: Stack): GroundStack {
  return { id: stack.id, primaryAssetId: stack.primaryAssetId, assetIds: membersOf(stack) };
}

/** A replace whose display context still lacks the labels of the assets it removes. */
interface PendingReplace {
  readonly action: ReplaceAction;
  readonly removedIds: readonly string[];
}

/** Members of the stacks a replace deletes that it does not list. */
function removedBy(assetIds: readonly string[], touched: readonly Stack[]): string[] {
  const listed = new Set(assetIds);
  return touched.flatMap(membersOf).filter((assetId) => !listed.has(assetId));
}

function deleteAction(
  stack: Stack,
  reason: DeleteReason,
  labels: Labels,
  members: Membership,
): DeleteAction {
  const { assetIds, trashedAssetIds } = members.previous(stack);
  return {
    kind: "delete",
    stackId: stack.id,
    assetIds,
    trashedAssetIds,
    reason,
    context: { assets: assetIds.map((id) => labels.of(id)) },
  };
}

function idsOf(assets: readonly AssetLabel[]): string[] {
  return assets.map((asset) => asset.id);
}

/** The listing's own label for one of its assets. */
function labelIn(assets: readonly AssetLabel[], assetId: string): AssetLabel | undefined {
  return assets.find((asset) => asset.id === assetId);
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

/** What people see about a group's action: its key, its assets and the rule that made it. */
function contextOf(group: PlanGroup, assets: readonly AssetLabel[]): ActionContext {
  return group.label === undefined
    ? { groupKey: group.key, assets }
    : { groupKey: group.key, label: group.label, assets };
}
