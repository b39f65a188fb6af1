/**
 * The journal, `undo`, `runs`, `backup` and `restore` through the real CLI as a subprocess
 * against the Immich test server: stacks changed by hand after a run, a backup restored over a
 * reset, a state folder that cannot be written (tests/full/undo_e2e_test.ts: a run killed with
 * SIGKILL).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { RESET_CONFIRMATION } from "../src/config.ts";
import { type CliResult, type JsonLine, jsonLines, runCliJson } from "./_cli.ts";
import { type ImmichServer, startImmichServer } from "./immich_server.ts";
import { addRandomLibrary, describeStacks, runMain, stackWrites } from "./_undo_library.ts";

type Line = JsonLine;
const cli = runCliJson;
const lines = (result: CliResult) => jsonLines(result.stdout);

/** A folder for STATE_DIR that the test removes. */
async function tempState(): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.makeTempDir({ prefix: "stacksync_state_test_" });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

/** A user with `groups` RAW+JPEG pairs (and an edit in every third) taken a minute apart. */
function pairs(server: ImmichServer, groups: number) {
  const user = server.addUser({ name: "Ada" });
  const key = server.addKey(user.id);
  const names = new Map<string, string>();
  const start = Date.parse("2024-05-01T10:00:00.000Z");
  for (let g = 0; g < groups; g++) {
    const base = `IMG_${String(1000 + g)}`;
    for (const ext of g % 3 === 0 ? [".jpg", ".dng", "_edited.jpg"] : [".jpg", ".dng"]) {
      const localDateTime = new Date(start + g * 60_000).toISOString();
      const asset = server.addAsset(user.id, { originalFileName: `${base}${ext}`, localDateTime });
      names.set(asset.id, `${base}${ext}`);
    }
  }
  return { userId: user.id, key, names };
}

/** Every file under a folder. */
async function* walkFiles(folder: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(folder)) {
    const path = join(folder, entry.name);
    if (entry.isDirectory) yield* walkFiles(path);
    else yield path;
  }
}

Deno.test("main.ts undo leaves a stack changed by hand after the run, names it, and --force puts it back", async () => {
  await using server = await startImmichServer();
  await using state = await tempState();
  const { userId, key, names } = pairs(server, 6);
  const loose = server.addAsset(userId, { originalFileName: "DSC_0001.jpg" });
  names.set(loose.id, "DSC_0001.jpg");
  const env = { API_URL: server.url, API_KEY: key, STATE_DIR: state.path };
  const before = describeStacks(server.stacks(userId), names);

  const run = await cli([], env);
  assert.equal(run.code, 0, run.stdout);
  const made = server.stacks(userId);
  assert.equal(made.length, 6);
  // By hand, in Immich: one stack gets a photo added (a new stack holding the old one), another
  // a new cover.
  const grown = server.addStack(userId, [made[0].primaryAssetId, loose.id]);
  const recovered = made[1];
  const response = await fetch(`${server.url}/stacks/${recovered.id}`, {
    method: "PUT",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify({ primaryAssetId: recovered.assetIds[1] }),
  });
  await response.body?.cancel();
  assert.equal(response.status, 200);
  const edited = describeStacks([grown, { ...recovered, primaryAssetId: recovered.assetIds[1] }]);

  server.clearRequests();
  const undo = await cli(["undo"], env);
  assert.equal(undo.code, 1, undo.stdout);
  const left = lines(undo).filter((line) => line.msg.startsWith("Left stack "));
  assert.deepEqual(
    left.map((line) => line.msg.replace(/ after run \S+;/, " after run <id>;")).sort(),
    [grown.id, recovered.id].map((id) =>
      `Left stack ${id} as it is: it changed after run <id>; --force puts back what the run changed`
    ).sort(),
  );
  assert.ok(left.every((line) => line.level === "warn"));
  assert.match(
    lines(undo).find((line) => line.msg.startsWith("Summary for Ada"))!.msg,
    /, 4 deleted, .*, 2 changed since, left alone, /,
  );
  // The edited stacks are as the hand left them; the four others are gone as before the run.
  const now = server.stacks(userId);
  assert.deepEqual(describeStacks(now), edited.sort());
  assert.ok(!stackWrites(server.requests).some((r) => r.path.includes(grown.id)));
  assert.ok(!stackWrites(server.requests).some((r) => r.path.includes(recovered.id)));

  const forced = await cli(["undo", "--force"], env);
  assert.equal(forced.code, 0, forced.stdout);
  assert.deepEqual(describeStacks(server.stacks(userId), names), before);
});

