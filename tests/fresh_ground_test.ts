/**
 * Fresh ground through the real CLI, as a subprocess against the Immich test server: every write
 * to a stack that exists is judged again on the stack read just before it, so a cover chosen by
 * hand, which moves no asset's `updatedAt` and which the cache of incremental passes cannot see,
 * never makes a pass split a hand-made stack (docs/safety.md, "Fresh ground"); undo, restore and
 * passes of other settings keep the cache true (docs/state.md); journals, backups, undo and
 * restore keep the members `GET /stacks` does not list.
 *
 * The cases were reproduced on a live Immich v3.1.0: a hand-made stack
 * {IMG_0003.jpg, IMG_0003.dng, IMG_0003_edited.jpg} whose edit is archived (or a video without
 * INCLUDE_VIDEOS) and made the cover in Immich's web page, then a new file of the same shot.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type CliResult, runCli } from "./_cli.ts";
import { CRITERIA } from "./_e2e.ts";
import { type ImmichServer, startImmichServer, type TestStack } from "./immich_server.ts";

/** A JSON log line. */
type Line = Record<string, unknown> & { readonly msg: string };

/** One CLI run: its exit status and JSON log lines. */
interface Ran {
  readonly code: number;
  readonly lines: readonly Line[];
  readonly output: string;
}

/** Runs the CLI once with JSON logs in a state folder, and removes its working folder. */
async function cli(
  env: Readonly<Record<string, string>>,
  args: readonly string[] = [],
): Promise<Ran> {
  const result: CliResult = await runCli({ args, env: { LOG_FORMAT: "json", ...env } });
  await Deno.remove(result.cwd, { recursive: true });
  const lines = result.stdout.split("\n").filter((line) => line !== "").map((line) =>
    JSON.parse(line) as Line
  );
  return { code: result.code, lines, output: result.stdout + result.stderr };
}

/** The pass line of a run: `full: <why>` or `incremental`. */
function passOf(ran: Ran): string {
  const line = ran.lines.find((entry) => entry.pass !== undefined);
  assert.ok(line !== undefined, ran.output);
  return line.pass === "full" ? `full: ${line.why}` : String(line.pass);
}

/** What a test adds to the shot besides its JPEG and RAW. */
interface Extra {
  readonly name: string;
  readonly visibility?: "archive" | "hidden";
}

/** Ada's shot: JPEG, RAW and one more taken together, and the settings that reach her. */
async function shot(server: ImmichServer, extra: Extra) {
  const user = server.addUser({ name: "Ada" });
  const localDateTime = "2024-05-01T10:00:00.000Z";
  const add = (originalFileName: string, more: Omit<Extra, "name"> = {}) =>
    server.addAsset(user.id, { originalFileName, localDateTime, ...more }).id;
  const jpg = add("IMG_0003.jpg");
  const dng = add("IMG_0003.dng");
  const edited = add(extra.name, extra);
  const state = await Deno.makeTempDir({ prefix: "stacksync_fresh_test_" });
  const env = {
    API_URL: server.url,
    API_KEY: server.addKey(user.id),
    STATE_DIR: state,
    CRITERIA,
  };
  return {
    user,
    ids: { jpg, dng, edited },
    env,
    add: (name: string) => {
      server.advanceClock(60_000);
      return add(name);
    },
    [Symbol.asyncDispose]: () => Deno.remove(state, { recursive: true }),
  };
}

/**
 * Runs the CLI twice an hour apart: the second pass's search for changes no longer reaches back
 * to what was added before the first (docs/incremental.md, the 5 minutes of overlap), so what
 * follows is all the next pass finds.
 */
async function settle(server: ImmichServer, env: Readonly<Record<string, string>>) {
  for (let pass = 0; pass < 2; pass++) {
    const ran = await cli(env);
    assert.equal(ran.code, 0, ran.output);
    server.advanceClock(3_600_000);
  }
}

/** The user's stacks as `cover: members` with file names, members sorted. */
function described(server: ImmichServer, userId: string): string[] {
  const names = new Map(server.assets(userId).map((a) => [a.id, a.originalFileName]));
  return server.stacks(userId).map((stack: TestStack) =>
    `${names.get(stack.primaryAssetId)}: ${stack.assetIds.map((id) => names.get(id)).sort()}`
  ).sort();
}

