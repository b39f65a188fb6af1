import assert from "node:assert/strict";
import {
  actsOnStackMembers,
  countPlan,
  hasChanges,
  type PlanGroup,
  type PlanOptions,
  planStacks,
  unnamedAssets,
  withFileNames,
} from "../src/reconcile/plan.ts";
import type { Action, Stack } from "../src/model.ts";
import { stackMembers } from "../src/reconcile/plan_index.ts";

const OFF: PlanOptions = {
  replaceStacks: false,
  removeSingleAssetStacks: false,
  resetStacks: false,
};
const REPLACE: PlanOptions = { ...OFF, replaceStacks: true };

/** A group of assets named `<id>.jpg`, parent first. */
function group(...ids: string[]): PlanGroup {
  return { key: ids.join("+"), assets: ids.map((id) => ({ id, originalFileName: `${id}.jpg` })) };
}

function stack(id: string, ...assetIds: string[]): Stack {
  return { id, primaryAssetId: assetIds[0], assetIds };
}

/** Kind, target and reason of each action: what apply and people rely on. */
function summary(actions: readonly Action[]): string[] {
  return actions.map((action) => {
    switch (action.kind) {
      case "create":
        return `create [${action.assetIds}] ${action.reason}`;
      case "replace":
        return `replace ${action.stackIds} (delete ${action.deleteStackIds}) [${action.assetIds}] ${action.reason}`;
      default:
        return `${action.kind} ${action.stackId} [${action.assetIds}] ${action.reason}`;
    }
  });
}

Deno.test("planStacks() follows the case table of docs/architecture.md", async (t) => {
  const cases: {
    name: string;
    existing: Stack[];
    groups: PlanGroup[];
    options?: PlanOptions;
    actions: string[];
    inSync?: string[];
    needsReplace?: string[];
  }[] = [
    {
      name: "in sync: one stack, same members, same primary",
      existing: [stack("s1", "a", "b", "c")],
      groups: [group("a", "c", "b")],
      actions: [],
      inSync: ["s1"],
    },
    {
      name: "primary only: same members, other primary",
      existing: [stack("s1", "b", "a")],
      groups: [group("a", "b")],
      actions: ["update-primary s1 [a,b] primary-changed"],
    },
    {
      name: "grow: the stack's members a strict subset, the rest unstacked",
      existing: [stack("s1", "a", "b")],
      groups: [group("c", "a", "b", "d")],
      actions: ["grow s1 [c,a,b,d] group-grew"],
    },
    {
      name: "grow: a 1-asset stack whose asset is in the group",
      existing: [stack("s1", "b")],
      groups: [group("a", "b")],
      actions: ["grow s1 [a,b] group-grew"],
    },
    {
      name: "new: no stack touched",
      existing: [stack("s9", "x", "y")],
      groups: [group("a", "b")],
      actions: ["create [a,b] new-group"],
    },
    {
      name: "conflict without REPLACE_STACKS: member outside the group is left alone",
      existing: [stack("s1", "a", "b", "z")],
      groups: [group("a", "b")],
      actions: [],
      needsReplace: ["s1 member-outside-group"],
    },
    {
      name: "conflict without REPLACE_STACKS: a group spanning two stacks is left alone",
      existing: [stack("s1", "a", "b"), stack("s2", "c", "d")],
      groups: [group("a", "b", "c", "d")],
      actions: [],
      needsReplace: ["s1,s2 group-spans-stacks"],
    },
    {
      name: "conflict: a group holding the primary of another stack spans stacks (not a grow)",
      existing: [stack("s1", "a", "b"), stack("s2", "c", "x")],
      groups: [group("a", "b", "c")],
      options: REPLACE,
      actions: ["replace s1,s2 (delete s1,s2) [a,b,c] group-spans-stacks"],
    },
    {
      name: "conflict: a group touching a 1-asset stack and another stack spans stacks",
      existing: [stack("s1", "a"), stack("s2", "b", "c")],
      groups: [group("a", "b", "c")],
      options: REPLACE,
      actions: ["replace s1,s2 (delete s1,s2) [a,b,c] group-spans-stacks"],
    },
    {
      name: "conflict with REPLACE_STACKS: replace a stack with a member outside",
      existing: [stack("s1", "a", "b", "z")],
      groups: [group("b", "a")],
      options: REPLACE,
      actions: ["replace s1 (delete s1) [b,a] member-outside-group"],
    },
    {
      name: "a stack shared by two conflicting groups is deleted once",
      existing: [stack("s1", "a", "b", "c", "d")],
      groups: [group("a", "b"), group("c", "d")],
      options: REPLACE,
      actions: [
        "replace s1 (delete s1) [a,b] member-outside-group",
        "replace s1 (delete ) [c,d] member-outside-group",
      ],
    },
    {
      name: "a stack whose primary is missing from its listing is never grown",
      existing: [{ id: "s1", primaryAssetId: "trashed", assetIds: ["a"] }],
      groups: [group("a", "b")],
      actions: [],
      needsReplace: ["s1 member-outside-group"],
    },
    {
      name: "hand-made stacks no group touches are left alone, even with REPLACE_STACKS",
      existing: [stack("h1", "x", "y"), stack("h2", "z")],
      groups: [group("a", "b")],
      options: REPLACE,
      actions: ["create [a,b] new-group"],
    },
    {
      name: "REMOVE_SINGLE_ASSET_STACKS deletes 1-member stacks only",
      existing: [stack("h1", "x", "y"), stack("h2", "z"), stack("h3", "w")],
      groups: [],
      options: { ...OFF, removeSingleAssetStacks: true },
      actions: ["delete h2 [z] single-asset-stack", "delete h3 [w] single-asset-stack"],
    },
    {
      name: "REMOVE_SINGLE_ASSET_STACKS: a group then sees the asset as unstacked",
      existing: [stack("s1", "a"), stack("s2", "b", "c")],
      groups: [group("a", "b", "c")],
      options: { ...OFF, removeSingleAssetStacks: true },
      actions: ["delete s1 [a] single-asset-stack", "grow s2 [a,b,c] group-grew"],
    },
    {
      name: "RESET_STACKS deletes every stack, then creates every group",
      existing: [stack("s1", "a", "b"), stack("h1", "x", "y")],
      groups: [group("a", "b"), group("c", "d")],
      options: { replaceStacks: true, removeSingleAssetStacks: true, resetStacks: true },
      actions: [
        "delete s1 [a,b] reset",
        "delete h1 [x,y] reset",
        "create [a,b] reset",
        "create [c,d] reset",
      ],
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const plan = planStacks(c.existing, c.groups, c.options ?? OFF);
      assert.deepEqual(summary(plan.actions), c.actions);
      assert.deepEqual(plan.inSync.map((entry) => entry.stackId), c.inSync ?? []);
      assert.deepEqual(
        plan.needsReplace.map((entry) => `${entry.stackIds} ${entry.reason}`),
        c.needsReplace ?? [],
      );
    });
  }
});

