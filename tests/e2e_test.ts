/**
 * End to end: the real CLI as a subprocess against the Immich test server. Each test reads the
 * JSON log lines of its runs and the server's recorded requests and stacks; none waits for real
 * time of its own, only for the CLI.
 */
import assert from "node:assert/strict";
import { RESET_CONFIRMATION } from "../src/config.ts";
import { runCli, spawnCli, type SpawnedCli } from "./_cli.ts";
import {
  countsOf,
  CRITERIA,
  describeStack,
  env,
  EXPECTED,
  type Library,
  type LogLine,
  logLines,
  makeStack,
  messages,
  planOf,
  run,
  stacksOf,
  startLibrary,
  summaryOf,
  writes,
} from "./_e2e.ts";
Deno.test("main.ts stacks an unstacked library as its dry run said, then sends no write", async () => {
  const library = await startLibrary();
  await using _server = library.server;

  const dry = await run(env(library, { DRY_RUN: "true" }));
  assert.equal(dry.code, 0);
  assert.deepEqual(writes(library.server.requests), []);
  assert.deepEqual(
    messages(dry).filter((msg) => msg.startsWith("[DRY RUN]")).sort(),
    [
      ...Array(4).fill("[DRY RUN] Would create stack with 2 assets"),
      "[DRY RUN] Would create stack with 3 assets",
      "[DRY RUN] Would create stack with 4 assets",
      "[DRY RUN] Would create stack with 2 assets",
    ].sort(),
  );
  assert.equal(
    summaryOf(dry),
    "Summary for Ada (dry run): 7 would be created, 0 would be updated, 0 would be replaced, " +
      "0 would be deleted, 0 in sync, 0 need replacing, 0 failed, 0 assets skipped",
  );
  assert.deepEqual(stacksOf(library), []);

  library.server.clearRequests();
  const first = await run(env(library));
  assert.equal(first.code, 0);
  assert.deepEqual(stacksOf(library), EXPECTED);
  assert.deepEqual(writes(library.server.requests), Array(7).fill("POST /stacks"));
  const created = logLines(first).filter((line) => line.msg === "Success! Stack created");
  assert.equal(created.length, 7);
  assert.ok(created.every((line) => line.level === "info" && line.user === "Ada"));
  assert.deepEqual(
    created.map((line) => line.stackID).sort(),
    library.server.stacks(library.userId).map((stack) => stack.id).sort(),
  );
  assert.deepEqual(planOf(first), planOf(dry));
  assert.equal(countsOf(summaryOf(first)), countsOf(summaryOf(dry)));
  assert.deepEqual(messages(first, "info").filter((msg) => msg.startsWith("Processing user")), [
    "Processing user: Ada",
  ]);

  library.server.clearRequests();
  const second = await run(env(library));
  assert.equal(second.code, 0);
  assert.deepEqual(writes(library.server.requests), []);
  assert.ok(library.server.requests.length > 0);
  assert.equal(
    summaryOf(second),
    "Summary for Ada: 0 created, 0 updated, 0 replaced, 0 deleted, 7 in sync, 0 need replacing, " +
      "0 failed, 0 assets skipped",
  );
  assert.ok(messages(second).includes("No changes: 7 stacks in sync"), second.stdout);
  assert.deepEqual(stacksOf(library), EXPECTED);
});

