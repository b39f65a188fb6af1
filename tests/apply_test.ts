import assert from "node:assert/strict";
import { getLogger, type LogRecord, reset } from "@logtape/logtape";
import { recordLogs } from "./_logs.ts";
import { PermanentError, TransientError } from "../src/api/errors.ts";
import { applyPlan, type StackWriter } from "../src/reconcile/apply.ts";
import { type PlanGroup, type PlanOptions, planStacks } from "../src/reconcile/plan.ts";
import type { Outcome, Plan, Stack } from "../src/model.ts";

const REPLACE: PlanOptions = {
  replaceStacks: true,
  removeSingleAssetStacks: true,
  resetStacks: false,
};

function group(...ids: string[]): PlanGroup {
  return { key: ids.join("+"), assets: ids.map((id) => ({ id, originalFileName: `${id}.jpg` })) };
}

function stack(id: string, ...assetIds: string[]): Stack {
  return { id, primaryAssetId: assetIds[0], assetIds };
}

/** A plan with one action of every kind: delete, replace, update-primary, grow, create. */
function everyKindPlan(): Plan {
  return planStacks(
    [stack("s1", "solo"), stack("s2", "a", "b", "z"), stack("s3", "d", "c"), stack("s4", "e", "f")],
    [group("a", "b"), group("c", "d"), group("e", "f", "g"), group("h", "i")],
    REPLACE,
  );
}

/**
 * A writer that records every call and fails the calls named in `failing` (with the error
 * given, or a plain one); `found` answers `stackWithPrimary` by asset id.
 */
function fakeWriter(
  failing: ReadonlySet<string> | ReadonlyMap<string, Error> = new Set(),
  onCall?: (call: string) => void,
  found: ReadonlyMap<string, string> = new Map(),
) {
  const calls: string[] = [];
  let n = 0;
  const answer = <T>(call: string, value: T): Promise<T> => {
    calls.push(call);
    onCall?.(call);
    if (!failing.has(call)) return Promise.resolve(value);
    const error = failing instanceof Map ? failing.get(call) : undefined;
    return Promise.reject(error ?? new Error(`Server said no to ${call}`));
  };
  const writer: StackWriter = {
    createStack: (assetIds) =>
      answer(`create ${assetIds}`, { id: `new${n + 1}` }).then((s) => (n++, s)),
    updateStackPrimary: (stackId, primaryAssetId) =>
      answer(`update ${stackId} ${primaryAssetId}`, undefined),
    deleteStack: (stackId) => answer(`delete ${stackId}`, undefined),
    stackWithPrimary: (assetId) =>
      answer(`find ${assetId}`, found.has(assetId) ? { id: found.get(assetId)! } : undefined),
  };
  return { writer, calls };
}

/** An answer of the server with `status`, as the HTTP client throws it. */
function answered(status: number, path = "/stacks"): Error {
  const details = { method: "POST", path, status, serverMessage: "no", attempt: 1 } as const;
  const message = `API request failed: POST ${path} answered ${status} no`;
  return status >= 500
    ? new TransientError(message, details)
    : new PermanentError(message, details);
}

/** Runs `fn` with LogTape writing into a buffer; returns `level message` lines and records. */
async function captureLogs(
  fn: () => Promise<unknown>,
): Promise<{ lines: string[]; records: LogRecord[] }> {
  const records = await recordLogs("debug");
  try {
    await fn();
  } finally {
    await reset();
  }
  return { lines: records.map((r) => `${r.level} ${r.message.join("")}`), records };
}

function statuses(outcomes: readonly Outcome[]): string[] {
  return outcomes.map((outcome) => {
    const what = `${outcome.action.kind} ${outcome.status}`;
    if (outcome.status === "failed") return `${what}: ${outcome.error}`;
    if (outcome.status === "skipped") return `${what} (${outcome.because})`;
    return outcome.stackId === undefined ? what : `${what} -> ${outcome.stackId}`;
  });
}

Deno.test("applyPlan() runs every deletion before any write that lists assets", async () => {
  const { writer, calls } = fakeWriter();
  const outcomes = await applyPlan(everyKindPlan(), writer, { dryRun: false });
  assert.deepEqual(calls, [
    "delete s1",
    "delete s2",
    "create a,b",
    "update s3 c",
    "create e,f,g",
    "create h,i",
  ]);
  assert.deepEqual(statuses(outcomes), [
    "delete ok",
    "replace ok -> new1",
    "update-primary ok",
    "grow ok -> new2",
    "create ok -> new3",
  ]);
});