Deno.test("planStacks() puts every deletion and replace before updates, grows and creates", () => {
  const plan = planStacks(
    [stack("s1", "b", "a"), stack("s2", "c"), stack("s3", "e", "f", "z"), stack("s4", "q")],
    [group("a", "b"), group("c", "d"), group("g", "h"), group("e", "f")],
    { replaceStacks: true, removeSingleAssetStacks: true, resetStacks: false },
  );
  assert.deepEqual(plan.actions.map((action) => action.kind), [
    "delete",
    "delete",
    "replace",
    "update-primary",
    "create",
    "create",
  ]);
  const deleted = plan.actions.flatMap((action) =>
    action.kind === "delete"
      ? [action.stackId]
      : action.kind === "replace"
      ? action.deleteStackIds
      : []
  );
  assert.deepEqual(deleted, ["s2", "s4", "s3"]);
});

Deno.test("planStacks() never lists the primary of a surviving stack in a create, except the grown one", () => {
  const existing = [
    stack("s1", "a", "b"),
    stack("s2", "c", "d"),
    stack("s3", "e"),
    stack("s4", "x", "g"),
  ];
  const groups = [group("b", "a", "k"), group("c", "e", "l"), group("g", "m")];
  for (const options of [OFF, REPLACE]) {
    const plan = planStacks(existing, groups, options);
    const deleted = new Set<string>();
    for (const action of plan.actions) {
      if (action.kind === "delete") deleted.add(action.stackId);
      if (action.kind === "replace") action.deleteStackIds.forEach((id) => deleted.add(id));
    }
    for (const action of plan.actions) {
      if (action.kind !== "create" && action.kind !== "grow" && action.kind !== "replace") continue;
      const grown = action.kind === "grow" ? action.stackId : undefined;
      for (const s of existing) {
        if (deleted.has(s.id) || s.id === grown) continue;
        assert.ok(
          !action.assetIds.includes(s.primaryAssetId),
          `${action.kind} lists primary of ${s.id}`,
        );
      }
    }
  }
});

