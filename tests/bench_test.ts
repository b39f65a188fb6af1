import assert from "node:assert/strict";
import { judge, renderBenchmarks, runBench } from "../scripts/bench.ts";
import { benchPage } from "../scripts/_bench_page.ts";
import { CONFIG, MAIN } from "../scripts/_bench_process.ts";
import { runVersus, type VersusRow } from "../scripts/_bench_versus.ts";
import { judgeVersus, renderVersus, type VersusSetup } from "../scripts/_bench_versus_report.ts";
import { RUN_FLAGS } from "../scripts/compile.ts";
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

Deno.test("runBench() measures every scenario of the real CLI at 2 000 assets", async () => {
  const lines: string[] = [];
  const results = await runBench({
    sizes: [2000],
    repeat: 1,
    progress: (l) => lines.push(l),
    writeLatencyMs: 2,
  });
  assert.deepEqual(results.map((r) => r.scenario), [
    "dry run",
    "plan",
    "plan, page",
    "first run",
    "undo",
    "first run, no journal",
    "floor",
    "steady state",
    "incremental, no change",
    "incremental, 100 changes",
    "dry run, stacked",
    "backup",
    "restore",
    "full pass, timeline",
    "first run, slow writes",
    "first run, slow writes, 8 lanes",
  ]);
  const [
    dry,
    plan,
    page,
    first,
    undo,
    bare,
    floor,
    steady,
    unchanged,
    changed,
    stackedDry,
    backup,
    restore,
    timeline,
    serial,
    lanes,
  ] = results;
  for (const r of results) {
    assert.equal(r.exitCode, 0);
    assert.ok(r.wallMs > 0 && r.cpuMs > 0 && r.peakRssMiB > 10, JSON.stringify(r));
    // Incremental passes read no stack list (only a stack by its cover now and then); the one
    // through the timeline meets its 500s.
    if (r.pass !== "incremental") {
      assert.equal(r.requests["GET /stacks"], r === timeline ? 4 : 1, r.scenario);
    }
    // Every scenario searches: a pass the photos; undo, which deletes, and backup the members
    // in the trash or hidden as a run does; restore the trash, whose photos no create may list.
    assert.ok((r.requests["POST /search/metadata"] ?? 0) >= 2, r.scenario);
  }
  // The journaled first run and the one without make the same stacks; undo takes them away.
  assert.equal(undo.writes, first.writes);
  assert.equal(undo.stacksAfter, 0);
  assert.deepEqual([bare.writes, bare.stacksAfter], [first.writes, first.stacksAfter]);
  assert.ok(first.journal!.bytes > 0 && first.journal!.plainBytes > first.journal!.bytes);
  assert.equal(bare.journal, undefined);
  // After the incremental passes stacked the changed assets, nothing changes any more.
  for (const row of [stackedDry, backup, restore, timeline]) {
    assert.deepEqual([row.writes, row.stacksAfter], [0, changed.stacksAfter], row.scenario);
  }
  assert.ok(first.groups! > 300, `groups ${first.groups}`);
  assert.equal(first.writes, first.groups);
  assert.equal(first.requests["POST /stacks"], first.groups);
  assert.equal(first.stacksAfter, first.groups);
  assert.equal(dry.writes, 0);
  assert.equal(dry.stacksAfter, 0);
  assert.equal(steady.writes, 0);
  assert.equal(steady.stacksAfter, first.groups);
  assert.equal(steady.groups, first.groups);
  // Passes are full but for the incremental ones, which find the cache the steady state left.
  for (const r of results) {
    const incremental = r === unchanged || r === changed;
    const expected = [floor, undo, backup, restore].includes(r)
      ? undefined
      : incremental
      ? "incremental"
      : "full";
    assert.equal(r.pass, expected, r.scenario);
  }
  assert.equal(unchanged.writes, 0);
  assert.equal(unchanged.requests["GET /stacks"], undefined);
  assert.ok(Object.values(unchanged.requests).reduce((a, b) => a + b, 0) <= 10);
  assert.ok(changed.writes > 0 && changed.stacksAfter > first.groups!);
  assert.ok(changed.cacheBytes! > 0);
  assert.ok((timeline.requests["GET /timeline/bucket"] ?? 0) > 0);
  assert.equal(timeline.writes, 0);
  assert.ok(dry.computeMs !== undefined && steady.computeMs !== undefined);
  assert.equal(floor.computeMs, undefined);
  assert.equal(lines.length, 17);
  // The plan reads what the dry run reads and writes nothing; its page adds the pictures.
  assert.deepEqual([plan.writes, page.writes], [0, 0]);
  assert.deepEqual(plan.requests, dry.requests);
  assert.ok(page.requests["GET /assets/{id}/thumbnail"] > first.groups!);
  // One write in flight or 8, on the same unstacked library (as the incremental passes left
  // it: stacks with members in the trash are not made again): the same stacks.
  assert.ok(serial.writes > first.groups! * 0.9, `${serial.writes} writes`);
  for (const row of [serial, lanes]) {
    assert.deepEqual([row.writes, row.stacksAfter], [serial.writes, serial.writes], row.scenario);
    assert.equal(row.writeLatencyMs, 2);
  }
  assert.ok(serial.stacksDigest !== undefined && serial.stacksDigest === lanes.stacksDigest);

  const pageBench = await benchPage({ actions: 300, pictures: 50 });
  assert.equal(pageBench.pictures, 50);
  assert.ok(pageBench.cardsInDocument < 30 && pageBench.bytes > 100_000, JSON.stringify(pageBench));
  const verdicts = judge(results, { page: pageBench }).lines;
  assert.ok(
    verdicts.some((line) => line.startsWith("Steady state sends no write: 0 writes — met")),
  );
  for (
    const target of [
      /^Journaling adds ≤ 10 % to the first run's wall at 2,000: /,
      /^Journaling adds ≤ 30 MB to the first run's peak RSS at 2,000: /,
      /^The first run's journal at 2,000: [\d.]+ MB on disk \(gzip\)/,
      /^Undo of the first run puts back every stack at 2,000: 0 stacks left, .* — met$/,
      /^Backup with nothing to change ≤ 1\.5 × a dry run at 2,000: .*, 0 writes — /,
      /^Restore with nothing to change ≤ 1\.5 × a dry run at 2,000: .*, 0 writes — /,
      // Wall times are the bench's to judge, not a test's (a loaded machine misses them).
      /^Incremental pass with no change ≤ 1 s wall and ≤ 10 requests at 2,000: [\d,]+ ms, (?:[1-9]|10) requests /,
      /^Incremental pass with 100 changed assets ≤ 2 s wall at 2,000: [\d,]+ ms, \d+ requests, /,
      /^The cache of incremental passes at 2,000: [\d.]+ MB on disk$/,
      /^Full pass through the timeline when GET \/stacks answers 500 at 2,000: .* — met$/,
      /^Plan ≤ 1\.2 × a dry run at 2,000: .*, 0 writes — /,
      /^Plan with the review page at 2,000: [\d,]+ ms, -?[\d,]+ ms more than the plan alone for [\d,]+ pictures and the page$/,
      /^Review page of 300 actions opens and shows its last card in Chromium < 3 s: /,
      /^STACK_CONCURRENCY=8 makes a first run ≥ 4 × faster than 1 with 2 ms per write at 2,000: .*, the same \d+ stacks — /,
    ]
  ) {
    assert.ok(verdicts.some((line) => target.test(line)), `${target}\n${verdicts.join("\n")}`);
  }
  const text = renderBenchmarks(results, {
    machine: { cpus: 2, cpuModel: "Test CPU", memoryGiB: 4, deno: "2.9.6", os: "linux" },
    command: "deno task bench --sizes 2000",
    date: "2026-01-01",
  });
  assert.match(text, /^# Benchmarks\n/);
  assert.match(text, /- Machine: 2 CPUs \(Test CPU\), 4\.0 GiB memory, linux\n/);
  assert.match(
    text,
    /\| 2,000 \| steady state \| full \| [\d,]+ \| [\d,]+ \| [\d,]+ \| [\d,]+ \| [\d,]+ \| 0 \|/,
  );
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

Deno.test("runVersus() measures stacksync beside another tool in every scenario", async () => {
  // stacksync run without a state folder of its own, a full pass each time, stands in for
  // immich-stack (which is not part of this repository).
  const folder = await Deno.makeTempDir({ prefix: "stacksync-stand-in-" });
  try {
    const standIn = `${folder}/immich-stack`;
    await Deno.writeTextFile(
      standIn,
      `#!/bin/sh\nSTATE_DIR="$PWD/state-$$" exec "${Deno.execPath()}" run --config "${CONFIG}" ` +
        `${RUN_FLAGS.join(" ")} "${MAIN}" --full "$@"\n`,
    );
    await Deno.chmod(standIn, 0o755);
    const progress: string[] = [];
    const rows = await runVersus({
      assets: 1000,
      stackedTrash: 0.01,
      scenes: { scenes: 20, edits: 4 },
      immichStack: standIn,
      repeat: 1,
      quickRepeat: 1,
      progress: (line) => progress.push(line),
    });
    const key = (row: VersusRow) => `${row.library}, ${row.scenario}, ${row.tool}`;
    const large = ["first run", "full pass", "nothing to change"].flatMap((scenario) =>
      ["stacksync", "immich-stack"].map((tool) => `${scenario}, ${tool}`)
    );
    assert.deepEqual(rows.map(key), [
      ...large.map((rest) => `no trash, ${rest}`),
      ...large.map((rest) => `trash, ${rest}`),
      ...["pass 1", "pass 2", "pass 3"].flatMap((scenario) =>
        ["stacksync", "immich-stack"].map((tool) => `small, ${scenario}, ${tool}`)
      ),
      "start-up, --version, stacksync",
      "start-up, --help, stacksync",
      "start-up, empty script, deno",
      "start-up, --help, immich-stack",
    ]);
    assert.equal(progress.length, rows.length + 1);
    for (const row of rows) {
      assert.equal(row.failure, undefined, key(row));
      assert.ok(row.wallMs > 0 && row.peakRssMiB > 10, key(row));
    }
    const find = (library: string, scenario: string, tool = "stacksync") =>
      rows.find((r) => r.library === library && r.scenario === scenario && r.tool === tool)!;
    for (const library of ["no trash", "trash"]) {
      const [ours, theirs] = [
        find(library, "first run"),
        find(library, "first run", "immich-stack"),
      ];
      assert.ok(ours.writes > 100, `${ours.writes} writes`);
      assert.deepEqual([theirs.writes, theirs.stacksAfter], [ours.writes, ours.stacksAfter]);
      assert.equal(ours.stacksDigest, theirs.stacksDigest);
      assert.equal(find(library, "full pass").pass, "full");
      assert.equal(find(library, "nothing to change").pass, "incremental");
      assert.equal(find(library, "nothing to change").writes, 0);
      assert.equal(find(library, "nothing to change", "immich-stack").pass, undefined);
    }
    // The stacks with a trashed member were there before the first run.
    assert.equal(
      find("trash", "first run").stacksAfter,
      find("trash", "first run").writes + 10,
    );
    assert.deepEqual(
      ["pass 1", "pass 2", "pass 3"].map((pass) => find("small", pass).writes),
      [20, 0, 0],
    );
    const setup: VersusSetup = { ...SETUP, assets: 1000, immichStack: { sha256: "ab".repeat(32) } };
    const lines = judgeVersus(rows, setup);
    for (
      const target of [
        /^First run ≤ 0\.8 × immich-stack's wall, 1,000 assets, 1 % of them trashed in stacks: [\d,]+ ms vs [\d,]+ ms = [\d.]+ × — (met|\*\*missed\*\*)$/,
        /^The same stacks after each tool's first run, 1,000 assets, none trashed in stacks: stacksync [\d,]+, immich-stack [\d,]+ stacks, 0 of them differ — met: the same covers and members$/,
        /^44 files \(20 RAW\+JPEG scenes, 4 edits\): pass 3, with nothing to change, ≤ 0\.25 s and ≤ 50 MB: /,
        /^`--help` ≤ 0\.12 s and ≤ 40 MB: [\d,]+ ms, [\d,]+ MB \(an empty Deno script with the same flags: .*; immich-stack --help: /,
      ]
    ) {
      assert.ok(lines.some((line) => target.test(line)), `${target}\n${lines.join("\n")}`);
    }
    const text = renderVersus(rows, setup);
    assert.match(text, /^## Side by side with immich-stack\n/);
    assert.match(text, /binary SHA-256 abababababababab…/);
    assert.match(
      text,
      /\| 1,000 assets, none trashed in stacks \| first run \| [\d,]+ \| [\d,]+ \| [\d.]+ × \|/,
    );
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});
