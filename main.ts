/**
 * stacksync entry point: reads the command line and the settings, sets up logging, runs the
 * subcommand (`run` when none is given), and sets the exit status.
 *
 * {@linkcode main} is the whole CLI as a function, so tests can drive the very code path of the
 * binary (arguments, settings, subcommands, state folder) without a process per case.
 *
 * Only what a command uses is loaded, and only once it is known (docs/architecture.md,
 * "Start-up"): `--version` and the help load no settings' schemas, no logging and no command.
 *
 * @module
 */
import type { Command as Invocation, CommandName } from "./src/config.ts";
import type { Command, CommandOutcome, CommandWork } from "./src/commands/command.ts";
import { helpTopic } from "./src/command_line.ts";
import { writeAll } from "./src/write_all.ts";
import denoJson from "./deno.json" with { type: "json" };

/** Exit statuses, decided here and nowhere else. */
export const EXIT = { ok: 0, failed: 1, config: 2 } as const;

/**
 * The subcommands, each loaded when it runs: a new one is its file in `src/commands/` and one
 * line here.
 */
const COMMANDS: { readonly [N in CommandName]: () => Promise<Command> } = {
  run: async () => (await import("./src/commands/run.ts")).runCommand,
  undo: async () => (await import("./src/commands/undo.ts")).undoCommand,
  runs: async () => (await import("./src/commands/runs.ts")).runsCommand,
  backup: async () => (await import("./src/commands/backup.ts")).backupCommand,
  restore: async () => (await import("./src/commands/restore.ts")).restoreCommand,
  "fix-trash": async () => (await import("./src/commands/fix_trash.ts")).fixTrashCommand,
  duplicates: async () => (await import("./src/commands/duplicates.ts")).duplicatesCommand,
  plan: async () => (await import("./src/commands/plan.ts")).planCommand,
  apply: async () => (await import("./src/commands/apply.ts")).applyCommand,
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
  const alone = await answerAlone(args);
  if (alone !== undefined) {
    stdout(`${alone}\n`);
    return EXIT.ok;
  }
  const { ConfigError, describeSettings, loadSettings, secretsOf, SETTINGS } = await import(
    "./src/config.ts"
  );
  const { literal, setupLogging } = await import("./src/log.ts");
  const { getLogger } = await import("@logtape/logtape");
  const refuse = (error: Error) => {
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
  // Progress goes to standard error; what else reaches its terminal keeps out of its line's way.
  const { progressOf } = await import("./src/progress/show.ts");
  const shown = progressOf({
    env: options.env,
    stdout,
    stderr,
    terminal: {
      stdout: options.stdout === undefined && Deno.stdout.isTerminal(),
      stderr: options.stderr === undefined && Deno.stderr.isTerminal(),
    },
    now: () => (options.now?.() ?? new Date()).getTime(),
  });
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
      write: dataOnStdout ? shown.stderr : shown.stdout,
    })
    : undefined;
  const log = getLogger(["stacksync", "main"]);
  // A command that does not log says them before its output.
  if (!logs) { for (const warning of invocation.warnings) stderr(`warning: ${warning}\n`); }
  const shutdown = new AbortController();
  const onSignal = () => {
    if (shutdown.signal.aborted) { // a second signal does not wait
      shown.progress.end();
      Deno.exit(EXIT.failed);
    }
    log.info("Received shutdown signal");
    // Requests in flight end at once; an action they leave unanswered is reported with this.
    shutdown.abort(new Error("stopped by the shutdown signal before the server answered"));
  };
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  for (const signal of signals) Deno.addSignalListener(signal, onSignal);
  try {
    let work: CommandWork;
    try {
      const run = await COMMANDS[command]();
      work = await run({
        settings,
        ...(invocation.operand === undefined ? {} : { operand: invocation.operand }),
        options: invocation.options,
        version: denoJson.version,
        stdout: shown.stdout,
        stderr: shown.stderr,
        signal: shutdown.signal,
        now: options.now ?? (() => new Date()),
        ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
        progress: shown.progress,
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
    shown.progress.end();
    for (const signal of signals) Deno.removeSignalListener(signal, onSignal);
  }
}

/**
 * `--version` alone, or a line that only asks for help (`--help`, `-h`, `help`, `help <command>`,
 * `<command> --help`; see `helpTopic`): the answer `loadSettings` would give, from the version
 * and the help texts derived from the declarations (`src/help_text.json`, regenerated by
 * `deno task readme`), so that they load nothing else. Any other form, and a help of no known
 * command, goes through the settings, which answer the same or say what is wrong.
 */
async function answerAlone(args: readonly string[]): Promise<string | undefined> {
  if (args.length === 1 && args[0] === "--version") return `stacksync ${denoJson.version}`;
  const topic = helpTopic(args);
  if (topic === undefined) return undefined;
  const { default: texts } = await import("./src/help_text.json", { with: { type: "json" } });
  return Object.hasOwn(texts, topic) ? texts[topic as keyof typeof texts] : undefined;
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args, { env: Deno.env.toObject() }));
}
