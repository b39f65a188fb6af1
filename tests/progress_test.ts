/**
 * The progress unit (`src/progress/`): its figures as pure values, the terminal line and the
 * periodic log line on an injected clock and writer, the choice between them, and the steps of
 * applying a plan against `applyPlan`'s and `applyTrash`'s own `afterAction` calls.
 */
import assert from "node:assert/strict";
import { reset } from "@logtape/logtape";
import { recordLogs } from "./_logs.ts";
import {
  advanceStage,
  durationText,
  progressReport,
  progressText,
  startStage,
} from "../src/progress/figures.ts";
import { startApplying, stepsOf } from "../src/progress/hooks.ts";
import {
  LoggedProgress,
  type Progress,
  progressOf,
  TerminalProgress,
} from "../src/progress/show.ts";
import { applyPlan, type StackWriter } from "../src/reconcile/apply.ts";
import { type PlanGroup, planStacks } from "../src/reconcile/plan.ts";
import { applyTrash } from "../src/trash/apply.ts";
import type { Stack, TrashPlan } from "../src/model.ts";
import { formatJson } from "../src/log.ts";

const ESC = "\x1b";

/** A clock the test moves. */
function clock(start = 0) {
  let now = start;
  return { now: () => now, to: (ms: number) => now = ms };
}

Deno.test("progressReport() reads without a count as pages and assets only", () => {
  const stage = advanceStage(startStage("reading", { user: "Ann", now: 0 }), 2000, 2);
  const report = progressReport(stage, 4000);
  assert.deepEqual(report.properties, { user: "Ann", pages: 2, done: 2000 });
  assert.equal(progressText(report), "Reading the library of Ann: page 2, 2000 assets");
});

Deno.test("progressReport() reads against the count with the time left at its rate", () => {
  const stage = advanceStage(
    startStage("reading", { user: "Ann", now: 1000, total: 48000 }),
    12000,
    12,
  );
  assert.equal(
    progressText(progressReport(stage, 31_000)),
    "Reading the library of Ann: page 12, 12000 of 48000 assets (25%), time left 1 min 30 s",
  );
  // More than counted (uploads since): all read, nothing left.
  const over = advanceStage(stage, 36500, 37);
  assert.deepEqual(
    [progressReport(over, 60_000).properties.percent, progressReport(over, 60_000).properties.left],
    [100, "0 s"],
  );
});

Deno.test("progressReport() says 100% only when every step is done", () => {
  const start = startStage("applying", { user: "Ann", now: 0, total: 1000 });
  assert.equal(progressReport(advanceStage(start, 999), 10_000).properties.percent, 99);
  assert.equal(progressReport(advanceStage(start, 1000), 10_000).properties.percent, 100);
  assert.equal(progressReport(advanceStage(start, 1000), 10_000).properties.left, "0 s");
});

Deno.test("progressReport() knows no rate and no time left before the first step", () => {
  const start = startStage("dry-run", { user: "Ann", now: 500, total: 10 });
  assert.equal(
    progressText(progressReport(start, 500)),
    "Dry run of the plan of Ann: 0 of 10 steps (0%), 0 a second, time left unknown",
  );
  assert.equal(
    progressText(progressReport(advanceStage(start, 1), 4500)),
    "Dry run of the plan of Ann: 1 of 10 steps (10%), 0.3 a second, time left 36 s",
  );
});

Deno.test("durationText() grows coarser and never rounds work left down to nothing", async (t) => {
  const cases: [number, string][] = [
    [0, "0 s"],
    [1, "1 s"],
    [59_001, "1 min"],
    [61_000, "1 min 1 s"],
    [599_000, "9 min 59 s"],
    [599_500, "10 min"],
    [3_599_001, "1 h"],
    [7_260_000, "2 h 1 min"],
  ];
  for (const [ms, text] of cases) {
    await t.step(`${ms} ms`, () => assert.equal(durationText(ms), text));
  }
});

Deno.test("TerminalProgress redraws in place at most every 100 ms and clears at the end", () => {
  const time = clock();
  let text = "";
  const line = new TerminalProgress({ write: (t) => text += t, now: time.now });
  line.start("applying", "Ann", 4);
  time.to(99);
  line.advance(1);
  assert.equal(text.split(`\r${ESC}[K`).length, 2, "one drawing only");
  time.to(100);
  line.advance(1);
  assert.equal(
    text.split(`\r${ESC}[K`).at(-1),
    "Applying the plan of Ann: 2 of 4 steps (50%), 20 a second, time left 1 s",
  );
  line.end();
  assert.ok(text.endsWith(`\r${ESC}[K`));
  const before = text;
  line.advance(1);
  line.end();
  assert.equal(text, before, "nothing after the end");
});

