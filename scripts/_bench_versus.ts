/**
 * The side-by-side scenarios of `deno task bench`: stacksync and immich-stack
 * (`_bench_immich_stack.ts`) run as users run them, in the same bench run, alternately, each
 * against a test server of its own loaded with the same library, so that neither sees the other's
 * stacks and both pay the same server:
 *
 * - a library of `assets` assets without and then with `stackedTrash` of them in the trash while
 *   members of a stack (Immich keeps the trash 30 days): the **first run** (a fresh state folder,
 *   the server put back as loaded before each repeat), a **full pass** an hour later (stacksync
 *   `--full`; immich-stack's only kind of pass), and a **pass with nothing to change** an hour
 *   after that (stacksync's incremental pass, immich-stack's pass again); the stacks both made in
 *   their first run are compared;
 * - the small library most people have (`generateScenes`: RAW+JPEG scenes, some with an edit):
 *   **pass 1**, **pass 2** and **pass 3** in a row, an hour apart, from a fresh state folder;
 * - start-up: stacksync's `--version` and `--help`, an empty Deno script with the same flags, and
 *   immich-stack's `--help` (it has no `--version`).
 *
 * Each scenario runs `repeat` times (the small ones `quickRepeat` times), the order of the tools
 * swapped every time; the fastest of each tool is kept. A run that exits with a status other than
 * 0 is kept as a failed row with the line that says why; the bench goes on.
 *
 * @module
 */
import { cliCommand, isWrite, MAIN, measure, startServer } from "./_bench_process.ts";
import type { Measurement, ServerProcess } from "./_bench_process.ts";
import { immichStackEnv, SHARED_SETTINGS } from "./_bench_immich_stack.ts";
import { RUN_FLAGS } from "./compile.ts";

/** Who ran: one of the two tools, or Deno alone (the empty script). */
export type Tool = "stacksync" | "immich-stack" | "deno";

/** A scenario of {@linkcode runVersus}. */
export type VersusScenario =
  | "first run"
  | "full pass"
  | "nothing to change"
  | "pass 1"
  | "pass 2"
  | "pass 3"
  | "--version"
  | "--help"
  | "empty script";

/** The libraries of {@linkcode runVersus}. */
export type VersusLibrary = "no trash" | "trash" | "small" | "start-up";

/** One measured run. */
export interface VersusRow extends Omit<Measurement, "output"> {
  readonly library: VersusLibrary;
  readonly scenario: VersusScenario;
  readonly tool: Tool;
  /** Requests by endpoint, as the server counted them. */
  readonly requests: Readonly<Record<string, number>>;
  /** POST/PUT/DELETE /stacks. */
  readonly writes: number;
  /** The user's stacks on the server after the run. */
  readonly stacksAfter?: number;
  /** After a first run: a digest of the stacks (covers and members), equal for equal stacks. */
  readonly stacksDigest?: string;
  /** On stacksync's first run: how many of the stacks it and immich-stack made differ. */
  readonly stacksDiffer?: number;
  /** The kind of pass stacksync logged: `full` or `incremental`. */
  readonly pass?: string;
  /** For a run that exited with another status than 0: the line that says why. */
  readonly failure?: string;
}

/** Options of {@linkcode runVersus}. */
export interface VersusOptions {
  /** Assets of the large libraries' user. */
  readonly assets: number;
  /** The share of the assets in the trash while in a stack, in the second large library. */
  readonly stackedTrash: number;
  /** The small library. */
  readonly scenes: { readonly scenes: number; readonly edits: number };
  /** The immich-stack binary; without it, stacksync runs alone. */
  readonly immichStack?: string;
  /** @default {1} */
  readonly seed?: number;
  /** Runs of each scenario of the large libraries per tool. @default {2} */
  readonly repeat?: number;
  /** Runs of the small library's passes and of start-up per tool. @default {5} */
  readonly quickRepeat?: number;
  /** Progress lines. @default {console.error} */
  readonly progress?: (line: string) => void;
}

const HOUR = 3_600_000;
const PASS_LINE = /"?msg"?[=:]"(Full|Incremental) pass: /;

