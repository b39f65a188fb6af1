/**
 * What `stacksync fix-trash` moves to the trash: pure, no I/O.
 *
 * Step 1 follows the trash: the photos outside the trash and the photos in it are grouped
 * together by CRITERIA, as a stacking pass would group them (the default rules by the files of
 * one shot and the versions of a photo only, never a burst or a bracket), and every photo outside
 * the trash that is the same shot (`shot.ts`) as a photo in the trash of its group goes there too
 * (the RAW and the edits of a JPEG the user deleted), never another frame of a burst the CRITERIA
 * group with it; with `wholeGroup` (FIX_TRASH_WHOLE_GROUP, immich-stack's way) every photo of such a
 * group goes. Two exceptions keep what the user meant to keep: a photo in the trash that has a
 * copy outside it (same file name, capture times at most 1 s apart: the user deleted one of two
 * uploads) is not followed, and an archived photo never goes.
 *
 * Step 2 (TRASH_ORPHANED_RAWS) adds RAW files left without a developed photo: grouped with the
 * photos outside the trash, a RAW whose group holds only RAW files, or that groups with nothing
 * while the criteria could read it, goes, unless it sits in a stack with a photo that is not a
 * RAW file, or it is archived, or its extension is not among RAW_ORPHAN_EXTENSIONS.
 *
 * @module
 */
import type { Asset, AssetLabel, Stack, TrashAction, TrashPlan } from "../model.ts";
import type { GroupingRules } from "../grouping/criteria.ts";
import { parseTime } from "../grouping/_extract.ts";
import { compare, groupAssets } from "../grouping/group.ts";
import type { ParentOrder } from "../promotion/parent.ts";
import { extensionOf, isRaw } from "./raw.ts";
import { sameShot } from "./shot.ts";

/** The default rules group a shot and its versions for fix-trash, never a burst. */
const SAME_SHOT = { sameShot: true } as const;

/** Capture times of two copies of one photo differ by at most this much. */
const SAME_CAPTURE_MS = 1000;

/** What {@linkcode planTrash} reads. */
export interface TrashInput {
  /**
   * The user's photos outside the trash, archived ones included, each with `isArchived` (a
   * photo without it counts as archived: it is never moved).
   */
  readonly active: readonly Asset[];
  /** The user's photos in the trash. */
  readonly trashed: readonly Asset[];
  /** The user's stacks as `GET /stacks` lists them: members outside the trash. */
  readonly stacks: readonly Stack[];
  /** The grouping rules. */
  readonly criteria: GroupingRules;
  /** Orders each group's photos, cover first, for the lists people read. */
  readonly order: ParentOrder;
  /** TRASH_ORPHANED_RAWS: the RAW extensions it may move; undefined when it is off. */
  readonly orphanExtensions?: ReadonlySet<string>;
  /**
   * FIX_TRASH_WHOLE_GROUP: a photo in the trash takes its whole group along, not only its shot.
   *
   * @default {false}
   */
  readonly wholeGroup?: boolean;
}

/**
 * A group from which photos that are not the same shot as a photo in the trash would go (only
 * with `wholeGroup`): FIX_TRASH_MAX_PERCENT holds for each group as for the whole library.
 */
export interface BeyondShot {
  /** The group's photos in the trash, cover first. */
  readonly cause: readonly AssetLabel[];
  /** Photos that would go and are not the same shot as any of them. */
  readonly beyond: number;
  /** The group's photos outside the trash. */
  readonly outside: number;
}

/** What {@linkcode planTrash} decided besides the plan, for the log and the summary. */
export interface TrashReport {
  /** Photos outside the trash: what FIX_TRASH_MAX_PERCENT is a share of. */
  readonly active: number;
  /** Photos in the plan that follow a photo in the trash. */
  readonly following: number;
  /** Orphaned RAW files in the plan. */
  readonly orphaned: number;
  /** Photos in the trash that are not followed as a copy of them is outside it. */
  readonly notFollowed: readonly AssetLabel[];
  /** Archived photos that would have gone. */
  readonly archivedKept: readonly AssetLabel[];
  /** RAW files without a developed photo in their group that a stack keeps. */
  readonly stackedRawsKept: readonly AssetLabel[];
  /** The groups from which photos beyond the shot of a photo in the trash would go. */
  readonly beyondShot: readonly BeyondShot[];
}

