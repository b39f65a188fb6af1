/**
 * The decisions of {@linkcode planStacks} (src/reconcile/plan.ts): each group reduced to what a
 * create may list, then what its stacks need, group by group, and the plan they make.
 *
 * @module
 */
import type {
  Action,
  ActionContext,
  AssetLabel,
  ConflictReason,
  DeleteAction,
  DeleteReason,
  GrowAction,
  InSyncStack,
  NeedsReplace,
  Plan,
  ReplaceAction,
  Stack,
} from "../model.ts";
import type { PlanGroup, PlanOptions } from "./plan.ts";
import {
  groundOf,
  type Indexed,
  Labels,
  type Membership,
  membersOf,
  type StackIndex,
} from "./plan_index.ts";

/** What a group's stacks are: the first touched, whether it spans more, how many are stacked. */
interface Touch {
  readonly entry: Indexed | undefined;
  readonly spans: boolean;
  readonly stacked: number;
}

/** The decisions of a plan without RESET_STACKS, group by group, then the plan they make. */
export class Decided {
  readonly #index: StackIndex;
  readonly #members: Membership;
  readonly #options: PlanOptions;
  readonly #replaces: PendingReplace[] = [];
  readonly #updates: Action[] = [];
  readonly #grows: GrowAction[] = [];
  readonly #creates: Action[] = [];
  readonly #inSync: InSyncStack[] = [];
  readonly #needsReplace: NeedsReplace[] = [];
  readonly #deletedByReplace = new Set<string>();
  readonly #coverLabels: string[] = [];
  /** Stacks some group touches: with `exactFor`, the others holding a target asset go. */
  readonly #touchedByGroups = new Set<Indexed>();

  constructor(index: StackIndex, members: Membership, options: PlanOptions) {
    this.#index = index;
    this.#members = members;
    this.#options = options;
  }

  /** The first touched stack, whether a second one exists, and how many assets are stacked. */
  #touch(assets: readonly AssetLabel[]): Touch {
    let entry: Indexed | undefined;
    let spans = false;
    let stacked = 0;
    for (const asset of assets) {
      const holder = this.#index.entryOf(asset.id);
      if (holder === undefined) continue;
      stacked++;
      if (entry === undefined) entry = holder;
      else if (holder !== entry) spans = true;
      if (this.#options.exactFor !== undefined) this.#touchedByGroups.add(holder);
    }
    return { entry, spans, stacked };
  }

