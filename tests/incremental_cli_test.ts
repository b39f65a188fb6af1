/**
 * Which kind of pass the real CLI runs, as a subprocess against the Immich test server: a pass
 * killed with SIGKILL while it writes, a pass whose write failed, and a changed CRITERIA each make
 * the next pass full and say why, as do more changes than INCREMENTAL_MAX_CHANGES (a pass whose
 * writes move more keeps no library, which a raised limit cannot make it read); a clean pass
 * makes the next one incremental; and cron mode
 * passes incrementally after its first pass, stacking what was uploaded in between. The journal
 * of an incremental pass, whose stacks come from the cache, is checked against a full pass's on
 * a twin server, through `main()` in process.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { readJournal, type RecordedStack } from "../src/state/journal.ts";
import { spawnCli } from "./_cli.ts";
import { startImmichServer } from "./immich_server.ts";
import { addRandomLibrary, runMain } from "./_undo_library.ts";
import {
  ada,
  addPairs,
  cli,
  killAfterFirstCreate,
  type Line,
  passIn,
  passOf,
  tempState,
} from "./_state_cli.ts";

Deno.test("main.ts runs a full pass after a killed pass, a failed write or a changed CRITERIA, and an incremental one after a clean pass", async () => {
  await using server = await startImmichServer();
  await using state = await tempState();
  const { user, env: reach } = ada(server, 10);
  const env = { ...reach, STATE_DIR: state.path };
  const passes: string[] = [];
  const run = async (extra: Record<string, string> = {}) => {
    const result = await cli({ ...env, ...extra });
    passes.push(passOf(result));
    return result;
  };

  // No cache, then a clean pass: the next reads only what changed, and stacks the new pairs.
  assert.equal((await run()).code, 0);
  server.advanceClock(3_600_000);
  addPairs(server, user.id, 10, 2);
  assert.equal((await run()).code, 0);
  assert.equal(server.stacks(user.id).length, 12);

  // Killed while its writes are slow, after the first one was answered.
  addPairs(server, user.id, 20, 40);
  server.setFaults({ routeLatencyMs: { "POST /stacks": 20 } });
  const killed = await killAfterFirstCreate(env);
  passes.push(passOf({ stdout: killed.join("\n"), stderr: "", code: 0, cwd: "" }));
  server.setFaults({});
  assert.ok(server.stacks(user.id).length < 52, "the kill came before the pass's end");
  assert.equal((await run()).code, 0);
  assert.equal(server.stacks(user.id).length, 52);
  assert.equal((await run()).code, 0);

  // A write that fails for good (a 400 is not retried): exit 1, and the next pass is full.
  addPairs(server, user.id, 70, 2);
  server.setFaults({ routes: { "POST /stacks": { status: 400, times: 1 } } });
  assert.equal((await run()).code, 1);
  server.setFaults({});
  assert.equal((await run()).code, 0);
  assert.equal(server.stacks(user.id).length, 54);

  // Another CRITERIA: a cache of other settings is no cache for these.
  const criteria = JSON.stringify([
    { key: "originalFileName", split: { delimiters: ["."], index: 0 } },
    { key: "localDateTime", delta: { milliseconds: 1000 } },
  ]);
  assert.equal((await run({ CRITERIA: criteria })).code, 0);
  assert.equal((await run({ CRITERIA: criteria })).code, 0);

  // More changes than INCREMENTAL_MAX_CHANGES, found on the server or made by the last pass's own
  // writes (a first run's), make the next pass full: reading everything is then cheaper.
  // A pass whose writes move more than that keeps no library for the next pass to read.
  const few = { CRITERIA: criteria, INCREMENTAL_MAX_CHANGES: "5" };
  const kinds = async () =>
    (await Array.fromAsync(Deno.readDir(join(state.path, "cache"))))
      .map((entry) => entry.name.slice(entry.name.lastIndexOf(".") + 1)).sort();
  addPairs(server, user.id, 80, 3);
  assert.equal((await run(few)).code, 0);
  assert.equal(server.stacks(user.id).length, 57);
  // The files of the first CRITERIA's cache, then this one's: its header alone, then with a body.
  assert.deepEqual(await kinds(), ["body", "delta", "json", "json", "plan"]);
  assert.equal((await run(few)).code, 0);
  assert.deepEqual(await kinds(), ["body", "body", "delta", "json", "json", "plan", "plan"]);
  assert.equal((await run(few)).code, 0);
  // Raised since such a pass, the limit would let the next one be incremental: it has no
  // library to start from, so it is full, and the one after it incremental.
  addPairs(server, user.id, 90, 3);
  assert.equal((await run(few)).code, 0);
  assert.equal(server.stacks(user.id).length, 60);
  const more = { ...few, INCREMENTAL_MAX_CHANGES: "10" };
  assert.equal((await run(more)).code, 0);
  assert.equal((await run(more)).code, 0);

  assert.deepEqual(passes, [
    "full: no cache yet for this server, user and settings",
    "incremental",
    "incremental",
    "full: the last pass did not finish cleanly: it stopped before its end (killed, or a user " +
    "was skipped)",
    "incremental",
    "incremental",
    "full: the last pass did not finish cleanly: 1 action failed",
    "full: CRITERIA changed since the last pass",
    "incremental",
    "full: more assets changed since the last pass than INCREMENTAL_MAX_CHANGES (5)",
    "full: 6 assets were moved by the last pass's writes, more than INCREMENTAL_MAX_CHANGES (5)",
    "incremental",
    "full: more assets changed since the last pass than INCREMENTAL_MAX_CHANGES (5)",
    "full: the cache holds no library (a pass whose writes move more assets than " +
    "INCREMENTAL_MAX_CHANGES keeps none)",
    "incremental",
  ]);
});

Deno.test("main.ts in cron mode passes fully first, then incrementally, and stacks what was uploaded in between", async () => {
  await using server = await startImmichServer();
  await using state = await tempState();
  const { user, env: reach } = ada(server, 5);
  // A JPEG with a RAW of another name, taken at the same time: a pair once the RAW is renamed.
  const { localDateTime } = server.addAsset(user.id, { originalFileName: "IMG_2000.jpg" });
  const renamed = server.addAsset(user.id, { originalFileName: "DSC_2000.dng", localDateTime });
  const env = { LOG_FORMAT: "json", ...reach, STATE_DIR: state.path };
  // A cache from a run before: the cron process's first pass reads everything all the same.
  assert.equal(passOf(await cli(env)), "full: no cache yet for this server, user and settings");
  const cron = await spawnCli({ env: { ...env, RUN_MODE: "cron", CRON_INTERVAL: "1" } });
  const kinds: string[] = [];
  const stacks: number[] = [];
  for (let line = await cron.nextLine(); line !== undefined; line = await cron.nextLine()) {
    const parsed = JSON.parse(line) as Line;
    if (parsed.pass !== undefined) {
      kinds.push(parsed.pass === "full" ? `full: ${parsed.why}` : String(parsed.pass));
    }
    if (!parsed.msg.startsWith("Next pass in ")) continue;
    stacks.push(server.stacks(user.id).length);
    // Between the passes: a pair uploaded after the first, a RAW renamed into a pair after the
    // second; the third pass ends it.
    if (kinds.length === 1) addPairs(server, user.id, 5, 1);
    if (kinds.length === 2) server.updateAsset(renamed.id, { originalFileName: "IMG_2000.dng" });
    if (kinds.length === 3) break;
  }
  cron.process.kill("SIGTERM");
  const status = await cron.process.status;
  await cron.process.stdout.cancel().catch(() => {});
  await cron.process.stderr.cancel();
  await Deno.remove(cron.cwd, { recursive: true });
  assert.equal(status.code, 0);
  assert.deepEqual(kinds, [
    "full: the first pass of a cron process reads everything",
    "incremental",
    "incremental",
  ]);
  assert.deepEqual(stacks, [5, 6, 7]);
});

/** The stacks the journal of the last run of a state folder saved before its first write. */
async function journaledStacks(stateDir: string): Promise<RecordedStack[]> {
  const runs = join(stateDir, "runs");
  const [run] = (await Array.fromAsync(Deno.readDir(runs))).map((e) => e.name).sort().reverse();
  const [file] = (await Array.fromAsync(Deno.readDir(join(runs, run))))
    .map((e) => e.name).filter((name) => name.endsWith(".jsonl.gz"));
  const { stacks, stacksComplete } = await readJournal(join(runs, run, file));
  assert.ok(stacksComplete);
  return [...stacks].sort((a, b) => a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

Deno.test("main() journals the stacks an incremental pass read from the cache as a full pass journals them", async () => {
  for (const seed of [1, 2, 3]) {
    // Twin servers: the same ids from the same seed, the same library, the same changes.
    const twins = await Promise.all([1, 2].map(() => startImmichServer({ seed })));
    await using _servers = {
      [Symbol.asyncDispose]: async () => {
        for (const server of twins) await server.close();
      },
    };
    await using incrementalState = await tempState();
    await using fullState = await tempState();
    const passes: string[] = [];
    const journals: RecordedStack[][] = [];
    for (const [i, server] of twins.entries()) {
      const library = addRandomLibrary(server, 700 + seed);
      const stateDir = i === 0 ? incrementalState.path : fullState.path;
      const env = { API_URL: server.url, API_KEY: library.key };
      assert.equal((await runMain([], env, stateDir)).code, 0);
      server.advanceClock(3_600_000);
      addPairs(server, library.userId, 100, 3);
      const result = await runMain(i === 0 ? [] : ["--full"], env, stateDir);
      assert.equal(result.code, 0, result.stdout + result.stderr);
      passes.push(String(result.lines.find((line) => line.pass !== undefined)?.pass));
      journals.push(await journaledStacks(stateDir));
    }
    assert.deepEqual(passes, ["incremental", "full"]);
    assert.ok(journals[1].length > 0);
    assert.ok(journals[1].some((stack) => stack.assets.some((a) => a.originalFileName)));
    assert.deepEqual(journals[0], journals[1], `seed ${seed}`);
  }
});

Deno.test("main() runs a full pass when the cache's plan file is damaged or the cache is of another format version", async () => {
  await using server = await startImmichServer();
  await using state = await tempState();
  const { env } = ada(server, 4);
  const why = async () => {
    server.advanceClock(3_600_000);
    const result = await runMain([], env, state.path);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    return passIn(result.lines, result.stdout);
  };
  const cacheFile = async (suffix: string) => {
    const dir = join(state.path, "cache");
    const names = (await Array.fromAsync(Deno.readDir(dir))).map((entry) => entry.name);
    return join(dir, names.find((name) => name.endsWith(suffix))!);
  };
  assert.equal(await why(), "full: no cache yet for this server, user and settings");
  assert.equal(await why(), "incremental");
  const plan = await cacheFile(".plan");
  const text = await Deno.readTextFile(plan);
  await Deno.writeTextFile(plan, text.slice(0, text.indexOf("#in-sync")));
  assert.match(
    await why(),
    /^full: the cache cannot be read: Cannot read the cache .* ends early$/,
  );
  assert.equal(await why(), "incremental");
  const header = await cacheFile(".json");
  const json = JSON.parse(await Deno.readTextFile(header));
  await Deno.writeTextFile(header, JSON.stringify({ ...json, version: 1 }));
  assert.match(await why(), /^full: .* has format version 1, this stacksync uses 3$/);
  assert.equal(await why(), "incremental");
});

Deno.test("main() finishes a pass whose cache cannot be written, with one warning, and the next pass is full", async () => {
  await using server = await startImmichServer();
  await using state = await tempState();
  const { user, env } = ada(server, 3);
  // A file where the cache's folder belongs: nothing of the cache can be written.
  await Deno.writeTextFile(join(state.path, "cache"), "");
  const result = await runMain([], env, state.path);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  assert.equal(server.stacks(user.id).length, 3);
  const warnings = result.lines.filter((line) => line.level === "warn").map((line) =>
    String(line.msg)
  );
  assert.equal(warnings.length, 1, warnings.join("\n"));
  assert.match(warnings[0], /^Cannot write the cache of incremental passes: .*File exists/);
  await Deno.remove(join(state.path, "cache"));
  const next = await runMain([], env, state.path);
  assert.equal(next.code, 0, next.stdout + next.stderr);
  assert.equal(
    passIn(next.lines, next.stdout),
    "full: no cache yet for this server, user and settings",
  );
});

Deno.test("main() keeps the library of a full pass that writes little though its groups hold more assets than its stacks", async () => {
  await using server = await startImmichServer();
  await using state = await tempState();
  const { user, env: reach } = ada(server, 2);
  const env = { ...reach, INCREMENTAL_MAX_CHANGES: "1" };
  // A stack made by hand of both JPEGs: each pair's group meets it, and without REPLACE_STACKS
  // neither is written. 4 assets grouped and 2 stacked: the plan decides whether to keep the
  // library, and it moves none.
  const jpegs = server.assets(user.id).filter((asset) => asset.originalFileName.endsWith(".jpg"));
  server.addStack(user.id, jpegs.map((asset) => asset.id));
  const passes: string[] = [];
  for (let i = 0; i < 2; i++) {
    server.advanceClock(3_600_000);
    const result = await runMain([], env, state.path);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    passes.push(passIn(result.lines, result.stdout));
    assert.ok(
      result.lines.some((line) =>
        /^No changes: 0 stacks in sync, 2 need replacing$/.test(String(line.msg))
      ),
    );
  }
  assert.deepEqual(passes, [
    "full: no cache yet for this server, user and settings",
    "incremental",
  ]);
  assert.equal(server.stacks(user.id).length, 1);
});