/** A tool bound to its own server: runs one scenario and reports it. */
interface Contender {
  readonly tool: Tool;
  readonly server?: ServerProcess;
  /** A fresh state folder, and the server as loaded. */
  reset(): Promise<void>;
  run(scenario: VersusScenario, options?: { digest?: boolean }): Promise<VersusRow>;
}

/** Where the runs of one bench happen, and how they are reported. */
interface Bench {
  readonly cwd: string;
  /** What every process needs from the outer environment. */
  readonly baseEnv: Readonly<Record<string, string>>;
  readonly immichStack?: string;
  readonly progress: (line: string) => void;
}

/**
 * The line that says why a run failed: the first error or skipped user it logged, else its last
 * line, with logfmt's `msg="…"` unwrapped.
 *
 * @param output The run's output.
 * @returns One line of at most 300 characters.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { failureOf } from "./_bench_versus.ts";
 *
 * const output = 'level=info msg="Fetched"\nlevel=warn msg="Skipping Ada: Cannot find …"\nDone\n';
 * assert.equal(failureOf(output), "Skipping Ada: Cannot find …");
 * ```
 */
export function failureOf(output: string): string {
  const lines = output.split("\n").map((line) => line.trim()).filter((line) => line !== "");
  const line = lines.find((l) => /level=(error|fatal)|^error:|Skipping /i.test(l)) ??
    lines.at(-1) ?? "no output";
  const message = /msg="((?:[^"\\]|\\.)*)"/.exec(line)?.[1] ?? line;
  return message.length > 300 ? `${message.slice(0, 299)}…` : message;
}

function writesOf(requests: Readonly<Record<string, number>>): number {
  return Object.entries(requests).filter(([endpoint]) => isWrite(endpoint))
    .reduce((sum, [, n]) => sum + n, 0);
}

/** The command line and environment of one tool's run of a scenario. */
function commandOf(
  bench: Bench,
  tool: Tool,
  scenario: VersusScenario,
  setting: { server?: ServerProcess; stateDir: string },
): { command: string[]; env: Record<string, string> } {
  if (tool === "deno") {
    return { command: cliCommand(`${bench.cwd}/empty.ts`, RUN_FLAGS), env: { ...bench.baseEnv } };
  }
  const server = setting.server;
  if (tool === "immich-stack") {
    const command = [bench.immichStack!, ...(scenario === "--help" ? ["--help"] : [])];
    return {
      command,
      env: server === undefined ? { ...bench.baseEnv } : immichStackEnv(server, bench.baseEnv),
    };
  }
  const args = scenario === "full pass"
    ? ["--full"]
    : scenario === "--version" || scenario === "--help"
    ? [scenario]
    : [];
  const env: Record<string, string> = server === undefined ? { ...bench.baseEnv } : {
    ...bench.baseEnv,
    API_URL: server.url,
    API_KEY: server.key,
    RUN_MODE: "once",
    LOG_LEVEL: "info",
    STATE_DIR: setting.stateDir,
    ...SHARED_SETTINGS,
  };
  return { command: [...cliCommand(MAIN, RUN_FLAGS), ...args], env };
}

