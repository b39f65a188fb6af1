import assert from "node:assert/strict";
import type { Action, Outcome, Plan } from "../src/model.ts";
import { countOutcomes, passSucceeded, summaryLine, type UserReport } from "../src/run.ts";

const context = { assets: [] };
const create: Action = { kind: "create", assetIds: ["a", "b"], reason: "new-group", context };
const grow: Action = {
  kind: "grow",
  stackId: "s1",
  assetIds: ["c", "d", "e"],
  reason: "group-grew",
  context,
};
const primary: Action = {
  kind: "update-primary",
  stackId: "s2",
  assetIds: ["f", "g"],
  reason: "primary-changed",
  context,
};
const replace: Action = {
  kind: "replace",
  stackIds: ["s3", "s4"],
  deleteStackIds: ["s3", "s4"],
  previous: [
    { id: "s3", primaryAssetId: "h", assetIds: ["h"], trashedAssetIds: [] },
    { id: "s4", primaryAssetId: "i", assetIds: ["i"], trashedAssetIds: [] },
  ],
  assetIds: ["h", "i"],
  reason: "group-spans-stacks",
  context,
};
const remove: Action = {
  kind: "delete",
  stackId: "s5",
  assetIds: ["j"],
  trashedAssetIds: [],
  reason: "single-asset-stack",
  context,
};
const plan: Plan = {
  actions: [remove, replace, primary, grow, create],
  inSync: [{ stackId: "s6", groupKey: "k6" }, { stackId: "s7", groupKey: "k7" }],
  needsReplace: [],
};

function report(counts: Partial<UserReport["counts"]>, status: "done" | "failed" = "done") {
  const zero = countOutcomes({ actions: [], inSync: [], needsReplace: [] }, [], false);
  return { user: "Ann", status, counts: { ...zero, ...counts }, skippedAssets: {} };
}

Deno.test("countOutcomes() counts each kind once it succeeded, and every stack deleted", () => {
  const outcomes: Outcome[] = plan.actions.map((action) => ({ action, status: "ok" }));
  assert.deepEqual(countOutcomes(plan, outcomes, false), {
    inSync: 2,
    created: 1,
    updated: 2,
    replaced: 1,
    // The deletion's stack, and the two the replace deleted.
    deleted: 3,
    needsReplace: 0,
    failed: 0,
    notDone: 0,
    changedSince: 0,
    trashed: 0,
    restored: 0,
  });
});

Deno.test("countOutcomes() counts a dry run's skipped actions as what would be done", () => {
  const outcomes: Outcome[] = plan.actions.map((action) => ({
    action,
    status: "skipped",
    because: "dry-run",
  }));
  const counts = countOutcomes(plan, outcomes, true);
  assert.deepEqual([counts.created, counts.updated, counts.replaced, counts.deleted], [1, 2, 1, 3]);
  assert.equal(counts.notDone, 0);
});

Deno.test("countOutcomes() keeps failed and unfinished actions out of the done counts", () => {
  const outcomes: Outcome[] = [
    { action: remove, status: "ok" },
    { action: replace, status: "failed", error: "Failed to delete stack s3: boom" },
    { action: primary, status: "skipped", because: "aborted" },
    { action: grow, status: "skipped", because: "deletion-failed" },
    { action: create, status: "ok", stackId: "n1" },
  ];
  const counts = countOutcomes(plan, outcomes, false);
  assert.deepEqual(
    [
      counts.deleted,
      counts.replaced,
      counts.updated,
      counts.created,
      counts.failed,
      counts.notDone,
    ],
    [1, 0, 0, 1, 1, 2],
  );
});

Deno.test("summaryLine() words a dry run as what would be done and lists skip reasons", () => {
  const line = summaryLine(
    {
      ...report({ created: 3, inSync: 1 }),
      skippedAssets: { "invalid-time": 1, "regex-miss": 2 },
    },
    true,
  );
  assert.equal(
    line,
    "Summary for Ann (dry run): 3 would be created, 0 would be updated, 0 would be replaced, " +
      "0 would be deleted, 1 in sync, 0 need replacing, 0 failed, " +
      "3 assets skipped (1 invalid-time, 2 regex-miss)",
  );
});

Deno.test("summaryLine() says how many actions were not done", () => {
  assert.equal(
    summaryLine(report({ failed: 1, notDone: 2 }), false),
    "Summary for Ann: 0 created, 0 updated, 0 replaced, 0 deleted, 0 in sync, 0 need replacing, " +
      "1 failed, 2 not done, 0 assets skipped",
  );
});

Deno.test("summaryLine() says when the server refused the key and the pass stopped", () => {
  assert.equal(
    summaryLine(
      {
        ...report({ created: 2, failed: 1, notDone: 3 }),
        status: "stopped",
        error: "Failed to create stack: API request failed: POST /stacks answered 403 no",
      },
      false,
    ),
    "Summary for Ann: 2 created, 0 updated, 0 replaced, 0 deleted, 0 in sync, 0 need replacing, " +
      "1 failed, 3 not done, 0 assets skipped; stopped as the server refused the key: Failed to " +
      "create stack: API request failed: POST /stacks answered 403 no",
  );
  assert.equal(passSucceeded([{ ...report({ created: 1 }), status: "stopped" }]), false);
});

Deno.test("passSucceeded() fails on a skipped user, a failed action or unfinished work", async (t) => {
  const cases: [string, UserReport[], boolean][] = [
    ["all done", [report({ created: 1 }), report({ inSync: 4 })], true],
    ["no users", [], true],
    ["a skipped user", [report({}), report({}, "failed")], false],
    ["a failed action", [report({ failed: 1 })], false],
    ["unfinished actions", [report({ notDone: 1 })], false],
    ["needs replace only", [report({ needsReplace: 3 })], true],
  ];
  for (const [name, reports, expected] of cases) {
    await t.step(name, () => assert.equal(passSucceeded(reports), expected));
  }
});
