/**
 * Stacks left as they are for want of REPLACE_STACKS, through the real CLI against the Immich
 * test server: each is named at info once, by the first pass that finds it (or again when its
 * reason changes), and counted by the passes after it, across the passes of a cron process and
 * across processes through the state folder (at 415 such lines a pass, 15 minutes of cron filled
 * 22 MB of log).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type CliResult,
  finishCli,
  type JsonLine,
  jsonLines,
  runCliJson,
  spawnCli,
} from "./_cli.ts";
import { type ImmichServer, startImmichServer } from "./immich_server.ts";

type Line = JsonLine;

async function cli(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): Promise<CliResult & { lines: Line[] }> {
  const result = await runCliJson(args, env);
  return { ...result, lines: jsonLines(result.stdout) };
}

/**
 * A user with `conflicts` stacks made by hand, each holding a photo of another group (so each is
 * left as it is without REPLACE_STACKS), and the key.
 */
function conflicted(server: ImmichServer, conflicts: number): { userId: string; key: string } {
  const user = server.addUser({ name: "Ada" });
  const key = server.addKey(user.id);
  for (let g = 0; g < conflicts; g++) {
    const at = (minute: number) =>
      new Date(Date.parse("2024-05-01T10:00:00.000Z") + (2 * g + minute) * 60_000).toISOString();
    const add = (name: string, minute: number) =>
      server.addAsset(user.id, { originalFileName: name, localDateTime: at(minute) }).id;
    const jpg = add(`IMG_${1000 + 2 * g}.jpg`, 0);
    add(`IMG_${1000 + 2 * g}.dng`, 0);
    const other = add(`IMG_${1001 + 2 * g}.jpg`, 1);
    server.addStack(user.id, [jpg, other]);
  }
  return { userId: user.id, key };
}

const NAMED = /^Left stack \S+ as it is: set REPLACE_STACKS=true to replace it$/;
const COUNTED =
  /^Left (\d+) stacks? as (?:it is|they are), named in an earlier pass: set REPLACE_STACKS=true/;

function named(lines: readonly Line[], level = "info"): string[] {
  return lines.filter((line) => line.level === level && NAMED.test(line.msg)).map((line) =>
    String(line.stackID)
  );
}

function counted(lines: readonly Line[]): number[] {
  return lines.flatMap((line) => {
    const match = COUNTED.exec(line.msg);
    return match === null || line.level !== "info" ? [] : [Number(match[1])];
  });
}

Deno.test("main.ts names a stack left as it is once across runs, then counts it", async () => {
  await using server = await startImmichServer();
  const { userId, key } = conflicted(server, 3);
  const state = await Deno.makeTempDir({ prefix: "stacksync_state_test_" });
  try {
    const env = { API_URL: server.url, API_KEY: key, STATE_DIR: state };
    const first = await cli([], env);
    assert.equal(first.code, 0, first.stdout + first.stderr);
    const stacks = server.stacks(userId).map((stack) => stack.id).sort();
    assert.equal(stacks.length, 3);
    assert.deepEqual(named(first.lines).sort(), stacks, first.stdout);
    assert.deepEqual(counted(first.lines), []);

    // The file that remembers them is the user's own.
    const file = join(state, "named", `${userId}.json`);
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
    assert.equal(JSON.parse(await Deno.readTextFile(file)).format, "stacksync-named");

    const second = await cli([], { ...env, LOG_LEVEL: "debug" });
    assert.equal(second.code, 0, second.stdout + second.stderr);
    assert.deepEqual(named(second.lines), []);
    assert.deepEqual(counted(second.lines), [3]);
    assert.deepEqual(named(second.lines, "debug").sort(), stacks);

    // A new conflict is named; those named before are still counted.
    const jpg = server.addAsset(userId, {
      originalFileName: "IMG_2000.jpg",
      localDateTime: "2024-06-01T10:00:00.000Z",
    });
    const other = server.addAsset(userId, {
      originalFileName: "IMG_2001.jpg",
      localDateTime: "2024-06-01T10:05:00.000Z",
    });
    server.addAsset(userId, {
      originalFileName: "IMG_2000.dng",
      localDateTime: "2024-06-01T10:00:00.000Z",
    });
    const added = server.addStack(userId, [jpg.id, other.id]);
    const third = await cli([], env);
    assert.deepEqual(named(third.lines), [added.id]);
    assert.deepEqual(counted(third.lines), [3]);

    // A damaged file only means they are named again.
    await Deno.writeTextFile(file, "{ not json");
    const fourth = await cli([], env);
    assert.equal(fourth.code, 0, fourth.stdout + fourth.stderr);
    assert.equal(named(fourth.lines).length, 4);
    assert.deepEqual(counted(fourth.lines), []);
  } finally {
    await Deno.remove(state, { recursive: true });
  }
});

Deno.test("main.ts in cron mode names a stack left as it is in its first pass only", async () => {
  await using server = await startImmichServer();
  const { key } = conflicted(server, 2);
  // A dry run writes nothing in the state folder: what the second pass knows is in memory.
  const cron = await spawnCli({
    env: {
      API_URL: server.url,
      API_KEY: key,
      DRY_RUN: "true",
      RUN_MODE: "cron",
      CRON_INTERVAL: "1",
      LOG_FORMAT: "json",
    },
  });
  try {
    let passes = 0;
    while (passes < 2) {
      const line = await cron.nextLine();
      if (line === undefined) break;
      if (line.includes('"Run finished')) passes++;
    }
    cron.process.kill("SIGTERM");
    const end = await finishCli(cron, 30_000);
    const lines = jsonLines(end.lines.join("\n"));
    const ends = lines.flatMap((line, index) => line.msg.startsWith("Run finished") ? [index] : []);
    assert.ok(ends.length >= 2, end.lines.join("\n"));
    const firstPass = lines.slice(0, ends[0]);
    const secondPass = lines.slice(ends[0], ends[1]);
    assert.equal(named(firstPass).length, 2, end.lines.join("\n"));
    assert.deepEqual(counted(firstPass), []);
    assert.deepEqual(named(secondPass), []);
    assert.deepEqual(counted(secondPass), [2]);
    await Deno.remove(cron.cwd, { recursive: true });
  } finally {
    try {
      cron.process.kill("SIGKILL");
    } catch {
      // Already ended.
    }
  }
});
