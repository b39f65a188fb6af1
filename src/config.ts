/**
 * Every setting of stacksync, declared once.
 *
 * Each declaration names its environment variable, its command-line flag, its default and its
 * help text, and carries the zod schema that turns the raw text into a typed value. Parsing,
 * validation, `--help` and the README's settings table are all derived from {@linkcode SETTINGS}.
 *
 * Precedence, highest first: command-line flag, environment variable, env file, default.
 * An empty value counts as unset.
 *
 * @module
 */
import { isAbsolute, join } from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { closestName, slipOf } from "./closest_name.ts";
import { commandPosition, HELP_COMMAND } from "./command_line.ts";
import { type EnvEntry, EnvFileError, parseEnvFile } from "./env_file.ts";
import { parseRules } from "./grouping/criteria.ts";
import { immichStackSpelling } from "./immich_stack.ts";
import { LOG_LEVELS } from "./log.ts";
import { type DeletionLimit, SHARE_FLOOR } from "./reconcile/deletions.ts";
import { RAW_EXTENSIONS } from "./trash/raw.ts";
import { parseSequenceKeyword } from "./promotion/sequence.ts";
import { shownUrl } from "./shown_url.ts";

/** The exact text RESET_STACKS requires in CONFIRM_RESET_STACK. */
export const RESET_CONFIRMATION =
  "I acknowledge all my current stacks will be deleted and new one will be created";

/** Thrown for any invalid setting; `main.ts` turns it into exit status 2. */
export class ConfigError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ConfigError";
  }
}

const TRUE_WORDS = ["true", "1", "yes"];
const BOOLEAN_WORDS = ["true", "false", "1", "0", "yes", "no"];

const bool = z.string().transform((raw, ctx) => {
  const word = raw.trim().toLowerCase();
  if (!BOOLEAN_WORDS.includes(word)) {
    ctx.addIssue({ code: "custom", message: `must be one of ${BOOLEAN_WORDS.join(", ")}` });
    return z.NEVER;
  }
  return TRUE_WORDS.includes(word);
});

function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.string().transform((raw, ctx) => {
    const word = raw.trim().toLowerCase();
    const found = values.find((value): value is T[number] => value === word);
    if (found === undefined) {
      ctx.addIssue({ code: "custom", message: `must be one of ${values.join(", ")}` });
      return z.NEVER;
    }
    return found;
  });
}

/** Splits a comma-separated list; items are trimmed, empty items kept (they carry meaning). */
const list = z.string().transform((raw) => raw.split(",").map((item) => item.trim()));

/**
 * PARENT_FILENAME_PROMOTE: a list whose `sequence` forms must be well formed; "" (an empty
 * flag) is an empty list.
 */
const promoteList = list.transform((given, ctx) => {
  const items = given.length === 1 && given[0] === "" ? [] : given;
  for (const item of items) {
    try {
      parseSequenceKeyword(item);
    } catch (error) {
      const problem = (error as Error).message.replace(/^Cannot use \S+ as /, "");
      ctx.addIssue({ code: "custom", message: problem.replace(/: current value is .*$/, "") });
      return z.NEVER;
    }
  }
  return items;
});

/** The largest value a whole-number setting takes, and that value in words. */
interface Bound {
  readonly max: number;
  readonly words: string;
}

/**
 * A whole number of at least 1, and at most `bound.max` when given; `unit` ends the message
 * ("of seconds").
 */
function positiveWhole(unit = "", bound?: Bound) {
  return z.string().transform((raw, ctx) => {
    const text = raw.trim();
    const max = bound?.max ?? Number.MAX_SAFE_INTEGER;
    if (!/^[0-9]+$/.test(text) || Number(text) < 1 || Number(text) > max) {
      const message = bound === undefined
        ? `must be a positive whole number${unit}`
        : `must be a whole number${unit} from 1 to ${bound.max} (${bound.words})`;
      ctx.addIssue({ code: "custom", message });
      return z.NEVER;
    }
    return Number(text);
  });
}

/** The most writes STACK_CONCURRENCY may put in flight at once. */
const MAX_CONCURRENCY = 100;

/** PREVENT_SELF_REKT's pause before each write, as immich-stack's. */
export const SELF_REKT_PAUSE_MS = 50;

/** STACK_CONCURRENCY: a whole number up to the maximum; immich-stack reads 0 as 1. */
const concurrency = z.string().transform((raw, ctx) => {
  const text = raw.trim();
  if (!/^[0-9]+$/.test(text) || Number(text) > MAX_CONCURRENCY) {
    ctx.addIssue({
      code: "custom",
      message: `must be a whole number from 1 to ${MAX_CONCURRENCY}`,
    });
    return z.NEVER;
  }
  return Math.max(1, Number(text));
});

/** A share in per cent, from 0 to 100. */
const percent = z.string().transform((raw, ctx) => {
  const text = raw.trim().replace(/%$/, "");
  if (!/^[0-9]+(\.[0-9]+)?$/.test(text) || Number(text) > 100) {
    ctx.addIssue({ code: "custom", message: "must be a number from 0 to 100" });
    return z.NEVER;
  }
  return Number(text);
});

/** MAX_STACK_DELETIONS: a whole number of stacks, or a share of them such as `10%`. */
const deletionLimit = z.string().transform((raw, ctx): DeletionLimit => {
  const text = raw.trim();
  const share = /^([0-9]+(\.[0-9]+)?) ?%$/.exec(text);
  if (share !== null && Number(share[1]) <= 100) return { percent: Number(share[1]) };
  if (/^[0-9]+$/.test(text) && Number.isSafeInteger(Number(text))) return { count: Number(text) };
  ctx.addIssue({
    code: "custom",
    message: "must be a whole number of stacks such as 50, or a share of the user's stacks " +
      "from 0% to 100% such as 10%",
  });
  return z.NEVER;
});

/** A whole number of 0 or more. */
const wholeNumber = z.string().transform((raw, ctx) => {
  const text = raw.trim();
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    ctx.addIssue({ code: "custom", message: "must be a whole number of 0 or more" });
    return z.NEVER;
  }
  return Number(text);
});

const httpUrl = z.string().transform((raw, ctx) => {
  const url = URL.parse(raw.trim());
  if (url === null || (url.protocol !== "http:" && url.protocol !== "https:")) {
    ctx.addIssue({
      code: "custom",
      message: "must be an http(s) URL such as http://immich:2283/api",
    });
    return z.NEVER;
  }
  // Keep any path prefix (reverse proxies); drop a trailing slash so paths join cleanly.
  return url.href.replace(/\/+$/, "");
});

