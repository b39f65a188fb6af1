/**
 * The planning half of a pass that read the library: plan the region read (with the members
 * Immich does not list, looked up when the plan needs them), merge it with the rest of the last
 * plan, check MAX_STACK_DELETIONS and record it. Loaded only by a pass that plans: a pass that
 * reuses the last plan never loads planning (docs/architecture.md, "Start-up").
 *
 * @module
 */
import type { Logger } from "@logtape/logtape";
import type { ImmichClient } from "./api/immich.ts";
import { mergeEntries, placeEntries } from "./incremental/entries.ts";
import { releaseMemory } from "./memory.ts";
import type { Plan, Stack, User } from "./model.ts";
import type { PassInput } from "./reading/input.ts";
import {
  type DeletionLimit,
  exceedsLimit,
  SHARE_FLOOR,
  stacksDeleted,
} from "./reconcile/deletions.ts";
import { type PlanOptions, planStacks, unnamedAssets, withFileNames } from "./reconcile/plan.ts";
import { plural } from "./reconcile/render.ts";
import { stackMembers } from "./reconcile/plan_index.ts";
import { planWithUnlisted } from "./reconcile/unlisted.ts";
import { MAX_NAME_LOOKUPS, type Planning, type Prepared } from "./run.ts";

/**
 * Plans what a pass read, as `prepare` of src/run.ts does for a pass that does not reuse the
 * last plan.
 *
 * @param input What the pass read (not a reused plan).
 * @param context The user's Immich client, the key's user, the settings that shape the plan
 *   with MAX_STACK_DELETIONS, and a logger carrying the user's name.
 * @returns The plan and what goes with it.
 * @throws {RangeError} When the plan deletes more stacks than MAX_STACK_DELETIONS allows.
 */
export async function planPass(
  input: Exclude<PassInput, { readonly reused: Plan }>,
  context: {
    readonly client: ImmichClient;
    readonly user: User;
    readonly planning: Planning;
    readonly userLog: Logger;
  },
): Promise<Prepared> {
  const { client, user, planning, userLog } = context;
  const { maxStackDeletions, ...rules } = planning;
  const { assets, stacks, groups, trashed } = input;
  let computeMs = input.computeMs;
  const timed = <T>(step: () => T): T => {
    const started = performance.now();
    const result = step();
    computeMs += performance.now() - started;
    return result;
  };
  const members = stackMembers(stacks, assets);
  const options: PlanOptions = {
    ...rules,
    fileNames: members.fileNames,
    notFetched: members.notFetched,
    trashed,
  };
  // Members Immich does not list matter only to deletes, grows and replaces: looked up for such
  // a plan alone, so a pass with nothing to change costs no extra request.
  const { rest } = input;
  const found = await planWithUnlisted(client, timed(() => planStacks(stacks, groups, options)), {
    stacks,
    sets: { ...members, trashed },
    plan: (listed, extra) => timed(() => planStacks(listed, groups, { ...options, ...extra })),
    log: userLog,
    ...(rest === undefined ? {} : { others: () => rest.otherStacks() }),
    ...(input.known === undefined ? {} : { known: input.known }),
  });
  let { plan } = found;
  const planned = found.stacks;
  // Members the pass did not fetch are named by id; a few lookups give their file names.
  const unnamed = unnamedAssets(plan).slice(0, MAX_NAME_LOOKUPS);
  if (unnamed.length > 0) plan = withFileNames(plan, await client.fileNames(unnamed));
  // An incremental pass planned its dirty region: the rest of the plan is the last one's. The
  // entries' places serve only the merge and the cache: a dry full pass makes none.
  const entries = rest !== undefined || input.cache !== undefined
    ? placeEntries(plan, groups, planned, found.volatile)
    : undefined;
  const whole = rest === undefined || entries === undefined
    ? { plan, entries }
    : mergeEntries(plan, entries, rest.kept, rest.dirty);
  const groupCount = rest?.groups ?? groups.length;
  // Before the cache records the plan and before any write: a pass past the limit does nothing.
  if (!planning.resetStacks) {
    checkDeletions(whole.plan, maxStackDeletions, {
      user: user.name,
      stacks: () => stacks.length + (rest?.otherStacks().length ?? 0),
    });
  }

  if (groupCount === 0) {
    userLog.info("No assets grouped", { assets: assets.length });
  }
  userLog.debug("Computed {groups} groups and the plan in {ms} ms", {
    groups: groupCount,
    ms: Math.round(computeMs),
  });
  releaseMemory();
  // After the collection: a full pass's cache body leaves its garbage beside what planning kept,
  // not beside planning's own garbage too (the peak of a full pass).
  if (whole.entries !== undefined) {
    await input.cache?.planned(whole.entries, whole.plan, found.lookups);
  }
  const marks = { trashed, unlisted: unlisted(stacks, planned) };
  return {
    plan: whole.plan,
    skippedAssets: input.skippedAssets,
    stacks: {
      stacks: planned,
      fileNames: members.fileNames,
      ...marks,
      ...(rest === undefined ? {} : { records: () => rest.records(marks) }),
    },
    ...(input.cache === undefined ? {} : { cache: input.cache }),
    ground: {
      ...rules,
      notFetched: members.notFetched,
      trashed,
      unlisted: marks.unlisted,
      ...(found.unseenMembers === undefined ? {} : { unseenMembers: found.unseenMembers }),
    },
  };
}

/**
 * Stops a user whose plan deletes more stacks than MAX_STACK_DELETIONS allows (a dry run and
 * `plan` too, so that they show what the run would do). RESET_STACKS, `--force` and a plan file
 * being applied are consent: they lift the limit.
 *
 * @param plan The user's whole plan.
 * @param limit MAX_STACK_DELETIONS.
 * @param about The user's name, and how many stacks the user has (counted only when needed: an
 *   incremental pass lists the stacks outside its region for it).
 * @throws {RangeError} When the plan deletes too many: the one line that skips the user.
 */
function checkDeletions(
  plan: Plan,
  limit: DeletionLimit,
  about: { readonly user: string; readonly stacks: () => number },
): void {
  const deleted = stacksDeleted(plan);
  // A user has at least the stacks the plan deletes: most passes need not count them.
  if (!exceedsLimit(deleted, deleted, limit)) return;
  const stacks = about.stacks();
  if (!exceedsLimit(deleted, stacks, limit)) return;
  const allows = "count" in limit
    ? plural(limit.count, "stack")
    : `${limit.percent} % of them, and at least ${SHARE_FLOOR}`;
  throw new RangeError(
    `Cannot delete ${deleted} of the ${plural(stacks, "stack")} of ${about.user} as ` +
      `MAX_STACK_DELETIONS allows ${allows}: check them with stacksync plan --force --html ` +
      "plan.html, then run with --force, or raise MAX_STACK_DELETIONS",
  );
}

/** Members of `planned` that `listed` does not have: those the pass looked up. */
function unlisted(listed: readonly Stack[], planned: readonly Stack[]): Set<string> {
  if (listed === planned) return new Set();
  const seen = new Set(listed.flatMap((stack) => [stack.primaryAssetId, ...stack.assetIds]));
  return new Set(planned.flatMap((stack) => stack.assetIds).filter((id) => !seen.has(id)));
}