Deno.test("main.ts backup then restore brings back the stacks a reset with other CRITERIA replaced", async () => {
  await using server = await startImmichServer();
  await using state = await tempState();
  const library = addRandomLibrary(server, 77);
  const { userId, key } = library;
  const names = new Map(library.names);
  // A minute apart: no burst of the default rules, so no stack before the reset.
  for (const [i, name] of ["PXL_0001.jpg", "PXL_0002.jpg", "PXL_0003.jpg"].entries()) {
    const localDateTime = `2024-01-01T00:0${i}:00.000Z`;
    names.set(server.addAsset(userId, { originalFileName: name, localDateTime }).id, name);
  }
  const env = { API_URL: server.url, API_KEY: key, STATE_DIR: state.path };
  const run = await cli([], env);
  assert.equal(run.code, 0, run.stdout);
  const backedUp = describeStacks(server.stacks(userId), names);

  const backup = await cli(["backup"], env);
  assert.equal(backup.code, 0, backup.stdout);
  const written = lines(backup).find((line) => line.msg.startsWith("Wrote the backup"));
  const file = String(written?.path);
  assert.match(file, /\/backups\/\d{8}-\d{6}-\d{3}\.json$/);
  const text = await Deno.readTextFile(file);
  assert.equal(JSON.parse(text).format, "stacksync-backup");
  // Stable: a second backup of the same stacks is the same file but for its time.
  const again = await cli(["backup", "--out", "-"], env);
  assert.equal(again.code, 0, again.stderr);
  const withoutTime = (json: string) => json.replace(/"createdAt": "[^"]+"/, "");
  assert.equal(withoutTime(again.stdout), withoutTime(text));
  assert.match(again.stderr, /"msg":"Wrote the backup of \d+ stacks to standard output"/);

  // Other CRITERIA: one stack per file-name prefix, made over every stack.
  const reset = await cli([], {
    ...env,
    CRITERIA: '[{"key":"originalFileName","regex":{"key":"^([A-Z]+)_","index":1}}]',
    RESET_STACKS: "true",
    CONFIRM_RESET_STACK: RESET_CONFIRMATION,
  });
  assert.equal(reset.code, 0, reset.stdout);
  assert.notDeepEqual(describeStacks(server.stacks(userId), names), backedUp);

  const restore = await cli(["restore", file], env);
  assert.equal(restore.code, 0, restore.stdout);
  const restored = describeStacks(server.stacks(userId), names);
  assert.deepEqual(restored.filter((stack) => backedUp.includes(stack)), backedUp);
  // The PXL stack of the reset holds no stacked photo of the file: kept without --exact.
  const extras = restored.filter((stack) => !backedUp.includes(stack));
  assert.deepEqual(extras, ["PXL_0001.jpg: PXL_0001.jpg, PXL_0002.jpg, PXL_0003.jpg"]);

  server.clearRequests();
  const noop = await cli(["restore", file], env);
  assert.equal(noop.code, 0, noop.stdout);
  assert.deepEqual(stackWrites(server.requests), []);

  const exact = await cli(["restore", file, "--exact"], env);
  assert.equal(exact.code, 0, exact.stdout);
  assert.deepEqual(describeStacks(server.stacks(userId), names), backedUp);
  assert.deepEqual(stackWrites(server.requests).map((r) => r.method), ["DELETE"]);
});

