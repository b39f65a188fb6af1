/**
 * The settings of the fix-trash step.
 *
 * @module
 */
import { RAW_EXTENSIONS } from "../trash/raw.ts";
import { FIX_TRASH, RUN_ONLY } from "./commands.ts";
import { declare } from "./declaration.ts";
import { bool, list, percent } from "./values.ts";

/** The fix-trash step: when it runs, what it moves to the trash, and its limit. */
export const FIX_TRASH_SETTINGS = {
  fixTrashAfterStacking: declare({
    env: "FIX_TRASH_AFTER_STACKING",
    flag: "fix-trash-after-stacking",
    commands: RUN_ONLY,
    default: "false",
    schema: bool,
    switch: true,
    help: "After each pass (once and cron mode) run fix-trash, journaled as a run of its own",
  }),
  trashOrphanedRaws: declare({
    env: "TRASH_ORPHANED_RAWS",
    flag: "trash-orphaned-raws",
    commands: FIX_TRASH,
    default: "false",
    schema: bool,
    switch: true,
    help: "fix-trash also moves to the trash RAW files left without a developed photo (a JPEG, " +
      "HEIC, …) in their group, but a RAW stacked with one; not for RAW-only libraries",
  }),
  rawOrphanExtensions: declare({
    env: "RAW_ORPHAN_EXTENSIONS",
    flag: "raw-orphan-extensions",
    commands: FIX_TRASH,
    schema: list,
    help: "The RAW extensions TRASH_ORPHANED_RAWS may move to the trash, e.g. dng,nef; default " +
      `every RAW extension: ${RAW_EXTENSIONS.join(" ")}`,
  }),
  fixTrashMaxPercent: declare({
    env: "FIX_TRASH_MAX_PERCENT",
    flag: "fix-trash-max-percent",
    commands: FIX_TRASH,
    default: "10",
    schema: percent,
    help: "fix-trash moves nothing and fails when more than this share of a user's photos " +
      "outside the trash would go, or of a group's photos outside the trash beyond the shot of " +
      "a photo in the trash (FIX_TRASH_WHOLE_GROUP), unless --force",
  }),
  fixTrashWholeGroup: declare({
    env: "FIX_TRASH_WHOLE_GROUP",
    flag: "fix-trash-whole-group",
    commands: FIX_TRASH,
    default: "false",
    schema: bool,
    switch: true,
    help: "fix-trash follows a photo in the trash to its whole CRITERIA group, other burst " +
      "frames included, as immich-stack does; by default only to the same shot (its RAW, JPEG " +
      "and edits)",
  }),
} as const;
