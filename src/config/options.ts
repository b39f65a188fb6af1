/**
 * The subcommands' own flags, which are no settings: no variable, no default.
 *
 * @module
 */
import type { CommandName } from "./commands.ts";

/** A flag of one or more subcommands that is no setting: it has no variable and no default. */
export interface OptionDeclaration {
  /** Long command-line flag, without the leading `--`. */
  readonly flag: string;
  /** The subcommands that accept it. */
  readonly commands: readonly CommandName[];
  /** One-line help, shown by `--help` and in the README; per command when it differs. */
  readonly help: string | { readonly [N in CommandName]?: string };
  /** A switch (`--flag`); otherwise it takes a value, named here (`FILE`). */
  readonly value?: string;
}

/** The subcommands' own flags, in the order `--help` lists them. */
export const OPTIONS = {
  out: {
    flag: "out",
    commands: ["backup", "plan"],
    value: "FILE",
    help: {
      backup: "Write the backup to FILE (- for standard output) instead of a new file in " +
        "STATE_DIR/backups",
      plan: "Write the plan to FILE (- for standard output) instead of plan.json",
    },
  },
  html: {
    flag: "html",
    commands: ["plan"],
    value: "FILE",
    help: "Also write the review page to FILE, its pictures in a folder beside it named " +
      "after it (plan.html: plan_files)",
  },
  embedThumbnails: {
    flag: "embed-thumbnails",
    commands: ["plan"],
    help: "Put the pictures inside the review page instead of the folder beside it",
  },
  exact: {
    flag: "exact",
    commands: ["restore"],
    help: "Also delete the stacks that the file does not have",
  },
  full: {
    flag: "full",
    commands: ["run"],
    help: "Read the whole library in every pass, not only what changed since the last one",
  },
  force: {
    flag: "force",
    commands: ["run", "undo", "restore", "fix-trash", "plan", "apply"],
    help: {
      run: "Delete the stacks even when they are more than MAX_STACK_DELETIONS allows",
      undo: "Also put back the stacks that changed after the run",
      restore: "Accept a file of another server or user (the same Immich at a new address)",
      "fix-trash": "Move the photos to the trash even when they are more than " +
        "FIX_TRASH_MAX_PERCENT of a user's photos outside the trash, or of a group's",
      plan: "Plan the deletions of a user past MAX_STACK_DELETIONS instead of stopping there",
      apply: "Accept a plan of another server address (the same Immich at a new address)",
    },
  },
  format: {
    flag: "format",
    commands: ["duplicates"],
    value: "FORMAT",
    help: "table (default): one block per group; json: one document, see docs/duplicates.md",
  },
} as const satisfies Record<string, OptionDeclaration>;

/** The formats of `stacksync duplicates --format`. */
export const REPORT_FORMATS = ["table", "json"] as const;

/** A format of `stacksync duplicates --format`. */
export type ReportFormat = typeof REPORT_FORMATS[number];

/** The values of {@linkcode OPTIONS} on one command line. */
export interface CommandOptions {
  /** `--out FILE`. */
  readonly out?: string;
  /** `--html FILE`. */
  readonly html?: string;
  /** `--embed-thumbnails`. */
  readonly embedThumbnails?: boolean;
  /** `--exact`. */
  readonly exact: boolean;
  /** `--force`. */
  readonly force: boolean;
  /** `--full`. */
  readonly full: boolean;
  /** `--format FORMAT`, checked. */
  readonly format?: ReportFormat;
}

/** The keys of {@linkcode OPTIONS}, in the order `--help` lists them. */
export const OPTION_KEYS = Object.keys(OPTIONS) as (keyof typeof OPTIONS)[];

/** The own flags a command accepts, in declaration order. */
export function optionsOf(command: CommandName): (keyof typeof OPTIONS)[] {
  return OPTION_KEYS.filter((key) => {
    const declaration: OptionDeclaration = OPTIONS[key];
    return declaration.commands.includes(command);
  });
}
