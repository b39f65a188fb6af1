import assert from "node:assert/strict";
import { type PlanGroup, type PlanOptions, planStacks } from "../src/reconcile/plan.ts";
import {
  renderPlan,
  replaceDeletionMessage,
  unfetchedMessage,
  writeMessage,
} from "../src/reconcile/render.ts";
import type { Stack } from "../src/model.ts";

const OFF: PlanOptions = {
  replaceStacks: false,
  removeSingleAssetStacks: false,
  resetStacks: false,
};

function group(...ids: string[]): PlanGroup {
  return { key: ids.join("+"), assets: ids.map((id) => ({ id, originalFileName: `${id}.jpg` })) };
}

function stack(id: string, ...assetIds: string[]): Stack {
  return { id, primaryAssetId: assetIds[0], assetIds };
}

Deno.test("renderPlan() renders one line and one note per action and a Plan line", () => {
  const plan = planStacks(
    [
      stack("s1", "solo"),
      stack("s2", "a", "b", "z"),
      stack("s3", "d", "c"),
      stack("s4", "e", "f"),
      stack("s6", "k", "l"),
    ],
    [
      group("a", "b"),
      group("c", "d"),
      group("e", "f", "g"),
      group("h", "i", "j1", "j2", "j3", "j4", "j5"),
      group("k", "l"),
    ],
    {
      replaceStacks: true,
      removeSingleAssetStacks: true,
      resetStacks: false,
      fileNames: new Map([["z", "IMG_9.heic"], ["solo", "IMG_0004.jpg"]]),
    },
  );
  assert.equal(
    renderPlan(plan).join("\n"),
    `Delete stack s1
  # single-asset-stack: IMG_0004.jpg (parent)
Replace stack s2
  # member-outside-group: new stack a.jpg (parent), b.jpg; leaves IMG_9.heic unstacked
Update stack s3
  # primary-changed: c.jpg replaces d.jpg as parent
Grow stack s4
  # group-grew: adds g.jpg to e.jpg (parent), f.jpg, g.jpg
Create stack with 7 assets
  # new-group: h.jpg (parent), i.jpg, j1.jpg, j2.jpg, j3.jpg, and 2 more
Plan: 1 to create, 1 to grow, 1 to update, 1 to replace, 1 to delete; 1 stack in sync`,
  );
});

Deno.test("renderPlan() names every stack a replace spans and where removed assets go", () => {
  const plan = planStacks(
    [stack("s1", "a", "x"), stack("s2", "b", "c", "y")],
    [group("a", "b"), group("x", "y")],
    { ...OFF, replaceStacks: true },
  );
  assert.equal(
    renderPlan(plan, { maxNames: 1 }).join("\n"),
    `Replace stack s1, s2
  # group-spans-stacks: new stack a.jpg (parent), and 1 more; leaves c unstacked; moves x.jpg, and 1 more to another group
Replace stack s1, s2
  # group-spans-stacks: new stack x.jpg (parent), and 1 more
Plan: 0 to create, 0 to grow, 0 to update, 2 to replace, 0 to delete; 0 stacks in sync`,
  );
});

Deno.test("renderPlan() lists conflicts left alone and says when nothing changes", () => {
  const plan = planStacks(
    [stack("s2", "a", "b", "z"), stack("s3", "c", "d"), stack("s6", "k", "l")],
    [group("a", "b"), group("c", "d"), group("k", "l")],
    OFF,
  );
  assert.equal(
    renderPlan(plan).join("\n"),
    `Needs replace: stack s2
  # member-outside-group: group a.jpg (parent), b.jpg; set REPLACE_STACKS=true to replace
No changes: 2 stacks in sync, 1 needs replacing`,
  );
});

Deno.test("renderPlan() says an empty plan has no changes", () => {
  assert.deepEqual(renderPlan({ actions: [], inSync: [], needsReplace: [] }), [
    "No changes: 0 stacks in sync",
  ]);
});