Deno.test("applyPlan() logs each write with its fixed message and its context", async () => {
  const { writer } = fakeWriter();
  const { lines, records } = await captureLogs(() =>
    applyPlan(everyKindPlan(), writer, { dryRun: false })
  );
  assert.deepEqual(lines, [
    "info Deleted stack s1",
    "info Deleted stack s2 - replacing child stack with new one",
    "info Created stack new1 replacing s2",
    "info Updated stack s3",
    "info Updated stack s4",
    "info Success! Stack created",
  ]);
  assert.deepEqual(records[3].properties, {
    stackID: "s3",
    assetID: "c",
    filename: "c.jpg",
    reason: "primary-changed",
    assets: 2,
    files: "c.jpg (parent), d.jpg",
  });
  assert.deepEqual(records[5].properties, {
    stackID: "new3",
    assetID: "h",
    filename: "h.jpg",
    reason: "new-group",
    assets: 2,
    files: "h.jpg (parent), i.jpg",
  });
  assert.equal(records[4].properties.newStackID, "new2");
});

Deno.test("applyPlan() in a dry run logs the dry-run lines and calls no writer method", async () => {
  const { writer, calls } = fakeWriter();
  let outcomes: Outcome[] = [];
  const { lines } = await captureLogs(async () => {
    outcomes = await applyPlan(everyKindPlan(), writer, { dryRun: true });
  });
  assert.deepEqual(calls, []);
  assert.deepEqual(lines, [
    "info [DRY RUN] Would delete stack s1",
    "info [DRY RUN] Would replace stack s2",
    "info [DRY RUN] Would update stack s3",
    "info [DRY RUN] Would update stack s4",
    "info [DRY RUN] Would create stack with 2 assets",
  ]);
  assert.ok(
    outcomes.every((outcome) => outcome.status === "skipped" && outcome.because === "dry-run"),
  );
});

Deno.test("applyPlan() logs a failed action with its context and carries on", async () => {
  const { writer, calls } = fakeWriter(new Set(["update s3 c", "create h,i"]));
  let outcomes: Outcome[] = [];
  const { lines, records } = await captureLogs(async () => {
    outcomes = await applyPlan(everyKindPlan(), writer, { dryRun: false });
  });
  // The failed create is looked up once: its answer might have been lost after the work.
  assert.equal(calls.length, 7);
  assert.equal(calls.at(-1), "find h");
  assert.deepEqual(statuses(outcomes), [
    "delete ok",
    "replace ok -> new1",
    "update-primary failed: Failed to update stack s3: Server said no to update s3 c",
    "grow ok -> new2",
    "create failed: Failed to create stack: Server said no to create h,i",
  ]);
  assert.ok(lines.includes("error Failed to update stack s3"));
  assert.ok(lines.includes("error Failed to create stack"));
  const failure = records.find((r) => r.message.join("") === "Failed to create stack");
  assert.deepEqual(failure?.properties, {
    stackID: undefined,
    assetID: "h",
    filename: "h.jpg",
    reason: "new-group",
    assets: 2,
    error: "Server said no to create h,i",
  });
});

Deno.test("applyPlan() does not create a replacement when its deletion failed", async (t) => {
  await t.step("the replace's own deletion", async () => {
    const plan = planStacks([stack("s1", "a", "z"), stack("s2", "b")], [group("a", "b")], REPLACE);
    // s2 is a 1-asset stack deleted on its own first; s1 is the replace's
    const { writer, calls } = fakeWriter(new Set(["delete s1"]));
    const outcomes = await applyPlan(plan, writer, { dryRun: false });
    assert.deepEqual(calls, ["delete s2", "delete s1"]);
    assert.deepEqual(statuses(outcomes), [
      "delete ok",
      "replace failed: Failed to delete stack s1: Server said no to delete s1",
    ]);
  });
  await t.step("stops at the first failed deletion of a replace", async () => {
    const plan = planStacks(
      [stack("s1", "a", "z"), stack("s2", "b", "y")],
      [group("a", "b")],
      REPLACE,
    );
    const { writer, calls } = fakeWriter(new Set(["delete s1"]));
    const outcomes = await applyPlan(plan, writer, { dryRun: false });
    assert.deepEqual(calls, ["delete s1"]);
    assert.equal(outcomes[0].status, "failed");
  });
  await t.step("a stack another replace failed to delete", async () => {
    const plan = planStacks(
      [stack("s1", "a", "b", "c", "d")],
      [group("a", "b"), group("c", "d")],
      REPLACE,
    );
    const { writer, calls } = fakeWriter(new Set(["delete s1"]));
    const outcomes = await applyPlan(plan, writer, { dryRun: false });
    assert.deepEqual(calls, ["delete s1"]);
    assert.deepEqual(statuses(outcomes), [
      "replace failed: Failed to delete stack s1: Server said no to delete s1",
      "replace skipped (deletion-failed)",
    ]);
  });
});