const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** True when year, month and day name a real calendar day (Date.parse rolls 02-30 over). */
function isCalendarDay(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

const isoDate = z.string().transform((raw, ctx) => {
  const text = raw.trim();
  const match = ISO_8601.exec(text);
  if (
    match === null || Number.isNaN(Date.parse(text)) ||
    !isCalendarDay(Number(match[1]), Number(match[2]), Number(match[3]))
  ) {
    ctx.addIssue({
      code: "custom",
      message: "must be an ISO 8601 date or date-time such as 2024-01-31 or 2024-01-31T12:00:00Z",
    });
    return z.NEVER;
  }
  return new Date(text).toISOString();
});

/** Prefix of every CRITERIA error; {@linkcode parseRules} already starts with it. */
const CRITERIA_PREFIX = "Invalid grouping criteria: ";

/**
 * CRITERIA stays the parsed JSON, so `parseRules(settings.criteria)` works where it is used;
 * it is validated here too, so a bad schema stops the run before any request.
 */
const criteriaJson = z.string().transform((raw, ctx) => {
  try {
    const json = JSON.parse(raw) as unknown;
    parseRules(json);
    return json;
  } catch (error) {
    ctx.addIssue({
      code: "custom",
      message: (error as Error).message.replace(CRITERIA_PREFIX, ""),
    });
    return z.NEVER;
  }
});

const text = z.string();

/** The default CRITERIA: the default rules for what cameras and phones write. */
export const DEFAULT_CRITERIA = '{"mode":"devices"}';

/**
 * immich-stack's default CRITERIA, one setting away for its users (README, "Migrating from
 * immich-stack").
 */
export const IMMICH_STACK_CRITERIA = '[{"key":"originalFileName","split":{"delimiters":["~",' +
  '"."],"index":0}},{"key":"localDateTime","delta":{"milliseconds":1000}}]';

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

const COMMAND_NAMES = Object.keys(COMMANDS) as CommandName[];

// Who reads what, named once so that a new subcommand joins a group instead of every setting.
const EVERY_COMMAND: readonly CommandName[] = COMMAND_NAMES;
/** The commands that talk to Immich. */
const SERVER_COMMANDS: readonly CommandName[] = [
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
const WRITING_COMMANDS: readonly CommandName[] = [
  "run",
  "undo",
  "restore",
  "fix-trash",
  "apply",
];
const RUN_ONLY: readonly CommandName[] = ["run"];
const PLAN_ONLY: readonly CommandName[] = ["plan"];
/**
 * The commands that plan stacks from groups: `apply` takes the settings they read from its plan
 * file (and so does not read them), `plan` reads them as `run` does.
 */
const PLANNING_COMMANDS: readonly CommandName[] = ["run", "plan"];
/** The commands that group photos by CRITERIA. */
const GROUPING_COMMANDS: readonly CommandName[] = ["run", "fix-trash", "plan"];
/** The commands that read the photos, and so whether to read videos. */
const SEARCHING_COMMANDS: readonly CommandName[] = ["run", "fix-trash", "duplicates", "plan"];
/** The commands that read archived and trashed photos when asked (fix-trash always does). */
const ARCHIVE_AND_TRASH: readonly CommandName[] = ["run", "duplicates", "plan"];
/** The commands that keep journals, and `runs`, which says how long they are kept. */
const JOURNALING: readonly CommandName[] = [...WRITING_COMMANDS, "runs"];
/** The settings of the fix-trash step: its command, and a run that ends with it. */
const FIX_TRASH: readonly CommandName[] = ["run", "fix-trash"];

/** The longest CRON_INTERVAL, in seconds: a longer one is more likely a typo than a plan. */
const MAX_CRON_INTERVAL = 365 * 86400;

/** The longest REQUEST_TIMEOUT, in seconds. */
const MAX_REQUEST_TIMEOUT = 3600;

/** One declared setting. */
export interface SettingDeclaration<T> {
  /** Environment variable name. */
  readonly env: string;
  /** The subcommands that read it; the others ignore its variable and refuse its flag. */
  readonly commands: readonly CommandName[];
  /** Long command-line flag, without the leading `--`. */
  readonly flag: string;
  /** Default as raw text, parsed like any other value; undefined = no default. */
  readonly default?: string;
  /** One-line help, shown by `--help` and in the README. */
  readonly help: string;
  /** Parses the raw text into the setting's value. */
  readonly schema: z.ZodType<unknown, string>;
  /** A boolean switch: `--flag` means true and `--no-flag` false. */
  readonly switch?: boolean;
  /** The value is a secret: never printed, never logged. */
  readonly secret?: boolean;
  /**
   * An empty flag value (`--flag=""`) is a value, as in immich-stack, instead of counting as
   * unset like an empty variable.
   */
  readonly emptyFlagClears?: boolean;
  /**
   * A limit on what a pass may do rather than a rule of what it plans: a plan file does not record
   * it, as applying a reviewed plan is consent.
   */
  readonly guard?: true;
  /**
   * How an error about this setting starts, where immich-stack users know a wording of their own.
   * @default {"Invalid <ENV> (--<flag>)"}
   */
  readonly errorTitle?: string;
}

/** Keeps each declaration's exact type, so {@linkcode Settings} knows defaults and value types. */
function declare<const D extends SettingDeclaration<unknown>>(declaration: D): D {
  return declaration;
}

/** The declarations, in the order `--help` and the README list them. */
export const SETTINGS = {
  apiUrl: declare({
    env: "API_URL",
    commands: SERVER_COMMANDS,
    flag: "api-url",
    schema: httpUrl,
    help: "Base address of the Immich API, ending in /api (e.g. http://immich:2283/api)",
  }),
  apiKey: declare({
    env: "API_KEY",
    commands: SERVER_COMMANDS,
    flag: "api-key",
    schema: text,
    secret: true,
    help: "Immich API key; several keys separated by commas are processed one user at a time",
  }),
  apiKeyFile: declare({
    env: "API_KEY_FILE",
    commands: SERVER_COMMANDS,
    flag: "api-key-file",
    schema: text,
    help: "File holding the API key(s), e.g. a Docker secret; excludes API_KEY",
  }),
  envFile: declare({
    env: "ENV_FILE",
    commands: EVERY_COMMAND,
    flag: "env-file",
    schema: text,
    help: "File of KEY=value lines read before the environment; default ./.env when present",
  }),
  runMode: declare({
    env: "RUN_MODE",
    commands: RUN_ONLY,
    flag: "run-mode",
    default: "once",
    schema: oneOf(["once", "cron"] as const),
    help: "once: one pass then exit; cron: a pass every CRON_INTERVAL seconds until a signal",
  }),
  cronInterval: declare({
    env: "CRON_INTERVAL",
    commands: RUN_ONLY,
    flag: "cron-interval",
    default: "86400",
    schema: positiveWhole(" of seconds", { max: MAX_CRON_INTERVAL, words: "365 days" }),
    errorTitle: `Invalid interval: CRON_INTERVAL (--cron-interval)`,
    help: `Seconds to wait between passes in cron mode, at most ${MAX_CRON_INTERVAL} (365 days)`,
  }),
  requestTimeout: declare({
    env: "REQUEST_TIMEOUT",
    commands: SERVER_COMMANDS,
    flag: "request-timeout",
    default: "120",
    schema: positiveWhole(" of seconds", { max: MAX_REQUEST_TIMEOUT, words: "an hour" }),
    help: "Seconds a request may wait for its answer to start, and for each pause while the " +
      "answer streams in, before it fails and is retried; at most 3600",
  }),
  fullPassInterval: declare({
    env: "FULL_PASS_INTERVAL",
    commands: RUN_ONLY,
    flag: "full-pass-interval",
    default: "86400",
    schema: positiveWhole(" of seconds"),
    help: "Seconds after which a pass reads the whole library again instead of only what " +
      "changed since the last pass (see Incremental passes)",
  }),
  incrementalMaxChanges: declare({
    env: "INCREMENTAL_MAX_CHANGES",
    commands: RUN_ONLY,
    flag: "incremental-max-changes",
    default: "5000",
    schema: positiveWhole(),
    help:
      "When more assets than this changed since the last pass, its own writes included, read the whole library",
  }),
  dryRun: declare({
    env: "DRY_RUN",
    commands: WRITING_COMMANDS,
    flag: "dry-run",
    default: "false",
    schema: bool,
    switch: true,
    help: "Read and plan, log what would change, send no write request",
  }),
  criteria: declare({
    env: "CRITERIA",
    commands: GROUPING_COMMANDS,
    flag: "criteria",
    default: DEFAULT_CRITERIA,
    schema: criteriaJson,
    help: "Grouping criteria as JSON (legacy array or advanced mode); the default, " +
      '{"mode":"devices"}, groups what cameras and phones write: RAW+JPEG pairs, bursts, ' +
      "edits and copies, brackets (see Default rules)",
  }),
  withArchived: declare({
    env: "WITH_ARCHIVED",
    commands: ARCHIVE_AND_TRASH,
    flag: "with-archived",
    default: "false",
    schema: bool,
    switch: true,
    help: "Include archived assets",
  }),
  withDeleted: declare({
    env: "WITH_DELETED",
    commands: ARCHIVE_AND_TRASH,
    flag: "with-deleted",
    default: "false",
    schema: bool,
    switch: true,
    help: "Include trashed assets",
  }),
  includeVideos: declare({
    env: "INCLUDE_VIDEOS",
    commands: SEARCHING_COMMANDS,
    flag: "include-videos",
    default: "false",
    schema: bool,
    switch: true,
    help: "Include videos (images only by default)",
  }),
  filterAlbumIds: declare({
    env: "FILTER_ALBUM_IDS",
    commands: PLANNING_COMMANDS,
    flag: "filter-album-ids",
    schema: list,
    help: "Only assets in these albums: comma-separated album ids or names",
  }),
  filterTakenAfter: declare({
    env: "FILTER_TAKEN_AFTER",
    commands: PLANNING_COMMANDS,
    flag: "filter-taken-after",
    schema: isoDate,
    help: "Only assets taken at or after this ISO 8601 date-time",
  }),
  filterTakenBefore: declare({
    env: "FILTER_TAKEN_BEFORE",
    commands: PLANNING_COMMANDS,
    flag: "filter-taken-before",
    schema: isoDate,
    help: "Only assets taken before this ISO 8601 date-time",
  }),
  parentFilenamePromote: declare({
    env: "PARENT_FILENAME_PROMOTE",
    commands: GROUPING_COMMANDS,
    flag: "parent-filename-promote",
    default: "cover,edit,crop,hdr,biggestNumber",
    schema: promoteList,
    emptyFlagClears: true,
    help: "File-name fragments that make an asset the parent, first = strongest; an empty " +
      '--parent-filename-promote="" promotes by none; ' +
      "accepts sequence, sequence:<digits>, sequence:<prefix>, biggestNumber, biggestSize, " +
      "smallestSize",
  }),
  parentExtPromote: declare({
    env: "PARENT_EXT_PROMOTE",
    commands: GROUPING_COMMANDS,
    flag: "parent-ext-promote",
    default: ".jpg,.png,.jpeg,.heic,.dng",
    schema: list,
    help: "Extensions that make an asset the parent, first = strongest",
  }),
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
  logLevel: declare({
    env: "LOG_LEVEL",
    commands: SERVER_COMMANDS,
    flag: "log-level",
    default: "info",
    schema: oneOf(LOG_LEVELS),
    help: "Log verbosity: trace (HTTP bodies), debug (parent decisions), info, warn, error, " +
      "fatal (nothing: stacksync logs no fatal message; an invalid setting still says so)",
  }),
  logFormat: declare({
    env: "LOG_FORMAT",
    commands: SERVER_COMMANDS,
    flag: "log-format",
    default: "text",
    schema: oneOf(["text", "json"] as const),
    help: "Log line format: text (logfmt key=value) or json (one object per line)",
  }),
  logFile: declare({
    env: "LOG_FILE",
    commands: SERVER_COMMANDS,
    flag: "log-file",
    schema: text,
    help: "Also append logs to this file (created with its folder if missing)",
  }),
  stateDir: declare({
    env: "STATE_DIR",
    flag: "state-dir",
    commands: EVERY_COMMAND,
    schema: text,
    help: "Folder of the journals and backups; default $XDG_STATE_HOME/stacksync, else " +
      "~/.local/state/stacksync",
  }),
  journal: declare({
    env: "JOURNAL",
    flag: "journal",
    commands: WRITING_COMMANDS,
    default: "true",
    schema: bool,
    switch: true,
    help: "Record every write in STATE_DIR so that stacksync undo can put it back; " +
      "false runs without, and cannot be undone",
  }),
  journalKeep: declare({
    env: "JOURNAL_KEEP",
    flag: "journal-keep",
    commands: JOURNALING,
    default: "30",
    schema: positiveWhole(),
    help: "How many recorded runs to keep whatever their age; older journals are deleted " +
      "once they are also older than JOURNAL_KEEP_DAYS",
  }),
  journalKeepDays: declare({
    env: "JOURNAL_KEEP_DAYS",
    flag: "journal-keep-days",
    commands: JOURNALING,
    default: "30",
    schema: wholeNumber,
    help: "Keep every recorded run younger than this many days, besides the last JOURNAL_KEEP",
  }),
  stackConcurrency: declare({
    env: "STACK_CONCURRENCY",
    flag: "stack-concurrency",
    commands: WRITING_COMMANDS,
    default: "1",
    schema: concurrency,
    help: `Writes in flight at once, at most ${MAX_CONCURRENCY} (0 counts as 1, as in ` +
      "immich-stack); every deletion still comes before the writes that depend on it, and no " +
      "two writes touch the same photo or stack at once",
  }),
  preventSelfRekt: declare({
    env: "PREVENT_SELF_REKT",
    flag: "prevent-self-rekt",
    commands: WRITING_COMMANDS,
    default: "false",
    schema: bool,
    switch: true,
    help: `Pause ${SELF_REKT_PAUSE_MS} ms before each write, to spare a small server`,
  }),
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
  planThumbnails: declare({
    env: "PLAN_THUMBNAILS",
    flag: "plan-thumbnails",
    commands: PLAN_ONLY,
    default: "5000",
    schema: wholeNumber,
    help: "At most this many pictures on the review page (--html); the other photos show " +
      "their file names",
  }),
} as const;

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
const REPORT_FORMATS = ["table", "json"] as const;

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

type Declarations = typeof SETTINGS;
type Parsed<K extends keyof Declarations> = z.output<Declarations[K]["schema"]>;
type WithDefault = {
  [K in keyof Declarations]: Declarations[K] extends { default: string } ? K : never;
}[keyof Declarations];

/** Raw settings as parsed from their declarations, before cross-field checks. */
export type RawSettings =
  & { [K in WithDefault]: Parsed<K> }
  & { [K in Exclude<keyof Declarations, WithDefault>]?: Parsed<K> };

/**
 * The validated settings a command works with. A command gets the values of the settings it
 * reads; the others keep their defaults. `apiUrl` and `apiKeys` are empty for a command that
 * talks to no server (`runs`).
 */
export type Settings =
  & Omit<RawSettings, "apiKey" | "apiKeyFile" | "envFile" | "confirmResetStack">
  & {
    /** Base address of the Immich API, without a trailing slash. */
    readonly apiUrl: string;
    /** One key per user, in the order given. */
    readonly apiKeys: readonly string[];
  };

/**
 * An immich-stack setting that stacksync does not support. Setting one gets a warning naming
 * it and what stacksync does instead, so that nobody migrating believes it is in effect; a
 * setting that becomes supported moves to {@linkcode SETTINGS}.
 */
export interface UnsupportedSetting {
  /** Its environment variable. */
  readonly env: string;
  /** Values (lower case) with which immich-stack behaves as stacksync does: no warning. */
  readonly harmless: readonly string[];
  /** What stacksync does instead, or what to use. */
  readonly instead: string;
}

/**
 * immich-stack's settings that stacksync does not support (its documented environment): none
 * since stacksync took STACK_CONCURRENCY, PREVENT_SELF_REKT and the fix-trash settings. A setting
 * immich-stack adds goes here until stacksync supports it.
 */
export const UNSUPPORTED_SETTINGS: readonly UnsupportedSetting[] = [];

/** What the command line asks for. */
export type Command =
  | { readonly kind: "help"; readonly text: string }
  | { readonly kind: "version"; readonly text: string }
  | {
    readonly kind: "run";
    /** The subcommand; `run` when none was given. */
    readonly command: CommandName;
    readonly settings: Settings;
    /** The positional argument (`RUN_ID`, `FILE`), when given. */
    readonly operand?: string;
    readonly options: CommandOptions;
    /**
     * One line per thing the user set that has no effect (an unknown name in the env file, an
     * immich-stack setting stacksync does not support), for `main.ts` to log once logging is up.
     */
    readonly warnings: readonly string[];
  };

/** Inputs of {@linkcode loadSettings}; the file reader is injectable for tests. */
export interface LoadSettingsOptions {
  /** Command-line arguments, without the program name. */
  readonly args: readonly string[];
  /** The process environment. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Program version printed by `--version`. */
  readonly version: string;
  /**
   * Reads a text file; returns undefined when the file does not exist.
   * @default Deno.readFileSync decoded as strict UTF-8, with NotFound mapped to undefined
   */
  readonly readTextFile?: (path: string) => string | undefined;
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

function readTextFileIfPresent(path: string): string | undefined {
  let bytes: Uint8Array;
  try {
    bytes = Deno.readFileSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  try {
    return UTF8.decode(bytes);
  } catch {
    // Replacement characters would change a value without a word: name the line instead.
    let line = 1;
    let start = 0;
    for (let i = 0; i <= bytes.length; i++) {
      if (i < bytes.length && bytes[i] !== 0x0a) continue;
      try {
        UTF8.decode(bytes.subarray(start, i));
      } catch {
        break;
      }
      line++;
      start = i + 1;
    }
    throw new TypeError(`not UTF-8 text (line ${line})`);
  }
}

const KEYS = Object.keys(SETTINGS) as (keyof Declarations)[];

function describe(key: keyof Declarations): string {
  return `${SETTINGS[key].env} (--${SETTINGS[key].flag})`;
}

/** Every setting's environment variable, for "did you mean …?". */
const SETTING_NAMES: readonly string[] = KEYS.map((key) => SETTINGS[key].env);

/**
 * True for text that may be an API key: Immich's are 40-odd letters and digits. Values that
 * look like one are never echoed, so that a key typed into the wrong setting stays unprinted.
 */
function looksLikeKey(text: string): boolean {
  return /^[A-Za-z0-9_-]{16,}$/.test(text) && /[0-9]/.test(text) && /[A-Za-z]/.test(text);
}

/** Decides which values and names messages may show; see {@linkcode looksLikeKey}. */
interface Shown {
  /** Whether the text may appear in a message. */
  readonly may: (text: string) => boolean;
  /** `: current value is "<text>"`, or why it is not shown. */
  readonly currentValue: (text: string) => string;
  /** A file path as a message names it. */
  readonly path: (path: string) => string;
}

function shownExcept(keys: readonly string[]): Shown {
  const may = (text: string) =>
    !looksLikeKey(text.trim()) && !keys.some((key) => key.length >= 4 && text.includes(key));
  return {
    may,
    currentValue: (text) =>
      may(text)
        ? `: current value is ${JSON.stringify(text)}`
        : ": the current value is not shown as it looks like an API key",
    path: (path) => may(path) ? path : "(name not shown as it looks like an API key)",
  };
}

/** The keys given in API_KEY or --api-key, wherever set, so that no message repeats them. */
function givenKeys(texts: readonly (string | undefined)[]): string[] {
  return texts.flatMap((text) => text?.split(/[,\n]/).map((key) => key.trim()) ?? []);
}

const OPTION_KEYS = Object.keys(OPTIONS) as (keyof typeof OPTIONS)[];

/** The settings a command reads, in declaration order. */
function settingsOf(command: CommandName): (keyof Declarations)[] {
  return KEYS.filter((key) => SETTINGS[key].commands.includes(command));
}

/** The own flags a command accepts, in declaration order. */
function optionsOf(command: CommandName): (keyof typeof OPTIONS)[] {
  return OPTION_KEYS.filter((key) => {
    const declaration: OptionDeclaration = OPTIONS[key];
    return declaration.commands.includes(command);
  });
}

/** How help and errors name a command's help: `--help` for the default one. */
function helpHint(command: CommandName, explicit: boolean): string {
  return explicit ? `stacksync ${command} --help` : "--help";
}

/** The long flags of every command that take a value: what follows one is no command. */
const VALUE_FLAGS: ReadonlySet<string> = new Set([
  ...KEYS.flatMap((key) => {
    const declaration: SettingDeclaration<unknown> = SETTINGS[key];
    return declaration.switch ? [] : [declaration.flag];
  }),
  ...OPTION_KEYS.flatMap((key) => {
    const declaration: OptionDeclaration = OPTIONS[key];
    return declaration.value === undefined ? [] : [declaration.flag];
  }),
]);

/** A word that may be shown as a mistyped command; a key never is one. */
const COMMAND_WORD = /^[a-z]{1,20}(-[a-z]{1,20})?$/;

/** The error for a word that names no command, with the command it most likely means. */
function unknownCommand(word: string, what: string): ConfigError {
  const near = closestName(word, COMMAND_NAMES);
  const advice = near === undefined
    ? `, choose one of ${COMMAND_NAMES.join(", ")}`
    : ` (did you mean ${near}?)`;
  return new ConfigError(
    `Cannot ${what} as stacksync has no such command${advice}: current value is "${word}"`,
  );
}

/**
 * Finds the subcommand: the first argument that is neither an option nor an option's value
 * (so options may come before it), else `run`.
 *
 * @throws {ConfigError} For a word where the command goes that names no command; anything
 *   else is not shown, as it may be a key typed in the wrong place.
 */
function splitCommand(args: readonly string[]) {
  const at = commandPosition(args, VALUE_FLAGS);
  const word = args[at];
  if (word === undefined) return { command: "run" as CommandName, explicit: false, rest: args };
  if (Object.hasOwn(COMMANDS, word)) {
    const rest = [...args.slice(0, at), ...args.slice(at + 1)];
    return { command: word as CommandName, explicit: true, rest };
  }
  if (COMMAND_WORD.test(word)) throw unknownCommand(word, "run the command");
  // After options, a stray argument of `run`, which says so without showing it.
  if (at > 0) return { command: "run" as CommandName, explicit: false, rest: args };
  throw new ConfigError(
    `Cannot parse the command line: the first argument must be a command (${
      COMMAND_NAMES.join(", ")
    }) or an option; see --help`,
  );
}

/**
 * The help `stacksync help [COMMAND]` asks for, or undefined when the command is not `help`.
 *
 * @throws {ConfigError} For a COMMAND that names none, or more than one argument after it.
 */
function helpCommand(args: readonly string[]): Command | undefined {
  const at = commandPosition(args, VALUE_FLAGS);
  if (args[at] !== HELP_COMMAND) return undefined;
  const topic = args.slice(at + 1);
  if (topic.length === 0) return { kind: "help", text: helpText() };
  const [word] = topic;
  if (topic.length === 1 && Object.hasOwn(COMMANDS, word)) {
    return { kind: "help", text: helpText(word as CommandName) };
  }
  if (topic.length === 1 && COMMAND_WORD.test(word)) throw unknownCommand(word, "show the help");
  throw new ConfigError(
    "Cannot parse the command line: help takes one COMMAND at most, as in stacksync help " +
      "undo; see --help",
  );
}

/** The first sentence of a parseArgs error (its advice about `--` does not apply here). */
function problemOf(error: unknown): string {
  return (error as Error).message.split("\n")[0].split(". To specify")[0];
}

/**
 * What parseArgs found wrong, without echoing anything that may be a key, with a suggestion for
 * a misspelt flag.
 *
 * @param error What `parseArgs` threw.
 * @param flags The long flags that exist, without `--`.
 * @param hint Where the help is: `--help`, or `stacksync <command> --help`.
 * @returns The problem, e.g. `Unknown option '--dryrun': did you mean --dry-run?`.
 */
export function commandLineProblem(
  error: unknown,
  flags: readonly string[],
  hint = "--help",
): string {
  const { code, message } = error as { code?: string; message: string };
  // A stray positional argument may be a key typed in the wrong place: never echo it.
  if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL") {
    return `positional arguments are not accepted; see ${hint}`;
  }
  const option = /'(--?[^'=]+)'/.exec(message)?.[1];
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && option !== undefined) {
    const named = looksLikeKey(option.replace(/^-+/, "")) ? "an option" : `'${option}'`;
    const near = closestName(option.replace(/^-+/, ""), flags);
    return near === undefined
      ? `Unknown option ${named}; see ${hint}`
      : `Unknown option ${named}: did you mean --${near}?`;
  }
  return `${problemOf(error)}; see ${hint}`;
}

