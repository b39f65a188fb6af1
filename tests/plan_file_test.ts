/**
 * The plan file's pure parts: its format and checks (src/plan_file/format.ts), how a plan
 * becomes one (build.ts), how `apply` matches it with a plan made now (match.ts), and the
 * settings it records (src/config.ts).
 */
import assert from "node:assert/strict";
import { loadSettings, planSettings, settingsOfPlan } from "../src/config.ts";
import type { Stack } from "../src/model.ts";
import { type PlanGroup, type PlanOptions, planStacks } from "../src/reconcile/plan.ts";
import { planUser } from "../src/plan_file/build.ts";
import {
  actionId,
  parsePlanFile,
  type PlanAction,
  type PlanFile,
  planFileText,
} from "../src/plan_file/format.ts";
import { approve, togetherGroups } from "../src/plan_file/match.ts";
import { renderPage } from "../src/review/page.ts";

const OPTIONS: PlanOptions = {
  replaceStacks: false,
  removeSingleAssetStacks: false,
  resetStacks: false,
};
const TIME = "2024-05-01T10:00:00.000Z";

function asset(id: string) {
  return { id, originalFileName: `${id}.jpg`, localDateTime: TIME };
}

function group(key: string, ...ids: string[]): PlanGroup {
  return { key, assets: ids.map(asset) };
}

function stack(id: string, ...assetIds: string[]): Stack {
  return { id, primaryAssetId: assetIds[0], assetIds };
}

/** A plan made on the given stacks, three ways, as `apply` sees one. */
function planned(
  stacks: readonly Stack[],
  groups: readonly PlanGroup[],
  options: Partial<PlanOptions> & { trashed?: ReadonlySet<string> } = {},
) {
  const read = {
    stacks,
    fileNames: new Map(stacks.flatMap((s) => s.assetIds.map((id) => [id, `${id}.jpg`]))),
    ...(options.trashed === undefined ? {} : { trashed: options.trashed }),
  };
  const plan = planStacks(stacks, groups, { ...OPTIONS, ...options });
  return {
    plan,
    read,
    user: planUser({ user: { id: "u1", name: "Ada" }, settings: {}, plan, read }),
  };
}

function fileOf(users: PlanFile["users"]): PlanFile {
  return {
    format: "stacksync-plan",
    version: 1,
    createdAt: "2024-06-01T00:00:00.000Z",
    stacksync: "1.0.0",
    server: "http://immich.local:2283/api",
    users,
  };
}

Deno.test("planUser() records each action with its photos, times and the stacks it touches", () => {
  const { user } = planned(
    [stack("s1", "a", "b"), stack("s2", "d", "e"), stack("s3", "x", "t")],
    [group("k1", "a", "b", "c"), group("k2", "e", "d"), group("k3", "x", "y")],
    { replaceStacks: true, trashed: new Set(["t"]) },
  );
  const byKind = Object.fromEntries(user.actions.map((action) => [action.kind, action]));
  assert.deepEqual(user.actions.map((action) => action.kind), [
    "replace",
    "update-primary",
    "grow",
  ]);
  assert.deepEqual(byKind.grow.added, ["c"]);
  assert.deepEqual(byKind.grow.assets[2], {
    id: "c",
    originalFileName: "c.jpg",
    localDateTime: TIME,
  });
  assert.equal(byKind["update-primary"].reason.text, "e.jpg should be the cover, not d.jpg");
  assert.deepEqual(byKind.replace.stacks, [{
    id: "s3",
    primaryAssetId: "x",
    assets: [
      { id: "x", originalFileName: "x.jpg", localDateTime: TIME },
      { id: "t", originalFileName: "t.jpg", trashed: true },
    ],
  }]);
  assert.deepEqual(byKind.replace.deletes, ["s3"]);
  assert.deepEqual(byKind.replace.removed, [{ id: "t", reason: "in-trash" }]);
  for (const { id, ...action } of user.actions) assert.equal(id, actionId(action));
});

Deno.test("actionId() is the same for the same action on the same ground, and only then", () => {
  const a = planned([stack("s1", "a", "b")], [group("k", "a", "b", "c")]).user.actions[0];
  const again = planned([stack("s1", "a", "b")], [group("k", "a", "b", "c")]).user.actions[0];
  assert.equal(a.id, again.id);
  // Another cover of the same stack is another ground.
  const moved = planned([stack("s1", "b", "a")], [group("k", "a", "b", "c")]).user.actions[0];
  assert.equal(moved.kind, "grow");
  assert.notEqual(moved.id, a.id);
});