Deno.test("planStacks() records display context: file names, previous primary, added and removed", () => {
  const plan = planStacks(
    [stack("s1", "b", "a"), stack("s2", "c", "d"), stack("s3", "e", "f", "z", "g")],
    [group("a", "b"), group("x", "c", "d"), group("e", "f"), group("g", "h")],
    { ...REPLACE, fileNames: new Map([["z", "Z.heic"]]) },
  );
  const [replace, , update, grow] = plan.actions;
  assert.equal(replace.kind, "replace");
  assert.deepEqual(replace.context, {
    groupKey: "e+f",
    assets: [{ id: "e", originalFileName: "e.jpg" }, { id: "f", originalFileName: "f.jpg" }],
    removed: [
      { id: "z", originalFileName: "Z.heic", reason: "in-no-group" },
      { id: "g", originalFileName: "g.jpg", reason: "in-other-group" },
    ],
  });
  assert.equal(update.kind, "update-primary");
  assert.deepEqual(update.context.previousPrimary, { id: "b", originalFileName: "b.jpg" });
  assert.equal(grow.kind, "grow");
  assert.deepEqual(grow.context.added, [{ id: "x", originalFileName: "x.jpg" }]);
});

Deno.test("planStacks() shows the asset id when a deleted stack's file name is unknown", () => {
  const plan = planStacks([stack("s1", "u")], [], { ...OFF, removeSingleAssetStacks: true });
  assert.deepEqual(plan.actions[0].context.assets, [{ id: "u", originalFileName: "u" }]);
});

Deno.test("planStacks() finds a stack through any member, not only its primary", () => {
  // The index rule: children must not look unstacked.
  const plan = planStacks([stack("s1", "z", "a", "b")], [group("a", "b")], OFF);
  assert.deepEqual(plan.actions, []);
  assert.equal(plan.needsReplace.length, 1);
});

Deno.test("countPlan() and hasChanges() derive counts from the plan", () => {
  const plan = planStacks(
    [stack("s1", "b", "a"), stack("s2", "c", "d"), stack("s3", "e", "z"), stack("s4", "q")],
    [group("a", "b"), group("c", "d"), group("e", "f"), group("g", "h")],
    { ...OFF, removeSingleAssetStacks: true },
  );
  assert.deepEqual(countPlan(plan), {
    create: 1,
    grow: 0,
    updatePrimary: 1,
    replace: 0,
    delete: 1,
    inSync: 1,
    needsReplace: 1,
  });
  assert.equal(hasChanges(plan), true);
  assert.equal(hasChanges(planStacks([stack("s2", "c", "d")], [group("c", "d")], OFF)), false);
});

Deno.test("planStacks() plans 200 000 assets in 50 000 stacks and 50 000 groups", () => {
  const existing: Stack[] = [];
  const groups: PlanGroup[] = [];
  for (let i = 0; i < 50_000; i++) {
    const ids = [`a${i}`, `b${i}`, `c${i}`, `d${i}`];
    groups.push(group(...ids));
    // a mix of in sync, primary changed, grow and conflicts
    if (i % 4 === 0) existing.push(stack(`s${i}`, ...ids));
    if (i % 4 === 1) existing.push(stack(`s${i}`, ids[1], ids[0], ids[2], ids[3]));
    if (i % 4 === 2) existing.push(stack(`s${i}`, ids[0], ids[1]));
    if (i % 4 === 3) existing.push(stack(`s${i}`, ids[0], ids[1], `z${i}`));
  }
  const counts = countPlan(planStacks(existing, groups, REPLACE));
  assert.deepEqual(counts, {
    create: 0,
    grow: 12_500,
    updatePrimary: 12_500,
    replace: 12_500,
    delete: 0,
    inSync: 12_500,
    needsReplace: 0,
  });
});

