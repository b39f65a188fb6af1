/**
 * A shutdown signal (SIGTERM, as `docker stop` sends; Ctrl-C's SIGINT takes the same path) while
 * several writes are in flight, through the real CLI at its default STACK_CONCURRENCY: every
 * write sent is in the journal with an outcome, answered or in doubt, and `undo` puts back every
 * stack the server made, those whose answer came too late included.
 */
import assert from "node:assert/strict";
import { finishCli, spawnCli } from "./_cli.ts";
import { runMain } from "./_undo_library.ts";
import { type ImmichServer, startImmichServer, writeLatency } from "./immich_server.ts";
import { readJournal } from "../src/state/journal.ts";

const GROUPS = 60;

/** A user with {@linkcode GROUPS} RAW+JPEG pairs taken a minute apart, nothing stacked. */
function pairs(server: ImmichServer) {
  const user = server.addUser({ name: "Ada" });
  const key = server.addKey(user.id);
  const start = Date.parse("2024-05-01T10:00:00.000Z");
  server.addAssets(
    user.id,
    Array.from({ length: GROUPS }, (_, g) =>
      [".jpg", ".dng"].map((ext) => ({
        originalFileName: `IMG_${1000 + g}${ext}`,
        localDateTime: new Date(start + g * 60_000).toISOString(),
      }))).flat(),
  );
  return { userId: user.id, key };
}

/** Waits until `check` holds, polling; fails after 30 s. */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Runs the CLI with the default STACK_CONCURRENCY, sends SIGTERM once `ready` holds, and reads
 * the user's journal of the stopped run.
 */
async function stopMidRun(
  server: ImmichServer,
  user: { userId: string; key: string },
  state: string,
  ready: () => boolean,
) {
  const cli = await spawnCli({
    env: { API_URL: server.url, API_KEY: user.key, STATE_DIR: state, LOG_FORMAT: "json" },
  });
  let end;
  try {
    await until(ready, "writes in flight");
    cli.process.kill("SIGTERM");
  } finally {
    end = await finishCli(cli, 15_000);
    await Deno.remove(cli.cwd, { recursive: true });
  }
  assert.equal(end.code, 1, end.lines.join("\n") + end.stderr);
  const [run] = [...Deno.readDirSync(`${state}/runs`)].map((entry) => entry.name);
  const journal = await readJournal(`${state}/runs/${run}/${user.userId}.jsonl.gz`);
  return { end, journal };
}

Deno.test("main.ts stopped by SIGTERM with writes in flight journals each one as done, and undo puts every stack back", async () => {
  await using server = await startImmichServer();
  const user = pairs(server);
  const state = await Deno.makeTempDir({ prefix: "stacksync_stop_" });
  try {
    // Answers well within the second a write already sent gets after the signal.
    server.setFaults({ routeLatencyMs: writeLatency(40) });
    const posts = () => server.requests.filter((r) => r.method === "POST" && r.path === "/stacks");
    const { end, journal } = await stopMidRun(
      server,
      user,
      state,
      () => posts().length >= 8 && server.inFlight >= 2,
    );
    const made = server.stacks(user.userId).length;
    assert.ok(made < GROUPS, `${made} stacks made: the signal came too late`);
    assert.ok(server.maxWritesInFlight > 1 && server.maxWritesInFlight <= 4);
    assert.deepEqual(server.writeOverlaps, []);
    // Every write sent was answered in its grace and recorded as done; none was sent after.
    assert.equal(journal.writes.length, made);
    assert.ok(journal.writes.every((write) => write.outcome.status === "done"));
    assert.equal(journal.summary.counts.created, made);
    assert.equal(posts().length, made);
    assert.ok(end.lines.some((line) => line.includes("Received shutdown signal")));

    server.setFaults({});
    assert.equal(
      (await runMain(["undo"], { API_URL: server.url, API_KEY: user.key }, state)).code,
      0,
    );
    assert.deepEqual(server.stacks(user.userId), []);
    const next = await runMain([], { API_URL: server.url, API_KEY: user.key }, state);
    assert.equal(next.code, 0);
    assert.equal(server.stacks(user.userId).length, GROUPS);
  } finally {
    await Deno.remove(state, { recursive: true });
  }
});

Deno.test("main.ts stopped by SIGTERM while the answers of several writes come too late keeps them in doubt, and undo puts back what the server made", async () => {
  await using server = await startImmichServer();
  const user = pairs(server);
  const state = await Deno.makeTempDir({ prefix: "stacksync_stop_late_" });
  try {
    // The server carries out each write after 1.5 s, past the second the client waits for it.
    server.setFaults({ routeLatencyMs: writeLatency(1500) });
    const { journal } = await stopMidRun(server, user, state, () => server.inFlight >= 4);
    assert.equal(server.maxWritesInFlight, 4);
    await until(() => server.inFlight === 0, "the late writes");
    const made = server.stacks(user.userId);
    assert.equal(made.length, 4);
    assert.deepEqual(server.writeOverlaps, []);
    // Each write in flight is in the journal as failed (its answer never came), which undo
    // takes as possibly done.
    assert.equal(journal.writes.length, 4);
    assert.ok(journal.writes.every((write) => write.outcome.status === "failed"));
    const sent = journal.writes.map((write) =>
      write.intent.op === "create" && write.intent.assetIds
    );
    assert.deepEqual(
      new Set(sent.map((ids) => JSON.stringify(ids))),
      new Set(made.map((stack) => JSON.stringify(stack.assetIds))),
    );

    server.setFaults({});
    const undo = await runMain(["undo"], { API_URL: server.url, API_KEY: user.key }, state);
    assert.equal(undo.code, 0, JSON.stringify(undo.lines));
    assert.deepEqual(server.stacks(user.userId), []);
  } finally {
    await Deno.remove(state, { recursive: true });
  }
});