Deno.test("main.ts restore refuses a file of another server or user with one line unless --force", async () => {
  await using server = await startImmichServer();
  await using state = await tempState();
  const ada = pairs(server, 3);
  const bob = server.addUser({ name: "Bob" });
  const bobKey = server.addKey(bob.id);
  const env = { API_URL: server.url, API_KEY: ada.key, STATE_DIR: state.path };
  assert.equal((await cli([], env)).code, 0);
  const file = join(state.path, "ada.json");
  assert.equal((await cli(["backup", "--out", file], env)).code, 0);
  const text = await Deno.readTextFile(file);
  const elsewhere = join(state.path, "elsewhere.json");
  await Deno.writeTextFile(elsewhere, text.replace(server.url, "http://photos.example.com/api"));

  server.clearRequests();
  const otherServer = await cli(["restore", elsewhere], env);
  assert.deepEqual([otherServer.code, otherServer.stdout], [2, ""]);
  assert.equal(
    otherServer.stderr,
    `error: Cannot restore ${elsewhere} as it is a backup of http://photos.example.com/api, not ` +
      "of API_URL: set API_URL to that server, or give --force if it is the same one: current " +
      `value is ${server.url}\n`,
  );
  const otherUser = await cli(["restore", file], { ...env, API_KEY: bobKey });
  assert.deepEqual([otherUser.code, otherUser.stdout], [2, ""]);
  assert.equal(
    otherUser.stderr,
    `error: Cannot restore ${file} for Bob as it holds the stacks of Ada: use that user's key, ` +
      "or give --force to restore them to this user\n",
  );
  assert.deepEqual(stackWrites(server.requests), []);
  const forced = await cli(["restore", elsewhere, "--force"], env);
  assert.equal(forced.code, 0, forced.stdout);
});

Deno.test("main.ts with a STATE_DIR it cannot write stops a real run before any request; a dry run works", async () => {
  await using server = await startImmichServer();
  const { key } = pairs(server, 2);
  const env = { API_URL: server.url, API_KEY: key, STATE_DIR: "blocker/state" };
  const files = { blocker: "a file, not a folder" };
  const real = await cli([], env, files);
  assert.equal(real.code, 2);
  assert.equal(real.stdout, "");
  assert.match(
    real.stderr,
    /^error: Cannot write the journal in STATE_DIR blocker\/state: .+; make the folder writable, set STATE_DIR to another folder, or set JOURNAL=false to run without undo\n$/,
  );
  assert.deepEqual(server.requests, []);

  const dry = await cli([], { ...env, DRY_RUN: "true" }, files);
  assert.equal(dry.code, 0, dry.stdout + dry.stderr);
  assert.equal(
    lines(dry).filter((line) => line.msg.startsWith("[DRY RUN] Would create")).length,
    2,
  );
  assert.deepEqual(stackWrites(server.requests), []);

  const unjournaled = await cli([], { ...env, JOURNAL: "false" }, files);
  assert.equal(unjournaled.code, 0, unjournaled.stdout);
  assert.deepEqual(
    lines(unjournaled).filter((line) => line.level === "warn").map((line) => line.msg),
    [
      "Running without a journal (JOURNAL=false): stacksync undo cannot put this run back",
      "Cannot keep the cache of incremental passes in STATE_DIR blocker/state: Not a " +
      "directory (os error 20): mkdir 'blocker/state/runs'; every pass reads the whole library",
    ],
  );
  assert.equal(stackWrites(server.requests).length, 2);
});

Deno.test("main.ts undo and runs refuse a state folder of a newer stacksync with one line", async () => {
  await using state = await tempState();
  await Deno.writeTextFile(
    join(state.path, "stacksync-state.json"),
    '{"format":"stacksync-state","version":2}\n',
  );
  const env = { API_URL: "http://127.0.0.1:9/api", API_KEY: "k", STATE_DIR: state.path };
  for (const args of [["runs"], ["undo"], []]) {
    const result = await cli(args, env);
    assert.deepEqual([result.code, result.stdout], [2, ""], args.join(" "));
    assert.equal(
      result.stderr,
      `error: Cannot use STATE_DIR ${state.path} as a newer stacksync wrote it (format version 2, ` +
        "this one reads up to 1): upgrade stacksync\n",
    );
  }
});