function parseCommandLine(args: readonly string[], command: CommandName, hint: string) {
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = {
    help: { type: "boolean", short: "h" },
    version: { type: "boolean" },
  };
  for (const key of settingsOf(command)) {
    const declaration: SettingDeclaration<unknown> = SETTINGS[key];
    options[declaration.flag] = { type: declaration.switch ? "boolean" : "string" };
  }
  for (const key of optionsOf(command)) {
    const declaration: OptionDeclaration = OPTIONS[key];
    options[declaration.flag] = { type: declaration.value === undefined ? "boolean" : "string" };
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      options,
      strict: true,
      allowNegative: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw new ConfigError(
      `Cannot parse the command line: ${commandLineProblem(error, Object.keys(options), hint)}`,
    );
  }
  // A stray positional argument may be a key typed in the wrong place: never echo it.
  const operand = COMMANDS[command] as CommandDeclaration;
  if (parsed.positionals.length > (operand.operand === undefined ? 0 : 1)) {
    const problem = operand.operand === undefined
      ? "positional arguments are not accepted"
      : `${command} takes one ${operand.operand.name}`;
    throw new ConfigError(`Cannot parse the command line: ${problem}; see ${hint}`);
  }
  return parsed;
}

/**
 * Reads the command line, the environment and the env file into validated settings.
 *
 * The first argument may name a subcommand ({@linkcode COMMANDS}); without one the command is
 * `run`. A command reads only its own settings ({@linkcode SettingDeclaration.commands}): the
 * variables of the others are ignored, their flags refused.
 *
 * @param options The arguments, environment and file reader.
 * @returns The command to carry out: help, version, or a subcommand with its settings.
 * @throws {ConfigError} For an unknown command or an invalid setting, naming the variable and
 *   the allowed values.
 *
 * @example Usage
 * ```ts
 * import { loadSettings } from "./config.ts";
 * import assert from "node:assert/strict";
 *
 * const command = loadSettings({
 *   args: ["--dry-run"],
 *   env: { API_URL: "http://immich:2283/api", API_KEY: "secret" },
 *   version: "1.0.0",
 *   readTextFile: () => undefined,
 * });
 * assert.equal(command.kind, "run");
 * if (command.kind === "run") {
 *   assert.equal(command.command, "run");
 *   assert.equal(command.settings.dryRun, true);
 *   assert.equal(command.settings.runMode, "once");
 * }
 * ```
 */
