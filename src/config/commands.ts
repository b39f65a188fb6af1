/**
 * The subcommands, and the groups of them that read the same settings.
 *
 * @module
 */

/** One subcommand as the command line and `--help` know it; `src/commands/` carries it out. */
export interface CommandDeclaration {
  /** One line for `--help` and the README. */
  readonly summary: string;
  /** The positional argument, if the command takes one (`RUN_ID`, `FILE`). */
  readonly operand?: { readonly name: string; readonly required: boolean };
}

/**
 * The subcommands, in the order `--help` lists them. `stacksync` alone runs `run`, so the tool
 * keeps the meaning people already script. A new subcommand is a declaration here, its file in
 * `src/commands/`, its entry in main.ts, and its name in the `commands` of what it reads.
 */
export const COMMANDS = {
  run: { summary: "Group the photos and bring the stacks in line with the groups (the default)" },
  undo: {
    summary: "Put back the stacks a recorded run changed; default: each user's latest run",
    operand: { name: "RUN_ID", required: false },
  },
  runs: { summary: "List the recorded runs: id, time, user, server, changes, finished, undone" },
  backup: { summary: "Write every stack of every key's user to a JSON file" },
  restore: {
    summary: "Make the stacks match a backup file, with the fewest writes",
    operand: { name: "FILE", required: true },
  },
  "fix-trash": {
    summary: "Move to the trash the rest of the shot of a photo in the trash (its RAW, its edits)",
  },
  duplicates: {
    summary: "List photos sharing file name and capture time, or content; sends no write",
  },
  plan: {
    summary: "Plan like a dry run and write the plan to a file, and a page of pictures to review",
  },
  apply: {
    summary: "Carry out the actions of a plan file whose photos and stacks have not changed since",
    operand: { name: "FILE", required: true },
  },
} as const satisfies Record<string, CommandDeclaration>;

/** The name of a subcommand. */
export type CommandName = keyof typeof COMMANDS;

/** The names of the subcommands, in the order `--help` lists them. */
export const COMMAND_NAMES = Object.keys(COMMANDS) as CommandName[];

// Who reads what, named once so that a new subcommand joins a group instead of every setting.
/** Every command. */
export const EVERY_COMMAND: readonly CommandName[] = COMMAND_NAMES;
/** The commands that talk to Immich. */
export const SERVER_COMMANDS: readonly CommandName[] = [
  "run",
  "undo",
  "backup",
  "restore",
  "fix-trash",
  "duplicates",
  "plan",
  "apply",
];
/** The commands that write, and so honour DRY_RUN and keep a journal. */
export const WRITING_COMMANDS: readonly CommandName[] = [
  "run",
  "undo",
  "restore",
  "fix-trash",
  "apply",
];
/** `run` alone. */
export const RUN_ONLY: readonly CommandName[] = ["run"];
/** `plan` alone. */
export const PLAN_ONLY: readonly CommandName[] = ["plan"];
/**
 * The commands that plan stacks from groups: `apply` takes the settings they read from its plan
 * file (and so does not read them), `plan` reads them as `run` does.
 */
export const PLANNING_COMMANDS: readonly CommandName[] = ["run", "plan"];
/** The commands that group photos by CRITERIA. */
export const GROUPING_COMMANDS: readonly CommandName[] = ["run", "fix-trash", "plan"];
/** The commands that read the photos, and so whether to read videos. */
export const SEARCHING_COMMANDS: readonly CommandName[] = [
  "run",
  "fix-trash",
  "duplicates",
  "plan",
];
/** The commands that read archived and trashed photos when asked (fix-trash always does). */
export const ARCHIVE_AND_TRASH: readonly CommandName[] = ["run", "duplicates", "plan"];
/** The commands that keep journals, and `runs`, which says how long they are kept. */
export const JOURNALING: readonly CommandName[] = [...WRITING_COMMANDS, "runs"];
/** The settings of the fix-trash step: its command, and a run that ends with it. */
export const FIX_TRASH: readonly CommandName[] = ["run", "fix-trash"];