/**
 * A new file of the shot, then a pass: full, as `who` changed covers since the last pass, it
 * grows the stack with every member and the edit as the cover.
 */
async function newFileKeepsStack(
  server: ImmichServer,
  ada: Awaited<ReturnType<typeof shot>>,
  who: string,
): Promise<void> {
  const cover = server.assets(ada.user.id).find((a) => a.id === ada.ids.edited)!.originalFileName;
  ada.add("IMG_0003.heic");
  server.advanceClock(3_600_000);
  const run = await cli(ada.env);
  assert.equal(run.code, 0, run.output);
  assert.deepEqual(described(server, ada.user.id), [
    `${cover}: IMG_0003.dng,IMG_0003.heic,IMG_0003.jpg,${cover}`,
  ]);
  assert.equal(
    passOf(run),
    `full: ${who} changed covers since the last pass, which no search for changes finds`,
  );
}

/** The `files` of each action line a run logged, dry or real, in order. */
function actionFiles(ran: Ran): string[] {
  return ran.lines.filter((line) =>
    /^(\[DRY RUN\] Would update stack|Updated stack)/.test(line.msg)
  ).map((line) => String(line.files));
}

for (
  const [what, edit] of [
    ["an archived edit", { name: "IMG_0003_edited.jpg", visibility: "archive" }],
    ["a video edit without INCLUDE_VIDEOS", { name: "IMG_0003_edited.mp4" }],
  ] as const
) {
  Deno.test(`main.ts grows a hand-made stack whose cover was set by hand to ${what} with every member, and undo puts it back`, async () => {
    await using server = await startImmichServer();
    await using ada = await shot(server, edit);
    const { env } = ada;
    const { jpg, dng, edited } = ada.ids;
    server.addStack(ada.user.id, [jpg, dng, edited]);
    await settle(server, env);
    // In Immich's web page: the edit becomes the cover, which moves no asset's updatedAt.
    server.setStackPrimary(ada.user.id, server.stacks(ada.user.id)[0].id, edited);
    ada.add("IMG_0003.heic");
    server.advanceClock(3_600_000);

    // A dry run reads the stack too, and says what the real run does.
    const dry = await cli({ ...env, DRY_RUN: "true" });
    assert.equal(dry.code, 0, dry.output);
    const real = await cli(env);
    assert.equal(real.code, 0, real.output);
    assert.equal(passOf(real), "incremental");
    assert.deepEqual(described(server, ada.user.id), [
      `${edit.name}: IMG_0003.dng,IMG_0003.heic,IMG_0003.jpg,${edit.name}`,
    ]);
    assert.deepEqual(actionFiles(dry), actionFiles(real));
    assert.equal(actionFiles(real).length, 1);

    // The run's journal has the stack as it was just before the grow: undo puts the cover the
    // user chose back, without the new file.
    const undo = await cli(env, ["undo"]);
    assert.equal(undo.code, 0, undo.output);
    assert.deepEqual(described(server, ada.user.id), [
      `${edit.name}: IMG_0003.dng,IMG_0003.jpg,${edit.name}`,
    ]);
  });
}

Deno.test("main.ts after a restore that put back a cover the pass cannot fetch grows the stack with every member", async () => {
  await using server = await startImmichServer();
  await using ada = await shot(server, { name: "IMG_0003_edited.jpg", visibility: "archive" });
  const { env } = ada;
  const { jpg, dng, edited } = ada.ids;
  const stackId = server.addStack(ada.user.id, [edited, jpg, dng]).id;
  const backup = join(env.STATE_DIR, "stacks.json");
  assert.equal((await cli(env, ["backup", "--out", backup])).code, 0);
  server.setStackPrimary(ada.user.id, stackId, jpg);
  await settle(server, env);

  // The restore sets the edit back as the cover; a new file of the shot comes.
  const restore = await cli(env, ["restore", backup]);
  assert.equal(restore.code, 0, restore.output);
  assert.equal(server.stacks(ada.user.id)[0].primaryAssetId, edited);
  await newFileKeepsStack(server, ada, "stacksync restore");
});