function contender(
  bench: Bench,
  tool: Tool,
  library: VersusLibrary,
  server?: ServerProcess,
): Contender {
  const stateDir = `${bench.cwd}/state-${tool}-${library.replace(" ", "-")}`;
  const folder = `${bench.cwd}/work-${tool}`;
  return {
    tool,
    server,
    async reset() {
      await Deno.remove(stateDir, { recursive: true }).catch(() => {});
      if (server !== undefined) await server.command("reset");
    },
    async run(scenario, options = {}) {
      await Deno.mkdir(folder, { recursive: true });
      const { command, env } = commandOf(bench, tool, scenario, { server, stateDir });
      const { output, ...measured } = await measure(command, env, folder);
      const requests = server === undefined ? {} : await server.command("requests");
      const stacksAfter = server === undefined ? undefined : (await server.command("stacks"))[0];
      const compared = options.digest && server !== undefined
        ? {
          digest: (await server.command("digest")).digest,
          hashes: (await server.command("stack-hashes")).hashes,
        }
        : undefined;
      const digest = compared?.digest;
      const hashes = compared?.hashes;
      const pass = tool === "stacksync" ? PASS_LINE.exec(output)?.[1]?.toLowerCase() : undefined;
      const row: VersusRow = {
        library,
        scenario,
        tool,
        ...measured,
        requests,
        writes: writesOf(requests),
        ...(stacksAfter === undefined ? {} : { stacksAfter }),
        ...(digest === undefined ? {} : { stacksDigest: digest }),
        ...(pass === undefined ? {} : { pass }),
        ...(measured.exitCode === 0 ? {} : { failure: failureOf(output) }),
      };
      if (hashes !== undefined) stackHashes.set(row, hashes);
      bench.progress(
        `bench: ${library}, ${scenario}, ${tool}: ${Math.round(row.wallMs)} ms wall, ` +
          `${Math.round(row.cpuMs)} ms CPU, ${row.peakRssMiB.toFixed(0)} MiB, ` +
          `${row.writes} writes${row.failure === undefined ? "" : `, failed: ${row.failure}`}`,
      );
      return row;
    },
  };
}

/** The stacks' hashes after each first run (`stack-hashes`), kept off the rows. */
const stackHashes = new WeakMap<VersusRow, readonly string[]>();

/** stacksync's first run with how many of its stacks differ from immich-stack's first run's. */
function withDifference(rows: readonly VersusRow[]): VersusRow[] {
  const ours = rows.find((row) => row.tool === "stacksync");
  const theirs = rows.find((row) => row.tool === "immich-stack");
  const [a, b] = [ours && stackHashes.get(ours), theirs && stackHashes.get(theirs)];
  if (a === undefined || b === undefined) return [...rows];
  const [inA, inB] = [new Set(a), new Set(b)];
  // A stack made otherwise is missing on one side and extra on the other: count it once.
  const stacksDiffer = Math.max(
    a.filter((hash) => !inB.has(hash)).length,
    b.filter((hash) => !inA.has(hash)).length,
  );
  return rows.map((row) => (row === ours ? { ...row, stacksDiffer } : row));
}

/** The fastest run of each tool, a successful one before any failed one. */
function fastestOfEach(rows: readonly VersusRow[]): VersusRow[] {
  const best = new Map<Tool, VersusRow>();
  for (const row of rows) {
    const kept = best.get(row.tool);
    const better = kept === undefined ||
      (kept.failure !== undefined && row.failure === undefined) ||
      ((kept.failure === undefined) === (row.failure === undefined) && row.wallMs < kept.wallMs);
    if (better) best.set(row.tool, row);
  }
  return [...best.values()];
}

/**
 * Runs the contenders `times` times each, swapping their order every time.
 *
 * @param before What happens before each contender's run (a reset, the clock moved on).
 */
async function alternately(
  contenders: readonly Contender[],
  times: number,
  scenario: VersusScenario,
  before: (c: Contender, round: number) => Promise<unknown> = () => Promise.resolve(),
  options: { digest?: boolean } = {},
): Promise<VersusRow[]> {
  const rows: VersusRow[] = [];
  for (let round = 0; round < times; round++) {
    const order = round % 2 === 0 ? contenders : [...contenders].reverse();
    for (const c of order) {
      await before(c, round);
      rows.push(await c.run(scenario, options));
    }
  }
  return fastestOfEach(rows);
}

/** Starts one server per contender with the same library, each saved as loaded. */
async function servers(count: number, args: readonly string[]): Promise<ServerProcess[]> {
  const started = await Promise.all(Array.from({ length: count }, () => startServer(args)));
  for (const server of started) await server.command("save");
  return started;
}

function toolsOf(bench: Bench): Tool[] {
  return bench.immichStack === undefined ? ["stacksync"] : ["stacksync", "immich-stack"];
}