Deno.test("TerminalProgress fits the line to one row and prints no control character", () => {
  let text = "";
  const line = new TerminalProgress({ write: (t) => text += t, now: () => 0, columns: () => 30 });
  line.start("reading", "Ann\x1b[2J\nBo");
  assert.equal(text, `\r${ESC}[KReading the library of Ann?[…`);
  assert.equal([...text.slice(4)].length, 29);
});

Deno.test("TerminalProgress.around() writes as it is while no line is drawn", () => {
  let text = "";
  const line = new TerminalProgress({ write: (t) => text += t, now: () => 0 });
  const log = line.around((t) => text += t);
  log("a\n");
  line.start("reading", "Ann");
  line.end();
  log("b\n");
  assert.equal(
    text,
    `a\n\r${ESC}[KReading the library of Ann: page 0, 0 assets\r${ESC}[Kb\n`,
  );
});

Deno.test("LoggedProgress logs every 10 s at info and nothing for a stage within that", async () => {
  const records = await recordLogs("trace");
  try {
    const time = clock(1000);
    const progress = new LoggedProgress({ now: time.now });
    // A stage that ends within 10 s: no line.
    progress.start("reading", "Ann", 3000);
    time.to(10_999);
    progress.advance(3000, 3);
    progress.end();
    assert.equal(records.length, 0);
    // A long one: a line at the first step 10 s after its start, then 10 s after that line.
    progress.start("applying", "Ann", 100);
    for (let step = 1; step <= 100; step++) {
      time.to(10_999 + step * 500);
      progress.advance(1);
    }
    progress.end();
    time.to(1_000_000);
    progress.advance(1);
    assert.deepEqual(
      records.map((record) => [record.level, record.message.join("")]),
      [
        ["info", "Applying the plan of Ann: 20 of 100 steps (20%), 2 a second, time left 40 s"],
        ["info", "Applying the plan of Ann: 40 of 100 steps (40%), 2 a second, time left 30 s"],
        ["info", "Applying the plan of Ann: 60 of 100 steps (60%), 2 a second, time left 20 s"],
        ["info", "Applying the plan of Ann: 80 of 100 steps (80%), 2 a second, time left 10 s"],
        ["info", "Applying the plan of Ann: 100 of 100 steps (100%), 2 a second, time left 0 s"],
      ],
    );
    assert.deepEqual(records[0].properties, {
      user: "Ann",
      done: 20,
      total: 100,
      percent: 20,
      rate: 2,
      left: "40 s",
    });
    assert.equal(records[0].rawMessage, records[4].rawMessage, "one constant template");
  } finally {
    await reset();
  }
});

Deno.test("LoggedProgress writes JSON lines with its figures as fields", async () => {
  const records = await recordLogs("info");
  const time = clock();
  const progress = new LoggedProgress({ now: time.now, intervalMs: 0 });
  progress.start("reading", "Ann");
  time.to(2000);
  progress.advance(1000, 1);
  await reset();
  assert.equal(records.length, 1);
  const { time: _, ...line } = JSON.parse(formatJson(records[0], []));
  assert.deepEqual(line, {
    level: "info",
    msg: "Reading the library of Ann: page 1, 1000 assets",
    user: "Ann",
    pages: 1,
    done: 1000,
  });
});

Deno.test("progressOf() draws a line on standard error's terminal, else logs", async (t) => {
  const writers = () => {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, stdout: (s: string) => out.push(s), stderr: (s: string) => err.push(s) };
  };
  const both = { stdout: true, stderr: true };

  await t.step("a terminal: stdout and stderr on it clear the line and draw it again", () => {
    const w = writers();
    const shown = progressOf({ env: { TERM: "xterm" }, ...w, terminal: both, now: () => 0 });
    assert.ok(shown.progress instanceof TerminalProgress);
    shown.progress.start("reading", "Ann");
    shown.stdout("log line\n");
    shown.stderr("warning\n");
    shown.progress.end();
    assert.deepEqual(w.out, ["log line\n"]);
    assert.deepEqual(w.err.filter((s) => !s.startsWith(`\r${ESC}[K`)), ["warning\n"]);
    assert.equal(w.err.filter((s) => s === `\r${ESC}[K`).length, 3);
  });

  await t.step("standard output elsewhere is written as it is", () => {
    const w = writers();
    const shown = progressOf({
      env: {},
      ...w,
      terminal: { stdout: false, stderr: true },
      now: () => 0,
    });
    shown.progress.start("reading", "Ann");
    shown.stdout("data\n");
    assert.deepEqual(w.out, ["data\n"]);
    assert.equal(w.err.length, 1);
  });

  await t.step("no terminal, a dumb one, or NO_COLOR: log lines, writers as they are", () => {
    for (
      const [env, terminal] of [
        [{}, { stdout: true, stderr: false }],
        [{ TERM: "dumb" }, both],
        [{ NO_COLOR: "1" }, both],
      ] as const
    ) {
      const w = writers();
      const shown = progressOf({ env, ...w, terminal, now: () => 0 });
      assert.ok(shown.progress instanceof LoggedProgress, JSON.stringify(env));
      assert.equal(shown.stdout, w.stdout);
      assert.equal(shown.stderr, w.stderr);
    }
  });

  await t.step(
    "STACKSYNC_PROGRESS_INTERVAL_MS shortens the interval; a bad one is ignored",
    async () => {
      const records = await recordLogs("info");
      try {
        for (const [interval, lines] of [["0", 1], ["", 0], ["-5", 0], ["soon", 0]] as const) {
          const w = writers();
          const time = clock();
          const shown = progressOf({
            env: { STACKSYNC_PROGRESS_INTERVAL_MS: interval },
            ...w,
            terminal: { stdout: false, stderr: false },
            now: time.now,
          });
          shown.progress.start("reading", "Ann");
          time.to(9_999);
          shown.progress.advance(1, 1);
          assert.equal(records.splice(0).length, lines, interval);
        }
      } finally {
        await reset();
      }
    },
  );
});

