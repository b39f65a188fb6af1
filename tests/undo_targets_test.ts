import assert from "node:assert/strict";
import type { Stack } from "../src/model.ts";
import { planStacks } from "../src/reconcile/plan.ts";
import type { RecordedStack, RecordedWrite } from "../src/state/journal.ts";
import { latestToUndo } from "../src/undo/history.ts";
import { trashMoves, undoTargets } from "../src/undo/targets.ts";

const NO_OPTIONS = { replaceStacks: true, removeSingleAssetStacks: false, resetStacks: false };

function recorded(id: string, ...assets: string[]): RecordedStack {
  return { id, primaryAssetId: assets[0], assets: assets.map((asset) => ({ id: asset })) };
}

function stack(id: string, ...assetIds: string[]): Stack {
  return { id, primaryAssetId: assetIds[0], assetIds };
}

let seq = 0;
function created(id: string, ...assetIds: string[]): RecordedWrite {
  return {
    seq: ++seq,
    intent: { op: "create", assetIds },
    outcome: { status: "done", stack: stack(id, ...assetIds) },
  };
}

function deleted(stackId: string, status: "done" | "unknown" = "done"): RecordedWrite {
  return { seq: ++seq, intent: { op: "delete", stackId }, outcome: { status } };
}

function primary(stackId: string, primaryAssetId: string): RecordedWrite {
  return {
    seq: ++seq,
    intent: { op: "update-primary", stackId, primaryAssetId },
    outcome: { status: "done" },
  };
}

const groupsOf = (targets: ReturnType<typeof undoTargets>) =>
  targets.groups.map((group) => `${group.key}: ${group.assets.map((asset) => asset.id)}`);

Deno.test("undoTargets() brings back a replaced stack, a cover and a deleted single", () => {
  const before = [recorded("s1", "a", "b", "x"), recorded("s2", "c", "d"), recorded("s3", "e")];
  const writes = [
    deleted("s3"),
    deleted("s1"),
    created("n1", "a", "b"),
    primary("s2", "d"),
  ];
  const current = [stack("n1", "a", "b"), stack("s2", "d", "c")];
  const targets = undoTargets({ before, writes, earlierUndos: [], current, force: false });
  assert.deepEqual(groupsOf(targets).sort(), ["s1: a,b,x", "s2: c,d", "s3: e"]);
  assert.deepEqual([...targets.scope].sort(), ["a", "b", "c", "d", "e", "x"]);
  assert.deepEqual(targets.changedSince, []);

  const plan = planStacks(current, targets.groups, { ...NO_OPTIONS, exactFor: targets.scope });
  assert.deepEqual(plan.actions.map((a) => `${a.kind} ${a.assetIds}`), [
    "update-primary c,d",
    "grow a,b,x",
    "create e",
  ]);
});

Deno.test("undoTargets() takes a write without outcome as possibly done", () => {
  const before = [recorded("s1", "a", "b")];
  const writes = [deleted("s1", "unknown")];
  for (const current of [[stack("s1", "a", "b")], []]) {
    const targets = undoTargets({ before, writes, earlierUndos: [], current, force: false });
    assert.deepEqual(targets.changedSince, [], JSON.stringify(current));
    assert.deepEqual(groupsOf(targets), ["s1: a,b"]);
  }
});