Deno.test("main.ts fixes a wrong parent with one PUT, grows a stack, and leaves a hand-made stack", async () => {
  const library = await startLibrary();
  await using _server = library.server;
  const wrongParent = makeStack(library, "IMG_0001.dng", "IMG_0001.jpg");
  // The edit is new: the stack predates it.
  const missingEdit = makeStack(library, "IMG_0004.jpg", "IMG_0004.dng");
  const handMade = makeStack(library, "IMG_0100.jpg", "IMG_0101.jpg", "Screenshot_2024-06-10.png");

  const dry = await run(env(library, { DRY_RUN: "true" }));
  assert.deepEqual(writes(library.server.requests), []);
  library.server.clearRequests();
  const real = await run(env(library));
  assert.equal(real.code, 0);
  assert.deepEqual(planOf(real), planOf(dry));
  assert.equal(countsOf(summaryOf(real)), countsOf(summaryOf(dry)));
  assert.equal(
    summaryOf(real),
    "Summary for Ada: 5 created, 2 updated, 0 replaced, 0 deleted, 0 in sync, 0 need replacing, " +
      "0 failed, 0 assets skipped",
  );

  const sent = library.server.requests.filter((r) => writes([r]).length > 0);
  const puts = sent.filter((r) => r.method === "PUT");
  assert.deepEqual(puts.map((r) => [r.path, r.body]), [
    [`/stacks/${wrongParent.id}`, { primaryAssetId: library.ids["IMG_0001.jpg"] }],
  ]);
  assert.deepEqual(sent.filter((r) => r.method === "DELETE"), []);
  const grow = sent.filter((r) =>
    r.method === "POST" &&
    (r.body as { assetIds: string[] }).assetIds.includes(library.ids["IMG_0004.jpg"])
  );
  assert.deepEqual(grow.map((r) => r.body), [{
    assetIds: ["IMG_0004_edited.jpg", "IMG_0004.jpg", "IMG_0004.dng"].map((l) => library.ids[l]),
  }]);
  assert.deepEqual(
    messages(real, "info").filter((msg) => msg.startsWith("Updated stack")).sort(),
    [`Updated stack ${wrongParent.id}`, `Updated stack ${missingEdit.id}`].sort(),
  );
  assert.equal(messages(real).filter((msg) => msg === "Success! Stack created").length, 5);

  assert.deepEqual(
    stacksOf(library),
    [...EXPECTED, describeStack(handMade, library.labels)].sort(),
  );
  const after = library.server.stacks(library.userId);
  assert.deepEqual(after.find((stack) => stack.id === handMade.id), handMade);
  assert.ok(after.some((stack) => stack.id === wrongParent.id));
});

Deno.test("main.ts leaves conflicts alone without REPLACE_STACKS and replaces them with it", async () => {
  const library = await startLibrary();
  await using _server = library.server;
  const outsider = makeStack(library, "IMG_0001.jpg", "IMG_0001.dng", "IMG_0100.jpg");
  const burstA = makeStack(
    library,
    "IMG_20240501_102000_BURST001.jpg",
    "IMG_20240501_102000_BURST002.jpg",
  );
  const burstB = makeStack(
    library,
    "IMG_20240501_102000_BURST003_COVER.jpg",
    "IMG_20240501_102000_BURST004.jpg",
  );
  const conflicts = [outsider, burstA, burstB];
  const before = conflicts.map((stack) => describeStack(stack, library.labels));

  const kept = await run(env(library));
  assert.equal(kept.code, 0);
  assert.equal(
    summaryOf(kept),
    "Summary for Ada: 5 created, 0 updated, 0 replaced, 0 deleted, 0 in sync, 2 need replacing, " +
      "0 failed, 0 assets skipped",
  );
  assert.deepEqual(
    messages(kept).filter((msg) => msg.startsWith("Left stack")).sort(),
    [
      `Left stack ${outsider.id} as it is: set REPLACE_STACKS=true to replace it`,
      // The stack holding the group's parent comes first.
      `Left stack ${burstB.id}, ${burstA.id} as it is: set REPLACE_STACKS=true to replace it`,
    ].sort(),
  );
  for (const request of library.server.requests) {
    const ids = (request.body as { assetIds?: string[] } | undefined)?.assetIds ?? [];
    assert.ok(
      !conflicts.some((stack) =>
        request.path.includes(stack.id) || ids.includes(stack.primaryAssetId)
      ),
      `${request.method} ${request.path} touched a conflict`,
    );
  }
  const stacks = library.server.stacks(library.userId);
  assert.deepEqual(conflicts.map((c) => stacks.find((s) => s.id === c.id)), conflicts);

  library.server.clearRequests();
  const dry = await run(env(library, { REPLACE_STACKS: "true", DRY_RUN: "true" }));
  assert.deepEqual(writes(library.server.requests), []);
  // One line per replace: the burst's group replaces both of its stacks at once.
  assert.deepEqual(
    messages(dry).filter((msg) => msg.startsWith("[DRY RUN]")).sort(),
    [
      `[DRY RUN] Would replace stack ${outsider.id}`,
      `[DRY RUN] Would replace stack ${burstB.id}, ${burstA.id}`,
    ].sort(),
  );

  const replaced = await run(env(library, { REPLACE_STACKS: "true" }));
  assert.equal(replaced.code, 0);
  assert.deepEqual(planOf(replaced), planOf(dry));
  assert.equal(countsOf(summaryOf(replaced)), countsOf(summaryOf(dry)));
  assert.equal(
    summaryOf(replaced),
    "Summary for Ada: 0 created, 0 updated, 2 replaced, 3 deleted, 5 in sync, 0 need replacing, " +
      "0 failed, 0 assets skipped",
  );
  assert.deepEqual(
    writes(library.server.requests).filter((write) => write.startsWith("DELETE")).sort(),
    conflicts.map((stack) => `DELETE /stacks/${stack.id}`).sort(),
  );
  assert.deepEqual(
    messages(replaced).filter((msg) => msg.startsWith("Deleted stack")).sort(),
    conflicts.map((stack) => `Deleted stack ${stack.id} - replacing child stack with new one`)
      .sort(),
  );
  assert.ok(!messages(replaced).includes("Success! Stack created"));
  assert.deepEqual(stacksOf(library), EXPECTED);
  assert.notDeepEqual(before, EXPECTED);

  library.server.clearRequests();
  const again = await run(env(library, { REPLACE_STACKS: "true" }));
  assert.equal(again.code, 0);
  assert.deepEqual(writes(library.server.requests), []);
});

