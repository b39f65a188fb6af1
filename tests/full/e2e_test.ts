/**
 * The real CLI as a subprocess under faults, against the Immich test server: a create that fails
 * every attempt, and 5xx answers (before and after the server did the work), dropped connections
 * and 429 with Retry-After. The CLI's retries wait for real (seconds in all), so only
 * `deno task test:full` runs these; in process, tests/safety_property_test.ts,
 * tests/undo_property_test.ts and tests/apply_test.ts meet the same faults without waiting.
 */
import assert from "node:assert/strict";
import { isDeepStrictEqual as isDeepEqual } from "node:util";
import type { CliResult } from "../_cli.ts";
import {
  CRITERIA,
  describeStack,
  env,
  EXPECTED,
  logLines,
  messages,
  run,
  stacksOf,
  startLibrary,
  summaryOf,
} from "../_e2e.ts";
import { type ImmichServer, startImmichServer } from "../immich_server.ts";

/** A UUID (v4 form) numbered `n`, so two servers can hold the very same library. */
function uuid(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
}

/** A user "Ada" on `server` with the soak library and the same messy stacks on every call. */
function seedSoakLibrary(server: ImmichServer): { userId: string; key: string } {
  const user = server.addUser({ name: "Ada", id: uuid(0) });
  const key = server.addKey(user.id);
  let next = 1;
  const add = (name: string, time: number) =>
    server.addAsset(user.id, {
      id: uuid(next++),
      originalFileName: name,
      localDateTime: new Date(time).toISOString(),
    }).id;
  const start = Date.parse("2024-07-01T08:00:00.000Z");
  const singles = Array.from(
    { length: 40 },
    (_, i) => add(`DSC_${9000 + i}.jpg`, start - i * 60_000),
  );
  for (let g = 0; g < 60; g++) {
    const time = start + g * 60_000;
    const n = String(1000 + g);
    // Creation order is not the parent order, so every kind of stack below is really wrong.
    const group = [
      [`IMG_${n}.dng`, `IMG_${n}.jpg`],
      [`IMG_${n}.dng`, `IMG_${n}.jpg`, `IMG_${n}_edited.jpg`],
      [`IMG_${n}.jpg`, `IMG_${n}~2.jpg`, `IMG_${n}~3.jpg`],
      [1, 2, 3, 4, 5].map((k) => `IMG_20240701_${n}_BURST00${k}${k === 3 ? "_COVER" : ""}.jpg`),
    ][g % 4].map((name, k) => add(name, time + k * 250));
    if (g % 10 === 0) server.addStack(user.id, group); // wrong parent
    if (g % 10 === 3) server.addStack(user.id, [...group, singles[Math.floor(g / 10)]]); // member outside
    if (g % 10 === 6 && group.length >= 3) server.addStack(user.id, group.slice(0, 2)); // grow
    if (g % 8 === 7) { // the group spans two stacks
      server.addStack(user.id, group.slice(0, 2));
      server.addStack(user.id, group.slice(2));
    }
  }
  server.addStack(user.id, [singles[30], singles[31]]); // hand-made
  server.addStack(user.id, [singles[32], singles[33], singles[34]]); // hand-made
  return { userId: user.id, key };
}

function soakState(server: ImmichServer, userId: string): string[] {
  return server.stacks(userId).map((stack) => describeStack(stack, new Map())).sort();
}

