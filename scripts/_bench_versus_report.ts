/**
 * The side-by-side scenarios' targets and table (`_bench_versus.ts`): every stacksync figure
 * beside immich-stack's from the same bench run, as a ratio, and each performance target met or
 * missed. A stacksync run that failed misses its targets with the line that says why.
 *
 * @module
 */
import type { Tool, VersusLibrary, VersusRow, VersusScenario } from "./_bench_versus.ts";

/** What the rows were measured on, for their labels. */
export interface VersusSetup {
  readonly assets: number;
  readonly stackedTrash: number;
  readonly scenes: { readonly scenes: number; readonly edits: number };
  /** How immich-stack was found: its binary's SHA-256, or the line that says it was skipped. */
  readonly immichStack: { readonly sha256: string } | { readonly skipped: string };
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

const mb = (row: VersusRow) => row.peakRssMiB * 1.048576;
const total = (row: VersusRow) => Object.values(row.requests).reduce((a, b) => a + b, 0);

/**
 * The label of a library, as the targets and the table name it.
 *
 * @param library Which library.
 * @param setup Sizes.
 * @returns E.g. `200,000 assets, 1 % of them trashed in stacks`.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { libraryLabel } from "./_bench_versus_report.ts";
 *
 * const setup = {
 *   assets: 200_000,
 *   stackedTrash: 0.01,
 *   scenes: { scenes: 400, edits: 80 },
 *   immichStack: { skipped: "not set" },
 * };
 * assert.equal(libraryLabel("trash", setup), "200,000 assets, 1 % of them trashed in stacks");
 * assert.equal(libraryLabel("small", setup), "880 files (400 RAW+JPEG scenes, 80 edits)");
 * ```
 */
export function libraryLabel(library: VersusLibrary, setup: VersusSetup): string {
  switch (library) {
    case "no trash":
      return `${fmt(setup.assets)} assets, none trashed in stacks`;
    case "trash":
      return `${fmt(setup.assets)} assets, ${
        fmt(setup.stackedTrash * 100, 1).replace(/\.0$/, "")
      } ` +
        "% of them trashed in stacks";
    case "small": {
      const { scenes, edits } = setup.scenes;
      return `${fmt(2 * scenes + edits)} files (${fmt(scenes)} RAW+JPEG scenes, ${
        fmt(edits)
      } edits)`;
    }
    case "start-up":
      return "start-up";
  }
}

function find(
  rows: readonly VersusRow[],
  library: VersusLibrary,
  scenario: VersusScenario,
  tool: Tool,
): VersusRow | undefined {
  return rows.find((r) => r.library === library && r.scenario === scenario && r.tool === tool);
}

/** immich-stack's row beside a stacksync row: its own scenario, `--help` for start-up. */
function counterpart(rows: readonly VersusRow[], row: VersusRow): VersusRow | undefined {
  const scenario = row.library === "start-up" ? "--help" : row.scenario;
  return find(rows, row.library, scenario, "immich-stack");
}

const ratio = (a: number, b: number) => (b > 0 ? `${fmt(a / b, 2)} ×` : "–");

/** `met`, `**missed**`, or why the target could not be judged. */
function verdict(ss: VersusRow | undefined, ok: boolean | undefined): string {
  if (ss === undefined) return "not judged: not measured";
  if (ss.failure !== undefined) {
    return `**missed**: stacksync exited with ${ss.exitCode}: ${ss.failure}`;
  }
  if (ok === undefined) return "not judged: immich-stack was not measured";
  return ok ? "met" : "**missed**";
}

/** A target on stacksync's wall time as a share of immich-stack's; none when not measured. */
function wallShare(
  rows: readonly VersusRow[],
  target: { library: VersusLibrary; scenario: VersusScenario; share: number; text: string },
  label: string,
): string[] {
  const ss = find(rows, target.library, target.scenario, "stacksync");
  if (ss === undefined) return [];
  const is = find(rows, target.library, target.scenario, "immich-stack");
  const usable = is !== undefined && is.failure === undefined;
  const figures = usable
    ? `${fmt(ss.wallMs)} ms vs ${fmt(is.wallMs)} ms = ${ratio(ss.wallMs, is.wallMs)}`
    : `${fmt(ss.wallMs)} ms`;
  return [
    `${target.text} ≤ ${target.share} × immich-stack's wall, ${label}: ${figures} — ${
      verdict(ss, usable ? ss.wallMs <= target.share * is.wallMs : undefined)
    }`,
  ];
}

/** The targets of one large library. */
function largeTargets(rows: readonly VersusRow[], library: VersusLibrary, label: string): string[] {
  const lines = wallShare(
    rows,
    { library, scenario: "first run", share: 0.8, text: "First run" },
    label,
  );
  const first = find(rows, library, "first run", "stacksync");
  const isFirst = find(rows, library, "first run", "immich-stack");
  if (first !== undefined) {
    const beside = isFirst === undefined
      ? ""
      : ` (immich-stack: ${fmt(mb(isFirst))} MB, ${ratio(mb(first), mb(isFirst))})`;
    lines.push(
      `First run peak RSS ≤ 200 MB, ${label}: ${fmt(mb(first))} MB${beside} — ${
        verdict(first, mb(first) <= 200)
      }`,
    );
  }
  lines.push(
    ...wallShare(rows, { library, scenario: "full pass", share: 0.6, text: "Full pass" }, label),
  );
  const quiet = find(rows, library, "nothing to change", "stacksync");
  const isQuiet = find(rows, library, "nothing to change", "immich-stack");
  if (quiet !== undefined) {
    const beside = isQuiet === undefined
      ? ""
      : ` (immich-stack's pass: ${fmt(isQuiet.wallMs)} ms, ${ratio(quiet.wallMs, isQuiet.wallMs)})`;
    lines.push(
      `A pass with nothing to change ≤ 0.5 s including start-up, ${label}: ` +
        `${fmt(quiet.wallMs)} ms, ${quiet.pass ?? "no"} pass${beside} — ${
          verdict(quiet, quiet.wallMs <= 500)
        }`,
      `A pass with nothing to change makes ≤ 10 requests, ${label}: ${fmt(total(quiet))} ` +
        `request${total(quiet) === 1 ? "" : "s"} (${requestsText(quiet.requests, ", ")}) — ${
          verdict(quiet, total(quiet) <= 10)
        }`,
    );
  }
  const later = [find(rows, library, "full pass", "stacksync"), quiet]
    .filter((row) => row !== undefined);
  if (later.length > 0) {
    const worst = later.find((row) => row.failure !== undefined) ??
      later.reduce((a, b) => (mb(a) >= mb(b) ? a : b));
    lines.push(
      `Every pass after the first ≤ 160 MB peak RSS, ${label}: ${
        later.map((row) => `${row.scenario} ${fmt(mb(row))} MB`).join(", ")
      } — ${verdict(worst, mb(worst) <= 160)}`,
    );
  }
  if (first !== undefined && isFirst !== undefined) {
    const differ = first.stacksDiffer ?? (first.stacksDigest === isFirst.stacksDigest ? 0 : 1);
    lines.push(
      `The same stacks after each tool's first run, ${label}: stacksync ` +
        `${fmt(first.stacksAfter ?? 0)}, immich-stack ${fmt(isFirst.stacksAfter ?? 0)} stacks, ` +
        `${fmt(differ)} of them differ — ${
          differ === 0
            ? "met: the same covers and members"
            : first.failure === undefined
            ? "**not the same**"
            : verdict(first, false)
        }`,
    );
  }
  return lines;
}

/** The small library's target and its three passes. */
function smallTargets(rows: readonly VersusRow[], label: string): string[] {
  const lines: string[] = [];
  const third = find(rows, "small", "pass 3", "stacksync");
  if (third !== undefined) {
    const is = counterpart(rows, third);
    const beside = is === undefined ? "" : ` (immich-stack: ${fmt(is.wallMs)} ms, ` +
      `${fmt(mb(is))} MB; ${ratio(third.wallMs, is.wallMs)}, ${ratio(mb(third), mb(is))})`;
    lines.push(
      `${label}: pass 3, with nothing to change, ≤ 0.25 s and ≤ 50 MB: ${fmt(third.wallMs)} ms, ` +
        `${fmt(mb(third))} MB, ${third.pass ?? "no"} pass${beside} — ${
          verdict(third, third.wallMs <= 250 && mb(third) <= 50)
        }`,
    );
  }
  for (const tool of ["stacksync", "immich-stack"] as const) {
    const passes = (["pass 1", "pass 2", "pass 3"] as const).map((s) =>
      find(rows, "small", s, tool)
    )
      .filter((row) => row !== undefined);
    if (passes.length === 0) continue;
    lines.push(
      `${label}, three passes in a row, ${tool}: ${
        passes.map((row) => `${fmt(row.wallMs)} ms`).join(", ")
      }; ${passes.map((row) => fmt(mb(row))).join(", ")} MB`,
    );
  }
  return lines;
}

function startUpTargets(rows: readonly VersusRow[]): string[] {
  const empty = find(rows, "start-up", "empty script", "deno");
  const isHelp = find(rows, "start-up", "--help", "immich-stack");
  return (["--version", "--help"] as const).flatMap((scenario) => {
    const row = find(rows, "start-up", scenario, "stacksync");
    if (row === undefined) return [];
    const beside = [
      empty && `an empty Deno script with the same flags: ${fmt(empty.wallMs)} ms, ` +
        `${fmt(mb(empty))} MB`,
      isHelp && `immich-stack --help: ${fmt(isHelp.wallMs)} ms, ${fmt(mb(isHelp))} MB`,
    ].filter(Boolean).join("; ");
    return [
      `\`${scenario}\` ≤ 0.12 s and ≤ 40 MB: ${fmt(row.wallMs)} ms, ${fmt(mb(row))} MB` +
      `${beside === "" ? "" : ` (${beside})`} — ${
        verdict(row, row.wallMs <= 120 && mb(row) <= 40)
      }`,
    ];
  });
}

/**
 * Judges the side-by-side rows against the performance targets: for each large library the first run
 * (≤ 0.8 × immich-stack's wall, ≤ 200 MB), the full pass (≤ 0.6 ×), the pass with nothing to
 * change (≤ 0.5 s, ≤ 10 requests), every later pass (≤ 160 MB) and whether both tools made the
 * same stacks; the small library's pass with nothing to change (≤ 0.25 s, ≤ 50 MB); start-up
 * (≤ 0.12 s, ≤ 40 MB).
 *
 * @param rows From {@linkcode runVersus}.
 * @param setup Sizes and how immich-stack was found.
 * @returns One line per target: the figures, then met, missed (with why) or not judged.
 */
export function judgeVersus(rows: readonly VersusRow[], setup: VersusSetup): string[] {
  return [
    ...largeTargets(rows, "trash", libraryLabel("trash", setup)),
    ...largeTargets(rows, "no trash", libraryLabel("no trash", setup)),
    ...smallTargets(rows, libraryLabel("small", setup)),
    ...startUpTargets(rows),
  ];
}

function requestsText(requests: Readonly<Record<string, number>>, separator: string): string {
  return Object.entries(requests).sort(([a], [b]) => a.localeCompare(b))
    .map(([endpoint, n]) => `${endpoint} ×${fmt(n)}`).join(separator);
}

/** A figure of the server's, or – for a run without one (start-up) or none at all. */
function served(row: VersusRow | undefined, figure: (row: VersusRow) => number): string {
  return row === undefined || row.library === "start-up" ? "–" : fmt(figure(row));
}

function tableRow(rows: readonly VersusRow[], row: VersusRow, setup: VersusSetup): string {
  const is = row.tool === "stacksync" ? counterpart(rows, row) : undefined;
  const pair = (a: number, b: number | undefined, digits = 0) =>
    `${fmt(a, digits)} | ${b === undefined ? "–" : fmt(b, digits)} | ${
      b === undefined ? "–" : ratio(a, b)
    }`;
  const scenario = row.tool === "deno" ? "empty Deno script" : row.scenario;
  const note = [
    row.pass === undefined ? undefined : `${row.pass} pass`,
    is?.scenario !== row.scenario && is !== undefined ? `immich-stack: ${is.scenario}` : undefined,
    row.failure === undefined ? undefined : `stacksync failed: ${row.failure}`,
    is?.failure === undefined ? undefined : `immich-stack failed: ${is.failure}`,
  ].filter((text) => text !== undefined).join("; ");
  return `| ${libraryLabel(row.library, setup)} | ${scenario} | ${pair(row.wallMs, is?.wallMs)} | ${
    pair(row.cpuMs, is?.cpuMs)
  } | ${pair(mb(row), is === undefined ? undefined : mb(is))} | ${served(row, total)} | ${
    served(is, total)
  } | ${served(row, (r) => r.writes)} | ${served(is, (r) => r.writes)} | ${
    row.stacksAfter === undefined ? "–" : fmt(row.stacksAfter)
  } | ${note === "" ? "–" : note} |`;
}

/**
 * Renders the side-by-side section of BENCHMARKS.md: how immich-stack was run, the targets and
 * one table row per stacksync scenario beside immich-stack's.
 *
 * @param rows From {@linkcode runVersus}.
 * @param setup Sizes and how immich-stack was found.
 * @returns Markdown, starting with its `##` heading.
 */
export function renderVersus(rows: readonly VersusRow[], setup: VersusSetup): string {
  const how = "sha256" in setup.immichStack
    ? `immich-stack built from its public source (binary SHA-256 ` +
      `${setup.immichStack.sha256.slice(0, 16)}…; scripts/_bench_immich_stack.ts says how to ` +
      "build it), run once per pass against a test server of its own loaded with the same library"
    : setup.immichStack.skipped;
  const shown = rows.filter((row) => row.tool !== "immich-stack");
  return [
    "## Side by side with immich-stack",
    "",
    `- ${how}.`,
    "- Both tools with their defaults but `PARENT_FILENAME_PROMOTE=cover,edit,crop,hdr,original," +
    "biggestNumber`, on libraries without archived photos (why: scripts/_bench_immich_stack.ts). " +
    'stacksync\'s default rules (`{"mode":"devices"}`) read each photo\'s camera from its ' +
    "EXIF and group bursts and edits that immich-stack's default CRITERIA leaves apart, so the " +
    "two make different stacks of the generated libraries (counted below): each does the work " +
    "its users get. stacksync as `deno task start` runs it, with a fresh state folder before " +
    "each first run; passes an hour apart on the server's clock.",
    "- Each scenario runs alternately, the fastest of each tool kept; ratios are stacksync's " +
    "figure over immich-stack's from the same run.",
    "",
    "### Targets against immich-stack",
    "",
    ...judgeVersus(rows, setup).map((line) => `- ${line}`),
    "",
    "### Results",
    "",
    "Wall and CPU in ms, peak RSS (VmHWM) in MB; s = stacksync, i = immich-stack.",
    "",
    "| library | scenario | wall s | wall i | × | CPU s | CPU i | × | RSS s | RSS i | × | requests s | requests i | writes s | writes i | stacks after | note |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ...shown.map((row) => tableRow(rows, row, setup)),
    "",
  ].join("\n");
}