export function loadSettings(options: LoadSettingsOptions): Command {
  const readTextFile = options.readTextFile ?? readTextFileIfPresent;
  const help = helpCommand(options.args);
  if (help !== undefined) return help;
  const { command, explicit, rest } = splitCommand(options.args);
  const hint = helpHint(command, explicit);
  const { values, positionals } = parseCommandLine(rest, command, hint);
  if (values.help) return { kind: "help", text: helpText(explicit ? command : undefined) };
  if (values.version) return { kind: "version", text: `stacksync ${options.version}` };
  const declared = COMMANDS[command] as CommandDeclaration;
  if (declared.operand?.required && positionals.length === 0) {
    throw new ConfigError(
      `Missing ${declared.operand.name}: stacksync ${command} needs it; see ${hint}`,
    );
  }

  const fromFlag = (flag: string): string | undefined => {
    const value = values[flag];
    if (value === undefined) return undefined;
    return typeof value === "boolean" ? String(value) : value;
  };
  const nonEmpty = (value: string | undefined) => value === "" ? undefined : value;

  // Before any value: a slip explains a setting that looks missing.
  const environmentWarnings = checkEnvironmentNames(options.env);
  const envFilePath = nonEmpty(fromFlag(SETTINGS.envFile.flag)) ?? nonEmpty(options.env.ENV_FILE);
  const envFile = readEnvFile(envFilePath, readTextFile);
  const fileValues = new Map(envFile?.entries.map((entry) => [entry.name, entry.value]));
  const shown = shownExcept(
    givenKeys([fromFlag(SETTINGS.apiKey.flag), options.env.API_KEY, fileValues.get("API_KEY")]),
  );

  const read = new Set(settingsOf(command));
  const raw: Record<string, unknown> = {};
  /** Values in immich-stack's spelling, each with the line that says so. */
  const adoptions: string[] = [];
  for (const key of KEYS) {
    const declaration: SettingDeclaration<unknown> = SETTINGS[key];
    const flagText = fromFlag(declaration.flag);
    const given = !read.has(key)
      ? undefined
      : declaration.emptyFlagClears && flagText === ""
      ? flagText
      : nonEmpty(flagText) ?? nonEmpty(options.env[declaration.env]) ??
        nonEmpty(fileValues.get(declaration.env));
    // Written for immich-stack: read as it reads it, and say how stacksync writes it.
    const adopted = given === undefined ? undefined : immichStackSpelling(declaration.env, given);
    adoptions.push(...adopted?.warnings ?? []);
    const text = (adopted === undefined ? given : nonEmpty(adopted.text)) ?? declaration.default;
    if (text === undefined) continue;
    const result = declaration.schema.safeParse(text);
    if (!result.success) {
      const problem = result.error.issues[0]?.message ?? "invalid value";
      if (key === "criteria") throw new ConfigError(`${CRITERIA_PREFIX}${problem}`);
      const current = declaration.secret ? "" : shown.currentValue(text);
      const title = declaration.errorTitle ?? `Invalid ${describe(key)}`;
      throw new ConfigError(`${title}: ${problem}${current}`);
    }
    raw[key] = result.data;
  }
  const flag = (key: keyof typeof OPTIONS) => values[OPTIONS[key].flag];
  const out = flag("out");
  const html = flag("html");
  const format = flag("format");
  if (format !== undefined && !REPORT_FORMATS.some((known) => known === format)) {
    throw new ConfigError(
      `Invalid --format: must be one of ${REPORT_FORMATS.join(", ")}` +
        shown.currentValue(String(format)),
    );
  }
  const settings = validate(raw as RawSettings, { readTextFile, env: options.env, read, shown });
  const warnings = [
    ...adoptions,
    ...unsupportedWarnings(options.env, envFile),
    ...environmentWarnings,
    ...unknownNameWarnings(envFile, shown),
  ];
  return {
    kind: "run",
    command,
    settings,
    ...(positionals[0] === undefined ? {} : { operand: positionals[0] }),
    options: {
      ...(typeof out === "string" ? { out } : {}),
      ...(typeof html === "string" ? { html } : {}),
      ...(flag("embedThumbnails") === true ? { embedThumbnails: true } : {}),
      exact: flag("exact") === true,
      force: flag("force") === true,
      full: flag("full") === true,
      ...(typeof format === "string" ? { format: format as ReportFormat } : {}),
    },
    warnings,
  };
}

