// Property test: random libraries, random existing stacks and random groups,
// planned and applied to the model of Immich's stack semantics (tests/immich_stacks.ts).
import assert from "node:assert/strict";
import { type PlanGroup, type PlanOptions, planStacks } from "../src/reconcile/plan.ts";
import { applyPlan, type StackWriter } from "../src/reconcile/apply.ts";
import type { Stack } from "../src/model.ts";
import { type StackRecord, StackStore } from "./immich_stacks.ts";
import { seededRandom, shuffled } from "./_random.ts";

interface Case {
  readonly store: StackStore;
  readonly groups: PlanGroup[];
  readonly options: PlanOptions;
}

function randomCase(seed: number): Case {
  const random = seededRandom(seed);
  const int = (n: number) => Math.floor(random() * n);
  const assetIds = Array.from({ length: 4 + int(20) }, (_, i) => `a${i}`);
  const pick = () => assetIds[int(assetIds.length)];

  // Existing stacks made the way Immich makes them, so merges, moved members and 1-asset
  // stacks all occur.
  let n = 0;
  const store = new StackStore({ newId: () => `s${++n}` });
  for (let i = int(8); i > 0; i--) {
    const size = int(5);
    store.create(size === 0 ? [pick(), pick()] : Array.from({ length: size + 1 }, pick));
  }
  for (const stack of store.list()) {
    if (random() < 0.2) store.updatePrimary(stack.id, stack.assetIds[int(stack.assetIds.length)]);
  }

  // Disjoint groups of 2-5 assets over a random part of the library, parent first.
  const picked = shuffled(assetIds, random).slice(0, int(assetIds.length + 1));
  const groups: PlanGroup[] = [];
  for (let i = 0; i + 1 < picked.length;) {
    const ids = picked.slice(i, i + 2 + int(4));
    if (ids.length < 2) break;
    groups.push({
      key: `g${groups.length}`,
      assets: ids.map((id) => ({ id, originalFileName: `${id}.jpg` })),
    });
    i += ids.length;
  }
  const options = {
    replaceStacks: random() < 0.5,
    removeSingleAssetStacks: random() < 0.3,
    resetStacks: random() < 0.1,
  };
  return { store, groups, options };
}

/**
 * A writer on the model that also checks the merge rule: a create may list the primary of
 * an existing stack only when that whole stack is listed (a grow), so nothing is swallowed.
 */
function modelWriter(store: StackStore): StackWriter {
  return {
    createStack(assetIds) {
      const listed = new Set(assetIds);
      for (const assetId of assetIds) {
        const holder = store.stackOf(assetId);
        if (holder?.primaryAssetId !== assetId) continue;
        for (const member of holder.assetIds) {
          assert.ok(
            listed.has(member),
            `create [${assetIds}] would swallow ${member} of ${holder.id}`,
          );
        }
      }
      return Promise.resolve({ id: store.create(assetIds).id });
    },
    updateStackPrimary(stackId, primaryAssetId) {
      store.updatePrimary(stackId, primaryAssetId);
      return Promise.resolve();
    },
    deleteStack(stackId) {
      store.delete(stackId);
      return Promise.resolve();
    },
    stackWithPrimary(assetId) {
      const stack = store.stackOf(assetId);
      return Promise.resolve(stack?.primaryAssetId === assetId ? stack : undefined);
    },
  };
}

function toStacks(records: readonly StackRecord[]): Stack[] {
  return records.map(({ id, primaryAssetId, assetIds }) => ({ id, primaryAssetId, assetIds }));
}

function sameMembers(stack: StackRecord | undefined, ids: readonly string[]): boolean {
  return stack !== undefined && stack.assetIds.length === ids.length &&
    ids.every((id) => stack.assetIds.includes(id));
}

const CASES = 400;