/** What goes to the trash, and why the rest stays. */
export interface TrashDecision {
  readonly plan: TrashPlan;
  readonly report: TrashReport;
}

/**
 * The photos in the trash whose shot follows them (the triggers), and those it does not follow as
 * a copy of them is outside the trash ({@linkcode hasActiveCopy}).
 */
function followedTrash(
  input: Pick<TrashInput, "active" | "trashed">,
): { notFollowed: Asset[]; triggers: Asset[] } {
  const byName = new Map<string, Asset[]>();
  for (const asset of input.active) {
    const same = byName.get(asset.originalFileName);
    if (same === undefined) byName.set(asset.originalFileName, [asset]);
    else same.push(asset);
  }
  const notFollowed = input.trashed.filter((asset) =>
    hasActiveCopy(asset, byName.get(asset.originalFileName) ?? [])
  );
  const skip = new Set(notFollowed.map((asset) => asset.id));
  return { notFollowed, triggers: input.trashed.filter((asset) => !skip.has(asset.id)) };
}

/**
 * Plans fix-trash for one user.
 *
 * Actions come one per group: the photos that follow the photos in the trash of that group
 * (cover first), in group order, with the photos in the trash they follow; then the orphaned
 * RAW files, one action per group of them. A photo is in one action at most.
 *
 * @param input The user's photos in and out of the trash, stacks, criteria and options.
 * @returns The plan and the report.
 *
 * @example The RAW of a JPEG in the trash follows it; a copy outside the trash stops it; the
 *   other frames of a burst stay
 * ```ts
 * import assert from "node:assert/strict";
 * import { planTrash } from "./plan.ts";
 * import { parseCriteria } from "../grouping/criteria.ts";
 * import { createParentOrder } from "../promotion/parent.ts";
 * import type { Asset } from "../model.ts";
 *
 * const photo = (id: string, originalFileName: string, localDateTime: string) =>
 *   ({ id, originalFileName, localDateTime, isArchived: false }) as Asset;
 * const t = "2024-05-01T10:00:00.000Z";
 * const u = "2024-05-01T10:05:00.400Z";
 * const { plan, report } = planTrash({
 *   active: [
 *     photo("a", "IMG_1.dng", t), photo("b", "IMG_2.dng", t), photo("c", "IMG_2.jpg", t),
 *     photo("f1", "F1.jpg", u), photo("f3", "F3.jpg", u),
 *   ],
 *   trashed: [photo("x", "IMG_1.jpg", t), photo("y", "IMG_2.jpg", t), photo("f2", "F2.jpg", u)],
 *   stacks: [],
 *   criteria: parseCriteria([{ key: "localDateTime", delta: { milliseconds: 1000 } }]),
 *   order: createParentOrder({ filenamePromote: [], extPromote: [".jpg"] }),
 * });
 * assert.deepEqual(plan.actions.map((action) => action.assetIds), [["a"]]);
 * assert.deepEqual(report.notFollowed.map((asset) => asset.id), ["y"]);
 * ```
 */
