/**
 * `deno task bench`: measures the real stacksync CLI at library scale, against the targets that
 * BENCHMARKS.md lists.
 *
 * For each size it starts the Immich test server in a process of its own
 * (`scripts/_bench_server.ts`) with a generated library (`scripts/gen_library.ts`, plus a partner
 * whose assets search also returns), then runs `deno run <compile permission flags> main.ts` as a
 * subprocess over real HTTP, in this order:
 *
 * 1. **dry run** on the unstacked library (every read, the whole plan, no write), alternately
 *    with **plan** (`stacksync plan --out`: the same reads and plan, and the plan file), then
 *    **plan, page**, which adds the review page and its pictures (`--html`, PLAN_THUMBNAILS);
 * 2. **first run** on the unstacked library (creates every stack), with the journal in a state
 *    folder of its own, then **undo** of it (every stack deleted again, through the journal),
 *    then **first run, no journal** (`JOURNAL=false`); further repeats unstack the library
 *    through the bench server instead of an undo;
 * 3. **floor**: the same Immich client only downloading and parsing `GET /stacks` and every
 *    search page, with the EXIF the default rules read (`scripts/_bench_floor.ts`), now that the
 *    library is stacked;
 * 4. **steady state**: a full pass (`--full`) with nothing to change, an hour after the first
 *    run (the server's clock is moved forward between passes, as cron's interval would);
 * 5. **incremental, no change**: an hour later, a pass that finds nothing changed through the
 *    cache of the last one; **incremental, 100 changes**: an hour after 100 assets changed (50
 *    uploaded as pairs, 25 trashed, 25 given another capture time); the size of the cache;
 * 6. **dry run, stacked** (`--full`), **backup** (`backup --out`) and **restore** of that
 *    backup, which finds nothing to change: the reads of a pass on the stacked library three
 *    ways;
 * 7. **full pass, timeline**: a dry full pass while `GET /stacks` answers 500, which reads the
 *    stacks through the timeline.
 * 8. at the smallest size only, with the server holding back each write by 20 ms: a **first run,
 *    slow writes** with one write in flight and one with 8 (`STACK_CONCURRENCY=8`), each on the
 *    unstacked library without a cache, and whether they made the same stacks.
 *
 * Each pair or group of compared scenarios runs `repeat` times alternately and the fastest of
 * each is kept, so that one noisy moment on a shared machine does not decide their ratio.
 *
 * Per run it records wall time, CPU time, peak RSS (`_bench_process.ts` says how), requests by
 * endpoint (from the server's log) and the grouping + promotion + planning time that the CLI logs at debug (`Computed … groups and the plan in … ms`). The
 * computing time comes from a second, debug-level run of the same scenario where the state allows
 * it (dry run, steady state), because debug logging of 50 000 groups would distort the timed run;
 * the first run computes exactly what the dry run before it computed.
 *
 * The size of the first run's journal (compressed, and as written before compression) is
 * recorded with it. Apart from the sizes, `main` measures the review page of a plan of 50 000
 * actions in Chromium (`_bench_page.ts`), then stacksync side by side with immich-stack
 * (`_bench_versus.ts`: a large library without and with a trash, a small one, start-up); `--only`
 * runs one part.
 *
 * It prints the results as Markdown; BENCHMARKS.md changes only with `--write` (or another file
 * with `--out`), and `--only` with `--write` keeps the other part of the file as it was, each part
 * saying which command measured it and when. `deno task bench --help` lists the options.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { benchPage, type PageBench } from "./_bench_page.ts";
import {
  cliCommand,
  isWrite,
  MAIN,
  measure,
  type Measurement,
  startServer,
} from "./_bench_process.ts";
import { findImmichStack, type ImmichStackBinary } from "./_bench_immich_stack.ts";
import { runVersus, type VersusRow } from "./_bench_versus.ts";
import { renderVersus, type VersusSetup } from "./_bench_versus_report.ts";
import { runScript, scriptArgs } from "./_script_args.ts";
import { RUN_FLAGS } from "./compile.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const FLOOR_SCRIPT = `${ROOT}scripts/_bench_floor.ts`;
const COMPUTED_LINE = /Computed (\d+) groups and the plan in ([\d.]+) ms/;

/** A scenario of {@linkcode runBench}. */
export type Scenario =
  | "dry run"
  | "plan"
  | "plan, page"
  | "first run"
  | "undo"
  | "first run, no journal"
  | "floor"
  | "steady state"
  | "incremental, no change"
  | "incremental, 100 changes"
  | "dry run, stacked"
  | "backup"
  | "restore"
  | "full pass, timeline"
  | "first run, slow writes"
  | "first run, slow writes, 8 lanes";