Deno.test("applyPlan() stops before the next write once the signal aborts", async (t) => {
  await t.step("during the deletions", async () => {
    const controller = new AbortController();
    // The write in flight when the signal comes finishes; nothing after it starts.
    const { writer, calls } = fakeWriter(new Set(), (call) => {
      if (call === "delete s1") controller.abort();
    });
    const outcomes = await applyPlan(everyKindPlan(), writer, {
      dryRun: false,
      signal: controller.signal,
    });
    assert.deepEqual(calls, ["delete s1"]);
    assert.deepEqual(statuses(outcomes), [
      "delete ok",
      "replace skipped (aborted)",
      "update-primary skipped (aborted)",
      "grow skipped (aborted)",
      "create skipped (aborted)",
    ]);
  });
  await t.step("between a replace's deletion and its creation", async () => {
    const controller = new AbortController();
    const { writer, calls } = fakeWriter(new Set(), (call) => {
      if (call === "delete s2") controller.abort();
    });
    let outcomes: Outcome[] = [];
    const { lines } = await captureLogs(async () => {
      outcomes = await applyPlan(everyKindPlan(), writer, {
        dryRun: false,
        signal: controller.signal,
      });
    });
    assert.deepEqual(calls, ["delete s1", "delete s2"]);
    assert.deepEqual(statuses(outcomes).slice(0, 2), ["delete ok", "replace skipped (aborted)"]);
    assert.ok(
      lines.includes(
        "warning Stopped before creating the stack that replaces s2; the next run creates it",
      ),
    );
  });
  await t.step("an aborted signal before the start sends nothing", async () => {
    const { writer, calls } = fakeWriter();
    const outcomes = await applyPlan(everyKindPlan(), writer, {
      dryRun: false,
      signal: AbortSignal.abort(),
    });
    assert.deepEqual(calls, []);
    assert.ok(
      outcomes.every((outcome) => outcome.status === "skipped" && outcome.because === "aborted"),
    );
  });
});

Deno.test("applyPlan() uses the logger it is given", async () => {
  const { writer } = fakeWriter();
  const plan = planStacks([], [group("a", "b")], REPLACE);
  const { records } = await captureLogs(async () => {
    await applyPlan(plan, writer, {
      dryRun: false,
      logger: getLogger(["stacksync", "run"]).with({ user: "ann" }),
    });
  });
  assert.deepEqual(records.map((r) => [r.category.join("."), r.properties.user]), [[
    "stacksync.run",
    "ann",
  ]]);
});

Deno.test("applyPlan() logs in-sync stacks at debug and conflicts left alone at info", async () => {
  const plan = planStacks(
    [stack("s1", "a", "b"), stack("s2", "c", "d", "z")],
    [group("a", "b"), group("c", "d")],
    { replaceStacks: false, removeSingleAssetStacks: false, resetStacks: false },
  );
  const { writer, calls } = fakeWriter();
  for (const dryRun of [false, true]) {
    const { lines, records } = await captureLogs(() => applyPlan(plan, writer, { dryRun }));
    assert.deepEqual(lines, [
      "debug Stack s1 is in sync",
      "info Left stack s2 as it is: set REPLACE_STACKS=true to replace it",
    ]);
    assert.equal(records[1].properties.reason, "member-outside-group");
  }
  assert.deepEqual(calls, []);
});

Deno.test("applyPlan() calls afterAction after each action, in dry and real runs", async (t) => {
  await t.step("real run: after each deletion and each write", async () => {
    const events: string[] = [];
    const { writer } = fakeWriter(new Set(), (call) => events.push(call));
    await applyPlan(everyKindPlan(), writer, {
      dryRun: false,
      afterAction: () => events.push("after"),
    });
    assert.deepEqual(events, [
      "delete s1",
      "after",
      "delete s2",
      "after",
      "create a,b",
      "after",
      "update s3 c",
      "after",
      "create e,f,g",
      "after",
      "create h,i",
      "after",
    ]);
  });
  await t.step("dry run: after each logged action", async () => {
    let after = 0;
    const { writer, calls } = fakeWriter();
    await applyPlan(everyKindPlan(), writer, { dryRun: true, afterAction: () => after++ });
    assert.deepEqual([calls, after], [[], 5]);
  });
});

