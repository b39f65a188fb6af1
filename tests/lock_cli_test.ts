/**
 * One process at a time per state folder and user, through the real CLI against the Immich test
 * server: processes started together on one STATE_DIR create each group once, and every one
 * exits 0 or 1 with one line naming the process that holds the user; a cron process waits for
 * it; a killed holder blocks nothing; and the next pass is incremental with a cache it can read
 * (docs/state.md, "One process at a time").
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { finishCli, spawnCli } from "./_cli.ts";
import type { ImmichServer } from "./immich_server.ts";
import { UserLocks } from "../src/state/lock.ts";
import { adaWithState, cli, killAfterFirstCreate, type Line, passOf } from "./_state_cli.ts";

/** The line of a process that found the user held by another, and gave up. */
const HELD =
  /^Skipping Ada: Cannot process this user while another stacksync process does: pid \d+ \(stacksync run, since \d{4}-\d\d-\d\dT[\d:.]+Z\) holds .*[/\\]locks[/\\][0-9a-f-]+\.lock$/;

/** The rendered message of each JSON log line. */
function messages(lines: readonly string[]): string[] {
  return lines.map((line) => (JSON.parse(line) as Line).msg);
}

/** Runs `count` CLIs at once on one STATE_DIR; each one's exit status and messages. */
async function together(
  count: number,
  env: Readonly<Record<string, string>>,
): Promise<{ code: number | undefined; messages: string[] }[]> {
  const runs = await Promise.all(
    Array.from({ length: count }, () => spawnCli({ env: { LOG_FORMAT: "json", ...env } })),
  );
  return await Promise.all(runs.map(async (run) => {
    const finished = await finishCli(run, 120_000);
    await Deno.remove(run.cwd, { recursive: true });
    return { code: finished.code, messages: messages(finished.lines) };
  }));
}

/** How many `POST /stacks` the server answered. */
function creates(server: ImmichServer): number {
  return server.requests.filter((r) => r.method === "POST" && r.path === "/stacks").length;
}

Deno.test("main.ts started 2 to 8 times at once on one STATE_DIR creates each group once; each process exits 0 or 1 with one line naming the holder; the next pass is incremental", async () => {
  for (const count of [2, 8]) {
    await using test = await adaWithState(30);
    const { server, user, env } = test;
    // Slow writes keep the first process's pass going while the others start.
    server.setFaults({ routeLatencyMs: { "POST /stacks": 20 } });
    const results = await together(count, env);
    server.setFaults({});
    for (const result of results) {
      assert.ok(result.code === 0 || result.code === 1, result.messages.join("\n"));
      const held = result.messages.filter((msg) => HELD.test(msg));
      assert.equal(held.length, result.code === 1 ? 1 : 0, result.messages.join("\n"));
    }
    assert.ok(results.some((result) => result.code === 0));
    assert.equal(creates(server), 30, `${count} processes`);
    assert.equal(server.stacks(user.id).length, 30);

    server.clearRequests();
    const next = await cli(env);
    assert.equal(next.code, 0, next.stdout + next.stderr);
    assert.equal(passOf(next), "incremental");
    assert.equal(creates(server), 0);
  }
});

Deno.test("main.ts gives a user up at once, before any write, while another process holds it, and a cron process waits for it", async () => {
  await using test = await adaWithState(3);
  const { server, user, state } = test;
  const env = { LOG_FORMAT: "json", ...test.env };
  const locks = new UserLocks(state, {
    command: "stacksync run",
    wait: false,
    sleep: () => Promise.resolve(),
    now: () => new Date("2026-11-23T10:15:00.000Z"),
  });
  const held = await locks.take(user.id);

  const refused = await cli(env);
  assert.equal(refused.code, 1, refused.stdout + refused.stderr);
  const said = messages(refused.stdout.split("\n").filter((line) => line !== ""));
  const line = said.filter((msg) => HELD.test(msg));
  assert.equal(line.length, 1, said.join("\n"));
  assert.ok(line[0].includes(`pid ${Deno.pid} (stacksync run, since 2026-11-23T10:15:00.000Z)`));
  // The preflight's reads alone: the lock comes before the user's library is read.
  assert.deepEqual(server.requests.filter((r) => r.method !== "GET"), []);
  assert.deepEqual(server.stacks(user.id), []);
  // Nothing of the user was written in the state folder: no journal, no cache.
  assert.deepEqual(await names(join(state, "runs")), []);
  assert.deepEqual(await names(join(state, "cache")), []);

  const cron = await spawnCli({ env: { ...env, RUN_MODE: "cron", CRON_INTERVAL: "3600" } });
  const waited: string[] = [];
  for (let text = await cron.nextLine(); text !== undefined; text = await cron.nextLine()) {
    const msg = (JSON.parse(text) as Line).msg;
    if (msg.startsWith("Waiting for another stacksync process")) {
      waited.push(msg);
      held.release();
    }
    if (msg.startsWith("Next pass in ")) break;
  }
  cron.process.kill("SIGTERM");
  const finished = await finishCli(cron, 60_000);
  await Deno.remove(cron.cwd, { recursive: true });
  assert.equal(finished.code, 0, finished.stderr);
  assert.deepEqual(waited, [
    `Waiting for another stacksync process to finish this user: pid ${Deno.pid} (stacksync ` +
    "run, since 2026-11-23T10:15:00.000Z)",
  ]);
  assert.equal(server.stacks(user.id).length, 3);
});

Deno.test("main.ts is not blocked by the lock of a process that was killed", async () => {
  await using test = await adaWithState(20);
  const { server, user, env } = test;
  server.setFaults({ routeLatencyMs: { "POST /stacks": 20 } });
  await killAfterFirstCreate(env);
  server.setFaults({});
  const next = await cli(env);
  assert.equal(next.code, 0, next.stdout + next.stderr);
  assert.equal(server.stacks(user.id).length, 20);
});

async function names(path: string): Promise<string[]> {
  try {
    return (await Array.fromAsync(Deno.readDir(path))).map((entry) => entry.name).sort();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
}