Deno.test("applyPlan() on the Immich model reaches the groups and keeps untouched stacks", async () => {
  const seen = new Set<string>();
  for (let seed = 1; seed <= CASES; seed++) {
    const { store, groups, options } = randomCase(seed);
    const before = store.list();
    const plan = planStacks(toStacks(before), groups, options);
    const outcomes = await applyPlan(plan, modelWriter(store), { dryRun: false });
    for (const action of plan.actions) seen.add(`${action.kind} ${action.reason}`);
    if (plan.needsReplace.length > 0) seen.add("needs-replace");
    const context = `seed ${seed}, options ${JSON.stringify(options)}`;
    assert.deepEqual(outcomes.filter((o) => o.status !== "ok"), [], context);

    const grouped = new Set(groups.flatMap((group) => group.assets.map((asset) => asset.id)));
    const touched = (stack: StackRecord) => stack.assetIds.some((id) => grouped.has(id));
    const singleRemoved = (stack: StackRecord) =>
      options.removeSingleAssetStacks && stack.assetIds.length === 1;

    // Stacks no group touches are untouched, but for the two options that delete them.
    for (const stack of before) {
      if (touched(stack) || options.resetStacks || singleRemoved(stack)) continue;
      assert.deepEqual(store.get(stack.id), stack, `${context}: hand-made ${stack.id} changed`);
    }

    if (options.replaceStacks || options.resetStacks) {
      // The end state equals the computed groups on the touched assets.
      for (const group of groups) {
        const ids = group.assets.map((asset) => asset.id);
        const stack = store.stackOf(ids[0]);
        assert.ok(sameMembers(stack, ids), `${context}: ${group.key} is ${JSON.stringify(stack)}`);
        assert.equal(stack?.primaryAssetId, ids[0], `${context}: parent of ${group.key}`);
      }
    } else {
      // No asset ever leaves a stack (but those of 1-asset stacks REMOVE_SINGLE_ASSET_STACKS
      // deletes on purpose).
      for (const stack of before) {
        if (singleRemoved(stack)) continue;
        for (const id of stack.assetIds) {
          assert.ok(store.stackOf(id) !== undefined, `${context}: ${id} left stack ${stack.id}`);
        }
      }
      // Every group that was not a conflict reached its end state.
      const conflicts = new Set(plan.needsReplace.map((entry) => entry.assetIds[0]));
      for (const group of groups) {
        const ids = group.assets.map((asset) => asset.id);
        if (conflicts.has(ids[0])) continue;
        assert.ok(sameMembers(store.stackOf(ids[0]), ids), `${context}: ${group.key}`);
        assert.equal(store.stackOf(ids[0])?.primaryAssetId, ids[0], `${context}: ${group.key}`);
      }
    }

    // A second pass has nothing left to do; with REPLACE_STACKS it is all in sync.
    const again = planStacks(toStacks(store.list()), groups, { ...options, resetStacks: false });
    assert.deepEqual(again.actions, [], `${context}: second pass`);
    if (options.replaceStacks || options.resetStacks) {
      assert.deepEqual(again.needsReplace, [], `${context}: second pass`);
      assert.equal(again.inSync.length, groups.length, `${context}: second pass`);
    }
  }
  // The random cases reach every kind of action and every reason.
  assert.deepEqual([...seen].sort(), [
    "create new-group",
    "create reset",
    "delete reset",
    "delete single-asset-stack",
    "grow group-grew",
    "needs-replace",
    "replace group-spans-stacks",
    "replace member-outside-group",
    "update-primary primary-changed",
  ]);
});

Deno.test("applyPlan() in a dry run leaves the Immich model as it was", async () => {
  for (let seed = 1; seed <= 50; seed++) {
    const { store, groups, options } = randomCase(seed);
    const before = store.list();
    const plan = planStacks(toStacks(before), groups, options);
    const outcomes = await applyPlan(plan, modelWriter(store), { dryRun: true });
    assert.ok(outcomes.every((outcome) => outcome.status === "skipped"));
    assert.deepEqual(store.list(), before, `seed ${seed}`);
  }
});
