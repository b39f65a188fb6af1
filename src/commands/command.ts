/**
 * What every subcommand of `src/commands/` is: a function that checks its ground (settings,
 * files, the state folder) and returns the work to do. `main.ts` calls the check first, so that
 * invalid input stops the command with one `error:` line and status 2 before anything is sent,
 * then logs the start line and does the work.
 *
 * A new subcommand is one file here exporting a {@linkcode Command}, one entry in main.ts's
 * table, and its declaration in `src/config.ts` (`COMMANDS`, and its name in the `commands` of
 * the settings it reads).
 *
 * @module
 */
import { getLogger, type Logger } from "@logtape/logtape";
import { displayUrl } from "../shown_url.ts";
import { createImmichClient, type ImmichClient } from "../api/immich.ts";
import { type CommandOptions, ConfigError, type Settings } from "../config.ts";
import type { Plan, Stack } from "../model.ts";
import {
  actsOnStackMembers,
  type PlanGroup,
  type PlanOptions,
  planStacks,
} from "../reconcile/plan.ts";
import { findUnlisted, type Journaling, passSucceeded, type UserReport } from "../run.ts";
import { delay } from "../api/http.ts";
import { openStateFolder, type StateFolder } from "../state/folder.ts";
import type { JournalCommand } from "../state/journal.ts";
import { UserLocks } from "../state/lock.ts";

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
 * The outcome of a pass over every key: `ok` when every user was reached and nothing failed.
 *
 * @param reports The users' reports.
 * @param keys How many keys there were.
 * @returns `ok` or `failed`.
 */
export function outcomeOf(reports: readonly UserReport[], keys: number): CommandOutcome {
  return reports.length === keys && passSucceeded(reports) ? "ok" : "failed";
}

/**
 * Plans stacks to make exactly as given (undo, restore) with the planner of a run: replaces
 * allowed, and when the plan deletes, grows or replaces stacks, the members `GET /stacks` does
 * not list (trashed, hidden) looked up first, as a run does, so that none is lost silently.
 *
 * @param client The user's client.
 * @param stacks The stacks now, as `GET /stacks` lists them.
 * @param groups The stacks wanted, primary first; the key names each (its old id).
 * @param options File names and the exact scope.
 * @param log The user's logger.
 * @returns The plan.
 */
export async function planTargets(
  client: ImmichClient,
  stacks: readonly Stack[],
  groups: readonly PlanGroup[],
  options: Pick<PlanOptions, "exactFor"> & { readonly fileNames: Map<string, string> },
  log: Logger,
): Promise<Plan> {
  const base: PlanOptions = {
    replaceStacks: true,
    removeSingleAssetStacks: false,
    resetStacks: false,
    ...options,
  };
  const plan = planStacks(stacks, groups, base);
  if (!actsOnStackMembers(plan)) return plan;
  const sets = {
    fileNames: options.fileNames,
    notFetched: new Set<string>(),
    trashed: new Set<string>(),
  };
  const found = await findUnlisted(client, stacks, sets, log);
  if (found === undefined) return plan;
  return planStacks(found.stacks, groups, {
    ...base,
    notFetched: sets.notFetched,
    trashed: sets.trashed,
    ...found.options,
  });
}

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
 * The Immich client of one key, with the command's time limit (REQUEST_TIMEOUT), stop signal
 * and wait between attempts.
 *
 * @param context The command's context (API_URL, REQUEST_TIMEOUT, signal, sleep).
 * @param apiKey The key.
 * @returns The client; close it when done.
 */
export function immichClientOf(context: CommandContext, apiKey: string): ImmichClient {
  return createImmichClient({
    baseUrl: context.settings.apiUrl,
    apiKey,
    timeoutMs: context.settings.requestTimeout * 1000,
    signal: context.signal,
    ...(context.sleep === undefined ? {} : { sleep: context.sleep }),
  });
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
    finish: () => folder.prune(settings.journalKeep),
  };
}

/**
 * The state folder's locks of a command that writes: one process at a time per folder and user
 * (docs/state.md, "One process at a time"). None in a dry run, which writes nothing there, or
 * without a STATE_DIR.
 *
 * @param context The command's context.
 * @param command The command, for the lock's file.
 * @param wait Wait for another process's pass of the user (cron mode), or give the user up.
 * @returns The locks, or undefined.
 */
export function locksOf(
  context: CommandContext,
  command: JournalCommand,
  wait = false,
): UserLocks | undefined {
  const { settings } = context;
  if (settings.dryRun || settings.stateDir === undefined) return undefined;
  return new UserLocks(settings.stateDir, {
    command: `stacksync ${command}`,
    wait,
    sleep: context.sleep ?? delay,
    now: context.now,
  });
}

/** Logs the one warning of a real run without a journal. */
export function warnIfUnjournaled(settings: Settings): void {
  if (settings.dryRun || settings.journal) return;
  getLogger(["stacksync", "state"]).warn(
    "Running without a journal (JOURNAL=false): stacksync undo cannot put this run back",
  );
}
