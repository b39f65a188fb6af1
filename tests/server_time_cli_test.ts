/**
 * Server time through the real CLI against the Immich test server: an incremental pass searches
 * for changes from the server's own data, never from its `Date` header (which a reverse proxy
 * stamps with its own clock) nor from this computer's clock; FULL_PASS_INTERVAL counts on the
 * server's data too, and time that went back makes the pass full; a run folder dated ahead of
 * now slows nothing (docs/incremental.md, "Server time"; docs/state.md, "Where").
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { finishCli, spawnCli } from "./_cli.ts";
import { runMain } from "./_undo_library.ts";
import { adaWithState, addPairs, cli, lines, passIn, passOf } from "./_state_cli.ts";

Deno.test("main.ts with a proxy's Date 10 minutes ahead or behind: a stack deleted by hand a minute after a pass is stacked again by the next, incremental pass", async () => {
  for (const offset of [600_000, -600_000]) {
    await using test = await adaWithState(5);
    const { server, user, env } = test;
    server.setFaults({ dateOffsetMs: offset });
    const first = await cli(env);
    assert.equal(first.code, 0, first.stdout + first.stderr);
    assert.equal(server.stacks(user.id).length, 5);

    server.advanceClock(60_000);
    server.deleteStack(user.id, server.stacks(user.id)[0].id);
    const next = await cli(env);
    assert.equal(next.code, 0, next.stdout + next.stderr);
    assert.equal(passOf(next), "incremental", `Date ${offset} ms off`);
    assert.equal(server.stacks(user.id).length, 5, `Date ${offset} ms off`);
  }
});

Deno.test("main.ts counts FULL_PASS_INTERVAL on the server's data: a pass is full once the data moved more than it since the last full pass", async () => {
  await using test = await adaWithState(2);
  const { server, user } = test;
  const env = { ...test.env, FULL_PASS_INTERVAL: "3600" };
  const passes: string[] = [];
  for (const [i, advance] of [0, 1_800_000, 3_600_000, 60_000].entries()) {
    server.advanceClock(advance);
    if (i > 0) addPairs(server, user.id, 10 + i, 1);
    const result = await cli(env);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    passes.push(passOf(result));
  }
  assert.deepEqual(passes, [
    "full: no cache yet for this server, user and settings",
    "incremental",
    "full: the server's data moved 90 min since the last full pass, more than " +
    "FULL_PASS_INTERVAL (3600 s)",
    "incremental",
  ]);
  assert.equal(server.stacks(user.id).length, 5);
});

Deno.test("main() runs a full pass when this computer's clock went back since the last full pass", async () => {
  await using test = await adaWithState(2);
  const { env, state } = test;
  const at = (iso: string) => () => new Date(iso);
  const passes: string[] = [];
  for (const now of ["2026-11-26T12:00:00.000Z", "2026-11-26T11:00:00.000Z"]) {
    const result = await runMain([], env, state, { now: at(now) });
    assert.equal(result.code, 0, result.stdout + result.stderr);
    passes.push(passIn(result.lines, result.stdout));
  }
  assert.deepEqual(passes, [
    "full: no cache yet for this server, user and settings",
    "full: this computer's clock went back 60 min since the last full pass",
  ]);
});

Deno.test("main.ts runs a full pass when an asset the last pass saw change is dated back, as after the database's clock was set back", async () => {
  await using test = await adaWithState(3);
  const { server, user, env } = test;
  assert.equal((await cli(env)).code, 0);
  // A member changes an hour later: the next pass sees it, its watermark an hour on.
  server.advanceClock(3_600_000);
  const [stack] = server.stacks(user.id);
  server.updateAsset(stack.assetIds[0], {});
  const seen = await cli(env);
  assert.equal(passOf(seen), "incremental");
  // The database's clock set back an hour: its stack deleted by hand now dates the member
  // before that watermark, where no search for changes would look.
  server.advanceClock(-3_600_000);
  server.deleteStack(user.id, stack.id);
  const next = await cli(env);
  assert.equal(next.code, 0, next.stdout + next.stderr);
  assert.match(
    passOf(next),
    /^full: asset [0-9a-f-]+, changed at \S+, is no longer found by the search for changes: it was deleted for good or locked, or the server's clock went back$/,
  );
  assert.equal(server.stacks(user.id).length, 3);
});

Deno.test("main.ts starts at once after a run folder dated years ahead, and gives its run the next id", async () => {
  await using test = await adaWithState(2);
  const { server, user, env, state } = test;
  const future = "20990101-000000-000";
  // A run dated ahead, as one started by a clock that was wrong: its journal keeps its folder.
  await Deno.mkdir(join(state, "runs", future), { recursive: true });
  await Deno.writeTextFile(join(state, "runs", future, "u0.jsonl.gz"), "");
  const run = await spawnCli({ env: { LOG_FORMAT: "json", ...env } });
  // A deadline for a hang, not a measure of speed: before, the run stepped its id forward one
  // millisecond at a time until it passed the folder's (6 hours ahead cost 25 s a run).
  const finished = await finishCli(run, 60_000);
  await Deno.remove(run.cwd, { recursive: true });
  assert.equal(finished.code, 0, finished.lines.join("\n") + finished.stderr);
  assert.equal(server.stacks(user.id).length, 2);
  const runs = (await Array.fromAsync(Deno.readDir(join(state, "runs")))).map((e) => e.name);
  assert.deepEqual(runs.sort(), [future, "20990101-000000-001"]);
});

Deno.test("main.ts passes over a library that did not change in 7 requests, holding the lock and checking the cache", async () => {
  await using test = await adaWithState(1000);
  const { server, user, env } = test;
  assert.equal((await cli(env)).code, 0);
  // An hour on, a photo that joins no group: the search for changes starts after the first
  // pass's 1000 writes, and the pass plans no change.
  server.advanceClock(3_600_000);
  server.addAsset(user.id, { originalFileName: "SOLO.jpg" });
  assert.equal((await cli(env)).code, 0);
  server.advanceClock(3_600_000);
  server.clearRequests();
  const steady = await cli(env);
  assert.equal(steady.code, 0, steady.stdout + steady.stderr);
  assert.ok(
    lines(steady.stdout).some((line) => line.msg.startsWith("Incremental pass: nothing changed")),
  );
  assert.deepEqual(server.requests.map((r) => `${r.method} ${r.path}`), [
    "GET /server/version",
    "GET /api-keys/me",
    "GET /users/me",
    "POST /search/statistics",
    "POST /search/metadata",
    "POST /search/metadata",
    "POST /search/metadata",
  ]);
});