Deno.test("planFileText() writes one action per line and parsePlanFile() reads it back", () => {
  const { user } = planned([], [group("k1", "a", "b"), group("k2", "c", "d")]);
  const plan = fileOf([user]);
  const text = planFileText(plan);
  assert.deepEqual(parsePlanFile(text, "plan.json"), plan);
  const lines = text.split("\n");
  for (const action of user.actions) {
    assert.equal(lines.filter((line) => line.includes(`"id":"${action.id}"`)).length, 1);
  }
  assert.ok(lines.length < 30, text);
});

Deno.test("parsePlanFile() refuses what is no plan of this format, naming the problem", async (t) => {
  const { user } = planned([], [group("k", "a", "b")]);
  const good = planFileText(fileOf([user]));
  const action = user.actions[0];
  const cases: [string, string, RegExp][] = [
    ["broken JSON", good.slice(0, -20), /^Cannot read the plan p\.json as it is not JSON: /],
    [
      "another format",
      good.replace('"stacksync-plan"', '"stacksync-backup"'),
      /^Cannot read p\.json as it is not a stacksync plan \(its format is not "stacksync-plan"\)/,
    ],
    [
      "a newer version",
      good.replace('"version": 1', '"version": 2'),
      /^Cannot read the plan p\.json as this stacksync reads format version 1 only: upgrade stacksync, or plan again with this one: current value is 2$/,
    ],
    [
      "an unknown version",
      good.replace('"version": 1', '"version": "1"'),
      /: plan again: current value is "1"$/,
    ],
    [
      "a missing field",
      good.replace('"inSync": 0,', ""),
      /^Cannot read the plan p\.json as it is not a stacksync plan: users\.0\.inSync: /,
    ],
    [
      "an asset added to an action",
      good.replace('"assets":[', '"assets":[{"id":"other-user-asset","originalFileName":"x.jpg"},'),
      new RegExp(
        `^Cannot read the plan p\\.json as action ${action.id} of Ada was changed after ` +
          "stacksync planned it \\(it no longer matches its id\\): plan again, and leave out " +
          "actions only by unticking them on the review page or deleting their lines$",
      ),
    ],
    [
      "an asset id changed",
      good.replace(`"id":"b"`, `"id":"00000000-0000-4000-8000-00000000dead"`),
      /was changed after stacksync planned it/,
    ],
    [
      "an action twice",
      good.replace(/( {8}\{"id".*\})\n/, "$1,\n$1\n"),
      new RegExp(`as it holds action ${action.id} of Ada twice$`),
    ],
  ];
  for (const [name, text, message] of cases) {
    await t.step(name, () => {
      assert.throws(() => parsePlanFile(text, "p.json"), (error: Error) => {
        assert.match(error.message, message);
        return true;
      });
    });
  }
});

Deno.test("approve() applies the actions a plan made now holds unchanged", () => {
  const stacks = [stack("s1", "a", "b")];
  const groups = [group("k1", "a", "b", "c"), group("k2", "d", "e")];
  const then = planned(stacks, groups);
  const approval = approve(then.user, planned(stacks, groups));
  assert.deepEqual(approval.apply, then.plan.actions);
  assert.deepEqual([approval.done, approval.stale, approval.unapproved], [[], [], []]);
});

Deno.test("approve() leaves out what the file does not hold, and says how many", () => {
  const groups = [group("k1", "a", "b"), group("k2", "c", "d")];
  const then = planned([], groups);
  const approved = { ...then.user, actions: then.user.actions.slice(1) };
  const approval = approve(approved, planned([], groups));
  assert.deepEqual(approval.apply.map((a) => a.assetIds), [["c", "d"]]);
  assert.deepEqual(approval.unapproved.map((a) => a.id), [then.user.actions[0].id]);
});

Deno.test("approve() counts an action whose stack is as it wants as done, not stale", () => {
  const groups = [group("k1", "a", "b"), group("k2", "c", "d")];
  const then = planned([stack("s9", "e", "f")], groups, { removeSingleAssetStacks: true });
  // Both creates were made; the stack s9 is gone.
  const now = planned([stack("n1", "a", "b"), stack("n2", "c", "d")], groups);
  const approval = approve(then.user, now);
  assert.deepEqual(approval.done.map((action) => action.kind), ["create", "create"]);
  assert.deepEqual([approval.apply, approval.stale], [[], []]);
});

