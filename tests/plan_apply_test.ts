/**
 * `stacksync plan` and `stacksync apply` through the real CLI against the Immich test server:
 * as subprocesses for the acceptance cases (a plan applied sends what a run sends, stale plans,
 * refused files), in this process through `main()` for their variants (approved subsets and
 * undo, dry runs, several users, pictures and their permission).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type CliResult, runCli } from "./_cli.ts";
import {
  env,
  type Library,
  logLines,
  makeStack,
  messages,
  stacksOf,
  startLibrary,
  writes,
} from "./_e2e.ts";
import { EVERY_KIND, PLAN_LIBRARY, type ReviewStacks, reviewStacks } from "./_plan_library.ts";
import { runMain, stackWrites } from "./_undo_library.ts";
import {
  actionId,
  parsePlanFile,
  type PlanAction,
  type PlanFile,
  planFileText,
} from "../src/plan_file/format.ts";
import type { RecordedRequest } from "./immich_server.ts";

/** A folder the test removes. */
async function tempFolder(): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.makeTempDir({ prefix: "stacksync_plan_test_" });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

/** Runs the CLI as a subprocess with JSON logs and removes its working folder. */
async function cli(args: readonly string[], runEnv: Record<string, string>): Promise<CliResult> {
  const result = await runCli({ args, env: runEnv });
  await Deno.remove(result.cwd, { recursive: true });
  return result;
}

async function readPlan(path: string): Promise<PlanFile> {
  return parsePlanFile(await Deno.readTextFile(path), path);
}

/** The plan's actions of Ada, by what they do: `create IMG_0002.jpg`, `grow IMG_0004_edited.jpg`. */
function actionsByName(plan: PlanFile): Map<string, PlanAction> {
  return new Map(
    plan.users[0].actions.map((action) => [
      `${action.kind} ${action.assets[0].originalFileName}${
        action.assets[0].localDateTime?.startsWith("2024-05-03") ? " (May 3)" : ""
      }`,
      action,
    ]),
  );
}

/**
 * The writes a server received, the same on two servers with the same photos: the stacks made
 * before by their name in {@linkcode ReviewStacks}, photos by label.
 */
function comparableWrites(library: Library, stacks: Partial<ReviewStacks>): string[] {
  const names = new Map(Object.entries(stacks).map(([name, stack]) => [stack.id, name]));
  const label = (id: string) => library.labels.get(id) ?? names.get(id) ?? id;
  return stackWrites(library.server.requests).map((request: RecordedRequest) => {
    const path = request.path.replace(/[0-9a-f-]{36}/g, label);
    const body = request.body as { assetIds?: string[]; primaryAssetId?: string } | undefined;
    const ids = body?.assetIds ?? (body?.primaryAssetId === undefined ? [] : [body.primaryAssetId]);
    return `${request.method} ${path} ${ids.map(label).join(", ")}`.trim();
  });
}

/** The log lines of the user's pass, stack ids named as in {@linkcode comparableWrites}. */
function userLines(result: CliResult, stacks: ReviewStacks): string[] {
  const names = new Map(Object.entries(stacks).map(([name, stack]) => [stack.id, name]));
  return logLines(result).filter((line) => line.user === "Ada").map(({ time: _, ...line }) =>
    JSON.stringify(line).replace(/[0-9a-f-]{36}/g, (id) => names.get(id) ?? id)
  );
}