Deno.test("main.ts under 5xx, dropped connections and 429 reaches a clean run's end state in two runs", async () => {
  await using clean = await startImmichServer();
  await using faulty = await startImmichServer();
  const reference = seedSoakLibrary(clean);
  const user = seedSoakLibrary(faulty);
  assert.deepEqual(soakState(faulty, user.userId), soakState(clean, reference.userId));
  const runEnv = (server: ImmichServer, key: string) => ({
    API_URL: server.url,
    API_KEY: key,
    LOG_FORMAT: "json",
    CRITERIA,
    REPLACE_STACKS: "true",
    // One write at a time: the fault plan below counts a route's attempts in the order sent.
    STACK_CONCURRENCY: "1",
  });

  const cleanRun = await run(runEnv(clean, reference.key));
  assert.equal(cleanRun.code, 0);
  const expected = soakState(clean, reference.userId);
  assert.match(summaryOf(cleanRun), /: 1?\d+ created, \d+ updated, [1-9]\d* replaced, /);
  assert.equal(expected.length, 62);

  faulty.setFaults({
    seed: 6,
    error5xxRate: 0.04,
    error5xxAfterWorkRate: 0.04,
    dropRate: 0.02,
    rate429: 0.03,
    retryAfterSeconds: 1,
    // The first deletion fails all four attempts, so the first run cannot finish everything.
    routes: { "DELETE /stacks/{id}": { status: 503, times: 4 } },
  });
  const runs: CliResult[] = [];
  while (runs.length < 2 && !isDeepEqual(soakState(faulty, user.userId), expected)) {
    const result = await run(runEnv(faulty, user.key));
    runs.push(result);
    assert.ok([0, 1].includes(result.code), result.stdout);
    const lines = logLines(result); // every line is a JSON log line: no stack trace anywhere
    assert.ok(!result.stdout.includes("    at "), result.stdout);
    const reachedEnd = isDeepEqual(soakState(faulty, user.userId), expected);
    if (result.code === 0) assert.ok(reachedEnd, result.stdout);
    if (!reachedEnd) {
      assert.equal(result.code, 1);
      // What is left: failed or unfinished actions in the summary, or the skipped user.
      const left = lines.filter((line) =>
        line.level === "warn" &&
        (/^Summary for Ada: .*, [1-9]\d* failed/.test(line.msg) || / not done, /.test(line.msg))
      );
      const skipped = lines.filter((line) =>
        line.level === "error" && /^Skipping Ada/.test(line.msg)
      );
      assert.equal(left.length + skipped.length, 1, result.stdout);
      const undone = lines.filter((line) => line.msg.startsWith("Left for the next run: "));
      assert.ok(skipped.length === 1 || undone.length > 0, result.stdout);
    }
  }
  assert.deepEqual(soakState(faulty, user.userId), expected);
  assert.deepEqual(runs.map((result) => result.code), [1, 0]);

  const statuses = new Set(faulty.requests.map((request) => request.status));
  for (const status of [0, 429, 500]) assert.ok(statuses.has(status), `no ${status} answer`);
  const retries = runs.flatMap(logLines).filter((line) => line.msg.startsWith("Retry "));
  assert.ok(retries.length > 0);
  for (const line of retries) {
    assert.equal(line.level, "warn");
    assert.match(line.msg, /^Retry [123]\/3 after \d+ms$/);
  }
  // Retry-After: 1 is honoured as it is, without backoff or jitter.
  assert.ok(retries.some((line) => line.msg.endsWith(" after 1000ms") && line.status === 429));
});
Deno.test("main.ts counts a create that keeps failing and still makes the other stacks", async () => {
  const library = await startLibrary();
  await using _server = library.server;
  // The first create of the run meets all four attempts (one try and three retries) failing.
  library.server.setFaults({ routes: { "POST /stacks": { status: 500, times: 4 } } });

  // One write at a time, so that the four failures are one create's four attempts.
  const result = await run({ ...env(library), STACK_CONCURRENCY: "1" });
  assert.equal(result.code, 1);
  const posts = library.server.requests.filter((r) => r.method === "POST" && r.path === "/stacks");
  assert.deepEqual(posts.map((r) => r.status), [500, 500, 500, 500, ...Array(6).fill(201)]);
  assert.deepEqual(posts.slice(1, 4).map((r) => r.body), Array(3).fill(posts[0].body));
  const failedIds = (posts[0].body as { assetIds: string[] }).assetIds;
  assert.equal(library.server.stacks(library.userId).length, 6);
  assert.deepEqual(
    stacksOf(library),
    EXPECTED.filter((stack) => !stack.startsWith(`${library.labels.get(failedIds[0])} <-`)),
  );
  assert.equal(
    summaryOf(result),
    "Summary for Ada: 6 created, 0 updated, 0 replaced, 0 deleted, 0 in sync, 0 need replacing, " +
      "1 failed, 0 assets skipped",
  );
  assert.deepEqual(
    logLines(result).filter((line) => line.level === "warn" && line.msg.startsWith("Retry"))
      .map((line) => line.msg.replace(/after \d+ms$/, "after <delay>")),
    ["Retry 1/3 after <delay>", "Retry 2/3 after <delay>", "Retry 3/3 after <delay>"],
  );
  const failure = logLines(result).filter((line) => line.level === "error");
  assert.deepEqual(failure.map((line) => [line.msg, line.assetID, line.user]), [
    ["Failed to create stack", failedIds[0], "Ada"],
  ]);
  assert.match(String(failure[0].error), /500/);
  const groupSize = failedIds.length;
  assert.deepEqual(
    messages(result, "warn").filter((msg) => msg.startsWith("Left for the next run")).map((msg) =>
      msg.replace(/: API request failed: .*$/, "")
    ),
    [`Left for the next run: create stack with ${groupSize} assets: Failed to create stack`],
  );
  assert.deepEqual(messages(result, "warn").filter((msg) => msg.startsWith("Run finished")), [
    "Run finished: 1 user processed, 0 users skipped, 1 action failed",
  ]);
});