Deno.test("renderPlan() names what a replace takes out that the pass did not fetch", () => {
  const plan = planStacks(
    [stack("s1", "a", "clip", "old", "x")],
    [group("a", "b")],
    {
      ...OFF,
      replaceStacks: true,
      notFetched: new Set(["clip"]),
      trashed: new Set(["old"]),
      fileNames: new Map([["clip", "VID_1.MP4"], ["old", "IMG_0.jpg"]]),
      unseenMembers: new Set(["s1"]),
    },
  );
  assert.equal(
    renderPlan(plan).join("\n"),
    `Replace stack s1
  # member-outside-group: new stack a.jpg (parent), b.jpg; leaves x unstacked; takes out VID_1.MP4, IMG_0.jpg (in the trash), any member of s1 that Immich does not list, which this pass did not fetch
Plan: 0 to create, 0 to grow, 0 to update, 1 to replace, 0 to delete; 0 stacks in sync`,
  );
  assert.equal(
    unfetchedMessage(plan.actions[0], { dryRun: true }),
    "[DRY RUN] Replacing stack s1 would take out assets this pass did not fetch: VID_1.MP4, " +
      "IMG_0.jpg (in the trash), any member of s1 that Immich does not list",
  );
});

Deno.test("writeMessage() gives one line per action, real and dry", async (t) => {
  const plan = planStacks(
    [stack("s1", "solo"), stack("s2", "a", "z"), stack("s3", "d", "c"), stack("s4", "e", "f")],
    [group("a", "b"), group("c", "d"), group("e", "f", "g"), group("h", "i", "j")],
    { replaceStacks: true, removeSingleAssetStacks: true, resetStacks: false },
  );
  const expected = [
    ["Deleted stack s1", "[DRY RUN] Would delete stack s1"],
    ["Created stack n1 replacing s2", "[DRY RUN] Would replace stack s2"],
    ["Updated stack s3", "[DRY RUN] Would update stack s3"],
    ["Updated stack s4", "[DRY RUN] Would update stack s4"],
    ["Success! Stack created", "[DRY RUN] Would create stack with 3 assets"],
  ];
  assert.equal(plan.actions.length, expected.length);
  for (const [i, action] of plan.actions.entries()) {
    await t.step(action.kind, () => {
      assert.deepEqual(
        [
          writeMessage(action, { dryRun: false, newStackId: "n1" }),
          writeMessage(action, { dryRun: true }),
        ],
        expected[i],
      );
    });
  }
  await t.step("a replace's deletion line names the stack", () => {
    assert.equal(
      replaceDeletionMessage("s9"),
      "Deleted stack s9 - replacing child stack with new one",
    );
  });
});

Deno.test("a dry run and a rendered plan say which of the default rules made a group", () => {
  const assets = [
    { id: "a", originalFileName: "IMG_1.JPG" },
    { id: "b", originalFileName: "IMG_1.CR3" },
  ];
  const create = {
    kind: "create",
    assetIds: ["a", "b"],
    reason: "new-group",
    context: { groupKey: "k", label: "RAW+JPEG pair", assets },
  } as const;
  assert.equal(
    writeMessage(create, { dryRun: true }),
    "[DRY RUN] Would create stack with 2 assets (RAW+JPEG pair)",
  );
  assert.equal(writeMessage(create, { dryRun: false }), "Success! Stack created");
  const lines = renderPlan({
    actions: [create],
    inSync: [],
    needsReplace: [{
      stackIds: ["s1"],
      assetIds: ["a", "b"],
      reason: "member-outside-group",
      context: { label: "Canon burst, 2 frames", assets },
    }],
  });
  assert.deepEqual(lines.slice(0, 4), [
    "Create stack with 2 assets",
    "  # new-group (RAW+JPEG pair): IMG_1.JPG (parent), IMG_1.CR3",
    "Needs replace: stack s1",
    "  # member-outside-group (Canon burst, 2 frames): group IMG_1.JPG (parent), IMG_1.CR3; " +
    "set REPLACE_STACKS=true to replace",
  ]);
});