Deno.test("approve() names why each action it does not apply is stale", async (t) => {
  const cases: {
    name: string;
    then: Stack[];
    now: Stack[];
    groups?: PlanGroup[];
    reason: string;
  }[] = [
    {
      name: "a stack it grows was deleted",
      then: [stack("s1", "a", "b")],
      now: [],
      reason: "stack s1 (cover a.jpg) was deleted",
    },
    {
      name: "the cover of a stack it grows changed",
      then: [stack("s1", "a", "b")],
      now: [stack("s1", "b", "a")],
      reason: "stack s1 has another cover: b.jpg instead of a.jpg",
    },
    {
      name: "a photo it stacks was stacked by hand",
      then: [],
      now: [stack("h1", "c", "z")],
      reason: "c.jpg was put in stack h1",
    },
    {
      name: "a photo joined a stack it grows",
      then: [stack("s1", "a", "b")],
      now: [stack("s1", "a", "b", "z")],
      reason: "z.jpg joined stack s1",
    },
    {
      name: "its group grew",
      then: [],
      now: [],
      groups: [group("k", "a", "b", "c", "n")],
      reason: "its group changed: a plan made now would create a stack of 4 photos, cover a.jpg",
    },
    {
      name: "its group is gone",
      then: [],
      now: [],
      groups: [],
      reason: "its photos no longer form this group (deleted, in the trash, archived, or their " +
        "names or times changed)",
    },
  ];
  for (const { name, then, now, groups, reason } of cases) {
    await t.step(name, () => {
      const wanted = [group("k", "a", "b", "c")];
      const approval = approve(planned(then, wanted).user, planned(now, groups ?? wanted));
      assert.deepEqual(approval.stale.map((s) => s.reason), [reason]);
      assert.deepEqual(approval.apply, []);
    });
  }
});

Deno.test("approve() carries out actions that share photos or stacks together or not at all", () => {
  // A single-photo stack deleted, and a group that lists its photo: one goes with the other.
  const stacks = [stack("s1", "a", "a")];
  const groups = [group("k1", "a", "b"), group("k2", "c", "d")];
  const options = { removeSingleAssetStacks: true };
  const then = planned(stacks, groups, options);
  assert.deepEqual(then.user.actions.map((a) => a.kind), ["delete", "create", "create"]);
  const approved = { ...then.user, actions: then.user.actions.slice(1) };
  const approval = approve(approved, planned(stacks, groups, options));
  assert.deepEqual(approval.apply.map((a) => a.assetIds), [["c", "d"]]);
  assert.equal(approval.stale.length, 1);
  assert.match(
    approval.stale[0].reason,
    /^it shares photos or stacks with action [0-9a-f]{20} \(delete stack s1 \(cover a\.jpg\)\), which the plan file does not approve, and goes only together with it$/,
  );
});

Deno.test("togetherGroups() joins replaces that share a stack and leaves the rest alone", () => {
  const { user } = planned(
    [stack("s1", "a", "x"), stack("s2", "b", "y")],
    [group("k1", "a", "b"), group("k2", "x", "y"), group("k3", "p", "q")],
    { replaceStacks: true },
  );
  const kinds = user.actions.map((action: PlanAction) => action.kind);
  assert.deepEqual(kinds, ["replace", "replace", "create"]);
  assert.deepEqual(togetherGroups(user.actions), [0, 0, 2]);
});

