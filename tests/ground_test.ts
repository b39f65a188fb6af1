import assert from "node:assert/strict";
import { getLogger, type LogRecord, reset } from "@logtape/logtape";
import { recordLogs } from "./_logs.ts";
import type { Action, Plan, RecordedStack, Stack } from "../src/model.ts";
import { applyPlan, type StackWriter } from "../src/reconcile/apply.ts";
import { freshVerdict, type GroundRules, stackMove } from "../src/reconcile/ground.ts";
import { type PlanGroup, planStacks } from "../src/reconcile/plan.ts";

function group(...ids: string[]): PlanGroup {
  return { key: ids.join("+"), assets: ids.map((id) => ({ id, originalFileName: `${id}.jpg` })) };
}

function stack(id: string, ...assetIds: string[]): Stack {
  return { id, primaryAssetId: assetIds[0], assetIds };
}

const RULES: GroundRules = {
  replaceStacks: false,
  removeSingleAssetStacks: false,
  resetStacks: false,
};

/** The one action of a plan of the stacks and groups. */
function actionOf(stacks: Stack[], groups: PlanGroup[], rules: GroundRules = RULES): Action {
  const { actions } = planStacks(stacks, groups, rules);
  assert.equal(actions.length, 1);
  return actions[0];
}

function now(...stacks: (Stack | [string, undefined])[]): Map<string, Stack | undefined> {
  return new Map(stacks.map((entry) => Array.isArray(entry) ? entry : [entry.id, entry]));
}

Deno.test("stackMove() tells a cover, members that joined or left, and a stack gone", () => {
  const ground = { id: "s1", primaryAssetId: "a", assetIds: ["a", "b", "t"] };
  const unlisted = new Set(["t"]);
  // A member the read does not show (in the trash, hidden) has not left.
  assert.equal(stackMove(ground, stack("s1", "a", "b"), unlisted), undefined);
  assert.deepEqual(stackMove(ground, stack("s1", "b", "a", "c"), unlisted), {
    stackId: "s1",
    gone: false,
    cover: { then: "a", now: "b" },
    joined: ["c"],
    left: [],
  });
  assert.deepEqual(stackMove(ground, stack("s1", "a"), unlisted), {
    stackId: "s1",
    gone: false,
    joined: [],
    left: ["b"],
  });
  assert.deepEqual(stackMove(ground, undefined, unlisted), {
    stackId: "s1",
    gone: true,
    joined: [],
    left: [],
  });
});

Deno.test("freshVerdict() sends an action whose stacks are as planned, with them as its ground", () => {
  const rules = { ...RULES, unlisted: new Set(["m"]), notFetched: new Set(["m"]) };
  const grow = actionOf([stack("s1", "a", "b", "m")], [group("a", "b", "c")], rules);
  const verdict = freshVerdict(grow, now(stack("s1", "a", "b")), rules);
  assert.equal(verdict.kind, "holds");
  assert.ok(verdict.kind === "holds");
  assert.equal(verdict.action, grow);
  const ground: RecordedStack[] = [{
    id: "s1",
    primaryAssetId: "a",
    assets: [
      { id: "a", originalFileName: "a.jpg" },
      { id: "b", originalFileName: "b.jpg" },
      { id: "m", hidden: true },
    ],
  }];
  assert.deepEqual(verdict.ground, ground);
});

Deno.test("freshVerdict() plans a grow or a new cover again on a cover chosen by hand", async (t) => {
  const rules = { ...RULES, notFetched: new Set(["edit"]) };
  await t.step("a cover the pass did not fetch is listed first", () => {
    const grow = actionOf([stack("s1", "jpg", "dng", "edit")], [group("jpg", "dng", "new")], rules);
    const verdict = freshVerdict(grow, now(stack("s1", "edit", "jpg", "dng")), rules);
    assert.ok(verdict.kind === "replanned");
    assert.equal(verdict.action.kind, "grow");
    assert.deepEqual(verdict.action.assetIds, ["edit", "jpg", "dng", "new"]);
    assert.deepEqual(verdict.ground[0].assets.map((asset) => asset.id), ["edit", "jpg", "dng"]);
  });
  await t.step("a kept cover chosen away from lists the group alone", () => {
    const grow = actionOf([stack("s1", "edit", "jpg", "dng")], [group("jpg", "dng", "new")], rules);
    assert.deepEqual(grow.assetIds, ["edit", "jpg", "dng", "new"]);
    const verdict = freshVerdict(grow, now(stack("s1", "dng", "jpg", "edit")), rules);
    assert.ok(verdict.kind === "replanned");
    assert.deepEqual(verdict.action.assetIds, ["jpg", "dng", "new"]);
  });
  await t.step("a new cover already set by hand needs no write", () => {
    const update = actionOf([stack("s1", "dng", "jpg")], [group("jpg", "dng")], rules);
    assert.equal(update.kind, "update-primary");
    const verdict = freshVerdict(update, now(stack("s1", "jpg", "dng")), rules);
    assert.deepEqual(verdict, {
      kind: "in-sync",
      moves: [{
        stackId: "s1",
        gone: false,
        cover: { then: "dng", now: "jpg" },
        joined: [],
        left: [],
      }],
    });
  });
  await t.step("a cover moved to one the pass did not fetch is kept", () => {
    const update = actionOf([stack("s1", "dng", "jpg", "edit")], [group("jpg", "dng")], rules);
    const verdict = freshVerdict(update, now(stack("s1", "edit", "jpg", "dng")), rules);
    assert.equal(verdict.kind, "in-sync");
  });
});