/** One row of the results. */
export interface BenchResult extends Omit<Measurement, "output"> {
  /** Assets of the benchmarked user. */
  readonly size: number;
  readonly scenario: Scenario;
  /** Requests by endpoint, e.g. `{"GET /stacks": 1, "POST /search/metadata": 200}`. */
  readonly requests: Readonly<Record<string, number>>;
  /** Write requests (POST/PUT/DELETE /stacks). */
  readonly writes: number;
  /** Stacks on the server after the run. */
  readonly stacksAfter: number;
  /** Grouping + promotion + planning in ms, from the CLI's debug line. */
  readonly computeMs?: number;
  /** Groups the CLI computed. */
  readonly groups?: number;
  /** The run's journal on disk: gzip-compressed, and as written before compression. */
  readonly journal?: { readonly bytes: number; readonly plainBytes: number };
  /** The kind of pass the CLI logged: `full` or `incremental`. */
  readonly pass?: string;
  /** The cache of incremental passes on disk after the run, in bytes. */
  readonly cacheBytes?: number;
  /** For the slow-write scenarios: the server's added wait per write, in ms. */
  readonly writeLatencyMs?: number;
  /** A digest of the stacks after the run, equal for runs that made the same stacks. */
  readonly stacksDigest?: string;
}

/** Options of {@linkcode runBench}. */
export interface BenchOptions {
  /** Assets per size. */
  readonly sizes: readonly number[];
  /** @default {1} */
  readonly seed?: number;
  /** Runs of floor and steady state per size; the fastest counts. @default {2} */
  readonly repeat?: number;
  /** Progress lines. @default {console.error} */
  readonly progress?: (line: string) => void;
  /**
   * The wait the server adds to each write in the slow-write scenarios, which run at the
   * smallest size only: a first run with one write in flight, then with STACK_CONCURRENCY=8.
   * @default {20}
   */
  readonly writeLatencyMs?: number;
}

/** The machine the figures were taken on. */
export interface Machine {
  readonly cpus: number;
  readonly cpuModel: string;
  readonly memoryGiB: number;
  readonly deno: string;
  readonly os: string;
}

/** The size of the files of the cache of incremental passes in a state folder. */
async function cacheSize(stateDir: string): Promise<number> {
  let bytes = 0;
  for await (const entry of Deno.readDir(`${stateDir}/cache`)) {
    if (entry.isFile) bytes += (await Deno.stat(`${stateDir}/cache/${entry.name}`)).size;
  }
  return bytes;
}

const PASS_LINE = /"?msg"?[=:]"(Full|Incremental) pass: /;

/** The size of the newest run's journals in a state folder, compressed and plain. */
async function journalSize(stateDir: string): Promise<{ bytes: number; plainBytes: number }> {
  const runs = (await Array.fromAsync(Deno.readDir(`${stateDir}/runs`))).map((e) => e.name).sort();
  const folder = `${stateDir}/runs/${runs.at(-1)}`;
  let bytes = 0;
  let plainBytes = 0;
  for await (const entry of Deno.readDir(folder)) {
    if (!entry.name.endsWith(".jsonl.gz")) continue;
    const path = `${folder}/${entry.name}`;
    bytes += (await Deno.stat(path)).size;
    const file = await Deno.open(path);
    for await (const chunk of file.readable.pipeThrough(new DecompressionStream("gzip"))) {
      plainBytes += chunk.length;
    }
  }
  return { bytes, plainBytes };
}

/**
 * Runs the benchmark: for each size, the four scenarios against a fresh server process.
 *
 * @param options Sizes, seed, repeats and a progress sink.
 * @returns One result per size and scenario, in run order.
 * @throws {Error} When the CLI or the floor client exits with a non-zero status.
 */
