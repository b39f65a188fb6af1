/**
 * What every subcommand of `src/commands/` is: a function that checks its ground (settings,
 * files, the state folder) and returns the work to do. `main.ts` calls the check first, so that
 * invalid input stops the command with one `error:` line and status 2 before anything is sent,
 * then logs the start line and does the work.
 *
 * A new subcommand is one file here exporting a {@linkcode Command}, one entry in main.ts's
 * table, and its declaration in `src/config/commands.ts` (`COMMANDS`, and its name in the
 * `commands` of the settings it reads, `src/config/settings_*.ts`). What only some commands
 * need lives beside: `_client.ts` (the session with Immich of a key), `_users.ts` (the outcome
 * of a pass over every key, exact plans), so that a command that reads the state folder alone
 * (`runs`) loads neither.
 *
 * @module
 */
import { getLogger } from "@logtape/logtape";
import { displayUrl } from "../shown_url.ts";
import { type CommandOptions, ConfigError, type Settings } from "../config.ts";
import type { Progress } from "../progress/show.ts";
import type { Journaling } from "../run.ts";
import { openStateFolder, type StateFolder } from "../state/folder.ts";
import type { JournalCommand } from "../state/journal.ts";

/** How a command ended; `main.ts` turns it into the exit status. */
export type CommandOutcome =
  /** Everything done. */
  | "ok"
  /** A user or an action failed; the log says which. */
  | "failed"
  /** Refused before any write: invalid input. */
  | "refused";

/** Everything a command gets from the command line and the process. */
export interface CommandContext {
  readonly settings: Settings;
  /** The positional argument (`RUN_ID`, `FILE`), when given. */
  readonly operand?: string;
  readonly options: CommandOptions;
  /** The stacksync version. */
  readonly version: string;
  /** Writes to standard output (for data: tables, a backup on `--out -`). */
  readonly stdout: (text: string) => void;
  /** Writes to standard error. */
  readonly stderr: (text: string) => void;
  /** Aborts on SIGINT or SIGTERM. */
  readonly signal: AbortSignal;
  /** The clock. */
  readonly now: () => Date;
  /** Waits between request attempts and cron passes; the default waits for real. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Shows long work: on standard error's terminal, or in the log (`src/progress/show.ts`). */
  readonly progress?: Progress;
}

/** The work of a command once its ground is checked. */
export type CommandWork = () => Promise<CommandOutcome>;

/**
 * A subcommand: checks its ground without sending or logging anything and returns the work.
 *
 * @throws {ConfigError} For invalid input; nothing was sent.
 */
export type Command = (context: CommandContext) => Promise<CommandWork>;

/**
 * Reads a file a command takes (a backup, a plan) and parses it, so that every problem with it
 * stops the command with one line and status 2.
 *
 * @param path The file.
 * @param what What it is, for the message (`backup`, `plan`).
 * @param parse Parses and checks the text; what it throws names the problem.
 * @returns The parsed file.
 * @throws {ConfigError} When the file cannot be read or parsed.
 */
export async function readCommandFile<T>(
  path: string,
  what: string,
  parse: (text: string, name: string) => T,
): Promise<T> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    throw new ConfigError(`Cannot read the ${what} ${path}: ${(error as Error).message}`);
  }
  try {
    return parse(text, path);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

/**
 * The state folder, for a command that reads it.
 *
 * @param settings The settings (STATE_DIR).
 * @param write Whether journals will be written (a real run with JOURNAL on).
 * @returns The folder.
 * @throws {ConfigError} When STATE_DIR has no value and no default (no HOME).
 * @throws {StateError} When the folder cannot be used.
 */
export function stateFolderOf(settings: Settings, write: boolean): Promise<StateFolder> {
  if (settings.stateDir === undefined) {
    throw new ConfigError(
      "Missing STATE_DIR (--state-dir): set the folder of the journals, as neither " +
        "XDG_STATE_HOME nor HOME is set",
    );
  }
  return openStateFolder(settings.stateDir, { write });
}

/**
 * The journal of a command that writes stacks: none in a dry run, none with JOURNAL=false (the
 * command then warns once when it starts), else the state folder, opened and checked now so
 * that a folder that cannot be written stops the command before any request.
 *
 * @param context The command's context.
 * @param command What the journals record.
 * @param opened The state folder, when the command opened it already for writing.
 * @returns The journaling for `runUsers`, or undefined.
 * @throws {StateError} When the folder cannot be written, naming it.
 */
export async function journalingOf(
  context: CommandContext,
  command: JournalCommand,
  opened?: StateFolder,
): Promise<Journaling | undefined> {
  const { settings } = context;
  if (settings.dryRun || !settings.journal) return undefined;
  const folder = opened ?? await stateFolderOf(settings, true);
  return {
    start: () =>
      folder.startRun({
        command,
        server: displayUrl(settings.apiUrl),
        stacksync: context.version,
        now: context.now,
      }),
    finish: () =>
      folder.prune({ keep: settings.journalKeep, days: settings.journalKeepDays }, context.now()),
  };
}

/** Logs the one warning of a real run without a journal. */
export function warnIfUnjournaled(settings: Settings): void {
  if (settings.dryRun || settings.journal) return;
  getLogger(["stacksync", "state"]).warn(
    "Running without a journal (JOURNAL=false): stacksync undo cannot put this run back",
  );
}