Deno.test("main.ts runs lists each run and user with its counts, and whether it finished and was undone", async () => {
  await using server = await startImmichServer();
  await using state = await tempState();
  const { key } = pairs(server, 4);
  const env = { API_URL: server.url, API_KEY: key, STATE_DIR: state.path };
  const empty = await cli(["runs"], env);
  assert.deepEqual([empty.code, empty.stdout], [0, `No runs recorded in ${state.path}\n`]);
  // In process as well: the journals are the same files.
  assert.equal((await runMain([], env, state.path)).code, 0);
  assert.equal((await cli(["undo"], env)).code, 0);
  const runs = await cli(["runs"], env);
  assert.equal(runs.code, 0, runs.stderr);
  const table = runs.stdout.trimEnd().split("\n").map((row) => row.split(/ {2,}/));
  assert.deepEqual(table[0], [
    "ID",
    "STARTED (UTC)",
    "COMMAND",
    "USER",
    "SERVER",
    "CREATED",
    "UPDATED",
    "DELETED",
    "TRASHED",
    "RESTORED",
    "FAILED",
    "FINISHED",
    "UNDONE",
    "KEPT",
  ]);
  // No file of the state folder holds the key, compressed or not.
  for await (const file of walkFiles(state.path)) {
    const bytes = await Deno.readFile(file);
    const text = file.endsWith(".gz")
      ? await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip")))
        .text()
      : new TextDecoder().decode(bytes);
    assert.ok(!text.includes(key), file);
    // A user's lock file is empty while no process holds it.
    assert.ok(text.length > 0 || file.endsWith(".lock"), file);
  }
  const [run, undo] = table.slice(1);
  for (const row of [run, undo]) assert.match(row.pop()!, /^until \d{4}-\d\d-\d\d \d\d:\d\d$/);
  assert.deepEqual(run.slice(2), [
    "run",
    "Ada",
    server.url,
    "4",
    "0",
    "0",
    "0",
    "0",
    "0",
    "yes",
    `yes, by ${undo[0]}`,
  ]);
  assert.deepEqual(undo.slice(2), [
    `undo ${run[0]}`,
    "Ada",
    server.url,
    "0",
    "0",
    "4",
    "0",
    "0",
    "0",
    "yes",
    "no",
  ]);
});

Deno.test("main() undo of an undo redoes the run; a dry-run undo writes nothing anywhere", async () => {
  await using server = await startImmichServer();
  await using state = await tempState();
  const library = addRandomLibrary(server, 4242);
  const env = { API_URL: server.url, API_KEY: library.key, REPLACE_STACKS: "true" };
  const stacks = () => describeStacks(server.stacks(library.userId), library.names);
  const before = stacks();
  assert.equal((await runMain([], env, state.path)).code, 0);
  const after = stacks();
  assert.notDeepEqual(after, before);
  const runDirs = async () => (await Array.fromAsync(Deno.readDir(`${state.path}/runs`))).length;

  server.clearRequests();
  const dry = await runMain(["undo"], { ...env, DRY_RUN: "true" }, state.path);
  assert.equal(dry.code, 0, dry.stdout);
  assert.ok(dry.lines.some((line) => String(line.msg).startsWith("[DRY RUN] Would ")), dry.stdout);
  assert.deepEqual(stackWrites(server.requests), []);
  assert.equal(await runDirs(), 1);

  const undo = await runMain(["undo"], env, state.path);
  assert.equal(undo.code, 0, undo.stdout);
  assert.deepEqual(stacks(), before);
  const undoId = (await Array.fromAsync(Deno.readDir(`${state.path}/runs`)))
    .map((entry) => entry.name).sort().at(-1)!;
  const redo = await runMain(["undo", undoId], env, state.path);
  assert.equal(redo.code, 0, redo.stdout);
  assert.deepEqual(stacks(), after);
  // Undo with no id now takes the run again: the redo put it back in force.
  assert.equal((await runMain(["undo"], env, state.path)).code, 0);
  assert.deepEqual(stacks(), before);
});
