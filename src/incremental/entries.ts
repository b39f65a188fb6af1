/**
 * The parts of a plan an incremental pass reuses: its in-sync and needs-replace entries, each
 * with the place of its group in grouping's order, so that the entries of the part planned again
 * can be put among them exactly where a full pass puts them. Pure.
 *
 * @module
 */
import type { Group, InSyncStack, NeedsReplace, Plan, Stack } from "../model.ts";
import { compare } from "../grouping/compare.ts";

/** An entry with its group's place: grouping orders groups by key, then by smallest asset id. */
export interface Placed {
  readonly key: string;
  readonly first: string;
}

/** The entries of a plan that are no action, placed. */
export interface PlanEntries {
  readonly inSync: readonly (InSyncStack & Placed)[];
  readonly needsReplace: readonly (NeedsReplace & Placed)[];
  /**
   * Stacks whose plan used what the search of the trash and of hidden assets found (members
   * Immich does not list, stacks that may hide one): that can change with no listed member
   * changing, so the next incremental pass that finds something changed plans them again. One
   * that finds nothing changed reuses the plan: such a change moves some asset's `updatedAt`
   * (but a member deleted for good, which only a full pass sees).
   */
  readonly volatile: readonly string[];
}

/**
 * The smallest asset id of a group: with its key, where grouping places it among the others.
 *
 * @param group A group of at least one asset.
 * @returns The id.
 */
export function smallestId(group: Group): string {
  let smallest = group.assets[0].id;
  for (const asset of group.assets) if (asset.id < smallest) smallest = asset.id;
  return smallest;
}

/**
 * The in-sync and needs-replace entries of a plan, each with the place of its group.
 *
 * @param plan The plan.
 * @param groups The groups it was planned from.
 * @param stacks The stacks it was planned from (to tell apart groups of one key).
 * @param volatile The stacks whose plan used the search of the trash and of hidden assets.
 * @returns The entries.
 */
export function placeEntries(
  plan: Pick<Plan, "inSync" | "needsReplace">,
  groups: readonly Group[],
  stacks: readonly Stack[],
  volatile: Iterable<string>,
): PlanEntries {
  // A group by its key; a list only for a key several groups share (50 000 groups, few such).
  const byKey = new Map<string, Group | Group[]>();
  for (const group of groups) {
    const same = byKey.get(group.key);
    if (same === undefined) byKey.set(group.key, group);
    else if (Array.isArray(same)) same.push(group);
    else byKey.set(group.key, [same, group]);
  }
  let byId: Map<string, Stack> | undefined;
  const firstOf = (key: string, assetIds: () => readonly string[]): string => {
    const candidates = byKey.get(key);
    const group = !Array.isArray(candidates) ? candidates : candidates.find((candidate) => {
      const ids = assetIds();
      return candidate.assets.some((asset) => ids.includes(asset.id));
    });
    return group === undefined ? "" : smallestId(group);
  };
  const membersOf = (stackId: string) => {
    byId ??= new Map(stacks.map((stack) => [stack.id, stack]));
    return byId.get(stackId)?.assetIds ?? [];
  };
  return {
    inSync: plan.inSync.map((entry) => ({
      ...entry,
      key: entry.groupKey,
      first: firstOf(entry.groupKey, () => membersOf(entry.stackId)),
    })),
    needsReplace: plan.needsReplace.map((entry) => {
      const key = entry.context.groupKey ?? "";
      return { ...entry, key, first: firstOf(key, () => entry.assetIds) };
    }),
    volatile: [...volatile],
  };
}

/**
 * Grouping's order of groups: by key, then by smallest id.
 *
 * @param a A placed group.
 * @param b Another.
 * @returns Negative when `a` comes first.
 */
export function byPlace(a: Placed, b: Placed): number {
  return compare(a.key, b.key) || compare(a.first, b.first);
}

/**
 * The plan of the whole library from the plan of the dirty region and the entries of the last
 * plan outside it: the region's actions (nothing outside it acts: the last pass applied all it
 * planned, and nothing there changed since), and the in-sync and needs-replace entries of both
 * in grouping's order.
 *
 * @param region The region's plan.
 * @param placed The region's entries, placed ({@linkcode placeEntries}).
 * @param kept The last plan's entries.
 * @param dirty The region's stacks and assets: the last plan's entries that touch them go.
 * @returns The plan, and its entries placed for the next pass.
 */
export function mergeEntries(
  region: Plan,
  placed: PlanEntries,
  kept: PlanEntries,
  dirty: { readonly stacks: ReadonlySet<string>; readonly assets: ReadonlySet<string> },
): { plan: Plan; entries: PlanEntries } {
  const inSync = [
    ...kept.inSync.filter((entry) => !dirty.stacks.has(entry.stackId)),
    ...placed.inSync,
  ].sort(byPlace);
  const needsReplace = [
    ...kept.needsReplace.filter((entry) =>
      !entry.stackIds.some((id) => dirty.stacks.has(id)) &&
      !entry.assetIds.some((id) => dirty.assets.has(id))
    ),
    ...placed.needsReplace,
  ].sort(byPlace);
  return {
    plan: {
      actions: region.actions,
      inSync: inSync.map(({ stackId, groupKey }) => ({ stackId, groupKey })),
      needsReplace: needsReplace.map(({ key: _key, first: _first, ...entry }) => entry),
    },
    entries: { inSync, needsReplace, volatile: placed.volatile },
  };
}
