/**
 * API_URL with and without `/api` through the real CLI against the Immich test server: what was
 * recorded under one is found under the other (journals, backups, plans), an Immich without its
 * web bundle (an empty `text/html` page outside `/api`, as seen on a live Immich) gets the same
 * fallback as one with it, and a web page at an address that ends in `/api` is not blamed on a
 * missing `/api`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type CliResult, jsonLines, runCliJson } from "./_cli.ts";
import { type ImmichServer, startImmichServer } from "./immich_server.ts";

const cli = runCliJson;
const lines = (result: CliResult) => jsonLines(result.stdout);

/** A user with three unstacked RAW+JPEG pairs. */
function pairs(server: ImmichServer): { userId: string; key: string } {
  const user = server.addUser({ name: "Ada" });
  const key = server.addKey(user.id);
  for (let g = 0; g < 3; g++) {
    const localDateTime = new Date(Date.parse("2024-05-01T10:00:00.000Z") + g * 60_000)
      .toISOString();
    for (const ext of [".jpg", ".dng"]) {
      server.addAsset(user.id, { originalFileName: `IMG_${1000 + g}${ext}`, localDateTime });
    }
  }
  return { userId: user.id, key };
}

const FALLBACK_WARNING =
  /^API_URL http:\/\/127\.0\.0\.1:\d+ answers Immich's web page, not its API: using http:\/\/127\.0\.0\.1:\d+\/api; add \/api to API_URL$/;

Deno.test("main.ts undo and runs find a run recorded while API_URL lacked /api once it has it", async () => {
  await using server = await startImmichServer();
  const { userId, key } = pairs(server);
  const state = await Deno.makeTempDir({ prefix: "stacksync_state_test_" });
  try {
    const env = { API_KEY: key, STATE_DIR: state };
    const run = await cli([], { ...env, API_URL: server.origin });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.ok(lines(run).some((line) => FALLBACK_WARNING.test(line.msg)), run.stdout);
    assert.equal(server.stacks(userId).length, 3);

    // API_URL fixed as the warning says.
    const fixed = { ...env, API_URL: server.url };
    const runs = await cli(["runs"], fixed);
    assert.equal(runs.code, 0, runs.stderr);
    const rows = runs.stdout.trimEnd().split("\n");
    assert.equal(rows.length, 2, runs.stdout);
    assert.match(rows[1], new RegExp(`^\\S+ .* run +Ada +${server.origin} +3 +0 +0 `));

    const undo = await cli(["undo"], fixed);
    assert.equal(undo.code, 0, undo.stdout + undo.stderr);
    assert.ok(!lines(undo).some((line) => line.msg.startsWith("Nothing to undo")), undo.stdout);
    assert.deepEqual(server.stacks(userId), []);

    // And the other way round: a run recorded with /api, undone by its id without it.
    const again = await cli([], fixed);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    const listed = await cli(["runs"], fixed);
    const id = listed.stdout.trimEnd().split("\n").at(-1)!.split(" ")[0];
    const byId = await cli(["undo", id], { ...env, API_URL: `${server.origin}/` });
    assert.equal(byId.code, 0, byId.stdout + byId.stderr);
    assert.deepEqual(server.stacks(userId), []);
  } finally {
    await Deno.remove(state, { recursive: true });
  }
});

Deno.test("main.ts restore and apply take a backup and a plan made while API_URL lacked /api", async () => {
  await using server = await startImmichServer();
  const { userId, key } = pairs(server);
  const folder = await Deno.makeTempDir({ prefix: "stacksync_files_test_" });
  try {
    const env = { API_KEY: key, STATE_DIR: join(folder, "state") };
    const backup = join(folder, "backup.json");
    const plan = join(folder, "plan.json");
    const planned = await cli(["plan", "--out", plan], { ...env, API_URL: server.origin });
    assert.equal(planned.code, 0, planned.stdout + planned.stderr);
    const applied = await cli(["apply", plan], { ...env, API_URL: server.url });
    assert.equal(applied.code, 0, applied.stdout + applied.stderr);
    const made = server.stacks(userId);
    assert.equal(made.length, 3);

    const saved = await cli(["backup", "--out", backup], { ...env, API_URL: server.origin });
    assert.equal(saved.code, 0, saved.stdout + saved.stderr);
    for (const stack of made) server.deleteStack(userId, stack.id);
    const restored = await cli(["restore", backup], { ...env, API_URL: server.url });
    assert.equal(restored.code, 0, restored.stdout + restored.stderr);
    assert.deepEqual(
      server.stacks(userId).map((stack) => stack.assetIds).sort(),
      made.map((stack) => stack.assetIds).sort(),
    );
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});

Deno.test("main.ts adds /api to an API_URL that an Immich without its web bundle answers with an empty page", async () => {
  await using server = await startImmichServer({ webBundle: false });
  const page = await fetch(`${server.origin}/server/version`);
  assert.deepEqual(
    [page.status, page.headers.get("content-type"), await page.text()],
    [200, "text/html; charset=utf-8", ""],
  );
  const { userId, key } = pairs(server);
  const run = await cli([], { API_URL: server.origin, API_KEY: key, JOURNAL: "false" });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.ok(lines(run).some((line) => FALLBACK_WARNING.test(line.msg)), run.stdout);
  assert.equal(server.stacks(userId).length, 3);
});

Deno.test("main.ts does not say API_URL lacks /api when a web page answers at an address ending in /api", async () => {
  await using server = await startImmichServer();
  const { key } = pairs(server);
  const url = `${server.origin}/immich/api`;
  const run = await cli([], { API_URL: url, API_KEY: key, DRY_RUN: "true" });
  assert.equal(run.code, 1, run.stdout + run.stderr);
  const error = lines(run).find((line) => line.level === "error");
  assert.ok(error !== undefined, run.stdout);
  const text = JSON.stringify(error);
  assert.ok(!text.includes("lacks /api"), text);
  assert.match(
    text,
    /as it is an HTML page, not JSON \(a web page answers at API_URL though it ends in \/api: check its path/,
  );
});