Deno.test("undoTargets() leaves alone a stack changed after the run, unless forced", () => {
  const before: RecordedStack[] = [];
  const writes = [created("n1", "a", "b"), created("n2", "c", "d")];
  // By hand: n1 got another cover; z joined n2 (a new stack swallowed it).
  const current = [stack("n1", "b", "a"), stack("h1", "c", "d", "z")];
  const targets = undoTargets({ before, writes, earlierUndos: [], current, force: false });
  assert.deepEqual(targets.changedSince, [
    { stackId: "n1", assetIds: ["b", "a"] },
    { stackId: "h1", assetIds: ["c", "d", "z"] },
  ]);
  assert.deepEqual([...targets.scope], []);
  const plan = planStacks(current, targets.groups, { ...NO_OPTIONS, exactFor: targets.scope });
  assert.deepEqual(plan.actions, []);

  const forced = undoTargets({ before, writes, earlierUndos: [], current, force: true });
  assert.deepEqual(forced.changedSince, []);
  const forcedPlan = planStacks(current, forced.groups, { ...NO_OPTIONS, exactFor: forced.scope });
  assert.deepEqual(forcedPlan.actions.map((a) => `${a.kind} ${a.reason}`), [
    "delete not-in-target",
    "delete not-in-target",
  ]);
});

Deno.test("undoTargets() accepts what an earlier, unfinished undo of the run did", () => {
  const before = [recorded("s1", "a", "b")];
  // The run grew s1 into n1 (Immich folds s1 in through its primary).
  const writes = [created("n1", "a", "b", "c")];
  // The first undo deleted n1, then failed to create s1 again: a, b, c are in no stack, which
  // the run itself never left them in.
  const earlierUndos = [{ before: [recorded("n1", "a", "b", "c")], writes: [deleted("n1")] }];
  const targets = undoTargets({ before, writes, earlierUndos, current: [], force: false });
  assert.deepEqual(targets.changedSince, []);
  assert.deepEqual(groupsOf(targets), ["s1: a,b"]);
  // Without that undo's journal, the same state looks changed by someone else.
  const alone = undoTargets({ before, writes, earlierUndos: [], current: [], force: false });
  assert.deepEqual(alone.changedSince, [{ assetIds: ["a", "b"] }]);
});

Deno.test("planStacks() with exactFor deletes the untouched stacks holding those assets", () => {
  const existing = [stack("s1", "a", "b"), stack("s2", "c", "d"), stack("s3", "e", "f")];
  const groups = [{
    key: "g",
    assets: [{ id: "a", originalFileName: "A.jpg" }, { id: "x", originalFileName: "X.jpg" }],
  }];
  const some = planStacks(existing, groups, { ...NO_OPTIONS, exactFor: new Set(["c", "a"]) });
  assert.deepEqual(some.actions.map((a) => `${a.kind} ${a.reason} ${a.assetIds}`), [
    "delete not-in-target c,d",
    "replace member-outside-group a,x",
  ]);
  const all = planStacks(existing, groups, { ...NO_OPTIONS, exactFor: "all" });
  assert.deepEqual(all.actions.filter((a) => a.kind === "delete").map((a) => a.assetIds), [
    ["c", "d"],
    ["e", "f"],
  ]);
  // A single asset is a target only with exactFor, and then made on purpose.
  const single = [{ key: "g", assets: [{ id: "e", originalFileName: "E.jpg" }] }];
  const one = planStacks([], single, { ...NO_OPTIONS, exactFor: new Set(["e"]) });
  assert.deepEqual(one.actions.map((a) => [a.kind, a.assetIds, "single" in a && a.single]), [
    ["create", ["e"], true],
  ]);
  assert.deepEqual(planStacks([], single, NO_OPTIONS).actions, []);
  // Without exactFor, stacks no group touches stay.
  const none = planStacks(existing, groups, NO_OPTIONS);
  assert.deepEqual(none.actions.map((a) => a.kind), ["replace"]);
});