export async function runBench(options: BenchOptions): Promise<BenchResult[]> {
  const seed = options.seed ?? 1;
  const repeat = Math.max(1, options.repeat ?? 2);
  const progress = options.progress ?? ((line: string) => console.error(line));
  const cwd = await Deno.makeTempDir({ prefix: "stacksync-bench-" });
  const results: BenchResult[] = [];
  try {
    for (const size of options.sizes) {
      progress(`bench: loading ${size} assets`);
      const server = await startServer([
        "--assets",
        String(size),
        "--seed",
        String(seed),
        "--partners",
      ]);
      try {
        const baseEnv = {
          PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
          HOME: Deno.env.get("HOME") ?? cwd,
          DENO_DIR: Deno.env.get("DENO_DIR") ?? "",
          API_URL: server.url,
          API_KEY: server.key,
          RUN_MODE: "once",
          LOG_LEVEL: "info",
          STATE_DIR: `${cwd}/state`,
        };
        const env = Object.fromEntries(Object.entries(baseEnv).filter(([, v]) => v !== ""));
        const fastest = (rows: BenchResult[]) =>
          rows.reduce((best, row) => (row.wallMs < best.wallMs ? row : best));
        const run = async (
          scenario: Scenario,
          extraEnv: Record<string, string>,
          args: readonly string[] = [],
        ): Promise<BenchResult> => {
          const script = scenario === "floor" ? FLOOR_SCRIPT : MAIN;
          const measured = await measure(
            [...cliCommand(script, RUN_FLAGS), ...args],
            { ...env, ...extraEnv },
            cwd,
          );
          const requests = await server.command("requests");
          if (measured.exitCode !== 0) {
            throw new Error(
              `Cannot benchmark ${scenario} at ${size} assets as it exited with ` +
                `${measured.exitCode}: ${measured.output.slice(-2000)}`,
            );
          }
          const { output: _, ...figures } = measured;
          const writes = Object.entries(requests)
            .filter(([endpoint]) => isWrite(endpoint))
            .reduce((sum, [, n]) => sum + n, 0);
          const stacksAfter = (await server.command("stacks"))[0];
          const pass = PASS_LINE.exec(measured.output)?.[1]?.toLowerCase();
          progress(
            `bench: ${size} ${scenario}: ${Math.round(figures.wallMs)} ms wall, ` +
              `${Math.round(figures.cpuMs)} ms CPU, ${figures.peakRssMiB.toFixed(0)} MiB, ` +
              `${writes} writes${pass === undefined ? "" : `, ${pass} pass`}`,
          );
          return {
            size,
            scenario,
            ...figures,
            requests,
            writes,
            stacksAfter,
            ...(pass === undefined ? {} : { pass }),
          };
        };
        /** The compute time of a scenario, from a debug-level rerun that changes nothing. */
        const computed = async (
          scenario: Scenario,
          extraEnv: Record<string, string>,
          args: readonly string[] = [],
        ) => {
          const measured = await measure(
            [...cliCommand(MAIN, RUN_FLAGS), ...args],
            { ...env, ...extraEnv, LOG_LEVEL: "debug" },
            cwd,
          );
          await server.command("requests");
          const match = COMPUTED_LINE.exec(measured.output);
          if (measured.exitCode !== 0 || match === null) {
            throw new Error(
              `Cannot read the compute time of ${scenario} at ${size} assets: ` +
                measured.output.slice(-2000),
            );
          }
          return { groups: Number(match[1]), computeMs: Number(match[2]) };
        };

        const dryEnv = { DRY_RUN: "true" };
        const planFile = `${cwd}/plan-${size}.json`;
        const dries: BenchResult[] = [];
        const plans: BenchResult[] = [];
        for (let i = 0; i < repeat; i++) {
          dries.push(await run("dry run", dryEnv));
          plans.push(await run("plan", {}, ["plan", "--out", planFile]));
        }
        const dryCompute = await computed("dry run", dryEnv);
        results.push({ ...fastest(dries), ...dryCompute }, fastest(plans));
        results.push(
          await run("plan, page", {}, ["plan", "--out", planFile, "--html", `${cwd}/plan.html`]),
        );
        const journaled: BenchResult[] = [];
        const unjournaled: BenchResult[] = [];
        let undo: BenchResult | undefined;
        // A first run finds no cache; the hour between passes is the server's clock moved on.
        const fresh = () =>
          Deno.remove(`${env.STATE_DIR}/cache`, { recursive: true }).catch(() => {});
        const hourLater = () => server.command(`advance ${3_600_000}`);
        for (let i = 0; i < repeat; i++) {
          if (i > 0) await server.command("unstack");
          await fresh();
          const first = await run("first run", {});
          journaled.push({ ...first, journal: await journalSize(env.STATE_DIR) });
          if (i === 0) undo = await run("undo", {}, ["undo"]);
          else await server.command("unstack");
          await fresh();
          unjournaled.push(await run("first run, no journal", { JOURNAL: "false" }));
        }
        results.push({ ...fastest(journaled), ...dryCompute }, undo!);
        results.push({ ...fastest(unjournaled), ...dryCompute });
        const floors: BenchResult[] = [];
        const steadies: BenchResult[] = [];
        for (let i = 0; i < repeat; i++) {
          floors.push(await run("floor", {}));
          await hourLater();
          steadies.push(await run("steady state", {}, ["--full"]));
        }
        results.push(fastest(floors));
        results.push({
          ...fastest(steadies),
          ...(await computed("steady state", {}, ["--full"])),
        });
        const unchanged: BenchResult[] = [];
        const changed: BenchResult[] = [];
        for (let i = 0; i < repeat; i++) {
          await hourLater();
          unchanged.push(await run("incremental, no change", {}));
          await hourLater();
          await server.command(`change ${100}`);
          changed.push(await run("incremental, 100 changes", {}));
        }
        const cacheBytes = await cacheSize(env.STATE_DIR);
        results.push({ ...fastest(unchanged), cacheBytes }, { ...fastest(changed), cacheBytes });
        const backupFile = `${cwd}/backup-${size}.json`;
        const reads: Record<"dry run, stacked" | "backup" | "restore", BenchResult[]> = {
          "dry run, stacked": [],
          backup: [],
          restore: [],
        };
        for (let i = 0; i < repeat; i++) {
          reads["dry run, stacked"].push(await run("dry run, stacked", dryEnv, ["--full"]));
          reads.backup.push(await run("backup", {}, ["backup", "--out", backupFile]));
          reads.restore.push(await run("restore", {}, ["restore", backupFile]));
        }
        for (const rows of Object.values(reads)) results.push(fastest(rows));
        await server.command("fail-stacks 0");
        results.push(await run("full pass, timeline", dryEnv, ["--full"]));
        await server.command("fail-stacks off");
        if (size === Math.min(...options.sizes)) {
          // A server slow to answer each write, where writes in flight together pay off.
          const writeLatencyMs = options.writeLatencyMs ?? 20;
          await server.command(`latency ${writeLatencyMs}`);
          for (
            const [scenario, lanes] of [
              ["first run, slow writes", 1],
              ["first run, slow writes, 8 lanes", 8],
            ] as const
          ) {
            await server.command("unstack");
            await fresh();
            const row = await run(scenario, { STACK_CONCURRENCY: String(lanes) });
            const { digest } = await server.command("digest");
            results.push({ ...row, ...dryCompute, writeLatencyMs, stacksDigest: digest });
          }
          await server.command("latency 0");
        }
      } finally {
        await server.close();
      }
    }
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
  return results;
}

/**
 * Describes this machine for the results.
 *
 * @returns CPU count and model, memory, Deno version and OS.
 */
export function describeMachine(): Machine {
  // Deno reads /proc only with --allow-all; `sh` may.
  let cpuModel = "unknown";
  try {
    const out = new Deno.Command("sh", {
      args: ["-c", "grep -m1 '^model name' /proc/cpuinfo"],
      stderr: "null",
    }).outputSync();
    cpuModel = /:\s*(.+)$/.exec(new TextDecoder().decode(out.stdout).trim())?.[1] ?? cpuModel;
  } catch {
    // No sh or no /proc: the model stays unknown.
  }
  return {
    cpus: navigator.hardwareConcurrency,
    cpuModel,
    memoryGiB: Deno.systemMemoryInfo().total / 2 ** 30,
    deno: Deno.version.deno,
    os: `${Deno.build.os} ${Deno.osRelease()}`,
  };
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

function requestsText(requests: Readonly<Record<string, number>>): string {
  return Object.entries(requests)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([endpoint, n]) => `${endpoint} ×${fmt(n)}`)
    .join("<br>");
}

/** The review page's figures, or why Chromium could not measure them. */
export type PageFigures = PageBench | { readonly failure: string };

/** Derived figures that the targets are judged on. */
export interface Verdicts {
  readonly lines: readonly string[];
}

function find(results: readonly BenchResult[], size: number, scenario: Scenario) {
  return results.find((r) => r.size === size && r.scenario === scenario);
}

/**
 * Judges the results against stacksync's performance targets at the largest size (a steady-state
 * pass close to the cost of only reading, no write, bounded memory and computing time, cheap
 * writes; docs/architecture.md, "Performance"), and the growth from the smallest to the largest.
 *
 * @param results From {@linkcode runBench}.
 * @param options The review page's figures, from {@linkcode benchPage}, or why they are missing.
 * @returns One line per target, saying met or missed with the measured figure.
 */
export function judge(
  results: readonly BenchResult[],
  options: { readonly page?: PageFigures } = {},
): Verdicts {
  const sizes = [...new Set(results.map((r) => r.size))].sort((a, b) => a - b);
  const big = sizes[sizes.length - 1];
  const small = sizes[0];
  const lines: string[] = [];
  const mark = (ok: boolean) => (ok ? "met" : "**missed**");
  const steady = find(results, big, "steady state");
  const floor = find(results, big, "floor");
  const first = find(results, big, "first run");
  const dry = find(results, big, "dry run");
  if (steady && floor) {
    const ratio = steady.wallMs / floor.wallMs;
    lines.push(
      `Steady state wall ≤ 1.5 × floor at ${fmt(big)}: ${fmt(steady.wallMs)} ms vs ` +
        `${fmt(floor.wallMs)} ms = ${fmt(ratio, 2)} × — ${mark(ratio <= 1.5)}`,
    );
    lines.push(
      `Steady state sends no write: ${fmt(steady.writes)} writes — ${mark(steady.writes === 0)}`,
    );
  }
  const passes: readonly Scenario[] = [
    "dry run",
    "first run",
    "first run, no journal",
    "steady state",
    "dry run, stacked",
  ];
  const peak = Math.max(
    ...results.filter((r) => r.size === big && passes.includes(r.scenario))
      .map((r) => r.peakRssMiB),
  );
  lines.push(
    `Peak RSS of the CLI ≤ 220 MB at ${fmt(big)}: ${fmt(peak * 1.048576)} MB (${fmt(peak)} MiB) — ${
      mark(peak * 1.048576 <= 220)
    }`,
  );
  const compute = Math.max(
    ...results.filter((r) => r.size === big && r.computeMs !== undefined).map((r) => r.computeMs!),
  );
  lines.push(
    `Grouping + promotion + planning < 1.5 s at ${fmt(big)}: ${fmt(compute)} ms — ${
      mark(compute < 1500)
    }`,
  );
  if (first && dry && first.writes > 0) {
    // The dry run before it did every read and the whole plan: the rest is the writes' cost.
    const perWrite = (first.cpuMs - dry.cpuMs) / first.writes;
    const overall = first.cpuMs / first.writes;
    lines.push(
      `First run client CPU per write < 0.5 ms: ${fmt(perWrite, 3)} ms (the run's CPU beyond ` +
        `the dry run's, over ${fmt(first.writes)} writes; all its CPU over them: ` +
        `${fmt(overall, 3)} ms) — ${mark(perWrite < 0.5)}`,
    );
  }
  const bare = find(results, big, "first run, no journal");
  if (first && bare) {
    const extra = first.wallMs / bare.wallMs - 1;
    const memory = (first.peakRssMiB - bare.peakRssMiB) * 1.048576;
    lines.push(
      `Journaling adds ≤ 10 % to the first run's wall at ${fmt(big)}: ${fmt(first.wallMs)} ms ` +
        `vs ${fmt(bare.wallMs)} ms without = ${extra >= 0 ? "+" : ""}${fmt(extra * 100, 1)} % — ${
          mark(extra <= 0.1)
        }`,
    );
    lines.push(
      `Journaling adds ≤ 30 MB to the first run's peak RSS at ${fmt(big)}: ` +
        `${fmt(first.peakRssMiB * 1.048576)} MB vs ${fmt(bare.peakRssMiB * 1.048576)} MB ` +
        `without = ${memory >= 0 ? "+" : ""}${fmt(memory, 1)} MB — ${mark(memory <= 30)}`,
    );
  }
  if (first?.journal) {
    lines.push(
      `The first run's journal at ${fmt(big)}: ${fmt(first.journal.bytes / 1e6, 1)} MB on disk ` +
        `(gzip), ${fmt(first.journal.plainBytes / 1e6, 1)} MB as written, for ` +
        `${fmt(first.writes)} writes`,
    );
  }
  const undo = find(results, big, "undo");
  if (undo && first) {
    lines.push(
      `Undo of the first run puts back every stack at ${fmt(big)}: ${fmt(undo.stacksAfter)} ` +
        `stacks left, ${fmt(undo.writes)} writes for the run's ${fmt(first.writes)}, ` +
        `${fmt(undo.wallMs)} ms, ${fmt(undo.peakRssMiB * 1.048576)} MB peak RSS — ${
          mark(undo.stacksAfter === 0 && undo.writes === first.writes)
        }`,
    );
  }
  const total = (r: BenchResult) => Object.values(r.requests).reduce((a, b) => a + b, 0);
  const noChange = find(results, big, "incremental, no change");
  if (noChange) {
    lines.push(
      `Incremental pass with no change ≤ 1 s wall and ≤ 10 requests at ${fmt(big)}: ` +
        `${fmt(noChange.wallMs)} ms, ${total(noChange)} requests (${noChange.pass} pass) — ${
          mark(noChange.wallMs <= 1000 && total(noChange) <= 10 && noChange.pass === "incremental")
        }`,
    );
  }
  const hundred = find(results, big, "incremental, 100 changes");
  if (hundred) {
    lines.push(
      `Incremental pass with 100 changed assets ≤ 2 s wall at ${fmt(big)}: ` +
        `${fmt(hundred.wallMs)} ms, ${total(hundred)} requests, ${fmt(hundred.writes)} writes ` +
        `(${hundred.pass} pass) — ${
          mark(hundred.wallMs <= 2000 && hundred.pass === "incremental")
        }`,
    );
  }
  if (noChange && hundred) {
    const most = Math.max(noChange.peakRssMiB, hundred.peakRssMiB) * 1.048576;
    lines.push(
      `Peak RSS of incremental passes ≤ 150 MB at ${fmt(big)}: ` +
        `${fmt(noChange.peakRssMiB * 1.048576)} MB with no change, ` +
        `${fmt(hundred.peakRssMiB * 1.048576)} MB with 100 changes — ${mark(most <= 150)}`,
    );
  }
  if (hundred?.cacheBytes !== undefined) {
    lines.push(
      `The cache of incremental passes at ${fmt(big)}: ${fmt(hundred.cacheBytes / 1e6, 1)} MB ` +
        "on disk",
    );
  }
  const timeline = find(results, big, "full pass, timeline");
  if (timeline) {
    const buckets = (timeline.requests["GET /timeline/buckets"] ?? 0) +
      (timeline.requests["GET /timeline/bucket"] ?? 0);
    const stackReads = timeline.requests["GET /stacks/{id}"] ?? 0;
    const pages = timeline.requests["POST /search/metadata"] ?? 0;
    lines.push(
      `Full pass through the timeline when GET /stacks answers 500 at ${fmt(big)}: ` +
        `${fmt(timeline.wallMs)} ms, ${fmt(total(timeline))} requests: ${fmt(buckets)} ` +
        `timeline reads, ${fmt(pages)} search pages, ${fmt(stackReads)} stack reads for ` +
        `${fmt(timeline.stacksAfter)} stacks — ${
          mark(timeline.exitCode === 0 && stackReads <= timeline.stacksAfter)
        }`,
    );
  }
  const plan = find(results, big, "plan");
  if (plan && dry) {
    const ratio = plan.wallMs / dry.wallMs;
    lines.push(
      `Plan ≤ 1.2 × a dry run at ${fmt(big)}: ${fmt(plan.wallMs)} ms vs ${fmt(dry.wallMs)} ms ` +
        `= ${fmt(ratio, 2)} ×, ${fmt(plan.writes)} writes — ${
          mark(ratio <= 1.2 && plan.writes === 0)
        }`,
    );
  }
  const page = find(results, big, "plan, page");
  if (page && plan) {
    const pictures = page.requests["GET /assets/{id}/thumbnail"] ?? 0;
    lines.push(
      `Plan with the review page at ${fmt(big)}: ${fmt(page.wallMs)} ms, ` +
        `${fmt(page.wallMs - plan.wallMs)} ms more than the plan alone for ${fmt(pictures)} ` +
        "pictures and the page",
    );
  }
  if (options.page !== undefined && "failure" in options.page) {
    lines.push(
      "Review page opens and shows its last card in Chromium < 3 s: not measured: " +
        `${options.page.failure} — **missed**`,
    );
  } else if (options.page !== undefined) {
    const { actions, openMs, scrollMs, bytes, cardsInDocument } = options.page;
    lines.push(
      `Review page of ${fmt(actions)} actions opens and shows its last card in Chromium < 3 s: ` +
        `${fmt(openMs)} ms to the first card + ${fmt(scrollMs)} ms to the last (End) = ` +
        `${fmt(openMs + scrollMs)} ms, ${fmt(bytes / 1e6, 1)} MB, ${fmt(cardsInDocument)} cards ` +
        `in the document — ${mark(openMs + scrollMs < 3000)}`,
    );
  }
  const serial = find(results, small, "first run, slow writes");
  const lanes = find(results, small, "first run, slow writes, 8 lanes");
  if (serial && lanes) {
    const speedup = serial.wallMs / lanes.wallMs;
    const same = serial.stacksDigest === lanes.stacksDigest && serial.writes === lanes.writes;
    lines.push(
      `STACK_CONCURRENCY=8 makes a first run ≥ 4 × faster than 1 with ${serial.writeLatencyMs} ms ` +
        `per write at ${fmt(small)}: ${fmt(serial.wallMs)} ms vs ${fmt(lanes.wallMs)} ms = ` +
        `${fmt(speedup, 2)} ×, ${same ? "the same" : "**not the same**"} ${
          fmt(lanes.stacksAfter)
        } ` +
        `stacks — ${mark(speedup >= 4 && same)}`,
    );
  }
  const stackedDry = find(results, big, "dry run, stacked");
  for (const scenario of ["backup", "restore"] as const) {
    const row = find(results, big, scenario);
    if (!row || !stackedDry) continue;
    const ratio = row.wallMs / stackedDry.wallMs;
    lines.push(
      `${scenario === "backup" ? "Backup" : "Restore"} with nothing to change ≤ 1.5 × a dry run ` +
        `at ${fmt(big)}: ${fmt(row.wallMs)} ms vs ${fmt(stackedDry.wallMs)} ms (dry run of the ` +
        `stacked library) = ${fmt(ratio, 2)} ×, ${fmt(row.writes)} writes — ${
          mark(ratio <= 1.5 && row.writes === 0)
        }`,
    );
  }
  if (small !== big) {
    const growth = big / small;
    for (const scenario of ["steady state", "first run", "dry run"] as const) {
      const a = find(results, small, scenario);
      const b = find(results, big, scenario);
      if (!a || !b) continue;
      const time = b.wallMs / a.wallMs;
      const cpu = b.cpuMs / a.cpuMs;
      const memory = b.peakRssMiB / a.peakRssMiB;
      lines.push(
        `Growth ${fmt(small)} → ${fmt(big)} (${fmt(growth)} × the assets), ${scenario}: ` +
          `wall ${fmt(time, 2)} ×, CPU ${fmt(cpu, 2)} ×, peak RSS ${fmt(memory, 2)} × — ${
            mark(time <= growth * 1.1 && cpu <= growth * 1.1 && memory <= growth * 1.1)
          }`,
      );
    }
  }
  return { lines };
}

/**
 * Renders the results as the BENCHMARKS.md document.
 *
 * @param results From {@linkcode runBench}.
 * @param options The machine, the command that produced the results, and notes.
 * @returns Markdown text.
 */
export function renderBenchmarks(
  results: readonly BenchResult[],
  options: {
    readonly machine: Machine;
    readonly command: string;
    readonly date: string;
    /** The review page's figures. */
    readonly page?: PageFigures;
    /** The side-by-side scenarios with immich-stack, from {@linkcode runVersus}. */
    readonly versus?: { readonly rows: readonly VersusRow[]; readonly setup: VersusSetup };
    /** Parts of an earlier file kept where this run measured none (`--only`). */
    readonly kept?: KeptParts;
  },
): string {
  const m = options.machine;
  const measuredBy = `_Measured by \`${options.command}\` on ${options.date}._\n`;
  const rows = results.map((r) =>
    `| ${fmt(r.size)} | ${r.scenario} | ${r.pass ?? "–"} | ${fmt(r.wallMs)} | ${fmt(r.cpuMs)} | ${
      fmt(r.peakRssMiB * 1.048576)
    } | ${r.computeMs === undefined ? "–" : fmt(r.computeMs)} | ${
      r.groups === undefined ? "–" : fmt(r.groups)
    } | ${fmt(r.writes)} | ${fmt(r.stacksAfter)} | ${requestsText(r.requests)} |`
  );
  return [
    "# Benchmarks",
    "",
    "Generated by `deno task bench` (scripts/bench.ts); re-run it to refresh this file.",
    "",
    `- Machine: ${m.cpus} CPUs (${m.cpuModel}), ${fmt(m.memoryGiB, 1)} GiB memory, ${m.os}`,
    `- Deno ${m.deno}; the CLI runs as \`deno run ${RUN_FLAGS.join(" ")} main.ts\``,
    "- Library: `scripts/gen_library.ts`, seed 1, one user plus a partner with a tenth as many " +
    "assets (search returns partner assets; the client drops them), on the Immich test server in " +
    "its own process on loopback. Default settings (the default rules, which read EXIF; " +
    "promotion; no archived/trashed/videos).",
    "",
    ...(results.length === 0
      ? keptPart(options.kept?.own)
      : [...ownSections(results, rows, options.page), measuredBy]),
    ...(options.versus === undefined
      ? keptPart(options.kept?.versus)
      : [renderVersus(options.versus.rows, options.versus.setup), measuredBy]),
  ].join("\n");
}

/** The two parts of a BENCHMARKS.md, each as written with the line saying what measured it. */
export interface KeptParts {
  readonly own?: string;
  readonly versus?: string;
}

const OWN_HEADING = "## Targets";
const VERSUS_HEADING = "## Side by side with immich-stack";

function keptPart(text: string | undefined): string[] {
  return text === undefined ? [] : [text.trimEnd(), ""];
}

/**
 * Reads the parts of an earlier BENCHMARKS.md, so that a run of one part (`--only`) keeps the
 * other as it was.
 *
 * @param text The file, notes included.
 * @returns Each part found, from its heading to the next part or the notes.
 */
export function benchmarkParts(text: string): KeptParts {
  const end = (from: number) => {
    const stops = [text.indexOf(VERSUS_HEADING, from + 1), text.indexOf(NOTES_MARKER, from)]
      .filter((at) => at >= 0);
    return stops.length === 0 ? text.length : Math.min(...stops);
  };
  const own = text.indexOf(`${OWN_HEADING}\n`);
  const versus = text.indexOf(VERSUS_HEADING);
  return {
    ...(own < 0 ? {} : { own: text.slice(own, end(own)) }),
    ...(versus < 0 ? {} : { versus: text.slice(versus, end(versus)) }),
  };
}

/** The Targets and Results of stacksync's own scenarios. */
function ownSections(
  results: readonly BenchResult[],
  rows: readonly string[],
  page: PageFigures | undefined,
): string[] {
  return [
    OWN_HEADING,
    "",
    ...judge(results, { page }).lines.map((line) => `- ${line}`),
    "",
    "## Results",
    "",
    "Wall and CPU in ms; peak RSS (VmHWM) in MB; compute = grouping + promotion + planning as the " +
    "CLI logs it at debug (taken from a debug-level rerun of the same state; the first run " +
    "computes what the dry run before it computed). Floor and steady state: fastest of the " +
    "repeats. Writes = POST/PUT/DELETE /stacks.",
    "",
    "| assets | scenario | pass | wall | CPU | peak RSS | compute | groups | writes | stacks after | requests |",
    "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ...rows,
    "",
  ];
}

/** Hand-written analysis below this line survives re-runs of the bench. */
const NOTES_MARKER = "<!-- notes: kept when deno task bench rewrites this file -->";

async function keptParts(path: string): Promise<KeptParts | undefined> {
  try {
    return benchmarkParts(await Deno.readTextFile(path));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

async function keptNotes(path: string): Promise<string> {
  try {
    const old = await Deno.readTextFile(path);
    const at = old.indexOf(NOTES_MARKER);
    return at < 0 ? `\n${NOTES_MARKER}\n` : `\n${old.slice(at)}`;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return `\n${NOTES_MARKER}\n`;
    throw error;
  }
}

const USAGE = `Usage: deno task bench [options]

Measures the real stacksync CLI against the Immich test server with generated libraries, and
prints the results as Markdown. BENCHMARKS.md changes only with --write.

Options:
  --sizes <n,…>   Assets of the measured user, one run per size (default: 20000,200000)
  --seed <n>      Seed of the generated library (default: 1)
  --repeat <n>    Runs of each compared scenario per size; the fastest counts (default: 2)
  --versus-size <n>
                  Assets of the libraries measured side by side with immich-stack, without and
                  with 1 % of them trashed in stacks (default: the largest of --sizes); the small
                  library (880 files) and start-up run 2 × repeat + 1 times
  --only <part>   own: only stacksync's own scenarios and the review page; versus: only the
                  side-by-side scenarios (default: both)
  --write         Write the results to BENCHMARKS.md, keeping its notes below the marker (and,
                  with --only, the other part as it was)
  --out <file>    Write them to this file instead (implies --write)
  --help          Show this help

immich-stack is the binary named by IMMICH_STACK_BIN; without it the side-by-side scenarios
measure stacksync alone. scripts/_bench_immich_stack.ts says how to build it from its source.`;

/** What the command line asks the bench to do. */
interface BenchCommand {
  readonly sizes: number[];
  readonly seed: number;
  readonly repeat: number;
  /** Assets of the side-by-side libraries. */
  readonly versusSize: number;
  /** Which scenarios run: undefined = all. */
  readonly only?: "own" | "versus";
  readonly immichStack: ImmichStackBinary;
  /** Where to write the results; undefined = print only. */
  readonly out?: string;
}

function benchCommand(args: readonly string[]): BenchCommand | "help" {
  const values = scriptArgs("bench", args, {
    sizes: { type: "string", default: "20000,200000" },
    seed: { type: "string", default: "1" },
    repeat: { type: "string", default: "2" },
    "versus-size": { type: "string" },
    only: { type: "string" },
    write: { type: "boolean" },
    out: { type: "string" },
    help: { type: "boolean" },
  });
  if (values.help) return "help";
  const wholeNumbers = (flag: string, text: string, least: number) => {
    const numbers = text.split(",").map((item) => Number(item.trim()));
    if (numbers.some((n) => !Number.isSafeInteger(n) || n < least)) {
      throw new RangeError(
        `Cannot run the bench as ${flag} needs whole numbers of at least ${least}: current ` +
          `value is ${text}`,
      );
    }
    return numbers;
  };
  const [seed] = wholeNumbers("--seed", values.seed, 0);
  const [repeat] = wholeNumbers("--repeat", values.repeat, 1);
  const sizes = wholeNumbers("--sizes", values.sizes, 1);
  const [versusSize] = values["versus-size"] === undefined
    ? [Math.max(...sizes)]
    : wholeNumbers("--versus-size", values["versus-size"], 1);
  if (values.only !== undefined && values.only !== "own" && values.only !== "versus") {
    throw new RangeError(
      `Cannot run the bench as --only takes own or versus: current value is ${values.only}`,
    );
  }
  return {
    sizes,
    seed,
    repeat,
    versusSize,
    only: values.only,
    immichStack: findImmichStack(Deno.env.toObject()),
    out: values.out ?? (values.write ? `${ROOT}BENCHMARKS.md` : undefined),
  };
}

/** The review page's figures, measured in Chromium, or why they could not be. */
async function pageFigures(): Promise<PageFigures> {
  let page: PageBench;
  try {
    page = await benchPage({ actions: 50_000, pictures: 5000 });
  } catch (error) {
    const failure = error instanceof Error ? error.message : String(error);
    console.error(`bench: review page not measured: ${failure}`);
    return { failure };
  }
  console.error(
    `bench: review page of ${page.actions} actions: ${Math.round(page.openMs)} ms open, ` +
      `${Math.round(page.scrollMs)} ms to the last card`,
  );
  return page;
}

/** The side-by-side scenarios, and what they were measured on. */
async function versusFigures(
  command: BenchCommand,
): Promise<{ rows: VersusRow[]; setup: VersusSetup }> {
  const found = command.immichStack;
  if ("skipped" in found) console.error(`bench: ${found.skipped}`);
  const setup: VersusSetup = {
    assets: command.versusSize,
    stackedTrash: 0.01,
    scenes: { scenes: 400, edits: 80 },
    immichStack: "skipped" in found ? found : { sha256: await sha256Of(found.path) },
  };
  const rows = await runVersus({
    ...setup,
    seed: command.seed,
    repeat: command.repeat,
    quickRepeat: 2 * command.repeat + 1,
    immichStack: "path" in found ? found.path : undefined,
  });
  return { rows, setup };
}

async function sha256Of(path: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(path));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function bench(command: BenchCommand): Promise<number> {
  const { sizes, seed, repeat, out, only } = command;
  const results = only === "versus" ? [] : await runBench({ sizes, seed, repeat });
  const page = only === "versus" ? undefined : await pageFigures();
  const versus = only === "own" ? undefined : await versusFigures(command);
  const text = renderBenchmarks(results, {
    machine: describeMachine(),
    command: ["deno task bench", ...Deno.args].join(" "),
    date: new Date().toISOString().slice(0, 10),
    page,
    versus,
    kept: only === undefined || out === undefined ? undefined : await keptParts(out),
  });
  console.log(text);
  if (out === undefined) {
    console.error("bench: BENCHMARKS.md is unchanged: add --write to save these figures");
    return 0;
  }
  await Deno.writeTextFile(out, text + (await keptNotes(out)));
  // Formatted as `deno task check` expects, so a fresh run leaves the tree clean.
  await new Deno.Command(Deno.execPath(), { args: ["fmt", "--quiet", out] }).output();
  console.error(`bench: wrote ${out}`);
  return 0;
}

if (import.meta.main) {
  Deno.exit(await runScript(Deno.args, { usage: USAGE, parse: benchCommand, run: bench }));
}