/** An env file that was read: its path as given and its entries. */
interface EnvFile {
  readonly path: string;
  readonly entries: readonly EnvEntry[];
}

function readEnvFile(
  path: string | undefined,
  readTextFile: (path: string) => string | undefined,
): EnvFile | undefined {
  const file = path ?? ".env";
  const shownPath = shownExcept([]).path(file);
  let content: string | undefined;
  try {
    content = readTextFile(file);
  } catch (error) {
    throw new ConfigError(`Cannot read env file ${shownPath}: ${(error as Error).message}`);
  }
  if (content === undefined) {
    if (path === undefined) return undefined;
    throw new ConfigError(`Cannot read env file ${shownPath}: no such file`);
  }
  const invalid = (line: number, problem: string) =>
    new ConfigError(`Invalid env file ${shownPath} at line ${line}: ${problem}`);
  let entries: EnvEntry[];
  try {
    entries = parseEnvFile(content, { mayShow: (word) => !looksLikeKey(word) });
  } catch (error) {
    if (error instanceof EnvFileError) throw invalid(error.line, error.problem);
    throw error;
  }
  const unsupported = new Set(UNSUPPORTED_SETTINGS.map((setting) => setting.env));
  for (const { name, line } of entries) {
    if (SETTING_NAMES.includes(name) || unsupported.has(name)) continue;
    const shownName = looksLikeKey(name) ? "the name on this line" : name;
    const near = closestName(name, SETTING_NAMES);
    if (near !== undefined) {
      throw invalid(line, `${shownName} is not a setting: did you mean ${near}?`);
    }
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw invalid(
        line,
        `${shownName} is not a valid name: names are letters, digits and _, and do not start ` +
          "with a digit",
      );
    }
  }
  return { path: shownPath, entries };
}

