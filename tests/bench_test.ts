import assert from "node:assert/strict";
import { judge } from "../scripts/bench.ts";
import type { VersusRow } from "../scripts/_bench_versus.ts";
import { judgeVersus, type VersusSetup } from "../scripts/_bench_versus_report.ts";
import { generateLibrary, generateScenes, loadLibrary } from "../scripts/gen_library.ts";
import { startImmichServer } from "./immich_server.ts";

Deno.test("generateLibrary() is deterministic and sized as asked", () => {
  const a = generateLibrary({ seed: 3, assets: 1500, users: 2 });
  assert.deepEqual(generateLibrary({ seed: 3, assets: 1500, users: 2 }), a);
  assert.notDeepEqual(
    generateLibrary({ seed: 4, assets: 1500, users: 2 }).users[0].assets,
    a.users[0].assets,
  );
  assert.deepEqual(a.users.map((u) => u.assets.length), [1500, 1500]);
  const ids = a.users.flatMap((u) => u.assets.map((asset) => asset.id));
  assert.equal(new Set(ids).size, ids.length);
  for (const id of ids) {
    assert.match(id ?? "", /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  }
});

Deno.test("generateLibrary() makes every kind of asset and pre-existing stack the issue lists", () => {
  const { users } = generateLibrary({ seed: 1, assets: 4000 });
  const assets = users[0].assets;
  const names = assets.map((asset) => asset.originalFileName);
  const has = (pattern: RegExp) => names.some((name) => pattern.test(name));
  assert.ok(has(/^IMG_\d{4}\.CR3$/), "Canon raw");
  assert.ok(has(/^DSC0\d{4}\.ARW$/), "Sony raw");
  assert.ok(has(/^IMG_\d{4}\.HEIC$/), "iPhone");
  assert.ok(has(/^PXL_\d{8}_\d{9}\.RAW-01\.MP\.COVER\.jpg$/), "Pixel raw cover");
  assert.ok(has(/^\d{8}_\d{6}\.jpg$/), "Samsung");
  assert.ok(has(/~2\.JPG$/) && has(/_edited\.jpg$/), "edited copies");
  const screenshots = assets.filter((asset) => /^Screenshot_|\.PNG$/.test(asset.originalFileName));
  assert.ok(screenshots.length > 0 && screenshots.every((asset) => asset.make === null));
  const hidden = assets.filter((asset) => asset.visibility === "hidden");
  assert.ok(hidden.length > 0);
  assert.ok(hidden.every((motion) => assets.some((still) => still.livePhotoVideoId === motion.id)));
  assert.ok(assets.some((asset) => asset.visibility === "archive"), "archived");
  assert.ok(assets.some((asset) => asset.isTrashed), "trashed");

  const byId = new Map(assets.map((asset) => [asset.id, asset]));
  const stacks = users[0].stacks;
  const at = (id: string) => byId.get(id)!.localDateTime!;
  // A burst stacked by hand: members taken 100–900 ms apart, names all different.
  const burst = stacks.find((stack) => new Set(stack.map(at)).size === stack.length);
  assert.ok(burst !== undefined && burst.length >= 3);
  const gaps = burst.slice(1).map((id, i) => Date.parse(at(id)) - Date.parse(at(burst[i])));
  assert.ok(gaps.every((gap) => gap >= 100 && gap <= 900), `gaps ${gaps}`);
  // One visible member, the other trashed.
  assert.ok(stacks.some((stack) => stack.filter((id) => !byId.get(id)!.isTrashed).length === 1));
  // A raw file as primary: the wrong parent under the default promotion.
  assert.ok(
    stacks.some((stack) => /\.(CR3|ARW|dng|DNG)$/.test(byId.get(stack[0])!.originalFileName)),
  );
});

Deno.test("generateLibrary() with partners shares each library with another user", async () => {
  const library = generateLibrary({ seed: 2, assets: 200, partners: true });
  assert.deepEqual(library.users.map((u) => [u.name, u.assets.length, u.sharedWith]), [
    ["User 1", 200, []],
    ["Partner", 20, [0]],
  ]);
  await using server = await startImmichServer();
  const { users } = loadLibrary(server, library);
  const response = await fetch(`${server.url}/search/metadata`, {
    method: "POST",
    headers: { "x-api-key": users[0].key, "content-type": "application/json" },
    body: JSON.stringify({ size: 1000, withDeleted: true }),
  });
  const owners = new Set(
    (await response.json()).assets.items.map((item: { ownerId: string }) => item.ownerId),
  );
  assert.deepEqual(owners, new Set([users[0].id, users[1].id]));
});

Deno.test("generateLibrary() trashes members of stacks and leaves out the archive as asked", async () => {
  const plain = generateLibrary({ seed: 5, assets: 3000 });
  const library = generateLibrary({ seed: 5, assets: 3000, stackedTrash: 0.01, archive: false });
  const [user] = library.users;
  assert.deepEqual(plain.users[0].stackedTrash, []);
  assert.equal(user.stackedTrash!.length, 30);
  // The same assets, ids and trash but for the archive, which stays on the timeline.
  assert.deepEqual(
    user.assets.map((asset) => [asset.id, asset.isTrashed ?? false]),
    plain.users[0].assets.map((asset) => [asset.id, asset.isTrashed ?? false]),
  );
  assert.ok(plain.users[0].assets.some((asset) => asset.visibility === "archive"));
  assert.ok(user.assets.every((asset) => asset.visibility !== "archive"));
  const handMade = new Set(user.stacks.flat());
  for (const { stack, trashed } of user.stackedTrash!) {
    assert.ok(stack.indexOf(trashed) > 0, "a member other than the primary");
    assert.ok(stack.every((id) => !handMade.has(id)), "no pre-existing stack's asset");
  }
  await using server = await startImmichServer();
  const { users } = loadLibrary(server, { users: [{ ...user, stacks: [] }] });
  const stacks = server.stacks(users[0].id);
  assert.equal(stacks.length, 30);
  for (const { stack, trashed } of user.stackedTrash!) {
    assert.equal(server.assetState(trashed).isTrashed, true);
    const held = stacks.find((s) => s.primaryAssetId === stack[0]);
    assert.deepEqual(held?.assetIds, stack);
  }
});

Deno.test("generateScenes() makes RAW+JPEG scenes, some with an edit, one group each", () => {
  const { users } = generateScenes({ seed: 2, scenes: 400, edits: 80 });
  assert.deepEqual(generateScenes({ seed: 2, scenes: 400, edits: 80 }).users, users);
  const names = users[0].assets.map((asset) => asset.originalFileName);
  assert.equal(names.length, 880);
  const shots = new Map<string, string[]>();
  for (const name of names) {
    const shot = name.replace(/(~2)?\.[^.]+$/, "");
    shots.set(shot, [...(shots.get(shot) ?? []), name]);
  }
  assert.equal(shots.size, 400);
  const sizes = [...shots.values()].map((files) => files.length);
  assert.deepEqual([sizes.filter((n) => n === 2).length, sizes.filter((n) => n === 3).length], [
    320,
    80,
  ]);
  assert.ok(names.some((name) => name.endsWith(".CR3")) && names.some((n) => n.endsWith(".ARW")));
  assert.throws(() => generateScenes({ seed: 2, scenes: 4, edits: 5 }), RangeError);
});

Deno.test("judge() misses the review page's target with the reason Chromium gave", () => {
  const dry = {
    size: 1000,
    scenario: "dry run" as const,
    wallMs: 300,
    cpuMs: 200,
    peakRssMiB: 60,
    exitCode: 0,
    requests: {},
    writes: 0,
    stacksAfter: 0,
    computeMs: 20,
  };
  const { lines } = judge([dry], { page: { failure: "Cannot start the browser" } });
  assert.ok(
    lines.includes(
      "Review page opens and shows its last card in Chromium < 3 s: not measured: Cannot start " +
        "the browser — **missed**",
    ),
    lines.join("\n"),
  );
});

/** A row of {@linkcode judgeVersus}'s input with every figure given. */
function versusRow(row: Partial<VersusRow> & Pick<VersusRow, "library" | "scenario">): VersusRow {
  return {
    tool: "stacksync",
    wallMs: 100,
    cpuMs: 50,
    peakRssMiB: 30,
    exitCode: 0,
    requests: { "GET /users/me": 1 },
    writes: 0,
    ...row,
  };
}

const SETUP: VersusSetup = {
  assets: 2000,
  stackedTrash: 0.01,
  scenes: { scenes: 20, edits: 4 },
  immichStack: { skipped: "immich-stack: not measured" },
};

Deno.test("judgeVersus() misses a target with the line of a failed run and judges no ratio without immich-stack", () => {
  const lines = judgeVersus([
    versusRow({
      library: "trash",
      scenario: "first run",
      exitCode: 1,
      failure: "Skipping User 1: Cannot find the stacks of 1062 trashed or hidden assets",
    }),
    versusRow({
      library: "trash",
      scenario: "nothing to change",
      wallMs: 400,
      pass: "incremental",
    }),
    versusRow({ library: "no trash", scenario: "full pass", wallMs: 900 }),
    versusRow({ library: "start-up", scenario: "--version", wallMs: 90 }),
  ], SETUP);
  assert.deepEqual(lines, [
    "First run ≤ 0.8 × immich-stack's wall, 2,000 assets, 1 % of them trashed in stacks: 100 ms — " +
    "**missed**: stacksync exited with 1: Skipping User 1: Cannot find the stacks of 1062 trashed " +
    "or hidden assets",
    "First run peak RSS ≤ 200 MB, 2,000 assets, 1 % of them trashed in stacks: 31 MB — **missed**: " +
    "stacksync exited with 1: Skipping User 1: Cannot find the stacks of 1062 trashed or hidden " +
    "assets",
    "A pass with nothing to change ≤ 0.5 s including start-up, 2,000 assets, 1 % of them trashed " +
    "in stacks: 400 ms, incremental pass — met",
    "A pass with nothing to change makes ≤ 10 requests, 2,000 assets, 1 % of them trashed in " +
    "stacks: 1 request (GET /users/me ×1) — met",
    "Every pass after the first ≤ 160 MB peak RSS, 2,000 assets, 1 % of them trashed in stacks: " +
    "nothing to change 31 MB — met",
    "Full pass ≤ 0.6 × immich-stack's wall, 2,000 assets, none trashed in stacks: 900 ms — " +
    "not judged: immich-stack was not measured",
    "Every pass after the first ≤ 160 MB peak RSS, 2,000 assets, none trashed in stacks: full " +
    "pass 31 MB — met",
    "`--version` ≤ 0.12 s and ≤ 40 MB: 90 ms, 31 MB — met",
  ]);
});
