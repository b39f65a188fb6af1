/**
 * `stacksync fix-trash`: moves to the trash the photos of the same shot as a photo the user
 * put there (its RAW, its edits; with FIX_TRASH_WHOLE_GROUP its whole CRITERIA group), and with
 * TRASH_ORPHANED_RAWS the RAW files left without a developed photo; `src/trash/plan.ts`
 * decides. It only ever moves to the trash (Immich keeps
 * trashed photos until it empties the trash), honours DRY_RUN, and is journaled, so that
 * `stacksync undo` brings every photo it moved back. It refuses a user for whom it would move
 * more than FIX_TRASH_MAX_PERCENT of the photos outside the trash, or of a group's beyond the
 * shot of a photo in the trash, unless `--force`.
 *
 * `stacksync run` with FIX_TRASH_AFTER_STACKING runs the same pass after each of its passes.
 *
 * @module
 */
import { getLogger, type Logger } from "@logtape/logtape";
import { literal } from "../log.ts";
import { neededPermissions } from "../api/permissions.ts";
import type { Settings } from "../config.ts";
import { criterionFields, parseRules } from "../grouping/criteria.ts";
import type { Asset, CriterionField } from "../model.ts";
import { promotionOptions } from "../reading/query.ts";
import { createParentOrder } from "../promotion/parent.ts";
import {
  NO_STACK_PLAN,
  type RunOptions,
  runUsers,
  summaryLine,
  type UserReport,
  type UserWork,
} from "../run.ts";
import { orphanExtensions } from "../trash/raw.ts";
import { planTrash, type TrashReport } from "../trash/plan.ts";
import { summarizeTrash, trashMessage } from "../trash/render.ts";
import { locksOf, outcomeOf } from "./_users.ts";
import { type Command, journalingOf, warnIfUnjournaled } from "./command.ts";

const NO_SKIPS: Readonly<Record<string, number>> = {};

/** How many photos a debug line about what stays names. */
const MAX_LISTED = 50;

/**
 * The work of one fix-trash pass per user.
 *
 * @param settings CRITERIA, the promote lists, INCLUDE_VIDEOS, DRY_RUN and the fix-trash
 *   settings.
 * @param force `--force`: go on above FIX_TRASH_MAX_PERCENT.
 * @returns The work for `runUsers`.
 */
function fixTrashWork(settings: Settings, force: boolean): UserWork {
  const criteria = parseRules(settings.criteria);
  const order = createParentOrder(promotionOptions(settings, criteria));
  const fields: CriterionField[] = [
    ...new Set([...criterionFields(criteria), "isArchived"]),
  ] as CriterionField[];
  const { extensions } = orphanExtensions(settings.rawOrphanExtensions);
  return {
    title: "Fix-trash",
    permissions: neededPermissions({ dryRun: settings.dryRun, stacks: false, trash: true }),
    summary: (report, dryRun) => summaryLine(report, dryRun, { stacks: false }),
    async prepare(client, user, log) {
      const stacks = await client.listStacks();
      const active: Asset[] = [];
      const trashed: Asset[] = [];
      let invalid = 0;
      // Archived photos always: an archived JPEG keeps its RAW, though it never moves itself.
      for await (
        const page of client.searchAssets({
          withArchived: true,
          withDeleted: true,
          includeVideos: settings.includeVideos,
          withCamera: criteria.form === "devices",
          fields,
        })
      ) {
        const inTrash = new Set(page.trashedIds);
        for (const asset of page.assets) (inTrash.has(asset.id) ? trashed : active).push(asset);
        invalid += page.invalid.length;
      }
      log.debug("Fetched {active} photos outside the trash and {trashed} in it", {
        active: active.length,
        trashed: trashed.length,
      });
      const { plan, report } = planTrash({
        active,
        trashed,
        stacks,
        criteria,
        order,
        ...(settings.trashOrphanedRaws ? { orphanExtensions: extensions } : {}),
        wholeGroup: settings.fixTrashWholeGroup,
      });
      logKept(report, log);
      const refusal = force ? undefined : tooMany(report, settings.fixTrashMaxPercent, user.name);
      if (refusal !== undefined) {
        for (const action of plan.actions) {
          log.info(literal(trashMessage(action, { dryRun: true })));
        }
        throw new RangeError(
          `${refusal}, more than FIX_TRASH_MAX_PERCENT (${settings.fixTrashMaxPercent} %): ` +
            "check the list above, then run stacksync fix-trash --force, or raise " +
            "FIX_TRASH_MAX_PERCENT",
        );
      }
      const fileNames = new Map<string, string>();
      const stacked = new Set(stacks.flatMap((stack) => stack.assetIds));
      for (const asset of active) {
        if (stacked.has(asset.id)) fileNames.set(asset.id, asset.originalFileName);
      }
      return {
        ...NO_STACK_PLAN,
        trash: plan,
        trashSummary: summarizeTrash(report),
        skippedAssets: invalid > 0 ? { "invalid-data": invalid } : NO_SKIPS,
        stacks: { stacks, fileNames },
      };
    },
  };
}