Deno.test("main.ts removes 1-asset stacks only when asked", async () => {
  const library = await startLibrary();
  await using _server = library.server;
  const pair = makeStack(library, "IMG_0100.jpg", "IMG_0101.jpg");
  // Moving a non-primary member into a new stack leaves its old stack with only the primary.
  makeStack(library, "Screenshot_2024-06-10.png", "IMG_0101.jpg");
  const single = library.server.stacks(library.userId).find((s) => s.id === pair.id)!;
  assert.deepEqual(single.assetIds, [library.ids["IMG_0100.jpg"]]);
  const handMade = library.server.stacks(library.userId).find((s) => s.id !== pair.id)!;

  const kept = await run(env(library));
  assert.equal(kept.code, 0);
  assert.ok(library.server.stacks(library.userId).some((s) => s.id === single.id));

  library.server.clearRequests();
  const dry = await run(env(library, { REMOVE_SINGLE_ASSET_STACKS: "true", DRY_RUN: "true" }));
  assert.deepEqual(writes(library.server.requests), []);
  assert.deepEqual(messages(dry).filter((msg) => msg.startsWith("[DRY RUN]")), [
    `[DRY RUN] Would delete stack ${single.id}`,
  ]);
  library.server.clearRequests();
  const removed = await run(env(library, { REMOVE_SINGLE_ASSET_STACKS: "true" }));
  assert.equal(removed.code, 0);
  assert.deepEqual(planOf(removed), planOf(dry));
  assert.deepEqual(writes(library.server.requests), [`DELETE /stacks/${single.id}`]);
  assert.deepEqual(messages(removed).filter((msg) => msg.startsWith("Deleted")), [
    `Deleted stack ${single.id}`,
  ]);
  assert.match(summaryOf(removed), /: 0 created, 0 updated, 0 replaced, 1 deleted, 7 in sync,/);
  assert.deepEqual(
    stacksOf(library),
    [...EXPECTED, describeStack(handMade, library.labels)].sort(),
  );
});