Deno.test("planSettings() records what shapes a plan, and settingsOfPlan() reads it back", () => {
  const loaded = loadSettings({
    args: ["plan", "--replace-stacks", "--filter-album-ids", "Holidays,Trips"],
    env: {
      API_URL: "http://immich:2283/api",
      API_KEY: "sk-secret",
      CRITERIA: '[{"key":"originalFileName","split":{"delimiters":["."],"index":0}}]',
      FILTER_TAKEN_AFTER: "2024-01-01",
    },
    version: "1.0.0",
    readTextFile: () => undefined,
  });
  assert.equal(loaded.kind, "run");
  if (loaded.kind !== "run") return;
  const recorded = planSettings(loaded.settings);
  assert.deepEqual(Object.keys(recorded).sort(), [
    "CRITERIA",
    "FILTER_ALBUM_IDS",
    "FILTER_TAKEN_AFTER",
    "INCLUDE_VIDEOS",
    "PARENT_EXT_PROMOTE",
    "PARENT_FILENAME_PROMOTE",
    "REMOVE_SINGLE_ASSET_STACKS",
    "REPLACE_STACKS",
    "RESET_STACKS",
    "WITH_ARCHIVED",
    "WITH_DELETED",
  ]);
  assert.ok(!JSON.stringify(recorded).includes("sk-secret"));
  const base = { ...loaded.settings, replaceStacks: false, filterAlbumIds: undefined };
  const read = settingsOfPlan(JSON.parse(JSON.stringify(recorded)), base, "p.json");
  for (const key of ["criteria", "replaceStacks", "filterAlbumIds", "filterTakenAfter"] as const) {
    assert.deepEqual(read[key], loaded.settings[key], key);
  }
  assert.throws(
    () => settingsOfPlan({ ...recorded, API_KEY: "x" }, base, "p.json"),
    {
      message:
        'Cannot use the plan p.json as it records a setting that shapes no plan: current value is "API_KEY"',
    },
  );
  assert.throws(
    () => settingsOfPlan({ ...recorded, REPLACE_STACKS: "maybe" }, base, "p.json"),
    {
      message:
        "Cannot use the plan p.json as its setting REPLACE_STACKS is invalid (must be one of true, false, 1, 0, yes, no): current value is maybe",
    },
  );
});

Deno.test("renderPage() puts no name into the page as markup, and holds the plan's file", () => {
  const hostile = "</script><script>alert(1)</script><img src=x onerror=alert(2)>";
  const { user } = planned([], [{
    key: "k",
    assets: [`${hostile}.jpg`, `${hostile}.dng`].map((name, i) => ({
      id: `a${i}`,
      originalFileName: name,
    })),
  }]);
  const plan = fileOf([{ ...user, name: `<b>${hostile}</b>` }]);
  const html = renderPage(plan, { images: new Map([["a0", "plan_files/a0.webp"]]) });
  // Our own four script elements (three data blocks and the script) and nothing else.
  assert.equal(html.match(/<script/g)?.length, 4);
  assert.equal(html.match(/<\/script>/g)?.length, 4);
  assert.ok(!html.includes("<img"));
  assert.ok(html.includes("&lt;b&gt;&lt;/script&gt;"));
  const data = /<script type="application\/json" id="plan-data">(.*?)<\/script>/s.exec(html)![1];
  assert.deepEqual(parsePlanFile(data, "page"), plan);
  // The policy allows the page's own script and style by digest, and nothing from elsewhere.
  assert.match(
    html,
    /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data: file: 'self'; style-src 'sha256-[^']+'; script-src 'sha256-[^']+'">/,
  );
});

Deno.test("a group's rule travels to its action's context, the plan file and the page", () => {
  const labelled: PlanGroup = { ...group("k1", "a", "b"), label: "RAW+JPEG pair" };
  const { plan, user } = planned([stack("s1", "c", "x")], [labelled, {
    ...group("k2", "c", "d"),
    label: "Canon burst, 2 frames",
  }]);
  assert.equal(plan.actions[0].context.label, "RAW+JPEG pair");
  assert.equal(plan.needsReplace[0].context.label, "Canon burst, 2 frames");
  assert.equal(user.actions[0].rule, "RAW+JPEG pair");
  assert.equal(user.needsReplace[0].rule, "Canon burst, 2 frames");
  // The rule is for people: the action's id does not depend on it.
  const { rule: _, ...body } = user.actions[0];
  assert.equal(actionId(body), user.actions[0].id);
  const file = fileOf([user]);
  const text = planFileText(file);
  assert.deepEqual(parsePlanFile(text, "plan.json"), file);
  // A plan file written before rules were recorded reads as it was.
  const older = text.replaceAll(/"rule":"[^"]*",/g, "");
  assert.ok(!older.includes('"rule"'));
  assert.equal(parsePlanFile(older, "plan.json").users[0].actions[0].rule, undefined);
  assert.ok(renderPage(file, { images: new Map() }).includes("RAW+JPEG pair"));
});
