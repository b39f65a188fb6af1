/**
 * File names, paths and reasons that hold braces (`IMG_{0001}.JPG`, `party {2024}.jpg`) are
 * logged as they are, on the console and in LOG_FILE, in text and JSON lines: a log message is a
 * LogTape template, so a name passed as the message would lose its `{…}` to a placeholder. The
 * real CLI as a subprocess against the Immich test server: plan (its debug plan lines and the
 * path it writes), apply (a stale action and the plan's path) and fix-trash (a move done and one
 * left for the next run).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "./_cli.ts";
import { asset, env, type LibraryAsset, logLines, startLibrary } from "./_e2e.ts";
import { parseLogfmt } from "./_logs.ts";

/**
 * Runs the CLI with LOG_FILE in `dir` and returns its lines and their messages, after checking
 * that the file holds exactly what the console showed.
 */
async function logged(
  dir: string,
  args: readonly string[],
  runEnv: Record<string, string>,
): Promise<{ code: number; lines: Record<string, unknown>[]; msgs: string[]; output: string }> {
  const file = join(dir, `${args[0]} {log}.txt`);
  const result = await runCli({ args, env: { ...runEnv, LOG_FILE: file } });
  await Deno.remove(result.cwd, { recursive: true });
  const output = result.stdout + result.stderr;
  assert.equal(await Deno.readTextFile(file), result.stdout, output);
  const lines: Record<string, unknown>[] = runEnv.LOG_FORMAT === "json"
    ? logLines(result)
    : result.stdout.split("\n").filter((line) => line !== "").map(parseLogfmt);
  return { code: result.code, lines, msgs: lines.map((line) => String(line.msg)), output };
}

const T = "2024-05-01T10:00:00.000Z";
const LATER = "2024-05-01T11:00:00.000Z";

Deno.test("main.ts plan and apply log file names and paths with braces as they are", async () => {
  const library = await startLibrary([
    asset("IMG_{0001}.CR3", T),
    asset("IMG_{0001}.JPG", T),
    asset("IMG_{0003}.CR3", LATER),
    asset("IMG_{0003}.JPG", LATER),
    asset("party {2024}.jpg", "2024-05-02T10:00:00.000Z"),
  ]);
  await using _server = library.server;
  const dir = await Deno.makeTempDir({ prefix: "stacksync_{braces}_" });
  try {
    const planPath = join(dir, "plan {v1}.json");
    const plan = await logged(
      dir,
      ["plan", "--out", planPath],
      env(library, { LOG_LEVEL: "debug", LOG_FORMAT: "text" }),
    );
    assert.equal(plan.code, 0, plan.output);
    for (
      const msg of [
        "  # new-group: IMG_{0001}.JPG (parent), IMG_{0001}.CR3",
        "  # new-group: IMG_{0003}.JPG (parent), IMG_{0003}.CR3",
        `Wrote the plan of 2 actions to ${planPath}`,
      ]
    ) assert.ok(plan.msgs.includes(msg), `${msg} in\n${plan.output}`);

    // A stack made by hand since the plan makes its create of IMG_{0003} stale.
    const byHand = library.server.addStack(library.userId, [
      library.ids["party {2024}.jpg"],
      library.ids["IMG_{0003}.CR3"],
    ]);
    const applied = await logged(
      dir,
      ["apply", planPath],
      env(library, { STATE_DIR: join(dir, "state {s}"), LOG_FORMAT: "json" }),
    );
    assert.equal(applied.code, 1, applied.output);
    const stale = applied.msgs.filter((msg) => msg.startsWith("Skipped stale action "));
    assert.equal(stale.length, 1, applied.output);
    assert.match(
      stale[0],
      /^Skipped stale action \S+: it would create a stack of 2 photos, cover IMG_\{0003\}\.JPG, but /,
    );
    assert.ok(stale[0].endsWith(`, but IMG_{0003}.CR3 was put in stack ${byHand.id}`), stale[0]);
    assert.ok(
      applied.msgs.includes(
        `Applied ${planPath} for Ada: 1 applied, 0 done already, 1 stale, 0 failed`,
      ),
      applied.output,
    );
    // The JSON lines carry the path as a field of its own, too.
    const applying = applied.lines.find((line) => String(line.msg).startsWith("Applying "));
    assert.deepEqual(
      [applying?.msg, applying?.file, applying?.actions, applying?.planned],
      [`Applying 1 of the 2 actions of ${planPath}`, planPath, 1, 2],
      applied.output,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("main.ts fix-trash logs the moves it made and left with braces in their names", async () => {
  const pair = (name: string, time: string): LibraryAsset[] => [
    asset(`${name}.jpg`, time, `${name}.jpg`, { isTrashed: true }),
    asset(`${name}.dng`, time),
  ];
  const library = await startLibrary([...pair("IMG_{0002}", T), ...pair("IMG_{0004}", LATER)]);
  await using _server = library.server;
  // The first move is refused, the second goes through.
  library.server.setFaults({ routes: { "DELETE /assets": { status: 400, times: 1 } } });
  const dir = await Deno.makeTempDir({ prefix: "stacksync_{braces}_" });
  try {
    const fixed = await logged(
      dir,
      ["fix-trash"],
      env(library, {
        STATE_DIR: join(dir, "state"),
        FIX_TRASH_MAX_PERCENT: "100",
        LOG_FORMAT: "json",
      }),
    );
    assert.equal(fixed.code, 1, fixed.output);
    assert.ok(
      fixed.msgs.includes(
        "Moved to the trash: IMG_{0004}.dng (it groups with IMG_{0004}.jpg, in the trash)",
      ),
      fixed.output,
    );
    const left = fixed.msgs.filter((msg) => msg.startsWith("Left for the next run: "));
    assert.equal(left.length, 1, fixed.output);
    assert.ok(
      left[0].startsWith(
        "Left for the next run: move IMG_{0002}.dng to the trash: Failed to move photos to the " +
          "trash: ",
      ),
      left[0],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
