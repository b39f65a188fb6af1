/**
 * STACK_CONCURRENCY and PREVENT_SELF_REKT over real HTTP against the Immich test server, whose
 * write routes answer a few milliseconds late so that writes are really in flight together, and
 * which records any two in flight at once that touch the same asset or stack.
 *
 * The property cases call `runPass()` in process (retries do not wait); the CLI runs of the
 * other tests already go through the same settings. A shutdown signal (SIGTERM, as `docker stop`
 * sends; Ctrl-C's SIGINT takes the same path) while several writes are in flight goes through the
 * real CLI at its default STACK_CONCURRENCY: every write sent is journaled with an outcome,
 * answered or in doubt, and `undo` puts back every stack the server made, those whose answer came
 * too late included.
 */
import assert from "node:assert/strict";
import { loadSettings, type Settings } from "../src/config.ts";
import { readJournal } from "../src/state/journal.ts";
import { runPass } from "../src/run.ts";
import { finishCli, spawnCli } from "./_cli.ts";
import { addRandomLibrary, describeStacks, randomRunSettings, runMain } from "./_undo_library.ts";
import { type ImmichServer, startImmichServer, writeLatency } from "./immich_server.ts";
import { seededRandom } from "./_random.ts";

const CASES = 60;
const instant = () => Promise.resolve();

function settingsOf(env: Record<string, string>): Settings {
  const command = loadSettings({ args: [], env, version: "0.0.0-test" });
  assert.equal(command.kind, "run");
  return (command as Extract<typeof command, { kind: "run" }>).settings;
}

function envOf(server: ImmichServer, key: string, extra: Record<string, string>) {
  return { API_URL: server.url, API_KEY: key, LOG_LEVEL: "error", ...extra };
}

Deno.test(`runPass() with random STACK_CONCURRENCY never has two writes on one asset in flight and ends as one lane does, in ${CASES} cases`, async () => {
  await using parallel = await startImmichServer();
  await using serial = await startImmichServer();
  let overlapped = 0;
  for (let seed = 1; seed <= CASES; seed++) {
    const random = seededRandom(seed * 31);
    const options = randomRunSettings(random);
    const concurrency = 2 + Math.floor(random() * 7);
    const a = addRandomLibrary(parallel, seed);
    const b = addRandomLibrary(serial, seed);
    parallel.setFaults({ routeLatencyMs: writeLatency(1 + Math.floor(random() * 3)) });
    parallel.resetWriteTracking();
    await runPass(
      settingsOf(envOf(parallel, a.key, { ...options, STACK_CONCURRENCY: String(concurrency) })),
      { sleep: instant },
    );
    // The one lane the lanes must end as: explicit, since the default runs several.
    await runPass(settingsOf(envOf(serial, b.key, { ...options, STACK_CONCURRENCY: "1" })), {
      sleep: instant,
    });
    const context = `seed ${seed}, ${concurrency} lanes, ${JSON.stringify(options)}`;
    assert.deepEqual(parallel.writeOverlaps, [], context);
    assert.ok(parallel.maxWritesInFlight <= concurrency, context);
    assert.deepEqual(
      describeStacks(parallel.stacks(a.userId), a.names),
      describeStacks(serial.stacks(b.userId), b.names),
      context,
    );
    if (parallel.maxWritesInFlight > 1) overlapped++;
  }
  assert.ok(overlapped >= CASES / 2, `writes were in flight together in ${overlapped} cases only`);
});

/** A user with `groups` RAW+JPEG pairs taken a minute apart, nothing stacked. */
function pairs(server: ImmichServer, groups: number, name = "Ada") {
  const user = server.addUser({ name });
  const key = server.addKey(user.id);
  const start = Date.parse("2024-05-01T10:00:00.000Z");
  server.addAssets(
    user.id,
    Array.from({ length: groups }, (_, g) =>
      [".jpg", ".dng"].map((ext) => ({
        originalFileName: `IMG_${1000 + g}${ext}`,
        localDateTime: new Date(start + g * 60_000).toISOString(),
      }))).flat(),
  );
  return { userId: user.id, key };
}

Deno.test("runPass() at STACK_CONCURRENCY=8 with 8 % of answers 5xx or 429 converges within two runs and counts exactly", async () => {
  await using server = await startImmichServer();
  const user = pairs(server, 150);
  server.setFaults({
    seed: 8,
    error5xxRate: 0.04,
    rate429: 0.04,
    routeLatencyMs: writeLatency(2),
  });
  const settings = settingsOf(envOf(server, user.key, { STACK_CONCURRENCY: "8" }));
  const [first] = await runPass(settings, { sleep: instant });
  const created = server.requests.filter((r) =>
    r.method === "POST" && r.path === "/stacks" && r.status === 201
  );
  const refused = server.requests.filter((r) => r.status === 500 || r.status === 429);
  assert.ok(refused.length > 10, `only ${refused.length} faults met`);
  // The summary counts what the server did, no more, no less.
  assert.equal(first.counts.created, created.length);
  assert.equal(server.stacks(user.userId).length, created.length);
  if (first.counts.failed > 0) await runPass(settings, { sleep: instant });
  server.setFaults({});
  const stacks = server.stacks(user.userId);
  assert.equal(stacks.length, 150);
  assert.ok(stacks.every((stack) => stack.assetIds.length === 2));
  assert.ok(server.maxWritesInFlight > 1);
  assert.deepEqual(server.writeOverlaps, []);
});