Deno.test("main.ts resets every stack only in once mode with the exact confirmation", async () => {
  const library = await startLibrary();
  await using _server = library.server;
  makeStack(library, "IMG_0001.dng", "IMG_0001.jpg");
  makeStack(library, "IMG_0002.jpg", "IMG_0002.dng");
  makeStack(library, "IMG_0100.jpg", "IMG_0101.jpg");
  const old = library.server.stacks(library.userId);
  const reset = { RESET_STACKS: "true", CONFIRM_RESET_STACK: RESET_CONFIRMATION };

  for (
    const refused of [
      { ...reset, RUN_MODE: "cron" },
      { RESET_STACKS: "true" },
      { ...reset, CONFIRM_RESET_STACK: RESET_CONFIRMATION.toLowerCase() },
      { ...reset, CONFIRM_RESET_STACK: `${RESET_CONFIRMATION} ` },
    ]
  ) {
    const result = await runCli({ env: env(library, refused) });
    await Deno.remove(result.cwd, { recursive: true });
    assert.equal(result.code, 2, JSON.stringify(refused));
    assert.equal(result.stdout, "");
    assert.match(result.stderr, /^error: Invalid .*RESET.*\n$/);
    assert.deepEqual(library.server.requests, [], JSON.stringify(refused));
  }

  const dry = await run(env(library, { ...reset, DRY_RUN: "true" }));
  assert.deepEqual(writes(library.server.requests), []);
  assert.deepEqual(
    messages(dry).filter((msg) => msg.startsWith("[DRY RUN] Would delete")).sort(),
    old.map((stack) => `[DRY RUN] Would delete stack ${stack.id}`).sort(),
  );
  library.server.clearRequests();
  const done = await run(env(library, reset));
  assert.equal(done.code, 0);
  assert.deepEqual(planOf(done), planOf(dry));
  assert.equal(countsOf(summaryOf(done)), countsOf(summaryOf(dry)));
  const sent = writes(library.server.requests);
  const deletes = sent.filter((write) => write.startsWith("DELETE"));
  assert.deepEqual(deletes.sort(), old.map((stack) => `DELETE /stacks/${stack.id}`).sort());
  assert.deepEqual(sent.slice(0, deletes.length).sort(), deletes);
  assert.deepEqual(sent.slice(deletes.length), Array(7).fill("POST /stacks"));
  assert.deepEqual(stacksOf(library), EXPECTED);
  const now = library.server.stacks(library.userId).map((stack) => stack.id);
  assert.ok(old.every((stack) => !now.includes(stack.id)));
});

Deno.test("main.ts skips a user whose key is invalid, names no key, and exits 1", async () => {
  const library = await startLibrary();
  await using _server = library.server;
  const bo = library.server.addUser({ name: "Bo" });
  const boKey = library.server.addKey(bo.id, { secret: "sk-e2e-bo-77aa" });
  for (const name of ["DSC_0001.ARW", "DSC_0001.JPG"]) {
    library.server.addAsset(bo.id, {
      originalFileName: name,
      localDateTime: "2024-05-02T08:00:00Z",
    });
  }
  const invalid = "sk-e2e-revoked-9d0e";

  const result = await run(env(library, { API_KEY: `${invalid},${boKey}`, LOG_LEVEL: "trace" }));
  assert.equal(result.code, 1);
  for (const secret of [invalid, boKey]) assert.ok(!result.stdout.includes(secret), result.stdout);
  const errors = logLines(result).filter((line) => line.level === "error");
  assert.equal(errors.length, 1, result.stdout);
  assert.match(errors[0].msg, /^Skipping user 1: .*401.*Invalid API key/);
  assert.deepEqual(messages(result).filter((msg) => msg.startsWith("Processing user")), [
    "Processing user: Bo",
  ]);
  assert.match(summaryOf(result, "Bo"), /^Summary for Bo: 1 created, /);
  assert.deepEqual(
    library.server.stacks(bo.id).map((stack) => stack.assetIds.length),
    [2],
  );
  assert.deepEqual(messages(result, "warn").filter((msg) => msg.startsWith("Run finished")), [
    "Run finished: 1 user processed, 1 user skipped, 0 actions failed",
  ]);
});