/** Stacks as `[id, primary, …members]`. */
function stacksOf(rows: readonly (readonly string[])[]): Stack[] {
  return rows.map(([id, ...assetIds]) => ({ id, primaryAssetId: assetIds[0], assetIds }));
}

/** Groups as lists of asset ids, parent first. */
function groupsOf(rows: readonly (readonly string[])[]): PlanGroup[] {
  return rows.map((ids) => ({
    key: ids.join("+"),
    assets: ids.map((id) => ({ id, originalFileName: `${id}.jpg` })),
  }));
}

/** Counts the steps a progress is told. */
function counting(): Progress & { started?: number; steps: number } {
  const seen: { started?: number; steps: number } = { steps: 0 };
  return Object.assign(seen, {
    start: (_kind: string, _user: string, total?: number) => seen.started = total,
    advance: (done: number) => seen.steps += done,
    end: () => {},
  });
}

Deno.test("stepsOf() counts every afterAction call of applyPlan and applyTrash", async (t) => {
  // One action of every kind: delete, replace (of two stacks), update-primary, grow, create.
  const rows = [["s1", "solo"], ["s2", "a", "b", "z"], ["s5", "y", "x"], ["s3", "d", "c"]];
  const plan = planStacks(
    stacksOf([...rows, ["s4", "e", "f"]]),
    groupsOf([["a", "b", "x"], ["c", "d"], ["e", "f", "g"], ["h", "i"]]),
    { replaceStacks: true, removeSingleAssetStacks: true, resetStacks: false },
  );
  assert.deepEqual(
    plan.actions.map((action) => action.kind).sort(),
    ["create", "delete", "grow", "replace", "update-primary"],
  );
  const trash: TrashPlan = {
    actions: [
      { kind: "trash", assetIds: ["t1"], reason: "undo", context: { assets: [] } },
      { kind: "restore", assetIds: ["t2"], reason: "undo", context: { assets: [] } },
    ],
  };
  let n = 0;
  const writer: StackWriter & Parameters<typeof applyTrash>[1] = {
    createStack: () => Promise.resolve({ id: `new${++n}` }),
    updateStackPrimary: () => Promise.resolve(),
    deleteStack: () => Promise.resolve(),
    stackWithPrimary: () => Promise.resolve(undefined),
    trashAssets: () => Promise.resolve(),
    restoreAssets: () => Promise.resolve(),
  };
  const records = await recordLogs("error");
  try {
    for (const dryRun of [false, true]) {
      for (const concurrency of [1, 4]) {
        await t.step(`${dryRun ? "dry run" : "real run"}, ${concurrency} at once`, async () => {
          const progress = counting();
          startApplying(progress, { user: "Ann", plan, trash, dryRun });
          const options = { dryRun, concurrency, afterAction: () => progress.advance(1) };
          await applyPlan(plan, writer, options);
          await applyTrash(trash, writer, options);
          assert.equal(progress.started, stepsOf(plan, { trash, dryRun }));
          assert.equal(progress.steps, progress.started);
        });
      }
    }
    await t.step("a plan without actions starts no stage", () => {
      const progress = counting();
      startApplying(progress, { user: "Ann", plan: { ...plan, actions: [] }, dryRun: false });
      assert.equal(progress.started, undefined);
    });
  } finally {
    await reset();
  }
  assert.deepEqual(records, []);
});
