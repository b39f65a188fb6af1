/**
 * The settings of the existing stacks: replace, remove single-asset ones, reset, and the
 * deletion limit.
 *
 * @module
 */
import { SHARE_FLOOR } from "../reconcile/deletions.ts";
import { PLANNING_COMMANDS } from "./commands.ts";
import { declare } from "./declaration.ts";
import { bool, deletionLimit, text } from "./values.ts";

/** The exact text RESET_STACKS requires in CONFIRM_RESET_STACK. */
export const RESET_CONFIRMATION =
  "I acknowledge all my current stacks will be deleted and new one will be created";

/** What happens to the stacks already there, and the most a pass may delete. */
export const STACK_SETTINGS = {
  replaceStacks: declare({
    env: "REPLACE_STACKS",
    commands: PLANNING_COMMANDS,
    flag: "replace-stacks",
    default: "false",
    schema: bool,
    switch: true,
    help: "Replace existing stacks that conflict with the computed groups",
  }),
  removeSingleAssetStacks: declare({
    env: "REMOVE_SINGLE_ASSET_STACKS",
    commands: PLANNING_COMMANDS,
    flag: "remove-single-asset-stacks",
    default: "false",
    schema: bool,
    switch: true,
    help: "Delete stacks that hold a single asset",
  }),
  resetStacks: declare({
    env: "RESET_STACKS",
    commands: PLANNING_COMMANDS,
    flag: "reset-stacks",
    default: "false",
    schema: bool,
    switch: true,
    help: "Delete every stack, then create the computed ones (RUN_MODE=once only)",
  }),
  confirmResetStack: declare({
    env: "CONFIRM_RESET_STACK",
    commands: PLANNING_COMMANDS,
    flag: "confirm-reset-stack",
    schema: text,
    help: `Required with RESET_STACKS, exactly: ${RESET_CONFIRMATION}`,
  }),
  maxStackDeletions: declare({
    env: "MAX_STACK_DELETIONS",
    commands: PLANNING_COMMANDS,
    flag: "max-stack-deletions",
    default: "10%",
    schema: deletionLimit,
    guard: true,
    help: "Stop a user, before any change, whose pass would delete more stacks than this " +
      `(deletes and replaces; RESET_STACKS is consent): a number such as 50, or a share of the ` +
      `user's stacks such as 10%, which always allows ${SHARE_FLOOR}; --force goes on`,
  }),
} as const;
