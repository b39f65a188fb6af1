/**
 * The real CLI as a subprocess, shared by tests/cli_test.ts and tests/e2e_test.ts: `deno run`
 * with exactly the permission flags of `deno task start` and `deno task compile` (plus
 * `--no-prompt`, so a missing permission fails instead of asking), in a fresh working folder and
 * an environment holding only what deno itself needs.
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { RUN_FLAGS } from "../scripts/compile.ts";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));

/** One run of the CLI. */
export interface CliRun {
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** Files by relative path, written into the run's fresh working folder. */
  readonly files?: Readonly<Record<string, string>>;
  /** Flags of `deno run` added to the permission flags, e.g. `--no-npm`. */
  readonly denoFlags?: readonly string[];
  /**
   * The largest file the CLI may write, in KiB (`ulimit -f`, through bash, with SIGXFSZ
   * ignored so that a longer write fails with EFBIG): a full disk for files past that size,
   * without privileges.
   */
  readonly fileSizeLimitKiB?: number;
  /**
   * Run it on a pseudo-terminal (util-linux `script`): its standard output and error are then the
   * terminal, and {@linkcode CliResult.stdout} what the terminal received. With `stdoutFile`,
   * standard output goes to that file of the working folder instead, and only standard error is
   * the terminal.
   */
  readonly terminal?: { readonly stdoutFile?: string };
}

/** What a finished run of the CLI gave. */
export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** The run's working folder; the caller removes it. */
  readonly cwd: string;
}