Deno.test("freshVerdict() leaves alone an action whose stack lost or gained members, or is gone", () => {
  const grow = actionOf([stack("s1", "a", "b")], [group("a", "b", "c")]);
  for (
    const read of [
      now(stack("s1", "a", "b", "x")),
      now(stack("s1", "a")),
      now(["s1", undefined]),
    ]
  ) {
    assert.equal(freshVerdict(grow, read, RULES).kind, "changed");
  }
});

Deno.test("freshVerdict() keeps a deletion or a replace whose cover moved, to put back as read now", () => {
  const rules = { ...RULES, replaceStacks: true, removeSingleAssetStacks: true };
  const replace = actionOf([stack("s1", "a", "b", "z")], [group("a", "b")], rules);
  assert.equal(replace.kind, "replace");
  const replaced = freshVerdict(replace, now(stack("s1", "z", "a", "b")), rules);
  assert.ok(replaced.kind === "replanned" && replaced.action.kind === "replace");
  assert.deepEqual(replaced.action.previous, [{
    id: "s1",
    primaryAssetId: "z",
    assetIds: ["z", "a", "b"],
    trashedAssetIds: [],
  }]);
  assert.deepEqual(replaced.action.assetIds, replace.assetIds);
});

/** A writer over a map of stacks, recording each write and the ground it was given. */
function writerOn(stacks: Map<string, Stack>) {
  const calls: string[] = [];
  const grounds: (readonly RecordedStack[] | undefined)[] = [];
  let n = 0;
  const writer: StackWriter = {
    createStack(assetIds, options) {
      calls.push(`create ${assetIds}`);
      grounds.push(options?.ground);
      const id = `new${++n}`;
      stacks.set(id, stack(id, ...assetIds));
      return Promise.resolve({ id });
    },
    updateStackPrimary(stackId, primaryAssetId, options) {
      calls.push(`update ${stackId} ${primaryAssetId}`);
      grounds.push(options?.ground);
      return Promise.resolve();
    },
    deleteStack(stackId, options) {
      calls.push(`delete ${stackId}`);
      grounds.push(options?.ground);
      stacks.delete(stackId);
      return Promise.resolve();
    },
    stackWithPrimary: () => Promise.resolve(undefined),
  };
  return { writer, calls, grounds };
}

async function logged(fn: () => Promise<unknown>): Promise<LogRecord[]> {
  const records = await recordLogs("debug");
  try {
    await fn();
  } finally {
    await reset();
  }
  return records;
}

Deno.test("applyPlan() with fresh ground sends what the stacks read now call for, the same in a dry run", async () => {
  const rules = { ...RULES, notFetched: new Set(["edit"]) };
  const planned = [stack("s1", "jpg", "dng", "edit"), stack("s2", "b", "a"), stack("s3", "x", "y")];
  const plan: Plan = planStacks(
    planned,
    [group("jpg", "dng", "new"), group("a", "b"), group("x", "y", "z")],
    rules,
  );
  assert.deepEqual(plan.actions.map((action) => action.kind), ["update-primary", "grow", "grow"]);
  // Since the plan: s1's cover was set to the edit, s2's to its parent, and s3 lost a member.
  const server = new Map([
    ["s1", stack("s1", "edit", "jpg", "dng")],
    ["s2", stack("s2", "a", "b")],
    ["s3", stack("s3", "x")],
  ]);
  const reads: string[] = [];
  const ground = {
    rules,
    read: (id: string) => (reads.push(id), Promise.resolve(server.get(id))),
  };
  const lines = (records: readonly LogRecord[]) =>
    records.filter((r) => r.level !== "debug").map((r) => r.message.join(""));
  const { writer: dryWriter, calls: dryCalls } = writerOn(new Map(server));
  let dryOutcomes: unknown[] = [];
  const dry = await logged(async () => {
    dryOutcomes = await applyPlan(plan, dryWriter, {
      dryRun: true,
      ground,
      logger: getLogger(["stacksync", "reconcile"]),
    });
  });
  assert.deepEqual(dryCalls, []);
  const { writer, calls, grounds } = writerOn(server);
  let outcomes: Awaited<ReturnType<typeof applyPlan>> = [];
  const real = await logged(async () => {
    outcomes = await applyPlan(plan, writer, { dryRun: false, ground, concurrency: 2 });
  });
  assert.deepEqual(calls, ["create edit,jpg,dng,new"]);
  assert.deepEqual(grounds[0]?.map((stack) => stack.primaryAssetId), ["edit"]);
  assert.deepEqual(
    outcomes.map((o) => o.status === "skipped" ? `${o.action.kind} ${o.because}` : o.status),
    ["update-primary in-sync", "ok", "grow changed"],
  );
  assert.deepEqual(outcomes[1].action.assetIds, ["edit", "jpg", "dng", "new"]);
  assert.deepEqual(
    (dryOutcomes as typeof outcomes).map((o) => o.action.assetIds),
    outcomes.map((o) => o.action.assetIds),
  );
  assert.deepEqual(reads.sort(), ["s1", "s1", "s2", "s2", "s3", "s3"]);
  assert.deepEqual(
    lines(real).sort(),
    [
      ...lines(dry).filter((line) => !line.startsWith("[DRY RUN]")),
      "Updated stack s1",
    ].sort(),
  );
  assert.ok(
    lines(real).includes(
      "Left stack s3 as it is: it changed since this pass read it (y.jpg left stack s3); " +
        "the next pass plans it again",
    ),
    lines(real).join("\n"),
  );
});