Deno.test("latestToUndo() takes the user's latest run on the server that is not undone", () => {
  const counts = {
    created: 1,
    updated: 0,
    deleted: 0,
    trashed: 0,
    restored: 0,
    failed: 0,
    unknown: 0,
    changedSince: 0,
    notDone: 0,
  };
  const summary = (run: string, extra: Record<string, unknown> = {}) => ({
    run,
    command: "run" as const,
    startedAt: "t",
    finishedAt: "t",
    server: "http://immich/api",
    user: { id: "u1", name: "Ada" },
    stacksync: "1",
    counts,
    ...extra,
  });
  const r1 = summary("r1");
  const r2 = summary("r2");
  const other = summary("r3", { server: "http://elsewhere/api" });
  const bob = summary("r4", { user: { id: "u2", name: "Bob" } });
  const undo = summary("r5", { command: "undo", undoes: "r2" });
  const all = [r1, r2, other, bob];
  assert.equal(latestToUndo(all, "u1", "http://immich/api")?.run, "r2");
  assert.equal(latestToUndo([...all, undo], "u1", "http://immich/api")?.run, "r1");
  // An undo with a failed write, or stopped by a signal before its end, did not undo the run.
  const partial = { ...undo, counts: { ...counts, failed: 1 } };
  assert.equal(latestToUndo([...all, partial], "u1", "http://immich/api")?.run, "r2");
  const stopped = { ...undo, counts: { ...counts, notDone: 3 } };
  assert.equal(latestToUndo([...all, stopped], "u1", "http://immich/api")?.run, "r2");
  assert.equal(latestToUndo(all, "u9", "http://immich/api"), undefined);
});

Deno.test("undoTargets() puts a stack back with the members Immich lists nowhere, which no listing shows as changed", () => {
  const before: RecordedStack[] = [{
    id: "s1",
    primaryAssetId: "a",
    assets: [{ id: "a" }, { id: "b" }, { id: "t", trashed: true }, { id: "m", hidden: true }],
  }];
  // A replace: s1 deleted, a new stack made; t and m are listed in no stack now.
  const replaced = undoTargets({
    before,
    writes: [deleted("s1"), created("n1", "a", "b", "c")],
    earlierUndos: [],
    current: [stack("n1", "a", "b", "c")],
    force: false,
  });
  assert.deepEqual(replaced.changedSince, []);
  assert.deepEqual(groupsOf(replaced), ["s1: a,b,t,m"]);
  // A grow through the cover took m along (Immich keeps hidden members): GET /stacks lists the
  // grown stack without it, which is no change after the run.
  const grown = undoTargets({
    before,
    writes: [created("n2", "a", "b", "c")],
    earlierUndos: [],
    current: [stack("n2", "a", "b", "c")],
    force: false,
  });
  assert.deepEqual(grown.changedSince, []);
  assert.deepEqual(groupsOf(grown), ["s1: a,b,t,m"]);
  assert.ok(grown.scope.has("m"));
  // A member that left the grown stack since is a change, seen without the unlisted ones.
  const drifted = undoTargets({
    before,
    writes: [created("n2", "a", "b", "c")],
    earlierUndos: [],
    current: [stack("n2", "a", "c")],
    force: false,
  });
  assert.deepEqual(drifted.changedSince, [{ stackId: "n2", assetIds: ["a", "c"] }, {
    assetIds: ["b"],
  }]);
});

Deno.test("trashMoves() puts each photo back where it was before the run's first move of it", () => {
  const write = (seq: number, op: "trash" | "restore", assetIds: string[], status = "done") => ({
    seq,
    intent: { op, assetIds },
    outcome: status === "done" ? { status: "done" as const } : { status: "unknown" as const },
  });
  assert.deepEqual(
    trashMoves([
      write(1, "trash", ["a", "b"]),
      write(2, "restore", ["b", "c"]),
      write(3, "trash", ["d"], "unknown"),
      { seq: 4, intent: { op: "delete", stackId: "s" }, outcome: { status: "done" } },
    ]),
    [
      { kind: "restore", assetIds: ["a", "b"] },
      { kind: "trash", assetIds: ["c"] },
      { kind: "restore", assetIds: ["d"] },
    ],
  );
  // An undo's own writes, undone (a redo): what it restored goes back to the trash.
  assert.deepEqual(trashMoves([write(1, "restore", ["a"])]), [{ kind: "trash", assetIds: ["a"] }]);
});