Deno.test("applyPlan() puts back the stacks of a replace whose create fails, cover first", async () => {
  const plan = planStacks(
    [stack("s1", "z", "a", "t"), stack("s2", "b", "y")],
    [group("a", "b")],
    { ...REPLACE, trashed: new Set(["t"]) },
  );
  const { writer, calls } = fakeWriter(new Map([["create a,b", answered(400)]]));
  let outcomes: Outcome[] = [];
  const { lines } = await captureLogs(async () => {
    outcomes = await applyPlan(plan, writer, { dryRun: false });
  });
  // A 400 means nothing was made: no lookup before putting back.
  assert.deepEqual(calls, ["delete s1", "delete s2", "create a,b", "create z,a", "create b,y"]);
  assert.equal(outcomes[0].status, "failed");
  assert.deepEqual(outcomes[0].status === "failed" && outcomes[0].rollback, {
    restored: [
      { from: "s1", to: "new1", leftOut: ["t"] },
      { from: "s2", to: "new2", leftOut: [] },
    ],
    lost: [],
  });
  assert.ok(
    lines.includes("warning Put back stack s1 as stack new1 without 1 members in the trash"),
  );
  assert.ok(lines.includes("warning Put back stack s2 as stack new2"));
});

Deno.test("applyPlan() undoes replaces that share a stack together", async () => {
  const plan = planStacks(
    [stack("s1", "a", "b", "c", "d")],
    [group("a", "b"), group("c", "d")],
    REPLACE,
  );
  const { writer, calls } = fakeWriter(new Map([["create c,d", answered(400)]]));
  const outcomes = await applyPlan(plan, writer, { dryRun: false });
  assert.deepEqual(calls, [
    "delete s1",
    "create a,b",
    "create c,d",
    "delete new1",
    "create a,b,c,d",
  ]);
  assert.deepEqual(statuses(outcomes), [
    "replace skipped (rolled-back)",
    "replace failed: Failed to create stack: API request failed: POST /stacks answered 400 no",
  ]);
});

Deno.test("applyPlan() puts back what a replace deleted when another of its deletions fails", async () => {
  const plan = planStacks(
    [stack("s1", "a", "x"), stack("s2", "b", "y")],
    [group("a", "b")],
    REPLACE,
  );
  const { writer, calls } = fakeWriter(new Set(["delete s2"]));
  const outcomes = await applyPlan(plan, writer, { dryRun: false });
  assert.deepEqual(calls, ["delete s1", "delete s2", "create a,x"]);
  assert.equal(outcomes[0].status, "failed");
  assert.deepEqual(outcomes[0].status === "failed" && outcomes[0].rollback, {
    restored: [{ from: "s1", to: "new1", leftOut: [] }],
    lost: [],
  });
});

Deno.test("applyPlan() takes a create whose answer was lost as done when the stack exists", async () => {
  const plan = planStacks([stack("s1", "a", "x")], [group("a", "b")], REPLACE);
  const { writer, calls } = fakeWriter(
    new Map([["create a,b", answered(500)]]),
    undefined,
    new Map([["a", "made"]]),
  );
  const outcomes = await applyPlan(plan, writer, { dryRun: false });
  assert.deepEqual(calls, ["delete s1", "create a,b", "find a"]);
  assert.deepEqual(statuses(outcomes), ["replace ok -> made"]);
});

Deno.test("applyPlan() puts nothing back when it cannot tell whether a create was done", async () => {
  const plan = planStacks([stack("s1", "a", "x")], [group("a", "b")], REPLACE);
  const { writer, calls } = fakeWriter(
    new Map([["create a,b", answered(500)], ["find a", answered(503, "/stacks")]]),
  );
  let outcomes: Outcome[] = [];
  const { lines } = await captureLogs(async () => {
    outcomes = await applyPlan(plan, writer, { dryRun: false });
  });
  assert.deepEqual(calls, ["delete s1", "create a,b", "find a"]);
  assert.equal(outcomes[0].status, "failed");
  assert.ok(lines.some((line) => line.startsWith("error Could not put back stack s1: ")));
});

