/**
 * A full pass whose `GET /stacks` answers 500 reads the stacks through the timeline and plans
 * exactly as with `GET /stacks`, within one request per month of each part of the timeline, per
 * search page and per stack of more than one member, and none per asset.
 */
import assert from "node:assert/strict";
import { loadSettings, type Settings } from "../src/config.ts";
import type { Plan } from "../src/model.ts";
import { groundOf } from "../src/reconcile/ground.ts";
import { type PassRecord, runPass } from "../src/run.ts";
import { generateLibrary, loadLibrary } from "../scripts/gen_library.ts";
import { startImmichServer } from "./immich_server.ts";

function settingsOf(env: Record<string, string>): Settings {
  const command = loadSettings({ args: [], env, version: "0.0.0-test" });
  assert.equal(command.kind, "run");
  return (command as Extract<typeof command, { kind: "run" }>).settings;
}

async function plan(settings: Settings): Promise<Plan> {
  let seen: PassRecord | undefined;
  await runPass(settings, { sleep: () => Promise.resolve(), observe: (pass) => seen = pass });
  assert.ok(seen !== undefined);
  return seen.plan;
}

const CASES: readonly { name: string; env: Record<string, string> }[] = [
  { name: "the default settings", env: {} },
  {
    name: "archived and trashed assets, replacing conflicts",
    env: { WITH_ARCHIVED: "true", WITH_DELETED: "true", REPLACE_STACKS: "true" },
  },
];

for (const options of CASES) {
  Deno.test(`a full pass plans the same through the timeline as with GET /stacks, ${options.name}`, async () => {
    await using server = await startImmichServer({ seed: 7 });
    // Pre-existing stacks of every kind: as grouped, wrong cover, missing a member, made by hand,
    // with a member in the trash; then more stacks whose members are archived, hidden, trashed.
    const library = generateLibrary({ seed: 3, assets: 3000 });
    const { users } = loadLibrary(server, { users: library.users.slice(0, 1) });
    const user = users[0];
    const stacked = server.stacks(user.id);
    for (const [i, stack] of stacked.entries()) {
      if (i % 7 === 0) server.updateAsset(stack.assetIds.at(-1)!, { visibility: "archive" });
      if (i % 11 === 0) server.updateAsset(stack.primaryAssetId, { visibility: "archive" });
      if (i % 13 === 0) server.updateAsset(stack.primaryAssetId, { isTrashed: true });
      if (i % 17 === 0) server.updateAsset(stack.primaryAssetId, { visibility: "hidden" });
      if (i % 19 === 0) {
        for (const id of stack.assetIds.slice(1)) server.updateAsset(id, { visibility: "archive" });
      }
    }
    const settings = settingsOf({
      API_URL: server.url,
      API_KEY: user.key,
      DRY_RUN: "true",
      LOG_LEVEL: "error",
      ...options.env,
    });
    const listed = await plan(settings);

    server.clearRequests();
    server.setFaults({ maxListedStacks: 0 });
    const throughTimeline = await plan(settings);
    assert.deepEqual(throughTimeline, listed);
    assert.ok(listed.actions.length > 0 && listed.inSync.length > 100);

    const count = (method: string, path: RegExp) =>
      server.requests.filter((r) => r.method === method && path.test(r.path)).length;
    // Each stack an action changes is read again before its write, in a dry run too (fresh
    // ground): that is no part of reading the stacks.
    const fresh = listed.actions.reduce((sum, action) => sum + groundOf(action).length, 0);
    const stackReads = count("GET", /^\/stacks\/[^/]+$/) - fresh;
    const stacks = server.stacks(user.id);
    const months = new Set(
      library.users[0].assets.map((asset) =>
        (asset.localDateTime ?? asset.fileCreatedAt)!.slice(0, 7)
      ),
    ).size;
    // The list and its three retries, then a few covers looked up by primary.
    assert.ok(count("GET", /^\/stacks$/) >= 4);
    assert.ok(count("GET", /^\/timeline\/bucket$/) <= 5 * months, "a request per month and part");
    assert.ok(stackReads <= stacks.length, "a request per stack at most");
    assert.ok(
      stackReads <= stacks.filter((s) => s.assetIds.length > 1).length,
      "no request for a stack of its cover alone",
    );
    assert.equal(count("GET", /^\/assets\//), 0, "no request per asset");
  });
}