export function planTrash(input: TrashInput): TrashDecision {
  const { active, order } = input;
  const { notFollowed, triggers } = followedTrash(input);
  const inTrash = new Set(triggers.map((asset) => asset.id));

  const actions: TrashAction[] = [];
  const claimed = new Set<string>();
  const archivedKept: Asset[] = [];
  const beyondShot: BeyondShot[] = [];
  if (triggers.length > 0) {
    const grouping = groupAssets([...triggers, ...active], input.criteria, SAME_SHOT);
    for (const group of grouping.groups) {
      if (!group.assets.some((asset) => inTrash.has(asset.id))) continue;
      const ordered = order.promote(group).assets;
      const inGroup = ordered.filter((asset) => inTrash.has(asset.id));
      const outside = ordered.filter((asset) => !inTrash.has(asset.id));
      const shotOf = (asset: Asset) => inGroup.filter((trashed) => sameShot(trashed, asset));
      const follows = outside.filter((asset) => input.wholeGroup || shotOf(asset).length > 0);
      const following: Asset[] = [];
      for (const asset of follows) {
        if (asset.isArchived !== false) archivedKept.push(asset);
        else following.push(asset);
      }
      if (following.length === 0) continue;
      // The photos in the trash they follow: those of their shots, or the group's every one.
      const causes = new Set(following.flatMap((asset) => shotOf(asset)));
      const cause = input.wholeGroup ? inGroup : inGroup.filter((asset) => causes.has(asset));
      const beyond = following.filter((asset) => shotOf(asset).length === 0).length;
      if (beyond > 0) {
        beyondShot.push({ cause: inGroup.map(label), beyond, outside: outside.length });
      }
      for (const asset of following) claimed.add(asset.id);
      actions.push({
        kind: "trash",
        assetIds: following.map((asset) => asset.id),
        reason: "follows-trashed",
        context: { assets: following.map(label), cause: cause.map(label) },
      });
    }
  }
  const following = claimed.size;

  const stackedRawsKept: Asset[] = [];
  if (input.orphanExtensions !== undefined) {
    const orphans = orphanedRaws(input, input.orphanExtensions, claimed);
    stackedRawsKept.push(...orphans.kept);
    for (const group of orphans.groups) {
      actions.push({
        kind: "trash",
        assetIds: group.map((asset) => asset.id),
        reason: "orphaned-raw",
        context: { assets: group.map(label) },
      });
    }
  }
  return {
    plan: { actions },
    report: {
      active: active.length,
      following,
      orphaned: actions.reduce(
        (sum, action) => sum + (action.reason === "orphaned-raw" ? action.assetIds.length : 0),
        0,
      ),
      notFollowed: notFollowed.map(label),
      archivedKept: archivedKept.map(label),
      stackedRawsKept: stackedRawsKept.map(label),
      beyondShot,
    },
  };
}

/**
 * Whether a photo in the trash has a copy outside it: the same file name, and capture times at
 * most 1 s apart (two uploads of one photo may differ in their fraction of a second). Times that
 * cannot be read match only when they are the same text.
 */
function hasActiveCopy(trashed: Asset, sameName: readonly Asset[]): boolean {
  const time = parseTime(trashed.localDateTime);
  return sameName.some((asset) => {
    if (asset.localDateTime === trashed.localDateTime) return true;
    return Math.abs(parseTime(asset.localDateTime) - time) <= SAME_CAPTURE_MS;
  });
}

/**
 * The RAW files outside the trash without a developed photo, by group (a lone RAW is a group of
 * its own), and those a stack with a developed photo keeps.
 */
function orphanedRaws(
  input: TrashInput,
  extensions: ReadonlySet<string>,
  claimed: ReadonlySet<string>,
): { groups: Asset[][]; kept: Asset[] } {
  const developedStacks = new Set<string>();
  const stackOf = new Map<string, string>();
  const names = new Map(input.active.map((asset) => [asset.id, asset.originalFileName]));
  for (const stack of input.stacks) {
    for (const id of stack.assetIds) {
      stackOf.set(id, stack.id);
      const name = names.get(id);
      if (name !== undefined && !isRaw(name)) developedStacks.add(stack.id);
    }
  }
  const candidate = (asset: Asset) =>
    asset.isArchived === false && !claimed.has(asset.id) &&
    extensions.has(extensionOf(asset.originalFileName));

  const { groups, skipped } = groupAssets(input.active, input.criteria, SAME_SHOT);
  const grouped = new Set<string>();
  const found: Asset[][] = [];
  for (const group of groups) {
    for (const asset of group.assets) grouped.add(asset.id);
    if (group.assets.some((asset) => !isRaw(asset.originalFileName))) continue;
    found.push(input.order.promote(group).assets.filter(candidate));
  }
  // A RAW the criteria could not read says nothing about its companions: it stays.
  const unreadable = new Set(skipped.map(({ asset }) => asset.id));
  const alone = input.active.filter((asset) =>
    !grouped.has(asset.id) && !unreadable.has(asset.id) && isRaw(asset.originalFileName) &&
    candidate(asset)
  );
  alone.sort((a, b) => compare(a.originalFileName, b.originalFileName) || compare(a.id, b.id));
  for (const asset of alone) found.push([asset]);
  const kept: Asset[] = [];
  const out: Asset[][] = [];
  for (const group of found) {
    const going = group.filter((asset) => {
      const stack = stackOf.get(asset.id);
      if (stack === undefined || !developedStacks.has(stack)) return true;
      kept.push(asset);
      return false;
    });
    if (going.length > 0) out.push(going);
  }
  return { groups: out, kept };
}

function label(asset: Asset): AssetLabel {
  return { id: asset.id, originalFileName: asset.originalFileName };
}