Deno.test("applyPlan() says how a stack comes back when a stop cuts off its replace", async () => {
  const plan = planStacks([stack("s1", "a", "x")], [group("a", "b")], REPLACE);
  const controller = new AbortController();
  // The create is cut off by the stop, and the read that would tell whether it was done fails.
  const { writer, calls } = fakeWriter(
    new Map([["create a,b", answered(500)], ["find a", answered(503, "/stacks")]]),
    (call) => {
      if (call === "create a,b") controller.abort();
    },
  );
  const { lines } = await captureLogs(async () => {
    await applyPlan(plan, writer, {
      dryRun: false,
      signal: controller.signal,
      recovery: "stacksync undo puts it back",
    });
  });
  assert.deepEqual(calls, ["delete s1", "create a,b", "find a"]);
  assert.ok(
    lines.some((line) =>
      line.startsWith(
        "error Could not put back stack s1: the run was stopped first; stacksync undo puts it back (",
      )
    ),
    lines.join("\n"),
  );
});

Deno.test("applyPlan() sends nothing more once the server answers 401 or 403", async (t) => {
  for (const status of [401, 403]) {
    await t.step(String(status), async () => {
      const { writer, calls } = fakeWriter(new Map([["update s3 c", answered(status)]]));
      const outcomes = await applyPlan(everyKindPlan(), writer, { dryRun: false });
      assert.deepEqual(calls, ["delete s1", "delete s2", "create a,b", "update s3 c"]);
      assert.deepEqual(statuses(outcomes).slice(2), [
        `update-primary failed: Failed to update stack s3: API request failed: POST /stacks ` +
        `answered ${status} no`,
        "grow skipped (access-denied)",
        "create skipped (access-denied)",
      ]);
      assert.equal(outcomes[2].status === "failed" && outcomes[2].accessDenied, true);
    });
  }
});

Deno.test("applyPlan() with a reset holds back creates listing a stack it could not delete", async () => {
  const plan = planStacks(
    [stack("s1", "a", "x"), stack("s2", "b", "y"), stack("s3", "q", "r")],
    [group("a", "b"), group("c", "d")],
    { ...REPLACE, resetStacks: true },
  );
  const { writer, calls } = fakeWriter(new Set(["delete s2"]));
  const outcomes = await applyPlan(plan, writer, { dryRun: false });
  // s1 shared the held-back create with s2: it is put back; s3 and the other group go on.
  assert.deepEqual(calls, ["delete s1", "delete s2", "delete s3", "create a,x", "create c,d"]);
  assert.deepEqual(statuses(outcomes), [
    "delete ok",
    "delete failed: Failed to delete stack s2: Server said no to delete s2",
    "delete ok",
    "create skipped (deletion-failed)",
    "create ok -> new2",
  ]);
});

Deno.test("applyPlan() refuses a create of fewer than 2 different assets without sending it", async () => {
  const create = {
    kind: "create",
    assetIds: ["a", "a"],
    reason: "new-group",
    context: { assets: [] },
  } as const;
  const { writer, calls } = fakeWriter();
  const outcomes = await applyPlan({ actions: [create], inSync: [], needsReplace: [] }, writer, {
    dryRun: false,
  });
  assert.deepEqual(calls, []);
  assert.deepEqual(statuses(outcomes), [
    "create failed: Failed to create stack: Cannot create a stack of fewer than 2 different " +
    "assets: current value is a, a",
  ]);
});

Deno.test("applyPlan() logs one line per action in a dry run, with the files and what leaves unfetched", async () => {
  const plan = planStacks(
    [stack("s1", "a", "b", "c", "d", "clip")],
    [group("a", "b"), group("c", "d")],
    { ...REPLACE, notFetched: new Set(["clip"]), fileNames: new Map([["clip", "CLIP.mp4"]]) },
  );
  const { writer } = fakeWriter();
  const { lines, records } = await captureLogs(() => applyPlan(plan, writer, { dryRun: true }));
  assert.deepEqual(lines, [
    "info [DRY RUN] Would replace stack s1",
    "info [DRY RUN] Replacing stack s1 would take out assets this pass did not fetch: CLIP.mp4",
    "info [DRY RUN] Would replace stack s1",
  ]);
  assert.deepEqual(records.map((record) => record.properties.files), [
    "a.jpg (parent), b.jpg",
    undefined,
    "c.jpg (parent), d.jpg",
  ]);
});
