/**
 * What the commands that work on each key's user share beyond `command.ts`: the outcome
 * of a pass over every key, and plans of stacks to make exactly as given (undo, restore).
 *
 * @module
 */
import type { Logger } from "@logtape/logtape";
import type { UnlistedMemberSearch } from "../api/unlisted_members.ts";
import type { Plan, Stack } from "../model.ts";
import {
  actsOnStackMembers,
  type PlanGroup,
  type PlanOptions,
  planStacks,
} from "../reconcile/plan.ts";
import { findUnlisted, passSucceeded, type UserReport } from "../run.ts";
import type { CommandOutcome } from "./command.ts";

/**
 * The outcome of a pass over every key: `ok` when every user was reached and nothing failed.
 *
 * @param reports The users' reports.
 * @param keys How many keys there were.
 * @returns `ok` or `failed`.
 */
export function outcomeOf(reports: readonly UserReport[], keys: number): CommandOutcome {
  return reports.length === keys && passSucceeded(reports) ? "ok" : "failed";
}

/**
 * Plans stacks to make exactly as given (undo, restore) with the planner of a run: replaces
 * allowed, and when the plan deletes, grows or replaces stacks, the members `GET /stacks` does
 * not list (trashed, hidden) looked up first, as a run does, so that none is lost silently.
 *
 * @param client The user's client.
 * @param stacks The stacks now, as `GET /stacks` lists them.
 * @param groups The stacks wanted, primary first; the key names each (its old id).
 * @param options File names and the exact scope.
 * @param log The user's logger.
 * @returns The plan.
 */
export async function planTargets(
  client: UnlistedMemberSearch,
  stacks: readonly Stack[],
  groups: readonly PlanGroup[],
  options: Pick<PlanOptions, "exactFor"> & { readonly fileNames: Map<string, string> },
  log: Logger,
): Promise<Plan> {
  const base: PlanOptions = {
    replaceStacks: true,
    removeSingleAssetStacks: false,
    resetStacks: false,
    ...options,
  };
  const plan = planStacks(stacks, groups, base);
  if (!actsOnStackMembers(plan)) return plan;
  const sets = {
    fileNames: options.fileNames,
    notFetched: new Set<string>(),
    trashed: new Set<string>(),
  };
  const found = await findUnlisted(client, stacks, sets, log);
  if (found === undefined) return plan;
  return planStacks(found.stacks, groups, {
    ...base,
    notFetched: sets.notFetched,
    trashed: sets.trashed,
    ...found.options,
  });
}