Deno.test("main.ts refuses a key lacking stack.create before any write, but dry-runs a read-only key", async () => {
  const library = await startLibrary();
  await using _server = library.server;
  const readOnly = ["user.read", "asset.read", "stack.read"];
  const noCreate = library.server.addKey(library.userId, {
    permissions: [...readOnly, "stack.update", "stack.delete"],
  });
  const reader = library.server.addKey(library.userId, { permissions: readOnly });

  const refused = await run(env(library, { API_KEY: noCreate }));
  assert.equal(refused.code, 1);
  const errors = messages(refused, "error");
  assert.equal(errors.length, 1, refused.stdout);
  assert.match(
    errors[0],
    /^Skipping user 1: Cannot use the API key as it lacks the permissions stack\.create: /,
  );
  const alsoRefused = await run(env(library, { API_KEY: reader }));
  assert.equal(alsoRefused.code, 1);
  assert.match(
    messages(alsoRefused, "error").join("\n"),
    /^Skipping user 1: Cannot use the API key as it lacks the permissions stack\.create, stack\.update, stack\.delete: /,
  );
  assert.deepEqual(writes(library.server.requests), []);
  assert.ok(!library.server.requests.some((r) => r.path === "/search/metadata"));

  const dry = await run(env(library, { API_KEY: reader, DRY_RUN: "true" }));
  assert.equal(dry.code, 0);
  assert.equal(messages(dry).filter((msg) => msg.startsWith("[DRY RUN] Would create")).length, 7);
  assert.deepEqual(writes(library.server.requests), []);
  assert.ok(library.server.requests.every((r) => r.status < 400));
});

/** Reads the cron run's lines until `until` matches one; fails when stdout ends first. */
async function readUntil(cli: SpawnedCli, until: (line: LogLine) => boolean): Promise<void> {
  for (let line = await cli.nextLine(); line !== undefined; line = await cli.nextLine()) {
    if (until(JSON.parse(line))) return;
  }
  assert.fail(`The CLI ended early: ${cli.lines.join("\n")}`);
}

/** Awaits the process, killing it and failing after `limitMs` (a safety net, not a timing). */
async function statusWithin(cli: SpawnedCli, limitMs: number): Promise<Deno.CommandStatus> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => timer = setTimeout(() => resolve("late"), limitMs));
  const status = await Promise.race([cli.process.status, late]);
  clearTimeout(timer);
  if (status === "late") {
    cli.process.kill("SIGKILL");
    await cli.process.status;
    assert.fail(`The CLI did not exit within ${limitMs} ms of SIGTERM`);
  }
  return status;
}

/** Runs cron mode until `passes` passes ended and the next sleep began, then sends SIGTERM. */
async function cronUntilSignal(library: Library, interval: number, passes: number) {
  const cli = await spawnCli({
    env: env(library, { RUN_MODE: "cron", CRON_INTERVAL: String(interval) }),
  });
  try {
    for (let pass = 1; pass <= passes; pass++) {
      await readUntil(cli, (line) => line.msg.startsWith("Next pass in"));
    }
    cli.process.kill("SIGTERM");
    const status = await statusWithin(cli, 5000);
    while (await cli.nextLine() !== undefined);
    const stderr = await new Response(cli.process.stderr).text();
    return { status, stderr, lines: cli.lines.map((line) => JSON.parse(line) as LogLine) };
  } finally {
    await Deno.remove(cli.cwd, { recursive: true });
  }
}