/** Only what deno itself needs from the outer environment: its cache and PATH. */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: "1" };
  for (const name of ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** Makes the working folder with the run's files and the command that starts the CLI in it. */
async function prepareCli(run: CliRun) {
  const cwd = await Deno.makeTempDir({ prefix: "stacksync_cli_test_" });
  for (const [path, content] of Object.entries(run.files ?? {})) {
    await Deno.writeTextFile(join(cwd, path), content);
  }
  const deno = [
    Deno.execPath(),
    "run",
    "--no-prompt",
    ...RUN_FLAGS,
    ...run.denoFlags ?? [],
    MAIN,
    ...run.args ?? [],
  ];
  const limited = run.fileSizeLimitKiB === undefined ? deno : [
    "bash",
    "-c",
    `trap '' XFSZ; ulimit -f ${run.fileSizeLimitKiB}; exec "$@"`,
    "bash",
    ...deno,
  ];
  const [program, ...args] = run.terminal === undefined
    ? limited
    : onTerminal(limited, run.terminal);
  const command = new Deno.Command(program, {
    args,
    // Journals go to the run's own folder unless the run names one: never to the real HOME.
    env: { ...baseEnv(), XDG_STATE_HOME: join(cwd, ".state"), ...run.env },
    clearEnv: true,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
  return { cwd, command };
}

/** A word for the shell, quoted. */
function shellWord(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * A command run by `script` on a pseudo-terminal: `-q` no banner, `-e` its exit status, `-f`
 * each write passed on at once; the transcript file is /dev/null, the terminal's output comes
 * on `script`'s standard output.
 */
function onTerminal(
  command: readonly string[],
  terminal: NonNullable<CliRun["terminal"]>,
): string[] {
  const redirect = terminal.stdoutFile === undefined ? "" : ` > ${shellWord(terminal.stdoutFile)}`;
  return ["script", "-qefc", `${command.map(shellWord).join(" ")}${redirect}`, "/dev/null"];
}

/**
 * Runs a command to its end and decodes its output.
 *
 * @param command The command, with stdout and stderr piped.
 * @returns Exit status, stdout and stderr.
 */
export async function commandOutput(
  command: Deno.Command,
): Promise<Omit<CliResult, "cwd">> {
  const output = await command.output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/**
 * Runs the CLI to its end.
 *
 * @param run Arguments, environment and files of the run.
 * @returns Exit status, output and working folder.
 */
export async function runCli(run: CliRun): Promise<CliResult> {
  const { cwd, command } = await prepareCli(run);
  return { ...(await commandOutput(command)), cwd };
}

/** A JSON log line of the CLI (`LOG_FORMAT=json`). */
export type JsonLine = Record<string, unknown> & { readonly msg: string; readonly level: string };

/**
 * The JSON log lines of a run's standard output.
 *
 * @param stdout What the run wrote, one JSON object a line.
 * @returns The lines, parsed.
 */
export function jsonLines(stdout: string): JsonLine[] {
  return stdout.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
}

/**
 * Runs the CLI to its end with JSON logs, then removes its working folder.
 *
 * @param args The command line.
 * @param env The settings; `LOG_FORMAT=json` is added.
 * @param files Files by relative path, written into its working folder first.
 * @returns Exit status and output.
 */
export async function runCliJson(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  files: Readonly<Record<string, string>> = {},
): Promise<CliResult> {
  const result = await runCli({ args, env: { LOG_FORMAT: "json", ...env }, files });
  await Deno.remove(result.cwd, { recursive: true });
  return result;
}

/** A CLI started with {@linkcode spawnCli}, still running. */
export interface SpawnedCli {
  readonly process: Deno.ChildProcess;
  /** Resolves to each stdout line as it arrives; `undefined` once stdout ends. */
  nextLine(): Promise<string | undefined>;
  /** Every stdout line read so far. */
  readonly lines: readonly string[];
  /** The run's working folder; the caller removes it. */
  readonly cwd: string;
}

/**
 * Starts the CLI and reads its stdout line by line, for runs that must be signalled while
 * they work (cron mode).
 *
 * @param run Arguments, environment and files of the run.
 * @returns The running process and a line reader.
 */
export async function spawnCli(run: CliRun): Promise<SpawnedCli> {
  const { cwd, command } = await prepareCli(run);
  const process = command.spawn();
  const reader = process.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const lines: string[] = [];
  let buffer = "";
  let ended = false;
  const nextLine = async (): Promise<string | undefined> => {
    while (true) {
      const newline = buffer.indexOf("\n");
      if (newline >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        lines.push(line);
        return line;
      }
      if (ended) return undefined;
      const { value, done } = await reader.read();
      if (done) ended = true;
      else buffer += value;
    }
  };
  return { process, nextLine, lines, cwd };
}

/** Options for {@linkcode mapLimited}. */
export interface MapLimitedOptions {
  /** How many tasks may run at once (the machine is shared: keep it small). */
  readonly limit: number;
}

/**
 * Runs every item through `task`, a few at a time, keeping the input order.
 *
 * @param items The inputs.
 * @param task The work per item.
 * @param options How many at a time.
 * @returns The results in input order.
 */
export async function mapLimited<T, R>(
  items: readonly T[],
  task: (item: T) => Promise<R>,
  options: MapLimitedOptions,
): Promise<R[]> {
  const { limit } = options;
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

/** How a CLI started with {@linkcode spawnCli} ended. */
export interface FinishedCli {
  /** The exit status, or undefined when the deadline passed and the process was killed. */
  readonly code: number | undefined;
  /** Every stdout line, including those read before. */
  readonly lines: readonly string[];
  readonly stderr: string;
}

/**
 * Reads the rest of a spawned CLI's output and waits for it to end; a process still running
 * after `deadlineMs` is killed, so a test of a hang fails instead of hanging itself.
 *
 * @param cli The running CLI.
 * @param deadlineMs How long it may still run.
 * @returns Its exit status (undefined when killed), stdout lines and stderr.
 */
export async function finishCli(cli: SpawnedCli, deadlineMs: number): Promise<FinishedCli> {
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    cli.process.kill("SIGKILL");
  }, deadlineMs);
  try {
    while (await cli.nextLine() !== undefined) {
      // Reading to the end of stdout; nextLine keeps every line.
    }
    const [status, stderr] = await Promise.all([
      cli.process.status,
      new Response(cli.process.stderr).text(),
    ]);
    return { code: killed ? undefined : status.code, lines: cli.lines, stderr };
  } finally {
    clearTimeout(timer);
  }
}