/** First run, full pass and a pass with nothing to change on one large library. */
async function largeLibrary(
  bench: Bench,
  library: "no trash" | "trash",
  args: readonly string[],
  repeat: number,
): Promise<VersusRow[]> {
  const started = await servers(toolsOf(bench).length, args);
  try {
    const contenders = toolsOf(bench).map((tool, i) => contender(bench, tool, library, started[i]));
    const hourLater = (c: Contender) => c.server!.command(`advance ${HOUR}`);
    return [
      ...withDifference(
        await alternately(contenders, repeat, "first run", (c) => c.reset(), { digest: true }),
      ),
      ...await alternately(contenders, repeat, "full pass", hourLater),
      ...await alternately(contenders, repeat, "nothing to change", hourLater),
    ];
  } finally {
    for (const server of started) await server.close();
  }
}

/** Three passes in a row on the small library, from a fresh start each round. */
async function smallLibrary(
  bench: Bench,
  args: readonly string[],
  times: number,
): Promise<VersusRow[]> {
  const started = await servers(toolsOf(bench).length, args);
  try {
    const contenders = toolsOf(bench).map((tool, i) => contender(bench, tool, "small", started[i]));
    const rows: VersusRow[] = [];
    for (let round = 0; round < times; round++) {
      const order = round % 2 === 0 ? contenders : [...contenders].reverse();
      for (const c of order) await c.reset();
      for (const scenario of ["pass 1", "pass 2", "pass 3"] as const) {
        for (const c of order) {
          if (scenario !== "pass 1") await c.server!.command(`advance ${HOUR}`);
          rows.push(await c.run(scenario));
        }
      }
    }
    return (["pass 1", "pass 2", "pass 3"] as const).flatMap((scenario) =>
      fastestOfEach(rows.filter((row) => row.scenario === scenario))
    );
  } finally {
    for (const server of started) await server.close();
  }
}

/** stacksync's `--version` and `--help`, an empty script, immich-stack's `--help`. */
async function startUp(bench: Bench, times: number): Promise<VersusRow[]> {
  await Deno.writeTextFile(`${bench.cwd}/empty.ts`, "");
  const alone = (tool: Tool) => contender(bench, tool, "start-up");
  const rows: VersusRow[] = [];
  for (const scenario of ["--version", "--help"] as const) {
    rows.push(...await alternately([alone("stacksync")], times, scenario));
  }
  rows.push(...await alternately([alone("deno")], times, "empty script"));
  if (bench.immichStack !== undefined) {
    rows.push(...await alternately([alone("immich-stack")], times, "--help"));
  }
  return rows;
}

/**
 * Runs the side-by-side scenarios (see the module's notes).
 *
 * @param options Library sizes, the immich-stack binary, repeats and a progress sink.
 * @returns One row per library, scenario and tool: the fastest of its runs.
 */
export async function runVersus(options: VersusOptions): Promise<VersusRow[]> {
  const cwd = await Deno.makeTempDir({ prefix: "stacksync-versus-" });
  const baseEnv: Record<string, string> = {};
  for (const name of ["PATH", "HOME", "DENO_DIR"]) {
    const value = Deno.env.get(name);
    if (value !== undefined && value !== "") baseEnv[name] = value;
  }
  const bench: Bench = {
    cwd,
    baseEnv,
    immichStack: options.immichStack,
    progress: options.progress ?? ((line) => console.error(line)),
  };
  const seed = String(options.seed ?? 1);
  const repeat = Math.max(1, options.repeat ?? 2);
  const quick = Math.max(1, options.quickRepeat ?? 5);
  const large = ["--assets", String(options.assets), "--seed", seed, "--partners"];
  try {
    bench.progress(`bench: side by side at ${options.assets} assets, then the small library`);
    return [
      ...await largeLibrary(bench, "no trash", [...large, "--without-archive"], repeat),
      ...await largeLibrary(bench, "trash", [
        ...large,
        "--without-archive",
        "--stacked-trash",
        String(options.stackedTrash),
      ], repeat),
      ...await smallLibrary(bench, [
        "--scenes",
        String(options.scenes.scenes),
        "--edits",
        String(options.scenes.edits),
        "--seed",
        seed,
      ], quick),
      ...await startUp(bench, quick),
    ];
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
}