/** One line per immich-stack setting given that stacksync does not support. */
function unsupportedWarnings(
  env: Readonly<Record<string, string | undefined>>,
  envFile: EnvFile | undefined,
): string[] {
  const warnings: string[] = [];
  for (const setting of UNSUPPORTED_SETTINGS) {
    const entry = envFile?.entries.find((candidate) => candidate.name === setting.env);
    const fromEnv = env[setting.env];
    const [value, source] = fromEnv !== undefined && fromEnv !== ""
      ? [fromEnv, "the environment"]
      : [entry?.value, `${envFile?.path} line ${entry?.line}`];
    if (value === undefined || value === "") continue;
    if (setting.harmless.includes(value.trim().toLowerCase())) continue;
    warnings.push(
      `Ignored ${setting.env} from ${source}: stacksync does not support this immich-stack ` +
        `setting; ${setting.instead}`,
    );
  }
  return warnings;
}

/**
 * Environment variables that are no setting but close to one. A slip of a setting's name
 * (`DRYRUN`, `dry_run`, `DRY_RUNS`, `API_KEYS`) stops the command before anything is sent, as it
 * does in an env file: a dry run must not become a real one for a missing `_`. A name one letter
 * different (`APP_KEY` beside `API_KEY`) gets a warning only, as other programs sharing the
 * environment use such names (docs/architecture.md, "Settings and secrets").
 *
 * @returns One warning per name close to a setting that is no slip of one.
 * @throws {ConfigError} For the first slip, naming the setting meant.
 */
function checkEnvironmentNames(env: Readonly<Record<string, string | undefined>>): string[] {
  const unsupported = new Set(UNSUPPORTED_SETTINGS.map((setting) => setting.env));
  return Object.keys(env).flatMap((name) => {
    if (env[name] === undefined || env[name] === "" || looksLikeKey(name)) return [];
    if (unsupported.has(name)) return [];
    const slip = slipOf(name, SETTING_NAMES);
    if (slip !== undefined) {
      throw new ConfigError(
        `Invalid environment variable ${name}: it is not a setting: did you mean ${slip}?`,
      );
    }
    const near = closestName(name, SETTING_NAMES);
    return near === undefined
      ? []
      : [`Ignored ${name} from the environment: it is not a setting, did you mean ${near}?`];
  });
}

/** One line naming every name of the env file that is not a setting, so typos show. */
function unknownNameWarnings(envFile: EnvFile | undefined, shown: Shown): string[] {
  if (envFile === undefined) return [];
  const unsupported = new Set(UNSUPPORTED_SETTINGS.map((setting) => setting.env));
  const unknown = envFile.entries.filter(({ name }) =>
    !SETTING_NAMES.includes(name) && !unsupported.has(name)
  );
  if (unknown.length === 0) return [];
  const names = unknown.map(({ name, line }) =>
    shown.may(name) ? `${name} (line ${line})` : `a name that looks like a key (line ${line})`
  );
  return [
    `Ignored ${unknown.length === 1 ? "1 variable" : `${unknown.length} variables`} of ` +
    `${envFile.path} that ${
      unknown.length === 1 ? "is not a stacksync setting" : "are not stacksync settings"
    }: ${names.join(", ")}`,
  ];
}

function splitKeys(text: string, source: string): string[] {
  const keys = text.split(",").map((key) => key.trim());
  if (keys.some((key) => key === "")) {
    throw new ConfigError(`Invalid ${source}: the list of API keys has an empty entry`);
  }
  return keys;
}

/** The keys of an API_KEY_FILE: one per line or comma-separated. */
function keysOfFile(content: string, shown: Shown): string[] {
  const source = describe("apiKeyFile");
  if (content.trim() === "") throw new ConfigError(`Invalid ${source}: the key file is empty`);
  // An env file line pasted into the key file would send `API_KEY=…` as the key.
  const assignment = /^[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)[ \t]*=/m.exec(content);
  const name = assignment?.[1];
  if (name !== undefined && (SETTING_NAMES.includes(name) || /KEY/i.test(name))) {
    const holds = shown.may(name) ? `${name}=` : "a NAME= line";
    throw new ConfigError(
      `Invalid ${source}: the key file holds ${holds}: put the key alone, one key per line`,
    );
  }
  return splitKeys(content.replace(/\s+$/, "").split(/\r?\n/).join(","), source);
}

/** What {@linkcode validate} needs besides the raw values. */
interface ValidateContext {
  readonly readTextFile: (path: string) => string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The settings the command reads; the others keep their defaults, unchecked. */
  readonly read: ReadonlySet<keyof Declarations>;
  /** Which values messages may show. */
  readonly shown: Shown;
}

/**
 * The default STATE_DIR, after XDG: `$XDG_STATE_HOME/stacksync`, else
 * `~/.local/state/stacksync`, else (Windows) `%LOCALAPPDATA%\stacksync`.
 */
function defaultStateDir(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const base = (name: string) => {
    const value = env[name];
    return value !== undefined && isAbsolute(value) ? value : undefined;
  };
  const xdg = base("XDG_STATE_HOME");
  if (xdg !== undefined) return join(xdg, "stacksync");
  const home = base("HOME");
  if (home !== undefined) return join(home, ".local", "state", "stacksync");
  const local = base("LOCALAPPDATA");
  return local === undefined ? undefined : join(local, "stacksync");
}