Deno.test("planStacks() never moves or drops a member the pass did not fetch", async (t) => {
  const cases: {
    name: string;
    existing: Stack[];
    groups: PlanGroup[];
    options: PlanOptions;
    actions: string[];
    inSync?: string[];
    needsReplace?: string[];
  }[] = [
    {
      name: "a video the pass did not fetch is no member outside the group",
      existing: [stack("s1", "a", "b", "clip")],
      groups: [group("a", "b")],
      options: { ...REPLACE, notFetched: new Set(["clip"]) },
      actions: [],
      inSync: ["s1"],
    },
    {
      name: "a cover the pass did not fetch stays the cover",
      existing: [stack("s1", "clip", "a", "b")],
      groups: [group("a", "b")],
      options: { ...OFF, notFetched: new Set(["clip"]) },
      actions: [],
      inSync: ["s1"],
    },
    {
      name: "a grow lists a cover the pass did not fetch first, so it stays",
      existing: [stack("s1", "clip", "a")],
      groups: [group("a", "b")],
      options: { ...OFF, notFetched: new Set(["clip"]) },
      actions: ["grow s1 [clip,a,b] group-grew"],
    },
    {
      name: "a grow keeps an archived member the pass did not fetch (the merge keeps it)",
      existing: [stack("s1", "a", "old")],
      groups: [group("b", "a")],
      options: { ...OFF, notFetched: new Set(["old"]) },
      actions: ["grow s1 [b,a] group-grew"],
    },
    {
      name: "a stack with a member in the trash never grows: the merge would drop it",
      existing: [stack("s1", "a", "b", "t")],
      groups: [group("a", "b", "c")],
      options: { ...OFF, trashed: new Set(["t"]) },
      actions: [],
      needsReplace: ["s1 member-in-trash"],
    },
    {
      name: "nor one that may hold a member Immich lists nowhere",
      existing: [stack("s1", "a")],
      groups: [group("a", "c")],
      options: { ...OFF, unseenMembers: new Set(["s1"]) },
      actions: [],
      needsReplace: ["s1 member-in-trash"],
    },
    {
      name: "its cover may still change: membership stays",
      existing: [stack("s1", "b", "a", "t")],
      groups: [group("a", "b")],
      options: { ...OFF, trashed: new Set(["t"]) },
      actions: ["update-primary s1 [a,b] primary-changed"],
    },
    {
      name: "a trashed asset in a group stays in its own stack and is never listed",
      existing: [stack("s1", "h", "t")],
      groups: [group("t", "a", "b")],
      options: { ...REPLACE, trashed: new Set(["t"]) },
      actions: ["create [a,b] new-group"],
    },
    {
      name: "a group left with one asset outside the trash makes no stack",
      existing: [],
      groups: [group("a", "t")],
      options: { ...OFF, trashed: new Set(["t"]) },
      actions: [],
    },
    {
      name: "a repeated asset is listed once, and a group of one repeated asset not at all",
      existing: [],
      groups: [group("a", "a", "b"), group("c", "c")],
      options: OFF,
      actions: ["create [a,b] new-group"],
    },
    {
      // The index of stacks by member is filled from the last stack to the first.
      name: "an asset two stacks list belongs to the first of them",
      existing: [stack("s1", "a", "b"), stack("s2", "c", "b")],
      groups: [group("a", "b")],
      options: OFF,
      actions: [],
      inSync: ["s1"],
    },
    {
      name: "a stack whose other members Immich hides is not a 1-asset stack",
      existing: [stack("s1", "a", "hidden"), stack("s2", "b"), stack("s3", "c")],
      groups: [],
      options: {
        ...OFF,
        removeSingleAssetStacks: true,
        notFetched: new Set(["hidden"]),
        unseenMembers: new Set(["s3"]),
      },
      actions: ["delete s2 [b] single-asset-stack"],
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const plan = planStacks(c.existing, c.groups, c.options);
      assert.deepEqual(summary(plan.actions), c.actions);
      assert.deepEqual(plan.inSync.map((entry) => entry.stackId), c.inSync ?? []);
      assert.deepEqual(
        plan.needsReplace.map((entry) => `${entry.stackIds} ${entry.reason}`),
        c.needsReplace ?? [],
      );
    });
  }
});

