/**
 * The safety promises of docs/safety.md, each through the real CLI against the Immich test
 * server: no path loses a stack the user made, a refused key stops the user's writes, a replace
 * is all or nothing, members Immich hides or the pass never fetched stay where they are, search
 * paging cannot make a 1-asset stack or run forever, and the log says the same in a dry run and
 * a real one.
 */
import assert from "node:assert/strict";
import {
  asset,
  describeStack,
  env,
  EXPECTED,
  LIBRARY,
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
import type { RecordedRequest } from "./immich_server.ts";

/** The asset ids each `POST /stacks` listed. */
function posted(requests: readonly RecordedRequest[]): string[][] {
  return requests
    .filter((request) => request.method === "POST" && request.path === "/stacks")
    .map((request) => (request.body as { assetIds?: string[] }).assetIds ?? []);
}

Deno.test("main.ts probes the key below v1.139 and sends no write when it may delete but not create", async () => {
  const library = await startLibrary(LIBRARY, "1.132.3");
  await using _server = library.server;
  // Four hand-made stacks, each holding a photo outside its group: replaces with the option.
  makeStack(library, "IMG_0001.jpg", "IMG_0001.dng", "IMG_0100.jpg");
  makeStack(library, "IMG_0002.jpg", "IMG_0002.dng", "IMG_0101.jpg");
  makeStack(library, "IMG_0003.jpg", "IMG_0003~2.jpg", "Screenshot_2024-06-10.png");
  makeStack(library, "IMG_0004.jpg", "IMG_0004.dng", "IMG_0005.jpg (May 3)");
  const before = stacksOf(library);
  const key = library.server.addKey(library.userId, {
    permissions: ["user.read", "asset.read", "stack.read", "stack.update", "stack.delete"],
  });

  const result = await run(env(library, { API_KEY: key, REPLACE_STACKS: "true" }));
  assert.equal(result.code, 1);
  assert.deepEqual(messages(result, "error"), [
    "Skipping user 1: Cannot use the API key as it lacks the permissions stack.create: Immich " +
    "1.132.3 refused a harmless request needing each (it lists a key's permissions only from " +
    "v1.139)",
  ]);
  assert.deepEqual(stacksOf(library), before);
  // Only the three probes, each refused before it could change anything.
  const probes = library.server.requests.filter((r) => writes([r]).length > 0);
  assert.deepEqual(probes.map((r) => `${r.method} ${r.path} ${r.status}`), [
    "POST /stacks 403",
    "PUT /stacks/00000000-0000-4000-8000-000000000000 400",
    "DELETE /stacks/00000000-0000-4000-8000-000000000000 400",
  ]);
});

Deno.test("main.ts sends no further write for a user once the server answers 403", async () => {
  const library = await startLibrary();
  await using _server = library.server;
  // The key loses stack.create after the check, as when an admin edits it during the run.
  library.server.setFaults({
    routes: {
      "POST /stacks": { status: 403, message: "Missing required permission: stack.create" },
    },
  });
  const result = await run(env(library));
  assert.equal(result.code, 1);
  // Only the writes in flight together when the first 403 came (STACK_CONCURRENCY, default 4)
  // were sent; each was refused, none started after.
  const sent = posted(library.server.requests).length;
  assert.ok(sent >= 1 && sent <= 4, `${sent} writes sent`);
  const summary = logLines(result).filter((line) => line.msg.startsWith("Summary for Ada"));
  assert.deepEqual(summary.map((line) => line.level), ["error"]);
  assert.match(
    summary[0].msg,
    new RegExp(
      `: 0 created, .*, ${sent} failed, ${7 - sent} not done, .*; stopped as the server ` +
        "refused the key: .*403 Missing required permission: stack\\.create",
    ),
  );
  assert.deepEqual(messages(result, "warn").filter((msg) => msg.startsWith("Run finished")), [
    `Run finished: 0 users processed, 0 users skipped, 1 user stopped, ${sent} ` +
    `action${sent === 1 ? "" : "s"} failed`,
  ]);
  assert.ok(
    messages(result, "warn").includes(
      "Left for the next run: create stack with 2 assets: not sent as the server refused the key",
    ),
    result.stdout,
  );
});

Deno.test("main.ts puts back a stack whose replacement could not be created", async () => {
  const library = await startLibrary();
  await using _server = library.server;
  const old = makeStack(library, "IMG_0001.dng", "IMG_0001.jpg", "IMG_0100.jpg");
  const oldStack = describeStack(old, library.labels);
  // The replace's create is the first POST of a run that writes one at a time.
  library.server.setFaults({ routes: { "POST /stacks": { status: 400, times: 1 } } });

  const result = await run(env(library, { REPLACE_STACKS: "true", STACK_CONCURRENCY: "1" }));
  assert.equal(result.code, 1);
  const now = library.server.stacks(library.userId);
  const putBack = now.find((stack) => describeStack(stack, library.labels) === oldStack);
  assert.ok(putBack !== undefined, `not put back: ${stacksOf(library)}`);
  assert.notEqual(putBack.id, old.id);
  assert.deepEqual(
    stacksOf(library),
    [...EXPECTED.filter((stack) => !stack.startsWith("IMG_0001.jpg <-")), oldStack].sort(),
  );
  assert.ok(
    messages(result, "warn").includes(`Put back stack ${old.id} as stack ${putBack.id}`),
    result.stdout,
  );
  assert.ok(
    messages(result, "warn").some((msg) =>
      msg.startsWith(`Left for the next run: replace stack ${old.id}: Failed to create stack: `) &&
      msg.endsWith(`; stack ${old.id} was put back as ${putBack.id}`)
    ),
    result.stdout,
  );
  assert.match(summaryOf(result), /: 6 created, 0 updated, 0 replaced, 0 deleted, .*, 1 failed/);
});

Deno.test("main.ts with RESET_STACKS holds back a create that lists a stack it could not delete", async () => {
  const library = await startLibrary([
    ...LIBRARY,
    asset("HOLIDAY_X.jpg", "2024-08-01T12:00:00.000Z"),
  ]);
  await using _server = library.server;
  const handMade = makeStack(library, "IMG_0001.jpg", "HOLIDAY_X.jpg");
  makeStack(library, "IMG_0002.jpg", "IMG_0002.dng");
  library.server.setFaults({
    routes: { [`DELETE /stacks/${handMade.id}`]: { status: 400, message: "Bad Request" } },
  });

  const result = await run(env(library, {
    RESET_STACKS: "true",
    CONFIRM_RESET_STACK:
      "I acknowledge all my current stacks will be deleted and new one will be created",
  }));
  assert.equal(result.code, 1);
  // The survivor is not merged into a new stack: Immich would have swallowed it.
  const survivor = library.server.stacks(library.userId).find((s) => s.id === handMade.id);
  assert.deepEqual(survivor, handMade);
  assert.ok(posted(library.server.requests).every((ids) => !ids.includes(handMade.assetIds[0])));
  assert.deepEqual(
    stacksOf(library),
    [
      ...EXPECTED.filter((stack) => !stack.startsWith("IMG_0001.jpg <-")),
      "IMG_0001.jpg <- HOLIDAY_X.jpg",
    ].sort(),
  );
  const left = messages(result, "warn").filter((msg) => msg.startsWith("Left for the next run"));
  assert.deepEqual(left.map((msg) => msg.replace(/: API request failed: .*$/, "")), [
    `Left for the next run: delete stack ${handMade.id}: Failed to delete stack ${handMade.id}`,
    "Left for the next run: create stack with 2 assets: held back as a stack it needed deleted " +
    "could not be",
  ]);
  assert.ok(
    messages(result, "warn").includes(
      `Skipped creating a stack of 2 assets: stack ${handMade.id} could not be deleted`,
    ),
  );
});

Deno.test("main.ts with WITH_DELETED lists no trashed photo and takes none out of its stack", async () => {
  const library = await startLibrary([
    asset("IMG_0200.jpg", "2024-05-02T10:00:00.000Z"),
    asset("IMG_0200.dng", "2024-05-02T10:00:00.000Z"),
    asset("IMG_0300.jpg", "2024-05-02T11:00:00.000Z"),
    asset("IMG_0300.dng", "2024-05-02T11:00:00.000Z"),
    asset("HOLIDAY_1.jpg", "2024-08-01T12:00:00.000Z"),
    asset("HOLIDAY_2.jpg", "2024-08-02T12:00:00.000Z"),
  ]);
  await using _server = library.server;
  const { ids, server } = library;
  // The trashed raw would be left out of a new stack (a 1-asset stack); the trashed JPEG,
  // listed first as the parent, would become its cover and leave its own stack.
  const first = makeStack(library, "HOLIDAY_1.jpg", "IMG_0200.dng");
  const second = makeStack(library, "HOLIDAY_2.jpg", "IMG_0300.jpg");
  server.updateAsset(ids["IMG_0200.dng"], { isTrashed: true });
  server.updateAsset(ids["IMG_0300.jpg"], { isTrashed: true });

  const result = await run(env(library, { WITH_DELETED: "true" }));
  assert.equal(result.code, 0, result.stdout);
  assert.deepEqual(posted(server.requests), []);
  assert.deepEqual(server.stacks(library.userId), [first, second]);
});

Deno.test("main.ts does not grow a stack whose member is in the trash, which Immich would drop", async () => {
  const library = await startLibrary([
    ...LIBRARY,
    asset("IMG_0004~2.jpg", "2024-05-01T10:15:00.000Z"),
  ]);
  await using _server = library.server;
  const stack = makeStack(library, "IMG_0004_edited.jpg", "IMG_0004.jpg", "IMG_0004.dng");
  library.server.updateAsset(library.ids["IMG_0004.dng"], { isTrashed: true });

  const result = await run(env(library));
  assert.equal(result.code, 0, result.stdout);
  assert.deepEqual(library.server.stacks(library.userId).find((s) => s.id === stack.id), stack);
  assert.ok(
    messages(result, "info").includes(
      `Left stack ${stack.id} as it is: adding photos to it would drop its members in the ` +
        "trash; restore or delete them, or set REPLACE_STACKS=true to replace it",
    ),
    result.stdout,
  );
  assert.match(summaryOf(result), /: 6 created, 0 updated, .*, 1 needs replacing, 0 failed/);
});

Deno.test("main.ts never counts a stack whose other members are trashed or hidden as one photo", async () => {
  const library = await startLibrary();
  await using _server = library.server;
  const { ids, server } = library;
  const stack = makeStack(library, "IMG_0100.jpg", "IMG_0101.jpg", "Screenshot_2024-06-10.png");
  server.updateAsset(ids["IMG_0101.jpg"], { isTrashed: true });
  server.updateAsset(ids["Screenshot_2024-06-10.png"], { visibility: "hidden" });

  const result = await run(env(library, { REMOVE_SINGLE_ASSET_STACKS: "true" }));
  assert.equal(result.code, 0, result.stdout);
  assert.deepEqual(server.stacks(library.userId).find((s) => s.id === stack.id), stack);
  assert.ok(!server.requests.some((r) => r.method === "DELETE"), result.stdout);
  assert.ok(
    messages(result, "info").includes(
      "Immich does not name the stack of some trashed or hidden assets; stacks left as they are " +
        `because they could hold one: ${stack.id}`,
    ),
    result.stdout,
  );
});

Deno.test("main.ts keeps photos it did not fetch in their stacks and names those a replace takes out", async () => {
  const library = await startLibrary([
    ...LIBRARY,
    asset("CLIP_0001.mp4", "2024-05-01T10:00:00.000Z", undefined, { type: "VIDEO" }),
    asset("CLIP_0002.mp4", "2024-05-01T10:05:00.000Z", undefined, { type: "VIDEO" }),
    asset("OLD_0004.jpg", "2024-05-01T10:15:00.000Z", undefined, { visibility: "archive" }),
  ]);
  await using _server = library.server;
  const withVideo = makeStack(library, "IMG_0001.jpg", "IMG_0001.dng", "CLIP_0001.mp4");
  makeStack(library, "IMG_0004.jpg", "IMG_0004.dng", "OLD_0004.jpg");
  const conflict = makeStack(
    library,
    "IMG_0002.jpg",
    "IMG_0002.dng",
    "IMG_0101.jpg",
    "CLIP_0002.mp4",
  );
  const options = { REPLACE_STACKS: "true" };

  const dry = await run(env(library, { ...options, DRY_RUN: "true" }));
  assert.deepEqual(
    messages(dry, "info").filter((msg) => msg.includes("did not fetch")),
    [
      `[DRY RUN] Replacing stack ${conflict.id} would take out assets this pass did not fetch: ` +
      "CLIP_0002.mp4",
    ],
  );
  const real = await run(env(library, options));
  assert.equal(real.code, 0, real.stdout);
  assert.deepEqual(planOf(real), planOf(dry));
  assert.ok(
    messages(real, "info").includes(
      `Replacing stack ${conflict.id} takes out assets this pass did not fetch: CLIP_0002.mp4`,
    ),
  );
  const after = library.server.stacks(library.userId);
  assert.deepEqual(after.find((stack) => stack.id === withVideo.id), withVideo);
  assert.deepEqual(
    stacksOf(library),
    [
      ...EXPECTED.filter((stack) => !/^IMG_000[14]/.test(stack)),
      "IMG_0001.jpg <- CLIP_0001.mp4, IMG_0001.dng",
      "IMG_0004_edited.jpg <- IMG_0004.dng, IMG_0004.jpg, OLD_0004.jpg",
    ].sort(),
  );
});

Deno.test("main.ts reads each photo once when one arrives between two search pages", async () => {
  // 1001 photos a minute apart: page 1 holds the 1000 newest, page 2 the oldest.
  const start = Date.parse("2024-01-01T00:00:00.000Z");
  const photos = Array.from(
    { length: 1001 },
    (_, i) => asset(`DSC_${1000 + i}.jpg`, new Date(start + i * 60_000).toISOString()),
  );
  const library = await startLibrary(photos);
  await using _server = library.server;
  let searches = 0;
  library.server.setFaults({
    beforeAnswer: ({ path }) => {
      if (path !== "/search/metadata" || ++searches !== 2) return;
      // An upload newer than all shifts Immich's offset pages: page 2 repeats page 1's last.
      library.server.addAsset(library.userId, {
        originalFileName: "NEW.jpg",
        localDateTime: "2025-01-01T00:00:00.000Z",
      });
    },
  });
  const result = await run(env(library));
  assert.equal(result.code, 0, result.stdout);
  assert.equal(searches, 2);
  assert.deepEqual(posted(library.server.requests), []);
  assert.deepEqual(library.server.stacks(library.userId), []);
});

Deno.test("main.ts stops with one clear error when the server keeps announcing a next page", async () => {
  const library = await startLibrary();
  await using _server = library.server;
  library.server.setFaults({ searchPaging: { nextPage: "2", times: 100 } });
  const result = await run(env(library));
  assert.equal(result.code, 1);
  assert.deepEqual(messages(result, "error"), [
    "Skipping Ada: Cannot follow the search pages as the server announced page 2 after a page " +
    "of only 20 assets: current page is 1",
  ]);
  assert.equal(
    library.server.requests.filter((request) => request.path === "/search/metadata").length,
    1,
  );
  assert.deepEqual(writes(library.server.requests), []);
});

Deno.test("main.ts logs one line per action, the same in a dry run and a real one", async () => {
  const library = await startLibrary();
  await using _server = library.server;
  // One stack holding two groups: two replaces share it, and it is deleted once.
  const shared = makeStack(library, "IMG_0001.jpg", "IMG_0001.dng", "IMG_0002.jpg", "IMG_0002.dng");
  const options = { REPLACE_STACKS: "true" };

  const dry = await run(env(library, { ...options, DRY_RUN: "true" }));
  assert.deepEqual(
    messages(dry).filter((msg) => msg.startsWith("[DRY RUN] Would replace")),
    [`[DRY RUN] Would replace stack ${shared.id}`, `[DRY RUN] Would replace stack ${shared.id}`],
  );
  assert.match(summaryOf(dry), /: 5 would be created, 0 would be updated, 2 would be replaced, /);

  const real = await run(env(library, { ...options, LOG_LEVEL: "debug" }));
  assert.equal(real.code, 0, real.stdout);
  assert.ok(!real.stdout.includes("[DRY RUN]"), real.stdout);
  const created = logLines(real).filter((line) => /^Created stack /.test(line.msg));
  assert.deepEqual(created.map((line) => line.level), ["info", "info"]);
  assert.deepEqual(
    created.map((line) => line.msg).sort(),
    library.server.stacks(library.userId)
      .filter((stack) => /^IMG_000[12]\.jpg/.test(describeStack(stack, library.labels)))
      .map((stack) => `Created stack ${stack.id} replacing ${shared.id}`)
      .sort(),
  );
  assert.deepEqual(messages(real).filter((msg) => msg.startsWith("Deleted stack")), [
    `Deleted stack ${shared.id} - replacing child stack with new one`,
  ]);
  assert.deepEqual(planOf(real), planOf(dry));
  assert.match(summaryOf(real), /: 5 created, 0 updated, 2 replaced, /);
  assert.deepEqual(stacksOf(library), EXPECTED);
});

Deno.test("main.ts lists each new stack's files at info, cover first, five at most", async () => {
  const burst = [1, 2, 3, 4, 5, 6, 7].map((k) =>
    asset(
      `IMG_20240502_090000_BURST00${k}${k === 3 ? "_COVER" : ""}.jpg`,
      `2024-05-02T09:00:00.${k}00Z`,
    )
  );
  const library = await startLibrary([...LIBRARY, ...burst]);
  await using _server = library.server;
  const filesOf = (lines: ReturnType<typeof logLines>, msg: string) =>
    lines.filter((line) => line.msg === msg && line.level === "info").map((line) => line.files)
      .sort();
  const expected = [
    "IMG_0001.jpg (parent), IMG_0001.dng",
    "IMG_0002.jpg (parent), IMG_0002.dng",
    "IMG_0003~2.jpg (parent), IMG_0003.jpg",
    "IMG_0004_edited.jpg (parent), IMG_0004.jpg, IMG_0004.dng",
    "IMG_0005.jpg (parent), IMG_0005.dng",
    "IMG_0005.jpg (parent), IMG_0005.dng",
    // Promotion's order after the cover: biggest number first.
    "IMG_20240501_102000_BURST003_COVER.jpg (parent), IMG_20240501_102000_BURST004.jpg, " +
    "IMG_20240501_102000_BURST002.jpg, IMG_20240501_102000_BURST001.jpg",
    "IMG_20240502_090000_BURST003_COVER.jpg (parent), IMG_20240502_090000_BURST007.jpg, " +
    "IMG_20240502_090000_BURST006.jpg, IMG_20240502_090000_BURST005.jpg, " +
    "IMG_20240502_090000_BURST004.jpg, and 2 more",
  ].sort();
  const dry = await run(env(library, { DRY_RUN: "true" }));
  const dryLines = logLines(dry);
  assert.deepEqual(
    [
      ...filesOf(dryLines, "[DRY RUN] Would create stack with 2 assets"),
      ...filesOf(dryLines, "[DRY RUN] Would create stack with 3 assets"),
      ...filesOf(dryLines, "[DRY RUN] Would create stack with 4 assets"),
      ...filesOf(dryLines, "[DRY RUN] Would create stack with 7 assets"),
    ].sort(),
    expected,
  );
  const real = await run(env(library));
  assert.deepEqual(filesOf(logLines(real), "Success! Stack created"), expected);
});