Deno.test("main.ts in cron mode runs pass after pass and exits 0 on SIGTERM during the sleep", async () => {
  const [short, long] = await Promise.all([startLibrary(), startLibrary()]);
  await using _short = short.server;
  await using _long = long.server;
  // A 1 s interval shows the passes repeat; a 1 h one shows the signal ends the sleep at once.
  const [repeated, interrupted] = await Promise.all([
    cronUntilSignal(short, 1, 2),
    cronUntilSignal(long, 3600, 1),
  ]);
  for (const { status, stderr, lines } of [repeated, interrupted]) {
    assert.deepEqual([status.code, status.signal, stderr], [0, null, ""]);
    const shutdown = lines.filter((line) => line.msg === "Received shutdown signal");
    assert.deepEqual(shutdown.map((line) => line.level), ["info"]);
    assert.equal(lines.at(-1)!.msg, "Received shutdown signal");
  }
  const summaries = repeated.lines.filter((line) => line.msg.startsWith("Summary for Ada"));
  assert.ok(summaries.length >= 2);
  assert.match(summaries[0].msg, /: 7 created, /);
  assert.match(summaries[1].msg, /: 0 created, 0 updated, 0 replaced, 0 deleted, 7 in sync, /);
  assert.deepEqual(stacksOf(short), EXPECTED);
});

Deno.test("main.ts logs each group's members, parent and deciding rule at debug level", async () => {
  const library = await startLibrary();
  await using _server = library.server;
  const result = await run(env(library, { DRY_RUN: "true", LOG_LEVEL: "debug" }));
  assert.equal(result.code, 0);
  const decisions = logLines(result)
    .filter((line) => line.level === "debug" && / chosen by /.test(line.msg))
    .map((line) => `${line.filename} by ${line.rule}: ${(line.members as string[]).length}`)
    .sort();
  assert.deepEqual(decisions, [
    "IMG_0001.jpg by extension: 2",
    "IMG_0002.jpg by extension: 2",
    "IMG_0003~2.jpg by biggest-number: 2",
    "IMG_0004_edited.jpg by filename: 3",
    "IMG_0005.jpg by extension: 2",
    "IMG_0005.jpg by extension: 2",
    "IMG_20240501_102000_BURST003_COVER.jpg by filename: 4",
  ]);
  const info = await run(env(library, { DRY_RUN: "true" }));
  assert.ok(!logLines(info).some((line) => / chosen by /.test(line.msg)), info.stdout);
});

Deno.test("main.ts asks for album.read before resolving FILTER_ALBUM_IDS names", async () => {
  const library = await startLibrary();
  await using _server = library.server;
  const { server, ids, userId } = library;
  server.addAlbum(userId, "Holidays", [ids["IMG_0001.jpg"], ids["IMG_0001.dng"]]);
  const reads = ["user.read", "asset.read", "stack.read"];
  const withoutAlbums = server.addKey(userId, { permissions: reads, secret: "sk-no-albums-1" });
  const withAlbums = server.addKey(userId, {
    permissions: [...reads, "album.read"],
    secret: "sk-albums-2",
  });
  const base = { DRY_RUN: "true", FILTER_ALBUM_IDS: "Holidays" };

  const refused = await run(env(library, { ...base, API_KEY: withoutAlbums }));
  assert.equal(refused.code, 1);
  assert.ok(
    messages(refused, "error").some((msg) => /lacks the permissions album\.read:/.test(msg)),
    refused.stdout,
  );
  assert.ok(!server.requests.some((request) => request.path === "/albums"));

  const allowed = await run(env(library, { ...base, API_KEY: withAlbums }));
  assert.equal(allowed.code, 0, allowed.stdout);
  assert.deepEqual(messages(allowed).filter((msg) => msg.startsWith("[DRY RUN]")), [
    "[DRY RUN] Would create stack with 2 assets",
  ]);
});

Deno.test("main.ts groups on a criterion field beyond file name and time", async () => {
  const library = await startLibrary();
  await using _server = library.server;
  const withType = JSON.stringify([...JSON.parse(CRITERIA), { key: "type" }]);
  const result = await run(env(library, { CRITERIA: withType }));
  assert.equal(result.code, 0, result.stdout);
  assert.deepEqual(stacksOf(library), EXPECTED);
});
