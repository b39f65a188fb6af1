/**
 * What the commands that work on each key's user share beyond `command.ts`: the outcome
 * of a pass over every key, plans of stacks to make exactly as given (undo, restore), and the
 * state folder's locks of the commands that write.
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
import { delay } from "../api/delay.ts";
import type { JournalCommand } from "../state/journal.ts";
import { UserLocks } from "../state/lock.ts";
import type { CommandContext, CommandOutcome } from "./command.ts";

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

/**
 * The state folder's locks of a command that writes: one process at a time per folder and user
 * (docs/state.md, "One process at a time"). None in a dry run, which writes nothing there,
 * without a STATE_DIR, or in a folder the command found it cannot write (with JOURNAL=false:
 * then it keeps neither a journal nor a cache there, and said so).
 *
 * @param context The command's context.
 * @param command The command, for the lock's file.
 * @param options `wait`: wait for another process's pass of the user (cron mode) rather than
 *   give the user up; `unwritable`: why the folder cannot be written, when it cannot.
 * @returns The locks, or undefined.
 */
export function locksOf(
  context: CommandContext,
  command: JournalCommand,
  options: { readonly wait?: boolean; readonly unwritable?: string } = {},
): UserLocks | undefined {
  const { settings } = context;
  if (settings.dryRun || settings.stateDir === undefined || options.unwritable !== undefined) {
    return undefined;
  }
  return new UserLocks(settings.stateDir, {
    command: `stacksync ${command}`,
    wait: options.wait ?? false,
    sleep: context.sleep ?? delay,
    now: context.now,
  });
}
