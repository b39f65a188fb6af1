/**
 * The task scripts as a contributor runs them, as subprocesses with the permission flags their
 * deno.json tasks give: `deno task bench` explains itself (tests/full/scripts_test.ts runs it and
 * checks that it changes BENCHMARKS.md only when asked, and `deno task screenshot`),
 * `scripts/bench_grouping.ts` measures the groupings on their own, and `deno task sandbox` serves
 * a stand-in Immich to try settings against until it is stopped.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parsePlanFile } from "../src/plan_file/format.ts";
import { picturesOf } from "../src/review/thumbnails.ts";
import { shotBase } from "../src/trash/shot.ts";
import { commandOutput as output, runCli } from "./_cli.ts";
import { ROOT, taskCommand } from "./_task.ts";

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

/** A running `deno task sandbox` and the API_URL and API_KEY lines it printed. */
interface Sandbox {
  /** The two lines to paste into `.env`. */
  readonly pasted: readonly string[];
  /** Stops it with SIGINT: its exit status, what it printed after the lines, and stderr. */
  readonly stop: () => Promise<{ code: number; rest: string; stderr: string }>;
}

async function startSandbox(args: readonly string[]): Promise<Sandbox> {
  const sandbox = taskCommand("sandbox", args).spawn();
  const reader = sandbox.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!/^API_KEY=.*\n/m.test(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  const stop = async () => {
    sandbox.kill("SIGINT");
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      rest += chunk.value;
    }
    const [status, stderr] = await Promise.all([
      sandbox.status,
      new Response(sandbox.stderr).text(),
    ]);
    return { code: status.code, rest, stderr };
  };
  const pasted = text.match(/^API_(URL|KEY)=.*$/gm) ?? [];
  if (pasted.length !== 2) {
    await stop();
    assert.fail(`the sandbox printed no API_URL and API_KEY lines: ${text}`);
  }
  return { pasted, stop };
}

Deno.test("deno task sandbox serves a stand-in Immich until SIGINT, with lines to paste", async () => {
  const help = await output(taskCommand("sandbox", ["--help"]));
  assert.deepEqual([help.code, help.stderr], [0, ""]);
  assert.match(help.stdout, /^Usage: deno task sandbox \[options\]\n/);
  const sandbox = await startSandbox(["--assets", "30"]);
  try {
    assert.match(sandbox.pasted[0], /^API_URL=http:\/\/127\.0\.0\.1:\d+\/api$/);
    const run = await runCli({
      files: { ".env": `${sandbox.pasted.join("\n")}\nDRY_RUN=true\n` },
      env: { LOG_FORMAT: "json" },
    });
    await Deno.remove(run.cwd, { recursive: true });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const summaries = run.stdout.split("\n").filter((line) => line.includes("Summary for"));
    assert.equal(summaries.length, 2, run.stdout);
  } finally {
    const stopped = await sandbox.stop();
    assert.deepEqual([stopped.code, stopped.stderr], [0, ""]);
    assert.match(stopped.rest, /^\nStand-in Immich server stopped \(SIGINT\)\n$/);
  }
});

Deno.test("deno task sandbox has a picture for every photo of a plan, and duplicates", async () => {
  const sandbox = await startSandbox(["--assets", "60"]);
  try {
    const plan = await runCli({
      args: ["plan", "--out", "plan.json", "--html", "plan.html"],
      files: { ".env": sandbox.pasted.join("\n") },
      env: { LOG_FORMAT: "json" },
    });
    const duplicates = await runCli({
      args: ["duplicates", "--format", "json"],
      files: { ".env": sandbox.pasted.join("\n") },
    });
    try {
      assert.equal(plan.code, 0, plan.stdout + plan.stderr);
      assert.doesNotMatch(plan.stdout, /"level":"warn"/);
      const file = parsePlanFile(await Deno.readTextFile(join(plan.cwd, "plan.json")), "plan");
      const folder = join(plan.cwd, "plan_files");
      const picture = (id: string) => Deno.readFile(join(folder, `${id}.webp`));
      const shown = file.users.flatMap((user) => picturesOf(user, Infinity));
      // The pictures, and the file that marks the folder as stacksync's.
      const saved = await Array.fromAsync(Deno.readDir(folder), (entry) => entry.name);
      assert.deepEqual(
        saved.sort(),
        [...shown.map((id) => `${id}.webp`), "stacksync-pictures.json"].sort(),
      );
      assert.ok(shown.length > 40, `${shown.length} pictures`);
      const html = await Deno.readTextFile(join(plan.cwd, "plan.html"));
      assert.doesNotMatch(html, /class="picture[^"]* none"/);
      // The files of one shot in a group (a burst's group holds several shots) show one
      // picture: a RAW and its JPEG, an edit and its photo.
      const groups = file.users.flatMap((user) => user.actions)
        .filter((action) => action.kind !== "delete");
      assert.ok(
        groups.some((action) => action.assets.some((a) => /\.dng$/i.test(a.originalFileName))),
      );
      for (const action of groups) {
        const shots = Map.groupBy(action.assets, (a) => shotBase(a.originalFileName));
        for (const [shot, files] of shots) {
          const [first, ...rest] = await Promise.all(files.map((a) => picture(a.id)));
          for (const other of rest) assert.deepEqual(other, first, shot);
        }
      }

      assert.equal(duplicates.code, 0, duplicates.stderr);
      const [first] = JSON.parse(duplicates.stdout).users as {
        sameNameAndTime: { originalFileName: string; photos: unknown[] }[];
        sameContent: { photos: { originalFileName: string }[] }[];
      }[];
      assert.deepEqual(
        first.sameNameAndTime.map((group) => [group.originalFileName, group.photos.length]),
        [["IMG_9101.JPG", 2]],
      );
      assert.deepEqual(
        first.sameContent.map((group) =>
          group.photos.map((photo) => photo.originalFileName).sort()
        ),
        [["IMG_9102 copy.JPG", "IMG_9102.JPG"]],
      );
    } finally {
      await Deno.remove(plan.cwd, { recursive: true });
      await Deno.remove(duplicates.cwd, { recursive: true });
    }
  } finally {
    assert.equal((await sandbox.stop()).code, 0);
  }
});
