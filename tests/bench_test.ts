import assert from "node:assert/strict";
import { judge, renderBenchmarks, runBench } from "../scripts/bench.ts";
import { benchPage } from "../scripts/_bench_page.ts";
import { generateLibrary, loadLibrary } from "../scripts/gen_library.ts";
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
    // Backup and restore with nothing to change read stacks only; undo, which deletes, first
    // looks for members in the trash or hidden as a run does.
    const searches = r.requests["POST /search/metadata"] ?? 0;
    assert.ok([backup, restore].includes(r) ? searches === 0 : searches >= 2, r.scenario);
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