/**
 * Why a plan moves too much, or undefined: more than the share of the user's photos outside the
 * trash, or, from one group, more than the share of its photos outside the trash beyond the shot
 * of a photo in the trash (the worst such group is named).
 */
function tooMany(report: TrashReport, maxPercent: number, user: string): string | undefined {
  const moving = report.following + report.orphaned;
  const share = report.active === 0 ? 0 : moving * 100 / report.active;
  if (share > maxPercent) {
    return `Cannot move ${moving} photos to the trash as they are ${percent(share)} % of the ` +
      `${report.active} photos of ${user} outside the trash`;
  }
  const shareOf = (group: TrashReport["beyondShot"][number]) => group.beyond * 100 / group.outside;
  const worst = report.beyondShot.reduce<TrashReport["beyondShot"][number] | undefined>(
    (worst, group) => worst === undefined || shareOf(group) > shareOf(worst) ? group : worst,
    undefined,
  );
  if (worst === undefined || shareOf(worst) <= maxPercent) return undefined;
  return `Cannot move ${worst.beyond} photos of the group of ${
    worst.cause.map((asset) => asset.originalFileName).join(", ")
  } to the trash as they are ${percent(shareOf(worst))} % of its ${worst.outside} photos ` +
    "outside the trash and not the same shot as a photo in the trash";
}

/** A share for people: one decimal below 10 %, whole above. */
function percent(share: number): string {
  return share < 10 ? share.toFixed(1) : String(Math.round(share));
}

/** Says at debug which photos stay that might have gone, and why. */
function logKept(report: TrashReport, log: Logger): void {
  const fields = (assets: TrashReport["notFollowed"]) => ({
    files: assets.slice(0, MAX_LISTED).map((asset) => asset.originalFileName).join(", "),
    assets: assets.length,
  });
  const { notFollowed, archivedKept, stackedRawsKept } = report;
  if (notFollowed.length > 0) {
    log.debug("Not followed, as a copy is outside the trash: {files}", fields(notFollowed));
  }
  if (archivedKept.length > 0) {
    log.debug("Kept as archived photos never go to the trash: {files}", fields(archivedKept));
  }
  if (stackedRawsKept.length > 0) {
    log.debug("Kept as their stack holds a developed photo: {files}", fields(stackedRawsKept));
  }
}

/**
 * Warns once about fix-trash settings that change nothing: RAW_ORPHAN_EXTENSIONS entries that
 * name no RAW extension (ignored, as in immich-stack, so that a typo never reaches a JPEG), and
 * RAW_ORPHAN_EXTENSIONS without TRASH_ORPHANED_RAWS.
 *
 * @param settings The settings.
 */
export function warnAboutTrashSettings(settings: Settings): void {
  const log = getLogger(["stacksync", "trash"]);
  const { unknown } = orphanExtensions(settings.rawOrphanExtensions);
  if (unknown.length > 0) {
    log.warn(
      "Ignored {extensions} of RAW_ORPHAN_EXTENSIONS: not a RAW extension; see stacksync " +
        "fix-trash --help for the list",
      { extensions: unknown.map((entry) => JSON.stringify(entry)).join(", ") },
    );
  }
  if (!settings.trashOrphanedRaws && (settings.rawOrphanExtensions ?? []).length > 0) {
    log.warn("Ignored RAW_ORPHAN_EXTENSIONS: it applies only with TRASH_ORPHANED_RAWS=true");
  }
}

/**
 * One fix-trash pass over every user, journaled as a run of its own (`fix-trash` in
 * `stacksync runs`), as `stacksync run` does after each pass with FIX_TRASH_AFTER_STACKING.
 *
 * @param settings The settings.
 * @param options The stop signal, the sleep and the journal.
 * @param force `--force`.
 * @returns One report per user reached.
 */
export function fixTrashPass(
  settings: Settings,
  options: RunOptions,
  force = false,
): Promise<UserReport[]> {
  return runUsers(settings, fixTrashWork(settings, force), options);
}

/** Moves to the trash what follows the photos in it. */
export const fixTrashCommand: Command = async (context) => {
  const { settings } = context;
  const journal = await journalingOf(context, "fix-trash");
  return async () => {
    warnIfUnjournaled(settings);
    warnAboutTrashSettings(settings);
    const reports = await fixTrashPass(
      settings,
      {
        signal: context.signal,
        sleep: context.sleep,
        journal,
        locks: locksOf(context, "fix-trash"),
        progress: context.progress,
      },
      context.options.force,
    );
    return outcomeOf(reports, settings.apiKeys.length);
  };
};