Deno.test("stacksync plan then apply sends exactly the writes of a run, and a second apply none", async () => {
  await using state = await tempFolder();
  const a = await startLibrary(PLAN_LIBRARY);
  await using _a = a.server;
  const b = await startLibrary(PLAN_LIBRARY);
  await using _b = b.server;
  const stacksA = reviewStacks(a);
  const stacksB = reviewStacks(b);
  const planPath = join(state.path, "plan.json");

  // The plan reads and plans as a dry run does, line for line, but for why its pass is full:
  // a dry run has no cache yet, a plan reads everything anyway.
  const dry = await cli([], env(b, { ...EVERY_KIND, DRY_RUN: "true" }));
  const plan = await cli(["plan", "--out", planPath], env(a, EVERY_KIND));
  assert.equal(plan.code, 0, plan.stdout + plan.stderr);
  const isPass = (line: string) => line.includes('"pass":"full"');
  const planLines = userLines(plan, stacksA);
  assert.match(planLines.find(isPass)!, /"why":"a plan file names every stack its actions touch"/);
  assert.deepEqual(
    planLines.filter((line) => !isPass(line)),
    userLines(dry, stacksB).filter((line) => !isPass(line)),
  );
  assert.deepEqual(writes(a.server.requests), []);
  const file = await readPlan(planPath);
  assert.deepEqual(
    [...actionsByName(file).keys()].sort(),
    [
      "create IMG_0003~2.jpg",
      "create IMG_0005.jpg",
      "create IMG_0005.jpg (May 3)",
      "create IMG_20240501_102000_BURST003_COVER.jpg",
      "delete IMG_0101.jpg",
      "grow IMG_0004_edited.jpg",
      "replace IMG_0002.jpg",
      "update-primary IMG_0001.jpg",
    ],
  );
  assert.ok(!(await Deno.readTextFile(planPath)).includes(a.key), "the plan holds no key");

  // Applied without the settings: the file's are used.
  a.server.clearRequests();
  const applied = await cli(["apply", planPath], env(a, { STATE_DIR: join(state.path, "a") }));
  assert.equal(applied.code, 0, applied.stdout + applied.stderr);
  const run = await cli([], env(b, { ...EVERY_KIND, STATE_DIR: join(state.path, "b") }));
  assert.equal(run.code, 0, run.stdout);
  // The same writes, in the same phases: every deletion before any write listing photos; within
  // a phase, writes in flight together (STACK_CONCURRENCY) may arrive in either order.
  const appliedWrites = comparableWrites(a, stacksA);
  const runWrites = comparableWrites(b, stacksB);
  assert.deepEqual([...appliedWrites].sort(), [...runWrites].sort());
  for (const writes of [appliedWrites, runWrites]) {
    const deletes = writes.filter((write) => write.startsWith("DELETE "));
    assert.deepEqual(writes.slice(0, deletes.length), deletes);
  }
  assert.deepEqual(stacksOf(a), stacksOf(b));
  assert.ok(
    messages(applied).includes(
      `Applied ${planPath} for Ada: 8 applied, 0 done already, 0 stale, 0 failed`,
    ),
  );

  a.server.clearRequests();
  const again = await cli(["apply", planPath], env(a, { STATE_DIR: join(state.path, "a") }));
  assert.equal(again.code, 0, again.stdout);
  assert.deepEqual(stackWrites(a.server.requests), []);
  assert.ok(messages(again).includes(`8 actions of ${planPath} are done already`), again.stdout);
});

