/**
 * How long journals are kept, through the real CLI against the Immich test server: a run younger
 * than JOURNAL_KEEP_DAYS stays however many runs came after it (a busy cron pruned the first run,
 * the one that made every stack, within minutes when only JOURNAL_KEEP counted), an old one goes
 * once it is not among the last JOURNAL_KEEP, and `stacksync runs` says until when each is kept.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "./_cli.ts";
import { asset, env, startLibrary, tempFolder } from "./_e2e.ts";

const T = "2024-05-01T10:00:00.000Z";

Deno.test("main.ts keeps every run younger than JOURNAL_KEEP_DAYS beyond JOURNAL_KEEP, and prunes an old one", async () => {
  await using folder = await tempFolder("stacksync_retention_");
  const state = folder.path;
  const library = await startLibrary([
    asset("IMG_1.jpg", T),
    asset("IMG_1.dng", T),
    asset("IMG_2.jpg", "2024-05-01T11:00:00.000Z"),
    asset("IMG_2.dng", "2024-05-01T11:00:00.000Z"),
  ]);
  try {
    const settings = { ...env(library), STATE_DIR: state, JOURNAL_KEEP: "1" };
    const cli = async (args: readonly string[]) => {
      const result = await runCli({ args, env: settings });
      await Deno.remove(result.cwd, { recursive: true });
      assert.equal(result.code, 0, result.stdout + result.stderr);
      return result;
    };
    // Three journaled runs: the first stacks, undo puts it back, the third stacks again.
    await cli([]);
    await cli(["undo"]);
    await cli([]);
    const runsDir = join(state, "runs");
    const ids = async () =>
      (await Array.fromAsync(Deno.readDir(runsDir))).map((e) => e.name).sort();
    const recent = await ids();
    assert.equal(recent.length, 3, recent.join(", "));

    // A run of long ago, beside them: not among the last one, and older than 30 days.
    const old = "20200101-000000-000";
    await Deno.mkdir(join(runsDir, old));
    for await (const entry of Deno.readDir(join(runsDir, recent[0]))) {
      const text = await Deno.readFile(join(runsDir, recent[0], entry.name));
      const copy = entry.name.endsWith(".json")
        ? new TextEncoder().encode(
          new TextDecoder().decode(text).replaceAll(recent[0], old).replace(
            /"startedAt":"[^"]+"/,
            '"startedAt":"2020-01-01T00:00:00.000Z"',
          ),
        )
        : text;
      await Deno.writeFile(join(runsDir, old, entry.name), copy);
    }
    const runs = (await cli(["runs"])).stdout.split("\n").filter((line) => line !== "");
    assert.match(runs[0], / UNDONE +KEPT$/);
    assert.match(runs[1], new RegExp(`^${old} .* no, the next run deletes it$`));
    for (const row of runs.slice(2)) assert.match(row, / until \d{4}-\d\d-\d\d \d\d:\d\d$/);
    assert.equal(runs.length, 5);

    // A run with nothing to change still prunes: the old run goes, the recent three stay.
    await cli([]);
    assert.deepEqual(await ids(), recent);
    // Without days, only the last run is kept.
    await runCli({ env: { ...settings, JOURNAL_KEEP_DAYS: "0" } }).then((r) =>
      Deno.remove(r.cwd, { recursive: true })
    );
    assert.deepEqual(await ids(), recent.slice(-1));
  } finally {
    await library.server.close();
  }
});