Deno.test("runPass() at STACK_CONCURRENCY=4 starts no write once the server answered 403", async () => {
  await using server = await startImmichServer();
  const user = pairs(server, 40);
  server.setFaults({
    routes: { "POST /stacks": { status: 403, skip: 9, message: "Missing permission" } },
    routeLatencyMs: writeLatency(5),
  });
  const [report] = await runPass(
    settingsOf(envOf(server, user.key, { STACK_CONCURRENCY: "4" })),
    { sleep: instant },
  );
  assert.equal(report.status, "stopped");
  const posts = server.requests.filter((r) => r.method === "POST" && r.path === "/stacks");
  const first403 = posts.findIndex((r) => r.status === 403);
  // Only the writes already in flight when the 403 came back were still answered after it.
  assert.ok(first403 >= 0 && posts.length - first403 - 1 <= 3, `${posts.length} posts`);
  assert.equal(report.counts.created, server.stacks(user.userId).length);
  assert.equal(report.counts.created, posts.filter((r) => r.status === 201).length);
});

Deno.test("main() at STACK_CONCURRENCY=4 journals each write before it is sent, and undo puts every stack back", async () => {
  await using server = await startImmichServer();
  const user = pairs(server, 24);
  const state = await Deno.makeTempDir({ prefix: "stacksync_concurrency_" });
  try {
    server.setFaults({ routeLatencyMs: writeLatency(5) });
    const env = envOf(server, user.key, { STACK_CONCURRENCY: "4" });
    assert.equal((await runMain([], env, state)).code, 0);
    assert.equal(server.stacks(user.userId).length, 24);
    const [run] = [...Deno.readDirSync(`${state}/runs`)].map((entry) => entry.name);
    const file = `${state}/runs/${run}/${user.userId}.jsonl.gz`;
    const text = await new Response(
      (await Deno.open(file)).readable.pipeThrough(new DecompressionStream("gzip")),
    ).text();
    const open = new Set<number>();
    let most = 0;
    for (const line of text.trim().split("\n").map((l) => JSON.parse(l))) {
      if (line.type === "intent") open.add(line.seq);
      most = Math.max(most, open.size);
      if (line.type !== "done" && line.type !== "failed") continue;
      assert.ok(open.delete(line.seq), `outcome of write ${line.seq} before its intent`);
    }
    assert.ok(most > 1 && most <= 4, `${most} writes recorded in flight at once`);
    assert.equal((await readJournal(file)).summary.counts.created, 24);
    assert.equal((await runMain(["undo"], env, state)).code, 0);
    assert.deepEqual(server.stacks(user.userId), []);
    assert.deepEqual(server.writeOverlaps, []);
  } finally {
    await Deno.remove(state, { recursive: true });
  }
});

Deno.test("main() with PREVENT_SELF_REKT pauses 50 ms before each write, fix-trash's included", async () => {
  await using server = await startImmichServer();
  const user = pairs(server, 5);
  const state = await Deno.makeTempDir({ prefix: "stacksync_self_rekt_" });
  try {
    const pauses: number[] = [];
    const sleep = (ms: number) => (pauses.push(ms), Promise.resolve());
    const env = envOf(server, user.key, {
      PREVENT_SELF_REKT: "true",
      STACK_CONCURRENCY: "2",
      FIX_TRASH_MAX_PERCENT: "100",
    });
    assert.equal((await runMain([], env, state, { sleep })).code, 0);
    const writes = server.requests.filter((r) => r.method === "POST" && r.path === "/stacks");
    assert.equal(writes.length, 5);
    assert.deepEqual(pauses, [50, 50, 50, 50, 50]);
    const ids = (name: string) =>
      server.assets(user.userId).find((asset) => asset.originalFileName === name)!.id;
    for (const [jpeg, pause] of [["IMG_1000.jpg", [50]], ["IMG_1001.jpg", []]] as const) {
      pauses.length = 0;
      server.updateAsset(ids(jpeg), { isTrashed: true });
      const fixEnv = { ...env, PREVENT_SELF_REKT: String(pause.length > 0) };
      assert.equal((await runMain(["fix-trash"], fixEnv, state, { sleep })).code, 0);
      assert.ok(
        server.assets(user.userId).find((a) => a.id === ids(jpeg.replace(".jpg", ".dng")))!
          .isTrashed,
      );
      assert.deepEqual(pauses, pause);
    }
  } finally {
    await Deno.remove(state, { recursive: true });
  }
});

/** Pairs of the runs a shutdown signal stops mid-way. */
const GROUPS = 60;

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
  const user = pairs(server, GROUPS);
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
  const user = pairs(server, GROUPS);
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
