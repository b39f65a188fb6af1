/**
 * The task scripts as a contributor runs them, as subprocesses with the permission flags their
 * deno.json tasks give: `deno task bench` changes BENCHMARKS.md only when asked and explains
 * itself, `scripts/bench_grouping.ts` measures the groupings on their own, and `deno task
 * sandbox` serves a stand-in Immich to try settings against until it is stopped.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import denoJson from "../deno.json" with { type: "json" };
import { commandOutput as output, runCli } from "./_cli.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** `deno run` with a task's flags and script, from the repository root. */
function taskCommand(task: keyof typeof denoJson.tasks, args: readonly string[]): Deno.Command {
  const [deno, run, ...rest] = denoJson.tasks[task].split(" ");
  assert.deepEqual([deno, run], ["deno", "run"]);
  return new Deno.Command(Deno.execPath(), {
    args: [run, "--no-prompt", ...rest, ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
}

Deno.test("deno task bench answers --help with its usage and a bad flag with one line", async () => {
  const [help, bad] = await Promise.all([
    output(taskCommand("bench", ["--help"])),
    output(taskCommand("bench", ["--size", "2000"])),
  ]);
  assert.deepEqual([help.code, help.stderr], [0, ""]);
  assert.match(help.stdout, /^Usage: deno task bench \[options\]\n/);
  for (const option of ["--sizes", "--seed", "--repeat", "--write", "--out", "--help"]) {
    assert.match(help.stdout, new RegExp(`^  ${option}\\b`, "m"), option);
  }
  assert.deepEqual(bad, {
    code: 2,
    stdout: "",
    stderr: "error: Cannot parse the bench arguments: Unknown option '--size': did you mean " +
      "--sizes?\n",
  });
});

Deno.test("deno task bench leaves BENCHMARKS.md alone without --write", async () => {
  const path = `${ROOT}BENCHMARKS.md`;
  const before = await Deno.readTextFile(path);
  const run = await output(taskCommand("bench", ["--sizes", "40", "--repeat", "1"]));
  const after = await Deno.readTextFile(path);
  // A bench that wrote anyway must not leave the committed figures replaced.
  if (after !== before) await Deno.writeTextFile(path, before);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(after, before);
  assert.match(run.stdout, /^# Benchmarks\n/);
  assert.match(run.stdout, /\| 40 \| steady state \|/);
  assert.match(run.stderr, /BENCHMARKS\.md is unchanged: add --write to save these figures/);
});

Deno.test("scripts/bench_grouping.ts measures both groupings and both searches apart", async () => {
  const run = await output(
    new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--v8-flags=--expose-gc",
        "scripts/bench_grouping.ts",
        "--assets",
        "300",
        "--rounds",
        "1",
        "--fetch",
      ],
      cwd: ROOT,
      env: { NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }),
  );
  assert.equal(run.code, 0, run.stderr);
  const lines = run.stdout.trimEnd().split("\n");
  assert.deepEqual(lines.map((line) => line.split(":")[0]), [
    "grouping + promotion, immich-stack's CRITERIA",
    "grouping + promotion, default rules",
    "search without EXIF",
    "search with EXIF (camera fields)",
  ]);
  for (const line of lines) assert.match(line, /, CPU \d+ ms, peak \d+\.\d MiB/, line);
});

Deno.test("deno task sandbox serves a stand-in Immich until SIGINT, with lines to paste", async () => {
  const [help, sandbox] = [
    await output(taskCommand("sandbox", ["--help"])),
    taskCommand("sandbox", ["--assets", "30"]).spawn(),
  ];
  assert.deepEqual([help.code, help.stderr], [0, ""]);
  assert.match(help.stdout, /^Usage: deno task sandbox \[options\]\n/);
  const reader = sandbox.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  try {
    while (!/^API_KEY=.*\n/m.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    const pasted = text.match(/^API_(URL|KEY)=.*$/gm) ?? [];
    assert.equal(pasted.length, 2, text);
    assert.match(pasted[0], /^API_URL=http:\/\/127\.0\.0\.1:\d+\/api$/);
    const run = await runCli({
      files: { ".env": `${pasted.join("\n")}\nDRY_RUN=true\n` },
      env: { LOG_FORMAT: "json" },
    });
    await Deno.remove(run.cwd, { recursive: true });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const summaries = run.stdout.split("\n").filter((line) => line.includes("Summary for"));
    assert.equal(summaries.length, 2, run.stdout);
  } finally {
    sandbox.kill("SIGINT");
  }
  let rest = "";
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    rest += chunk.value;
  }
  const [status, stderr] = await Promise.all([
    sandbox.status,
    new Response(sandbox.stderr).text(),
  ]);
  assert.deepEqual([status.code, stderr], [0, ""]);
  assert.match(rest, /^\nStand-in Immich server stopped \(SIGINT\)\n$/);
});