  /** Decides what one group needs. */
  plan({ group, assets }: Listing): void {
    const { entry, spans, stacked } = this.#touch(assets);
    // Only exact targets keep 1-asset groups (see listingsOf): a 1-asset stack to make.
    const single = assets.length === 1 ? { single: true as const } : {};
    if (entry === undefined) {
      const context = contextOf(group, assets);
      this.#creates.push({
        kind: "create",
        assetIds: idsOf(assets),
        reason: "new-group",
        ...single,
        context,
      });
      return;
    }
    const members = this.#members;
    const { stack } = entry;
    let reason: ConflictReason = spans ? "group-spans-stacks" : "member-outside-group";
    // Every fetched member of the one touched stack is listed: it cannot lose an asset.
    if (!spans && stacked === members.fetchedCount(entry)) {
      const coverKept = members.isKept(stack.primaryAssetId);
      if (stacked === assets.length) {
        if (coverKept || stack.primaryAssetId === assets[0].id) {
          this.#inSync.push({ stackId: stack.id, groupKey: group.key });
        } else {
          this.#updates.push({
            kind: "update-primary",
            stackId: stack.id,
            assetIds: idsOf(assets),
            reason: "primary-changed",
            ground: groundOf(stack),
            context: {
              ...contextOf(group, assets),
              previousPrimary: labelIn(assets, stack.primaryAssetId),
            },
          });
        }
        return;
      }
      if (!members.mayLoseOnMerge(entry)) return this.#grow(entry, { group, assets }, coverKept);
      reason = "member-in-trash";
    }
    this.#conflict({ group, assets }, reason, single);
  }

  #grow(entry: Indexed, { group, assets }: Listing, coverKept: boolean): void {
    const { stack } = entry;
    const added = assets.filter((asset) => this.#index.entryOf(asset.id) === undefined);
    const assetIds = idsOf(assets);
    if (coverKept) this.#coverLabels.push(stack.primaryAssetId);
    this.#grows.push({
      kind: "grow",
      stackId: stack.id,
      assetIds: coverKept ? [stack.primaryAssetId, ...assetIds] : assetIds,
      reason: "group-grew",
      ground: groundOf(stack),
      // The kept cover's label is filled in by assemble, with the other names looked up.
      context: { ...contextOf(group, assets), added },
    });
  }

  #conflict(
    { group, assets }: Listing,
    reason: ConflictReason,
    single: { readonly single?: true },
  ): void {
    const touched = this.#index.touchedBy(assets);
    const stackIds = touched.map((stack) => stack.id);
    const assetIds = idsOf(assets);
    const context = contextOf(group, assets);
    if (!this.#options.replaceStacks) {
      this.#needsReplace.push({ stackIds, assetIds, reason, context });
      return;
    }
    const deleteStacks = touched.filter((stack) => !this.#deletedByReplace.has(stack.id));
    for (const { id } of deleteStacks) this.#deletedByReplace.add(id);
    const unseenStackIds = stackIds.filter((id) => this.#members.unseen.has(id));
    const action: ReplaceAction = {
      kind: "replace",
      stackIds,
      deleteStackIds: deleteStacks.map((stack) => stack.id),
      previous: deleteStacks.map((stack) => this.#members.previous(stack)),
      assetIds,
      ...single,
      reason,
      context: unseenStackIds.length > 0 ? { ...context, unseenStackIds } : context,
    };
    // What leaves is told once, by the replace that deletes the stack.
    this.#replaces.push({ action, removedIds: removedBy(assetIds, deleteStacks) });
  }

  /** The plan: actions in execution order, then what was left alone. */
  assemble(singles: readonly Stack[], groups: readonly PlanGroup[]): Plan {
    const { exactFor } = this.#options;
    const members = this.#members;
    const untargeted = exactFor === undefined
      ? []
      : this.#index.untouched(this.#touchedByGroups, exactFor);
    // File names of assets outside the group at hand come from one scan of all groups, made
    // only for the few assets that need one.
    const labels = new Labels(
      groups,
      new Set([
        ...singles.flatMap(membersOf),
        ...untargeted.flatMap(membersOf),
        ...this.#replaces.flatMap((r) => r.removedIds),
        ...this.#coverLabels,
      ]),
      this.#options.fileNames,
    );
    return {
      actions: [
        ...singles.map((stack) => deleteAction(stack, "single-asset-stack", labels, members)),
        ...untargeted.map((stack) => deleteAction(stack, "not-in-target", labels, members)),
        ...this.#replaces.map(({ action, removedIds }): ReplaceAction => ({
          ...action,
          context: {
            ...action.context,
            removed: removedIds.map((id) => ({
              ...labels.of(id),
              reason: members.whyRemoved(id, labels),
            })),
          },
        })),
        ...this.#updates,
        ...this.#grows.map((grow) =>
          grow.assetIds[0] === grow.context.assets[0]?.id ? grow : {
            ...grow,
            context: {
              ...grow.context,
              assets: [labels.of(grow.assetIds[0]), ...grow.context.assets],
            },
          }
        ),
        ...this.#creates,
      ],
      inSync: this.#inSync,
      needsReplace: this.#needsReplace,
    };
  }
}

/** A group reduced to what a create may list. */
export interface Listing {
  readonly group: PlanGroup;
  readonly assets: readonly AssetLabel[];
}

/**
 * Each group's assets without trashed ones and without repeats, dropping groups left with
 * fewer than `least`: no create may list an asset twice (Immich folds the copies, which can make
 * a 1-asset stack) or list an asset in the trash. Exact targets may be single assets (the Immich
 * client makes a 1-asset stack on purpose), stacking groups may not.
 */
export function listingsOf(
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

export function deleteAction(
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

export function idsOf(assets: readonly AssetLabel[]): string[] {
  return assets.map((asset) => asset.id);
}

/** The listing's own label for one of its assets. */
function labelIn(assets: readonly AssetLabel[], assetId: string): AssetLabel | undefined {
  return assets.find((asset) => asset.id === assetId);
}

/** What people see about a group's action: its key, its assets and the rule that made it. */
export function contextOf(group: PlanGroup, assets: readonly AssetLabel[]): ActionContext {
  return group.label === undefined
    ? { groupKey: group.key, assets }
    : { groupKey: group.key, label: group.label, assets };
}
