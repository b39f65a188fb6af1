/**
 * The bench end to end: every scenario of the real CLI at 2 000 assets, and side by side with a
 * stand-in for immich-stack. Minutes of work, so only `deno task test:full` runs them; the
 * bench's units are in tests/bench_test.ts.
 */
import assert from "node:assert/strict";
import { judge, renderBenchmarks, runBench } from "../../scripts/bench.ts";
import { benchPage } from "../../scripts/_bench_page.ts";
import { CONFIG, MAIN } from "../../scripts/_bench_process.ts";
import { runVersus, type VersusRow } from "../../scripts/_bench_versus.ts";
import { judgeVersus, renderVersus, type VersusSetup } from "../../scripts/_bench_versus_report.ts";
import { RUN_FLAGS } from "../../scripts/compile.ts";

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
    const setup: VersusSetup = {
      assets: 1000,
      stackedTrash: 0.01,
      scenes: { scenes: 20, edits: 4 },
      immichStack: { sha256: "ab".repeat(32) },
    };
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
