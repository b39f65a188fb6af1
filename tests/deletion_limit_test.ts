/**
 * MAX_STACK_DELETIONS through the real CLI against the Immich test server: a CRITERIA edit that
 * joins 60 stacks into one stops the user before any write, in a real run, a dry run and `plan`,
 * with one line; `--force`, the setting, RESET_STACKS and a reviewed plan file are consent; the
 * summary and `stacksync runs` count every stack a replace deleted.
 */
import assert from "node:assert/strict";
import { RESET_CONFIRMATION } from "../src/config.ts";
import { runCli } from "./_cli.ts";
import {
  asset,
  env,
  type Library,
  type LibraryAsset,
  messages,
  startLibrary,
  summaryOf,
  tempFolder,
  writes,
} from "./_e2e.ts";

/** 60 RAW+JPEG pairs a minute apart, each stacked as the default CRITERIA stack it. */
async function sixtyStacks(): Promise<Library & AsyncDisposable> {
  const assets: LibraryAsset[] = [];
  for (let i = 0; i < 60; i++) {
    const time = new Date(Date.parse("2024-05-01T10:00:00.000Z") + i * 60_000).toISOString();
    assets.push(asset(`IMG_${1000 + i}.jpg`, time), asset(`IMG_${1000 + i}.dng`, time));
  }
  const library = await startLibrary(assets);
  for (let i = 0; i < 60; i++) {
    library.server.addStack(library.userId, [
      library.ids[`IMG_${1000 + i}.jpg`],
      library.ids[`IMG_${1000 + i}.dng`],
    ]);
  }
  return { ...library, [Symbol.asyncDispose]: () => library.server.close() };
}

/** Everything within a day: one group of the 120 photos, touching all 60 stacks. */
const ONE_DAY = JSON.stringify([{ key: "localDateTime", delta: { milliseconds: 86_400_000 } }]);

const REFUSAL = "Skipping Ada: Cannot delete 60 of the 60 stacks of Ada as MAX_STACK_DELETIONS " +
  "allows 10 % of them, and at least 20: check them with stacksync plan --force --html " +
  "plan.html, then run with --force, or raise MAX_STACK_DELETIONS";

/** Runs the CLI in a fresh folder with the state in `state`, and removes the folder. */
async function cli(args: readonly string[], runEnv: Record<string, string>) {
  const result = await runCli({ args, env: runEnv });
  await Deno.remove(result.cwd, { recursive: true });
  return result;
}

/** Runs a test with its own STATE_DIR. */
async function withState(work: (state: string) => Promise<void>): Promise<void> {
  await using state = await tempFolder("stacksync_deletions_");
  await work(state.path);
}

Deno.test("main.ts stops a user whose pass deletes 60 of 60 stacks, in a real run, a dry run and plan alike", async () => {
  await using library = await sixtyStacks();
  await withState(async (state) => {
    const settings = env(library, { CRITERIA: ONE_DAY, REPLACE_STACKS: "true", STATE_DIR: state });
    for (
      const [args, extra] of [
        [[], {}],
        [[], { DRY_RUN: "true" }],
        [["plan", "--out", `${state}/plan.json`], {}],
      ] as const
    ) {
      const result = await cli(args, { ...settings, ...extra });
      assert.equal(result.code, 1, result.stdout + result.stderr);
      assert.deepEqual(messages(result, "error"), [REFUSAL], result.stdout);
      assert.deepEqual(writes(library.server.requests), []);
      assert.equal(library.server.stacks(library.userId).length, 60);
    }
  });
});

Deno.test("main.ts run --force replaces the 60 stacks, and the summary and runs count 60 deleted", async () => {
  await using library = await sixtyStacks();
  await withState(async (state) => {
    const settings = env(library, { CRITERIA: ONE_DAY, REPLACE_STACKS: "true", STATE_DIR: state });
    const dry = await cli(["--force"], { ...settings, DRY_RUN: "true" });
    assert.equal(dry.code, 0, dry.stdout + dry.stderr);
    assert.match(
      summaryOf(dry),
      /: 0 would be created, 0 would be updated, 1 would be replaced, 60 would be deleted, /,
    );
    const forced = await cli(["--force"], settings);
    assert.equal(forced.code, 0, forced.stdout + forced.stderr);
    assert.match(summaryOf(forced), /: 0 created, 0 updated, 1 replaced, 60 deleted, /);
    assert.equal(writes(library.server.requests).filter((w) => w.startsWith("DELETE")).length, 60);
    assert.equal(library.server.stacks(library.userId).length, 1);
    const runs = await cli(["runs"], { STATE_DIR: state });
    const row = runs.stdout.split("\n").find((line) => / run +Ada /.test(line));
    assert.match(row ?? "", / Ada +\S+ +1 +0 +60 +0 +0 +0 +yes +no/, runs.stdout);
  });
});

Deno.test("main.ts goes on when MAX_STACK_DELETIONS allows the deletions, and stops one past them", async () => {
  await using library = await sixtyStacks();
  await withState(async (state) => {
    const settings = env(library, { CRITERIA: ONE_DAY, REPLACE_STACKS: "true", STATE_DIR: state });
    const refused = await cli([], { ...settings, MAX_STACK_DELETIONS: "59" });
    assert.equal(refused.code, 1);
    assert.match(messages(refused, "error")[0], /as MAX_STACK_DELETIONS allows 59 stacks: /);
    assert.deepEqual(writes(library.server.requests), []);
    const allowed = await cli([], { ...settings, MAX_STACK_DELETIONS: "100%" });
    assert.equal(allowed.code, 0, allowed.stdout);
    assert.equal(library.server.stacks(library.userId).length, 1);
  });
});

Deno.test("main.ts with RESET_STACKS and its confirmation deletes every stack without another consent", async () => {
  await using library = await sixtyStacks();
  await withState(async (state) => {
    const result = await cli([], {
      ...env(library, { STATE_DIR: state }),
      RESET_STACKS: "true",
      CONFIRM_RESET_STACK: RESET_CONFIRMATION,
    });
    assert.equal(result.code, 0, result.stdout);
    assert.equal(writes(library.server.requests).filter((w) => w.startsWith("DELETE")).length, 60);
    assert.equal(library.server.stacks(library.userId).length, 60);
  });
});

Deno.test("main.ts apply carries out a reviewed plan file past MAX_STACK_DELETIONS", async () => {
  await using library = await sixtyStacks();
  await withState(async (state) => {
    const settings = env(library, { CRITERIA: ONE_DAY, REPLACE_STACKS: "true", STATE_DIR: state });
    const plan = await cli(["plan", "--force", "--out", `${state}/plan.json`], settings);
    assert.equal(plan.code, 0, plan.stdout + plan.stderr);
    assert.deepEqual(writes(library.server.requests), []);
    const applied = await cli(["apply", `${state}/plan.json`], env(library, { STATE_DIR: state }));
    assert.equal(applied.code, 0, applied.stdout + applied.stderr);
    assert.equal(library.server.stacks(library.userId).length, 1);
  });
});
