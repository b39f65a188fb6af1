/**
 * What a run says it did, through the real CLI against the Immich test server: its summary line
 * and `stacksync runs` count the same creates and updates (a stack that grows is an update in
 * both, though Immich makes it with `POST /stacks`), and the closing line counts a user whose key
 * failed as skipped, not processed.
 */
import assert from "node:assert/strict";
import { type CliResult, jsonLines, runCliJson } from "./_cli.ts";
import { startImmichServer } from "./immich_server.ts";

const cli = runCliJson;
const lines = (result: CliResult) => jsonLines(result.stdout);

Deno.test("main.ts counts a grown stack as updated in both the summary and stacksync runs", async () => {
  await using server = await startImmichServer();
  const user = server.addUser({ name: "Ada" });
  const key = server.addKey(user.id);
  const at = (minute: number) => `2024-05-01T10:0${minute}:00.000Z`;
  const add = (name: string, minute: number) =>
    server.addAsset(user.id, { originalFileName: name, localDateTime: at(minute) }).id;
  // A stack made by hand that a third photo of its group joins, and a new pair.
  server.addStack(user.id, [add("IMG_0001.jpg", 1), add("IMG_0001.dng", 1)]);
  add("IMG_0001.heic", 1);
  add("IMG_0002.jpg", 2);
  add("IMG_0002.dng", 2);
  const state = await Deno.makeTempDir({ prefix: "stacksync_state_test_" });
  try {
    const env = { API_URL: server.url, API_KEY: key, STATE_DIR: state };
    const run = await cli([], env);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const summary = lines(run).find((line) => line.msg.startsWith("Summary for Ada"))!.msg;
    assert.match(summary, /^Summary for Ada: 1 created, 1 updated, 0 replaced, 0 deleted, /);
    const runs = await cli(["runs"], env);
    const [header, row] = runs.stdout.trimEnd().split("\n").map((text) => text.split(/ {2,}/));
    const column = (name: string) => row[header.indexOf(name)];
    assert.deepEqual([column("CREATED"), column("UPDATED")], ["1", "1"], runs.stdout);
  } finally {
    await Deno.remove(state, { recursive: true });
  }
});

Deno.test("main.ts counts a user whose key failed as skipped, not processed", async () => {
  await using server = await startImmichServer();
  const user = server.addUser({ name: "Ada" });
  server.addKey(user.id);
  const run = await cli([], { API_URL: server.url, API_KEY: "sk-not-a-key-0000", DRY_RUN: "true" });
  assert.equal(run.code, 1, run.stdout + run.stderr);
  assert.deepEqual(
    lines(run).filter((line) => line.msg.startsWith("Run finished")).map((line) => line.msg),
    ["Run finished: 0 users processed, 1 user skipped, 0 actions failed"],
  );
});