function validate(raw: RawSettings, context: ValidateContext): Settings {
  const { apiKey, apiKeyFile, envFile: _envFile, confirmResetStack, ...rest } = raw;
  const stateDir = raw.stateDir ?? defaultStateDir(context.env);
  const local = { ...rest, ...(stateDir === undefined ? {} : { stateDir }) };
  if (!context.read.has("apiUrl")) return { ...local, apiUrl: "", apiKeys: [] };
  const { readTextFile, shown } = context;
  if (raw.apiUrl === undefined) {
    throw new ConfigError(`Missing ${describe("apiUrl")}: set the address of the Immich API`);
  }
  if (apiKey !== undefined && apiKeyFile !== undefined) {
    throw new ConfigError(
      `Conflicting ${describe("apiKey")} and ${describe("apiKeyFile")}: set only one of them`,
    );
  }
  let apiKeys: string[];
  if (apiKeyFile !== undefined) {
    let content: string | undefined;
    try {
      content = readTextFile(apiKeyFile);
    } catch (error) {
      throw new ConfigError(
        `Cannot read API_KEY_FILE ${shown.path(apiKeyFile)}: ${(error as Error).message}`,
      );
    }
    if (content === undefined) {
      throw new ConfigError(`Cannot read API_KEY_FILE ${shown.path(apiKeyFile)}: no such file`);
    }
    apiKeys = keysOfFile(content, shown);
  } else if (apiKey !== undefined) {
    apiKeys = splitKeys(apiKey, describe("apiKey"));
  } else {
    throw new ConfigError(
      `Missing ${describe("apiKey")}: set an Immich API key, or API_KEY_FILE (--api-key-file)`,
    );
  }
  if (raw.resetStacks && raw.runMode === "cron") {
    throw new ConfigError(
      `Invalid ${describe("resetStacks")}: RESET_STACKS works only with RUN_MODE=once`,
    );
  }
  if (raw.resetStacks && confirmResetStack !== RESET_CONFIRMATION) {
    throw new ConfigError(
      `Invalid ${describe("confirmResetStack")}: RESET_STACKS needs it to be exactly ` +
        `"${RESET_CONFIRMATION}"`,
    );
  }
  if (
    raw.filterTakenAfter !== undefined && raw.filterTakenBefore !== undefined &&
    raw.filterTakenAfter >= raw.filterTakenBefore
  ) {
    throw new ConfigError(
      `Invalid ${describe("filterTakenAfter")}: must be before FILTER_TAKEN_BEFORE: ` +
        `current values are ${raw.filterTakenAfter} and ${raw.filterTakenBefore}`,
    );
  }
  return { ...local, apiUrl: raw.apiUrl, apiKeys };
}

/** An option's help for one command, or for all of them (`undo: …; restore: …`). */
function optionHelp(declaration: OptionDeclaration, command?: CommandName): string {
  const { help } = declaration;
  if (typeof help === "string") return help;
  if (command !== undefined) return help[command] ?? "";
  return Object.entries(help).map(([name, text]) => `${name}: ${text}`).join("; ");
}

/** The `--help` lines of one flag: the flag, then its variable (if any), help and default. */
function flagLines(flag: string, kind: "switch" | string, help: string): string[] {
  const shown = kind === "switch" ? `--${flag}` : `--${flag} <${kind}>`;
  return [`  ${shown}`, `      ${help}`];
}

function settingFlag(declaration: SettingDeclaration<unknown>): string {
  return declaration.switch
    ? `--${declaration.flag}, --no-${declaration.flag}`
    : `--${declaration.flag} <value>`;
}

/**
 * The `--help` text, generated from {@linkcode COMMANDS}, {@linkcode OPTIONS} and
 * {@linkcode SETTINGS}: without a command, the list of commands and the options of `run`;
 * with one, that command's usage and only the flags and variables it reads.
 *
 * @param command The command asked about (`stacksync undo --help`), if any.
 * @returns The text `--help` prints.
 *
 * @example Usage
 * ```ts
 * import { helpText } from "./config.ts";
 * import assert from "node:assert/strict";
 *
 * assert.ok(helpText().includes("      RUN_MODE: "));
 * assert.ok(helpText().includes("  --dry-run, --no-dry-run"));
 * assert.ok(helpText("undo").includes("Usage: stacksync undo [RUN_ID] [options]"));
 * assert.ok(!helpText("undo").includes("CRITERIA"));
 * ```
 */
export function helpText(command?: CommandName): string {
  const shown = command ?? "run";
  const declared = COMMANDS[shown] as CommandDeclaration;
  const operand = declared.operand === undefined
    ? ""
    : declared.operand.required
    ? ` ${declared.operand.name}`
    : ` [${declared.operand.name}]`;
  const lines = command === undefined
    ? [
      "stacksync: keep Immich stacks in line with grouping rules",
      "",
      "Usage: stacksync [command] [options]",
      "",
      "Commands:",
      ...commandLines(),
      "",
      "Without a command stacksync runs `run`. `stacksync help <command>` lists what a " +
      "command reads. Options may come before or after the command.",
      "",
    ]
    : [`stacksync ${command}: ${declared.summary}`, ""];
  if (command !== undefined) lines.push(`Usage: stacksync ${command}${operand} [options]`, "");
  lines.push(
    "Every setting can also be set by its environment variable or in an env file.",
    "Precedence: flag > environment > env file > default.",
    "",
    `Options${command === undefined ? " of run" : ""}:`,
  );
  for (const key of optionsOf(shown)) {
    const declaration: OptionDeclaration = OPTIONS[key];
    lines.push(
      ...flagLines(declaration.flag, declaration.value ?? "switch", optionHelp(declaration, shown)),
    );
  }
  for (const key of settingsOf(shown)) {
    const declaration: SettingDeclaration<unknown> = SETTINGS[key];
    const fallback = declaration.default === undefined ? "" : ` [default: ${declaration.default}]`;
    lines.push(
      `  ${settingFlag(declaration)}`,
      `      ${declaration.env}: ${declaration.help}${fallback}`,
    );
  }
  lines.push("  -h, --help", "      Show this help", "  --version", "      Show the version");
  return lines.join("\n");
}

/** The list of commands in the general help: names in a column wide enough for the longest. */
function commandLines(): string[] {
  const rows: [string, string][] = [
    ...COMMAND_NAMES.map((name): [string, string] => [name, COMMANDS[name].summary]),
    [`${HELP_COMMAND} [command]`, "Show this help, or what a command reads"],
  ];
  const width = Math.max(...rows.map(([name]) => name.length)) + 2;
  return rows.map(([name, summary]) => `  ${name.padEnd(width)}${summary}`);
}

/** The commands cell of the README table: `all`, or the names. */
function commandsCell(commands: readonly CommandName[]): string {
  return commands.length === COMMAND_NAMES.length ? "all" : commands.join(", ");
}

/**
 * The README's settings table as Markdown, generated from {@linkcode SETTINGS} and
 * {@linkcode OPTIONS} and padded the way `deno fmt` lays out tables, so the README can hold it
 * verbatim. The commands' own flags come last, without a variable.
 *
 * @returns One table row per setting and flag: variable, flag, default, commands and meaning.
 *
 * @example Usage
 * ```ts
 * import { settingsTable } from "./config.ts";
 * import assert from "node:assert/strict";
 *
 * const rows = settingsTable().split("\n");
 * assert.match(rows[0], /^\| Variable +\| Flag +\| Default +\| Commands +\| Meaning +\|$/);
 * assert.ok(rows.some((row) => row.startsWith("| `RUN_MODE` ")));
 * ```
 */