Deno.test("main.ts without INCLUDE_VIDEOS after a run with it keeps the video cover that run chose", async () => {
  await using server = await startImmichServer();
  await using ada = await shot(server, { name: "IMG_0003_edited.mp4" });
  const { env } = ada;
  const { jpg, dng, edited } = ada.ids;
  server.addStack(ada.user.id, [jpg, dng, edited]);
  await settle(server, env);
  // With videos, the edit is the group's parent (PARENT_FILENAME_PROMOTE): a new cover.
  const videos = await cli({ ...env, INCLUDE_VIDEOS: "true" });
  assert.equal(videos.code, 0, videos.output);
  assert.equal(server.stacks(ada.user.id)[0].primaryAssetId, edited);
  await newFileKeepsStack(server, ada, "a pass with other settings");
});

Deno.test("main.ts plans again a cover that undo set back, though no search for changes finds it", async () => {
  await using server = await startImmichServer();
  await using ada = await shot(server, { name: "IMG_0003_edited.jpg", visibility: "archive" });
  const { env } = ada;
  const { jpg, dng } = ada.ids;
  // The RAW is the cover: the run makes the JPEG the cover, the undo the RAW again.
  server.addStack(ada.user.id, [dng, jpg]);
  server.advanceClock(3_600_000);
  const covers: string[] = [];
  const cover = () => {
    const names = new Map(server.assets(ada.user.id).map((a) => [a.id, a.originalFileName]));
    covers.push(names.get(server.stacks(ada.user.id)[0].primaryAssetId)!);
  };
  const passes: string[] = [];
  for (const args of [[], ["undo"], [], []]) {
    server.advanceClock(3_600_000);
    const ran = await cli(env, args);
    assert.equal(ran.code, 0, ran.output);
    if (args.length === 0) passes.push(passOf(ran));
    cover();
  }
  assert.deepEqual(covers, ["IMG_0003.jpg", "IMG_0003.dng", "IMG_0003.jpg", "IMG_0003.jpg"]);
  assert.deepEqual(passes, [
    "full: no cache yet for this server, user and settings",
    "full: stacksync undo changed covers since the last pass, which no search for changes finds",
    "incremental",
  ]);
});

Deno.test("main.ts undo, backup and restore keep the hidden video of a live photo in its stack", async () => {
  await using server = await startImmichServer();
  await using ada = await shot(server, { name: "IMG_0003.MOV", visibility: "hidden" });
  const { env } = ada;
  const { jpg, dng, edited: video } = ada.ids;
  server.addStack(ada.user.id, [jpg, dng, video]);
  const withVideo = "IMG_0003.jpg: IMG_0003.MOV,IMG_0003.dng,IMG_0003.jpg";
  assert.deepEqual(described(server, ada.user.id), [withVideo]);

  // A run grows the stack through its cover: Immich keeps the hidden video in it.
  ada.add("IMG_0003.heic");
  assert.equal((await cli(env)).code, 0);
  assert.deepEqual(described(server, ada.user.id), [
    "IMG_0003.jpg: IMG_0003.MOV,IMG_0003.dng,IMG_0003.heic,IMG_0003.jpg",
  ]);
  const undo = await cli(env, ["undo"]);
  assert.equal(undo.code, 0, undo.output);
  assert.deepEqual(described(server, ada.user.id), [withVideo]);
  assert.ok(!undo.lines.some((line) => line.msg.includes("without")), undo.output);

  // A backup names the video, marked hidden; a restore after the stack was deleted puts it back.
  const backup = join(env.STATE_DIR, "stacks.json");
  assert.equal((await cli(env, ["backup", "--out", backup])).code, 0);
  const saved = JSON.parse(await Deno.readTextFile(backup));
  assert.deepEqual(
    saved.users[0].stacks[0].assets.find((asset: { id: string }) => asset.id === video),
    { id: video, originalFileName: "IMG_0003.MOV", hidden: true },
  );
  server.deleteStack(ada.user.id, server.stacks(ada.user.id)[0].id);
  const restore = await cli(env, ["restore", backup]);
  assert.equal(restore.code, 0, restore.output);
  assert.deepEqual(described(server, ada.user.id), [withVideo]);
});