Deno.test("planStacks() says what a replace takes out and carries the stacks it deletes", () => {
  const plan = planStacks(
    [stack("s1", "a", "clip", "t", "x"), stack("s2", "b", "c")],
    [group("a", "b"), group("c", "d")],
    {
      ...REPLACE,
      notFetched: new Set(["clip"]),
      trashed: new Set(["t"]),
      fileNames: new Map([["clip", "CLIP.mp4"]]),
      unseenMembers: new Set(["s2"]),
    },
  );
  const [first, second] = plan.actions;
  assert.equal(first.kind, "replace");
  assert.deepEqual(first.context.removed, [
    { id: "clip", originalFileName: "CLIP.mp4", reason: "not-fetched" },
    { id: "t", originalFileName: "t", reason: "in-trash" },
    { id: "x", originalFileName: "x", reason: "in-no-group" },
    { id: "c", originalFileName: "c.jpg", reason: "in-other-group" },
  ]);
  assert.deepEqual(first.context.unseenStackIds, ["s2"]);
  assert.deepEqual(first.previous, [
    { id: "s1", primaryAssetId: "a", assetIds: ["a", "clip", "t", "x"], trashedAssetIds: ["t"] },
    { id: "s2", primaryAssetId: "b", assetIds: ["b", "c"], trashedAssetIds: [] },
  ]);
  assert.equal(second.kind, "replace");
  assert.deepEqual(second.deleteStackIds, []);
  assert.deepEqual(second.previous, []);
});

Deno.test("planStacks() with resetStacks names the old stacks each create lists members of", () => {
  const plan = planStacks(
    [stack("s1", "a", "x"), stack("s2", "b"), stack("s3", "q", "r")],
    [group("a", "b"), group("c", "d")],
    { ...OFF, resetStacks: true },
  );
  assert.deepEqual(
    plan.actions.map((action) =>
      action.kind === "create"
        ? `create ${action.stackIds ?? "-"}`
        : action.kind === "delete"
        ? `delete ${action.stackId}`
        : action.kind
    ),
    ["delete s1", "delete s2", "delete s3", "create s1,s2", "create -"],
  );
});

Deno.test("unnamedAssets() and withFileNames() fill in the names of members known by id", () => {
  const plan = planStacks(
    [stack("s1", "a", "v", "x"), stack("s2", "u")],
    [group("a", "b")],
    { ...REPLACE, removeSingleAssetStacks: true, notFetched: new Set(["v", "u"]) },
  );
  assert.deepEqual(unnamedAssets(plan), ["u", "v", "x"]);
  const named = withFileNames(plan, new Map([["u", "U.MOV"], ["v", "V.MP4"]]));
  assert.deepEqual(unnamedAssets(named), ["x"]);
  assert.equal(named.actions[0].context.assets[0].originalFileName, "U.MOV");
  assert.equal(named.actions[1].context.removed?.[0].originalFileName, "V.MP4");
});

Deno.test("actsOnStackMembers() is true only for deletes, grows and replaces", () => {
  const on = (existing: Stack[], groups: PlanGroup[], options = OFF) =>
    actsOnStackMembers(planStacks(existing, groups, options));
  assert.equal(on([], [group("a", "b")]), false);
  assert.equal(on([stack("s1", "b", "a")], [group("a", "b")]), false);
  assert.equal(on([stack("s1", "a")], [group("a", "b")]), true);
  assert.equal(on([stack("s1", "a", "z")], [group("a", "b")], REPLACE), true);
  assert.equal(on([stack("s1", "z")], [], { ...OFF, removeSingleAssetStacks: true }), true);
});

Deno.test("the names of fetched stack members read as a map, however it is first used", () => {
  const photo = (id: string) => ({ id, originalFileName: `${id}.JPG`, localDateTime: "" });
  const stacks = [stack("s1", "a", "b", "clip"), stack("s2", "c", "d")];
  const assets = [photo("d"), photo("a"), photo("lone"), photo("b"), photo("c")];
  const expected = [["d", "d.JPG"], ["a", "a.JPG"], ["b", "b.JPG"], ["c", "c.JPG"]];
  const uses: ((names: Map<string, string>) => unknown)[] = [
    (names) => names.get("a"),
    (names) => names.has("lone"),
    (names) => names.size,
    (names) => [...names.keys()],
    (names) => names.set("clip", "CLIP.MP4"),
    (names) => names.delete("b"),
  ];
  for (const use of uses) {
    const { fileNames, notFetched } = stackMembers(stacks, assets);
    assert.deepEqual([...notFetched], ["clip"]);
    use(fileNames);
    const after = new Map(expected as [string, string][]);
    use(after);
    assert.deepEqual([...fileNames], [...after], String(use));
    assert.equal(fileNames.size, after.size);
    assert.equal(fileNames.get("c"), "c.JPG");
  }
  const { fileNames } = stackMembers(stacks, assets);
  fileNames.clear();
  assert.deepEqual([...fileNames.entries()], []);
});
