/**
 * stacksync entry point: reads the command line and the settings, sets up logging, runs the
 * subcommand (`run` when none is given), and sets the exit status.
 *
 * {@linkcode main} is the whole CLI as a function, so tests can drive the very code path of the
 * binary (arguments, settings, subcommands, state folder) without a process per case.
 *
 * @module
 */
import { getLogger } from "@logtape/logtape";
import {
  type Command as Invocation,
  type CommandName,
  ConfigError,
  describeSettings,
  loadSettings,
  secretsOf,
  SETTINGS,
} from "./src/config.ts";
import { literal, setupLogging, writeAll } from "./src/log.ts";
import { applyCommand } from "./src/commands/apply.ts";
import { backupCommand } from "./src/commands/backup.ts";
import type { Command, CommandOutcome, CommandWork } from "./src/commands/command.ts";
import { planCommand } from "./src/commands/plan.ts";
import { restoreCommand } from "./src/commands/restore.ts";
import { runCommand } from "./src/commands/run.ts";
import { runsCommand } from "./src/commands/runs.ts";
import { undoCommand } from "./src/commands/undo.ts";
import { fixTrashCommand } from "./src/commands/fix_trash.ts";
import { duplicatesCommand } from "./src/commands/duplicates.ts";
import denoJson from "./deno.json" with { type: "json" };

/** Exit statuses, decided here and nowhere else. */
export const EXIT = { ok: 0, failed: 1, config: 2 } as const;

/** The subcommands: a new one is its file in `src/commands/` and one line here. */
const COMMANDS: { readonly [N in CommandName]: Command } = {
  run: runCommand,
  undo: undoCommand,
  runs: runsCommand,
  backup: backupCommand,
  restore: restoreCommand,
  "fix-trash": fixTrashCommand,
  duplicates: duplicatesCommand,
  plan: planCommand,
  apply: applyCommand,
};

const STATUS: { readonly [O in CommandOutcome]: number } = {
  ok: EXIT.ok,
  failed: EXIT.failed,
  refused: EXIT.config,
};

/** The process around {@linkcode main}; tests replace what they need. */
export interface MainOptions {
  /** The environment variables. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * Writes to standard output.
   * @default a synchronous write to Deno.stdout
   */
  readonly stdout?: (text: string) => void;
  /**
   * Writes to standard error.
   * @default a synchronous write to Deno.stderr
   */
  readonly stderr?: (text: string) => void;
  /**
   * The clock (run ids, journal times).
   * @default {() => new Date()}
   */
  readonly now?: () => Date;
  /**
   * Waits between request attempts and cron passes.
   * @default a real wait
   */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * The CLI: parses `args`, runs the subcommand and returns the exit status. Output goes through
 * `options.stdout` and `options.stderr`; SIGINT and SIGTERM stop it between writes.
 *
 * @param args The command-line arguments, without the program name.
 * @param options The environment, the output and the clock.
 * @returns The exit status: 0 ok, 1 a user or an action failed, 2 invalid input (nothing sent).
 */
export async function main(args: readonly string[], options: MainOptions): Promise<number> {
  const stdout = options.stdout ?? ((text: string) => writeAll(Deno.stdout, text));
  const stderr = options.stderr ?? ((text: string) => writeAll(Deno.stderr, text));
  const refuse = (error: ConfigError) => {
    stderr(`error: ${error.message}\n`);
    return EXIT.config;
  };
  let invocation: Invocation;
  try {
    invocation = loadSettings({ args, env: options.env, version: denoJson.version });
  } catch (error) {
    if (error instanceof ConfigError) return refuse(error);
    throw error;
  }
  if (invocation.kind !== "run") {
    stdout(`${invocation.text}\n`);
    return EXIT.ok;
  }

  const { command, settings } = invocation;
  // A command that logs (they all do but `runs`) logs to standard output, unless its data goes
  // there (`--out -`, the duplicates report).
  const logs = SETTINGS.logLevel.commands.includes(command);
  const dataOnStdout = invocation.options.out === "-" || command === "duplicates";
  await using _logging = logs
    ? await setupLogging({
      level: settings.logLevel,
      format: settings.logFormat,
      file: settings.logFile,
      secrets: secretsOf(settings),
      write: dataOnStdout ? stderr : stdout,
    })
    : undefined;
  const log = getLogger(["stacksync", "main"]);
  // A command that does not log says them before its output.
  if (!logs) { for (const warning of invocation.warnings) stderr(`warning: ${warning}\n`); }
  const shutdown = new AbortController();
  const onSignal = () => {
    if (shutdown.signal.aborted) Deno.exit(EXIT.failed); // a second signal does not wait
    log.info("Received shutdown signal");
    // Requests in flight end at once; an action they leave unanswered is reported with this.
    shutdown.abort(new Error("stopped by the shutdown signal before the server answered"));
  };
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  for (const signal of signals) Deno.addSignalListener(signal, onSignal);
  try {
    let work: CommandWork;
    try {
      work = await COMMANDS[command]({
        settings,
        ...(invocation.operand === undefined ? {} : { operand: invocation.operand }),
        options: invocation.options,
        version: denoJson.version,
        stdout,
        stderr,
        signal: shutdown.signal,
        now: options.now ?? (() => new Date()),
        ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
      });
    } catch (error) {
      if (error instanceof ConfigError) return refuse(error);
      throw error;
    }
    log.info("Starting stacksync {version}", {
      version: denoJson.version,
      command,
      ...describeSettings(settings, command),
    });
    // Settings that have no effect, said right after the start-up line.
    if (logs) { for (const warning of invocation.warnings) log.warn(literal(warning)); }
    try {
      return STATUS[await work()];
    } catch (error) {
      if (error instanceof ConfigError) return refuse(error);
      throw error;
    }
  } finally {
    for (const signal of signals) Deno.removeSignalListener(signal, onSignal);
  }
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args, { env: Deno.env.toObject() }));
}
