/**
 * stacksync's main flows through the real CLI against the test server imitating Immich 3.2
 * (docs/architecture.md, "Immich versions"): run (dry, real, incremental), runs and undo, backup
 * and restore, plan and apply, fix-trash and duplicates. Immich 3.2 added a structured search
 * (`filter`, `orderBy`, `cursor`) beside the flat fields it deprecated, and refuses a search that
 * mixes both; stacksync sends the flat shape, which 3.2 still answers as 3.1 did. Every request
 * must be answered without a client error.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type CliResult, runCli } from "./_cli.ts";
import {
  env,
  EXPECTED,
  type Library,
  messages,
  stacksOf,
  startLibrary,
  summaryOf,
  writes,
} from "./_e2e.ts";
import { LIBRARY } from "./_e2e.ts";

const VERSION = "3.2.2";

async function cli(args: readonly string[], runEnv: Record<string, string>): Promise<CliResult> {
  const result = await runCli({ args, env: runEnv });
  await Deno.remove(result.cwd, { recursive: true });
  assert.equal(result.stderr, "", result.stdout);
  return result;
}

/** The requests the server refused, and the searches that used 3.2's structured shape. */
function refusedOrStructured(library: Library): string[] {
  return library.server.requests.flatMap((request) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const structured = ["filter", "orderBy", "cursor"].some((field) => field in body);
    return request.status >= 400 || structured
      ? [`${request.method} ${request.path} ${request.status} ${JSON.stringify(body)}`]
      : [];
  });
}

Deno.test("main.ts runs, reruns incrementally, lists and undoes against Immich 3.2", async () => {
  const library = await startLibrary(LIBRARY, VERSION);
  await using _server = library.server;
  const state = await Deno.makeTempDir({ prefix: "stacksync_state_test_" });
  try {
    const runEnv = env(library, { STATE_DIR: state });
    const dry = await cli([], { ...runEnv, DRY_RUN: "true" });
    assert.equal(dry.code, 0, dry.stdout);
    assert.deepEqual(writes(library.server.requests), []);

    const first = await cli([], runEnv);
    assert.equal(first.code, 0, first.stdout);
    assert.deepEqual(stacksOf(library), EXPECTED);
    assert.match(summaryOf(first), /^Summary for Ada: 7 created, /);

    library.server.clearRequests();
    const second = await cli([], runEnv);
    assert.equal(second.code, 0, second.stdout);
    assert.ok(messages(second).includes("No changes: 7 stacks in sync"), second.stdout);
    assert.ok(
      messages(second).some((msg) => msg.startsWith("Incremental pass")),
      messages(second).join("\n"),
    );
    assert.deepEqual(writes(library.server.requests), []);

    const runs = await cli(["runs"], runEnv);
    assert.equal(runs.stdout.trimEnd().split("\n").length, 2, runs.stdout);
    const undo = await cli(["undo"], runEnv);
    assert.equal(undo.code, 0, undo.stdout);
    assert.deepEqual(stacksOf(library), []);
    assert.deepEqual(refusedOrStructured(library), []);
  } finally {
    await Deno.remove(state, { recursive: true });
  }
});

Deno.test("main.ts plans, applies, backs up, restores, fixes the trash and finds duplicates against Immich 3.2", async () => {
  const library = await startLibrary(LIBRARY, VERSION);
  await using _server = library.server;
  const folder = await Deno.makeTempDir({ prefix: "stacksync_files_test_" });
  try {
    const runEnv = env(library, { STATE_DIR: join(folder, "state") });
    const plan = join(folder, "plan.json");
    assert.equal((await cli(["plan", "--out", plan], runEnv)).code, 0);
    const applied = await cli(["apply", plan], runEnv);
    assert.equal(applied.code, 0, applied.stdout);
    assert.deepEqual(stacksOf(library), EXPECTED);

    const backup = join(folder, "backup.json");
    assert.equal((await cli(["backup", "--out", backup], runEnv)).code, 0);
    for (const stack of library.server.stacks(library.userId)) {
      library.server.deleteStack(library.userId, stack.id);
    }
    const restored = await cli(["restore", backup], runEnv);
    assert.equal(restored.code, 0, restored.stdout);
    assert.deepEqual(stacksOf(library), EXPECTED);

    // The JPEG goes to the trash; fix-trash sends its RAW after it.
    library.server.updateAsset(library.ids["IMG_0002.jpg"], { isTrashed: true });
    const fixed = await cli(["fix-trash"], { ...runEnv, FIX_TRASH_MAX_PERCENT: "100" });
    assert.equal(fixed.code, 0, fixed.stdout);
    assert.equal(library.server.assetState(library.ids["IMG_0002.dng"]).isTrashed, true);

    const duplicates = await runCli({ args: ["duplicates"], env: runEnv });
    await Deno.remove(duplicates.cwd, { recursive: true });
    assert.equal(duplicates.code, 0, duplicates.stderr);
    assert.deepEqual(refusedOrStructured(library), []);
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});