Deno.test("stacksync apply skips exactly the actions whose ground moved, names them, and exits 1", async () => {
  await using state = await tempFolder();
  const library = await startLibrary(PLAN_LIBRARY);
  try {
    const { server, ids } = library;
    const stacks = {
      cover: makeStack(library, "IMG_0001.dng", "IMG_0001.jpg"),
      grow: makeStack(library, "IMG_0004.jpg", "IMG_0004.dng"),
      burst: makeStack(
        library,
        "IMG_20240501_102000_BURST001.jpg",
        "IMG_20240501_102000_BURST002.jpg",
      ),
    };
    const planPath = join(state.path, "plan.json");
    const planned = await cli(["plan", "--out", planPath], env(library));
    assert.equal(planned.code, 0, planned.stdout);
    const plan = actionsByName(await readPlan(planPath));

    // The server moves: a stack the plan grows is deleted, a photo it would stack is stacked by
    // hand, and the cover of another stack it grows is changed.
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { "x-api-key": library.key, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then((response) => response.body?.cancel());
    await call("DELETE", `/stacks/${stacks.grow.id}`);
    const byHand = server.addStack(library.userId, [ids["IMG_0003.jpg"], ids["IMG_0100.jpg"]]);
    await call("PUT", `/stacks/${stacks.burst.id}`, {
      primaryAssetId: ids["IMG_20240501_102000_BURST002.jpg"],
    });
    const before = stacksOf(library);
    server.clearRequests();

    const applied = await cli(["apply", planPath], env(library, { STATE_DIR: state.path }));
    assert.equal(applied.code, 1, applied.stdout + applied.stderr);
    const stale = logLines(applied).filter((line) => line.msg.startsWith("Skipped stale action"));
    const grow = plan.get("grow IMG_0004_edited.jpg")!;
    const create = plan.get("create IMG_0003~2.jpg")!;
    const burst = plan.get("grow IMG_20240501_102000_BURST003_COVER.jpg")!;
    assert.deepEqual(
      stale.map((line) => line.msg).sort(),
      [
        `Skipped stale action ${burst.id}: it would add 2 photos to stack ${stacks.burst.id} ` +
        `(cover IMG_20240501_102000_BURST003_COVER.jpg), but stack ${stacks.burst.id} has another ` +
        "cover: IMG_20240501_102000_BURST002.jpg instead of IMG_20240501_102000_BURST001.jpg",
        `Skipped stale action ${create.id}: it would create a stack of 2 photos, cover ` +
        `IMG_0003~2.jpg, but IMG_0003.jpg was put in stack ${byHand.id}`,
        `Skipped stale action ${grow.id}: it would add 1 photo to stack ${stacks.grow.id} (cover ` +
        `IMG_0004_edited.jpg), but stack ${stacks.grow.id} (cover IMG_0004.jpg) was deleted`,
      ].sort(),
    );
    assert.ok(
      messages(applied).includes(
        `Applied ${planPath} for Ada: 4 applied, 0 done already, 3 stale, 0 failed`,
      ),
      applied.stdout,
    );
    assert.match(
      messages(applied).find((msg) => msg.startsWith("Summary for Ada")) ?? "",
      /, 3 changed since, left alone, /,
    );
    // Only the other four: the cover of IMG_0001, and the creates of IMG_0002 and IMG_0005.
    const label = (id: string) => library.labels.get(id) ?? id;
    assert.deepEqual(
      stackWrites(server.requests).map((r) =>
        `${r.method} ${r.path === "/stacks" ? "" : r.path.replace(stacks.cover.id, "cover")} ${
          JSON.stringify(r.body).replace(/[0-9a-f-]{36}/g, label)
        }`
      ).sort(),
      [
        'POST  {"assetIds":["IMG_0002.jpg","IMG_0002.dng"]}',
        'POST  {"assetIds":["IMG_0005.jpg (May 1)","IMG_0005.dng (May 1)"]}',
        'POST  {"assetIds":["IMG_0005.jpg (May 3)","IMG_0005.dng (May 3)"]}',
        'PUT /stacks/cover {"primaryAssetId":"IMG_0001.jpg"}',
      ],
    );
    // Nothing the plan did not foresee moved: the stacks changed by hand are as they were.
    const after = stacksOf(library);
    for (
      const stack of before.filter((s) => !s.startsWith("IMG_0001"))
    ) assert.ok(after.includes(stack), stack);
  } finally {
    await library.server.close();
  }
});

Deno.test("stacksync apply refuses a broken or hand-edited plan file with one line, sending nothing", async (t) => {
  await using state = await tempFolder();
  const library = await startLibrary(PLAN_LIBRARY);
  try {
    const bob = library.server.addUser({ name: "Bob" });
    const bobsPhoto = library.server.addAsset(bob.id, { originalFileName: "BOB_0001.jpg" });
    const planPath = join(state.path, "plan.json");
    const planned = await cli(["plan", "--out", planPath], env(library));
    assert.equal(planned.code, 0, planned.stdout);
    const text = await Deno.readTextFile(planPath);
    const first = (await readPlan(planPath)).users[0].actions[0];
    const withAsset = (id: string) =>
      text.replace(`"assets":[`, `"assets":[{"id":"${id}","originalFileName":"x.jpg"},`);
    const cases = [
      {
        name: "broken JSON",
        text: text.slice(0, 200),
        message: /^error: Cannot read the plan .* as it is not JSON: /,
      },
      {
        name: "a photo of another user added",
        text: withAsset(bobsPhoto.id),
        message: new RegExp(
          `^error: Cannot read the plan .* as action ${first.id} of Ada was changed after stacksync planned it`,
        ),
      },
      {
        name: "an unknown photo added",
        text: withAsset("00000000-0000-4000-8000-00000000beef"),
        message: new RegExp(`as action ${first.id} of Ada was changed after stacksync planned it`),
      },
    ];
    for (const { name, text: edited, message } of cases) {
      await t.step(name, async () => {
        const path = join(state.path, "edited.json");
        await Deno.writeTextFile(path, edited);
        library.server.clearRequests();
        const result = await cli(["apply", path], env(library, { STATE_DIR: state.path }));
        assert.equal(result.code, 2, result.stdout);
        assert.equal(result.stdout, "");
        assert.equal(result.stderr.split("\n").filter((line) => line !== "").length, 1);
        assert.match(result.stderr, message);
        assert.deepEqual(library.server.requests, []);
      });
    }
  } finally {
    await library.server.close();
  }
});

Deno.test("stacksync apply takes a plan whose last action's line was deleted, comma and all", async () => {
  await using state = await tempFolder();
  const library = await startLibrary(PLAN_LIBRARY);
  try {
    const planPath = join(state.path, "plan.json");
    const planned = await cli(["plan", "--out", planPath], env(library));
    assert.equal(planned.code, 0, planned.stdout);
    const actions = (await readPlan(planPath)).users[0].actions;
    assert.ok(actions.length > 1);
    // The last action's line goes, the comma that ended the line before it stays: `},\n ]`.
    const lines = (await Deno.readTextFile(planPath)).split("\n");
    const last = lines.findIndex((line) => line.includes(`"id":"${actions.at(-1)!.id}"`));
    assert.ok(lines[last - 1].endsWith(","), lines[last - 1]);
    await Deno.writeTextFile(
      planPath,
      [...lines.slice(0, last), ...lines.slice(last + 1)].join("\n"),
    );

    const applied = await cli(["apply", planPath], env(library, { STATE_DIR: state.path }));
    assert.equal(applied.code, 0, applied.stdout + applied.stderr);
    // What is left to do is the action deleted from the file, exactly.
    const again = join(state.path, "again.json");
    assert.equal((await cli(["plan", "--out", again], env(library))).code, 0);
    assert.deepEqual((await readPlan(again)).users[0].actions.map((action) => action.id), [
      actions.at(-1)!.id,
    ]);
  } finally {
    await library.server.close();
  }
});

Deno.test("main() apply refuses a plan of another server, user or version before any write", async (t) => {
  await using state = await tempFolder();
  const library = await startLibrary(PLAN_LIBRARY);
  try {
    const bob = library.server.addUser({ name: "Bob" });
    const bobsKey = library.server.addKey(bob.id);
    const planPath = join(state.path, "plan.json");
    const run = (args: string[], extra: Record<string, string> = {}) =>
      runMain(args, env(library, extra), state.path);
    assert.equal((await run(["plan", "--out", planPath])).code, 0);
    const plan = await readPlan(planPath);
    let edits = 0;
    const write = async (value: unknown) => {
      const path = join(state.path, `edited-${++edits}.json`);
      await Deno.writeTextFile(path, typeof value === "string" ? value : JSON.stringify(value));
      return path;
    };
    const elsewhere = { ...plan, server: "http://other.example:2283/api" };
    const cases = [
      {
        name: "another server",
        path: await write(elsewhere),
        message: "error: Cannot apply __PATH__ as it is a plan of http://other.example:2283/api, " +
          "not of API_URL: set API_URL to that server, or give --force if it is the same one: " +
          `current value is ${library.server.url}`,
      },
      {
        name: "another user",
        path: planPath,
        extra: { API_KEY: bobsKey },
        message: `error: Cannot apply ${planPath} for Bob as it is the plan of Ada: use that ` +
          "user's key, or plan again with this one",
      },
      {
        name: "a newer format version",
        path: await write(planFileText({ ...plan, version: 2 } as unknown as PlanFile)),
        message: "error: Cannot read the plan __PATH__ as this stacksync reads format version 1 " +
          "only: upgrade stacksync, or plan again with this one: current value is 2",
      },
      {
        name: "a setting that is not valid",
        path: await write({
          ...plan,
          users: [{ ...plan.users[0], settings: { ...plan.users[0].settings, CRITERIA: "{" } }],
        }),
        message: /^error: Cannot use the plan .* as its setting CRITERIA is invalid \(/,
      },
    ];
    for (const { name, path, extra, message } of cases) {
      await t.step(name, async () => {
        library.server.clearRequests();
        const result = await run(["apply", path], extra);
        assert.equal(result.code, 2, result.stdout);
        if (typeof message === "string") {
          assert.equal(result.stderr, `${message.replaceAll("__PATH__", path)}\n`);
        } else assert.match(result.stderr, message);
        assert.deepEqual(writes(library.server.requests), []);
      });
    }
    await t.step("another server with --force", async () => {
      const path = await write(elsewhere);
      const result = await run(["apply", path, "--force", "--dry-run"]);
      assert.equal(result.code, 0, result.stdout + result.stderr);
    });
  } finally {
    await library.server.close();
  }
});

Deno.test("main() apply of a plan whose ids were recomputed never sends another user's photo", async () => {
  await using state = await tempFolder();
  const library = await startLibrary(PLAN_LIBRARY);
  try {
    const bob = library.server.addUser({ name: "Bob" });
    const bobsPhoto = library.server.addAsset(bob.id, { originalFileName: "BOB_0001.jpg" });
    library.server.addPartner(bob.id, library.userId);
    const planPath = join(state.path, "plan.json");
    assert.equal((await runMain(["plan", "--out", planPath], env(library), state.path)).code, 0);
    const plan = await readPlan(planPath);
    const [first, ...rest] = plan.users[0].actions;
    const { id: _, ...body } = first;
    const forged = {
      ...body,
      assets: [...body.assets, { id: bobsPhoto.id, originalFileName: "BOB_0001.jpg" }],
    };
    const path = join(state.path, "forged.json");
    await Deno.writeTextFile(
      path,
      planFileText({
        ...plan,
        users: [{ ...plan.users[0], actions: [{ id: actionId(forged), ...forged }, ...rest] }],
      }),
    );
    library.server.clearRequests();
    const result = await runMain(["apply", path], env(library), state.path);
    assert.equal(result.code, 1, result.stdout);
    assert.ok(stackWrites(library.server.requests).length === rest.length);
    assert.ok(!JSON.stringify(library.server.requests).includes(bobsPhoto.id));
    assert.ok(
      result.lines.some((line) =>
        String(line.msg).startsWith(`Skipped stale action ${actionId(forged)}: `)
      ),
    );
  } finally {
    await library.server.close();
  }
});

Deno.test("main() apply of an approved plan sends only its actions, and undo puts them back", async () => {
  await using state = await tempFolder();
  const library = await startLibrary(PLAN_LIBRARY);
  try {
    const stacks = reviewStacks(library);
    const before = stacksOf(library);
    const planPath = join(state.path, "plan.json");
    const run = (args: string[], extra: Record<string, string> = {}) =>
      runMain(args, env(library, extra), state.path);
    assert.equal((await run(["plan", "--out", planPath], EVERY_KIND)).code, 0);
    const plan = await readPlan(planPath);
    const named = actionsByName(plan);
    const left = ["update-primary IMG_0001.jpg", "create IMG_0005.jpg", "delete IMG_0101.jpg"];
    const approvedPath = join(state.path, "plan-approved.json");
    await Deno.writeTextFile(
      approvedPath,
      planFileText({
        ...plan,
        users: [{
          ...plan.users[0],
          actions: plan.users[0].actions.filter((a) => !left.some((n) => named.get(n) === a)),
        }],
      }),
    );

    // A dry run first: the same actions, worded as what would be done, and no write.
    library.server.clearRequests();
    const dry = await run(["apply", approvedPath], { DRY_RUN: "true" });
    assert.equal(dry.code, 0, dry.stdout);
    assert.deepEqual(writes(library.server.requests), []);
    assert.equal(
      dry.lines.filter((line) => String(line.msg).startsWith("[DRY RUN] Would ")).length,
      5,
    );
    assert.ok(
      dry.lines.some((line) =>
        line.msg === `Applied ${approvedPath} for Ada: 5 would be applied, 0 done already, 0 ` +
            "stale, 0 failed"
      ),
    );
    library.server.clearRequests();
    const applied = await run(["apply", approvedPath]);
    assert.equal(applied.code, 0, applied.stdout + applied.stderr);
    assert.deepEqual(comparableWrites(library, stacks).sort(), [
      "DELETE /stacks/mixed",
      "POST /stacks IMG_0002.jpg, IMG_0002.dng",
      "POST /stacks IMG_0003~2.jpg, IMG_0003.jpg",
      "POST /stacks IMG_0004_edited.jpg, IMG_0004.jpg, IMG_0004.dng",
      "POST /stacks IMG_0005.jpg (May 3), IMG_0005.dng (May 3)",
      "POST /stacks IMG_20240501_102000_BURST003_COVER.jpg, IMG_20240501_102000_BURST004.jpg, " +
      "IMG_20240501_102000_BURST002.jpg, IMG_20240501_102000_BURST001.jpg",
    ]);
    assert.ok(
      applied.lines.some((line) =>
        line.msg === `Left 3 changes that ${approvedPath} does not hold (unticked, or new since ` +
            "the plan): stacksync plan shows them"
      ),
    );
    const runs = await run(["runs"]);
    assert.match(runs.stdout, /^\S+ +\S+ \S+ +apply +Ada /m);

    library.server.clearRequests();
    const undone = await run(["undo"]);
    assert.equal(undone.code, 0, undone.stdout);
    assert.deepEqual(stacksOf(library), before);

    // The apply left 3 of a run's actions undone: a run after it reads everything, as its
    // incremental pass would keep the last plan where nothing changed.
    const after = await run([], EVERY_KIND);
    assert.equal(after.code, 0, after.stdout);
    assert.deepEqual(
      after.lines.filter((line) => line.pass !== undefined).map((line) => line.msg),
      ["Full pass: the last pass did not finish cleanly: stacksync apply left 3 of the actions undone"],
    );
  } finally {
    await library.server.close();
  }
});

Deno.test("main() plan --html shows file names and warns once when the key lacks asset.view", async (t) => {
  for (const version of ["3.1.0", "1.132.3"]) {
    await t.step(`Immich ${version}`, async () => {
      await using state = await tempFolder();
      const library = await startLibrary(PLAN_LIBRARY, version);
      try {
        const key = library.server.addKey(library.userId, {
          permissions: ["user.read", "asset.read", "stack.read"],
        });
        const html = join(state.path, "plan.html");
        const args = ["plan", "--out", join(state.path, "plan.json"), "--html", html];
        const result = await runMain(args, env(library, { API_KEY: key }), state.path);
        assert.equal(result.code, 0, result.stdout + result.stderr);
        const warnings = result.lines.filter((line) => line.level === "warn");
        assert.deepEqual(warnings.map((line) => line.msg), [
          "Showing file names instead of pictures on the review page as the API key lacks the " +
          "permission asset.view: add it to the key to see the photos",
        ]);
        const page = await Deno.readTextFile(html);
        assert.match(page, /<script type="application\/json" id="image-data">\{\}<\/script>/);
        const asked = library.server.requests.filter((r) => r.path.endsWith("/thumbnail"));
        // Immich 3.1 lists the key's permissions: nothing is asked. Before 1.139 the first
        // answers (one per request in flight) tell.
        if (version === "3.1.0") assert.deepEqual(asked, []);
        else assert.ok(asked.length <= 8 && asked.every((r) => r.status === 403));
      } finally {
        await library.server.close();
      }
    });
  }
});

Deno.test("main() plan --html fetches at most PLAN_THUMBNAILS pictures, covers first", async (t) => {
  await using state = await tempFolder();
  const library = await startLibrary(PLAN_LIBRARY);
  try {
    const run = (args: string[], extra: Record<string, string> = {}) =>
      runMain(args, env(library, extra), state.path);
    const images = (page: string) =>
      JSON.parse(/id="image-data">(.*?)<\/script>/.exec(page)![1]) as Record<string, string>;
    await t.step("into a folder beside the page", async () => {
      const html = join(state.path, "review.html");
      const result = await run(["plan", "--out", join(state.path, "p.json"), "--html", html]);
      assert.equal(result.code, 0, result.stdout);
      const sources = images(await Deno.readTextFile(html));
      // Every photo of the 7 groups: 17 pictures, each a WebP file in review_files/.
      assert.equal(Object.keys(sources).length, 17);
      for (const [id, source] of Object.entries(sources)) {
        assert.equal(source, `review_files/${id}.webp`);
        const bytes = await Deno.readFile(join(state.path, source));
        assert.equal(new TextDecoder().decode(bytes.slice(8, 12)), "WEBP");
      }
    });
    await t.step("inside the page, as many as PLAN_THUMBNAILS allows", async () => {
      const html = join(state.path, "embedded.html");
      library.server.clearRequests();
      const result = await run(
        ["plan", "--out", join(state.path, "e.json"), "--html", html, "--embed-thumbnails"],
        { PLAN_THUMBNAILS: "3" },
      );
      assert.equal(result.code, 0, result.stdout);
      const plan = await readPlan(join(state.path, "e.json"));
      const sources = images(await Deno.readTextFile(html));
      const covers = plan.users[0].actions.slice(0, 3).map((action) => action.assets[0].id);
      assert.deepEqual(Object.keys(sources).sort(), covers.sort());
      for (const source of Object.values(sources)) {
        assert.match(source, /^data:image\/webp;base64,UklGR/);
      }
      assert.equal(library.server.requests.filter((r) => r.path.endsWith("/thumbnail")).length, 3);
      await assert.rejects(Deno.stat(join(state.path, "embedded_files")), Deno.errors.NotFound);
    });
  } finally {
    await library.server.close();
  }
});

Deno.test("main() plan refuses pages it cannot write before it reads anything", async (t) => {
  await using state = await tempFolder();
  const library = await startLibrary(PLAN_LIBRARY);
  try {
    const cases = [
      {
        args: ["plan", "--embed-thumbnails"],
        message: "error: Cannot embed the pictures as there is no review page: add --html FILE, " +
          "or leave out --embed-thumbnails",
      },
      {
        args: ["plan", "--html", "-"],
        message: "error: Cannot write the review page to standard output: name a file such as " +
          "plan.html",
      },
      {
        args: ["plan", "--out", join(state.path, "missing", "plan.json")],
        message: `error: Cannot write the plan to ${join(state.path, "missing", "plan.json")} ` +
          `as its folder does not exist: create ${join(state.path, "missing")}, or name a file ` +
          "in a folder that exists",
      },
    ];
    for (const { args, message } of cases) {
      await t.step(args.join(" "), async () => {
        library.server.clearRequests();
        const result = await runMain(args, env(library), state.path);
        assert.deepEqual([result.code, result.stderr, result.stdout], [2, `${message}\n`, ""]);
        assert.deepEqual(library.server.requests, []);
      });
    }
  } finally {
    await library.server.close();
  }
});

Deno.test("main() plans several users in one file, and apply needs each of their keys", async () => {
  await using state = await tempFolder();
  const library = await startLibrary(PLAN_LIBRARY);
  try {
    const { server } = library;
    const bob = server.addUser({ name: "Bob" });
    const bobsKey = server.addKey(bob.id);
    for (const name of ["BOB_1.jpg", "BOB_1.dng"]) {
      server.addAsset(bob.id, { originalFileName: name, localDateTime: "2024-07-01T08:00:00Z" });
    }
    const both = { API_KEY: `${library.key},${bobsKey}` };
    const planPath = join(state.path, "plan.json");
    assert.equal(
      (await runMain(["plan", "--out", planPath], env(library, both), state.path)).code,
      0,
    );
    const plan = await readPlan(planPath);
    assert.deepEqual(plan.users.map((u) => [u.name, u.actions.length]), [["Ada", 7], ["Bob", 1]]);

    const adaOnly = await runMain(["apply", planPath], env(library), state.path);
    assert.equal(adaOnly.code, 1);
    assert.ok(
      adaOnly.lines.some((line) =>
        line.msg === "Did not apply the plan of Bob: no key of API_KEY reached that user"
      ),
    );
    assert.deepEqual(server.stacks(bob.id), []);
    const all = await runMain(["apply", planPath], env(library, both), state.path);
    assert.equal(all.code, 0, all.stdout);
    assert.equal(server.stacks(bob.id).length, 1);
  } finally {
    await library.server.close();
  }
});