export function settingsTable(): string {
  const code = (text: string) => `\`${text}\``;
  const rows = [["Variable", "Flag", "Default", "Commands", "Meaning"]];
  for (const key of KEYS) {
    const declaration: SettingDeclaration<unknown> = SETTINGS[key];
    const flag = declaration.switch
      ? `${code(`--${declaration.flag}`)}, ${code(`--no-${declaration.flag}`)}`
      : code(`--${declaration.flag}`);
    const fallback = declaration.default === undefined ? "" : code(declaration.default);
    rows.push([
      code(declaration.env),
      flag,
      fallback,
      commandsCell(declaration.commands),
      declaration.help,
    ]);
  }
  for (const key of OPTION_KEYS) {
    const declaration: OptionDeclaration = OPTIONS[key];
    const flag = code(
      declaration.value === undefined
        ? `--${declaration.flag}`
        : `--${declaration.flag} ${declaration.value}`,
    );
    rows.push(["", flag, "", commandsCell(declaration.commands), optionHelp(declaration)]);
  }
  const cells = rows.map((row) => row.map((cell) => cell.replaceAll("|", "\\|")));
  const widths = cells[0].map((_, column) =>
    Math.max(3, ...cells.map((row) => row[column].length))
  );
  const line = (row: string[]) =>
    `| ${row.map((cell, column) => cell.padEnd(widths[column])).join(" | ")} |`;
  return [
    line(cells[0]),
    line(widths.map((width) => "-".repeat(width))),
    ...cells.slice(1).map(line),
  ].join("\n");
}

/**
 * The effective settings as one record for the start-up log line; API keys are only counted,
 * and a user name and password in API_URL are shown as `***`.
 *
 * @param settings The validated settings.
 * @param command The command they were loaded for; only the settings it reads are shown.
 * @returns Every setting the command reads by name, with `apiKeys` replaced by their number.
 *
 * @example Usage
 * ```ts
 * import { describeSettings, loadSettings } from "./config.ts";
 * import assert from "node:assert/strict";
 *
 * const command = loadSettings({
 *   args: [],
 *   env: { API_URL: "http://me:pw@immich:2283/api", API_KEY: "key-1,key-2" },
 *   version: "1.0.0",
 *   readTextFile: () => undefined,
 * });
 * assert.equal(command.kind, "run");
 * if (command.kind === "run") {
 *   assert.equal(describeSettings(command.settings).apiKeys, "2 keys");
 *   assert.equal(describeSettings(command.settings).apiUrl, "http://***:***@immich:2283/api");
 * }
 * ```
 */
export function describeSettings(
  settings: Settings,
  command: CommandName = "run",
): Record<string, unknown> {
  const { apiKeys, ...rest } = settings;
  const read = new Set<string>(settingsOf(command));
  const shown = Object.entries(rest).filter(([key]) => read.has(key))
    .map(([key, value]) => key === "apiUrl" ? [key, shownUrl(String(value))] : [key, value]);
  if (read.has("apiKey")) {
    shown.push(["apiKeys", `${apiKeys.length} key${apiKeys.length === 1 ? "" : "s"}`]);
  }
  return Object.fromEntries(shown);
}

/**
 * Every secret the settings hold, for the logger to hide wherever one turns up: the API keys,
 * and the password of API_URL as written and decoded.
 *
 * @param settings The validated settings.
 * @returns The secrets, without empty strings.
 *
 * @example Usage
 * ```ts
 * import { loadSettings, secretsOf } from "./config.ts";
 * import assert from "node:assert/strict";
 *
 * const command = loadSettings({
 *   args: [],
 *   env: { API_URL: "http://me:p%40ss@immich:2283/api", API_KEY: "key-1" },
 *   version: "1.0.0",
 *   readTextFile: () => undefined,
 * });
 * assert.equal(command.kind, "run");
 * if (command.kind === "run") {
 *   assert.deepEqual(secretsOf(command.settings), ["key-1", "p%40ss", "p@ss"]);
 * }
 * ```
 */
export function secretsOf(settings: Settings): string[] {
  // Commands that talk to no server (`runs`) have no API_URL.
  const password = URL.parse(settings.apiUrl)?.password ?? "";
  const passwords = password === "" ? [] : [password, decodedPassword(password)];
  return [...new Set([...settings.apiKeys, ...passwords])];
}

function decodedPassword(password: string): string {
  try {
    return decodeURIComponent(password);
  } catch {
    return password;
  }
}

/** The settings that shape a plan: those `run` and `plan` read and `apply` takes from its file. */
const PLAN_SHAPING = KEYS.filter((key) => {
  const { commands, guard }: SettingDeclaration<unknown> = SETTINGS[key];
  return commands.includes("run") && commands.includes("plan") && !commands.includes("apply") &&
    guard !== true;
});

/**
 * The settings that shaped a plan, as a plan file records them: by variable name, with their
 * values as JSON (lists as arrays, CRITERIA as its JSON); settings without a value are left out.
 *
 * @param settings The settings of `stacksync plan`.
 * @returns The record.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadSettings, planSettings } from "./config.ts";
 *
 * const command = loadSettings({
 *   args: ["plan", "--replace-stacks"],
 *   env: { API_URL: "http://immich:2283/api", API_KEY: "secret" },
 *   version: "1.0.0",
 *   readTextFile: () => undefined,
 * });
 * assert.equal(command.kind, "run");
 * if (command.kind === "run") {
 *   const recorded = planSettings(command.settings);
 *   assert.equal(recorded.REPLACE_STACKS, true);
 *   assert.deepEqual(recorded.PARENT_EXT_PROMOTE, [".jpg", ".png", ".jpeg", ".heic", ".dng"]);
 *   assert.equal(recorded.API_KEY, undefined);
 * }
 * ```
 */
export function planSettings(settings: Settings): Record<string, unknown> {
  const recorded: Record<string, unknown> = {};
  const values = settings as unknown as Record<string, unknown>;
  for (const key of PLAN_SHAPING) {
    if (values[key] !== undefined) recorded[SETTINGS[key].env] = values[key];
  }
  return recorded;
}

/**
 * The settings of a plan file applied to a command's own: each shaping setting the file records
 * is parsed by its declaration, as if it came from the environment; those it does not record
 * take their defaults.
 *
 * @param recorded The plan file's settings of one user.
 * @param base The command's settings (API_URL, the keys, DRY_RUN).
 * @param file The plan file's name, for messages.
 * @returns The settings to plan with.
 * @throws {ConfigError} For a setting stacksync does not know or a value it cannot use.
 */
export function settingsOfPlan(
  recorded: Readonly<Record<string, unknown>>,
  base: Settings,
  file: string,
): Settings {
  const known = new Set<string>(PLAN_SHAPING.map((key) => SETTINGS[key].env));
  const unknown = Object.keys(recorded).find((name) => !known.has(name));
  if (unknown !== undefined) {
    throw new ConfigError(
      `Cannot use the plan ${file} as it records a setting that shapes no plan: current value ` +
        `is ${JSON.stringify(unknown)}`,
    );
  }
  const values: Record<string, unknown> = {};
  for (const key of PLAN_SHAPING) {
    const declaration: SettingDeclaration<unknown> = SETTINGS[key];
    const value = recorded[declaration.env];
    // Lists were split at commas; CRITERIA is JSON (an array of objects, or an object).
    const text = value === undefined
      ? declaration.default
      : Array.isArray(value) && value.every((item) => typeof item === "string")
      ? value.join(",")
      : typeof value === "object" && value !== null
      ? JSON.stringify(value)
      : String(value);
    if (text === undefined) continue;
    const result = declaration.schema.safeParse(text);
    if (!result.success) {
      throw new ConfigError(
        `Cannot use the plan ${file} as its setting ${declaration.env} is invalid (` +
          `${result.error.issues[0]?.message ?? "invalid value"}): current value is ${text}`,
      );
    }
    values[key] = result.data;
  }
  return { ...base, ...values };
}
