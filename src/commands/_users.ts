/**
 * What the commands that work on each key's user share beyond `command.ts`: the outcome
 * of a pass over every key, plans of stacks to make exactly as given (undo, restore) with what
 * they leave out and how they keep the cache of incremental passes true, and the state folder's
 * locks of the commands that write.
 *
 * @module
 */
import type { Logger } from "@logtape/logtape";
import type { Trash } from "../api/trash.ts";
import type { UnlistedMemberSearch } from "../api/unlisted_members.ts";
import type { Settings } from "../config.ts";
import type { Outcome, Plan, Stack } from "../model.ts";
import type { GroundRules } from "../reconcile/ground.ts";
import type { PlanGroup, PlanOptions } from "../reconcile/plan.ts";
import { passSucceeded, type UserReport } from "../run.ts";
import { displayUrl } from "../shown_url.ts";
import { delay } from "../api/delay.ts";
import { cacheFilesOf } from "../state/cache.ts";
import { coverMarker, type PassCache } from "../state/cache_recorder.ts";
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

/** What {@linkcode planTargets} planned, and what it could not put back. */
export interface PlannedTargets {
  readonly plan: Plan;
  /** The rules of the plan, for the fresh-ground check of its writes. */
  readonly ground: GroundRules;
  /**
   * Members of the wanted stacks that are in the trash now, by the wanted stack's key: no create
   * takes a photo in the trash into a stack (Immich leaves it out, or makes it the cover while
   * it is in the trash), so each wanted stack comes back without them.
   */
  readonly inTrash: ReadonlyMap<string, readonly string[]>;
}

/**
 * Plans stacks to make exactly as given (undo, restore) with the planner of a run: replaces
 * allowed, and when the plan deletes, grows or replaces stacks, the members `GET /stacks` does
 * not list (trashed, hidden) looked up first, as a run does, so that none is lost silently. A
 * wanted member that is hidden (a live photo's video) is listed like any other, as Immich takes
 * it into the stack a create makes (docs/safety.md); one in the trash now is left out.
 *
 * @param client The user's client.
 * @param stacks The stacks now, as `GET /stacks` lists them.
 * @param groups The stacks wanted, primary first, every member; the key names each (its old id).
 * @param options File names and the exact scope.
 * @param log The user's logger.
 * @returns The plan, its rules, and the members in the trash it leaves out.
 */
export async function planTargets(
  client: UnlistedMemberSearch & Pick<Trash, "trashedAssets">,
  stacks: readonly Stack[],
  groups: readonly PlanGroup[],
  options: Pick<PlanOptions, "exactFor"> & { readonly fileNames: Map<string, string> },
  log: Logger,
): Promise<PlannedTargets> {
  // Planning is loaded by the commands that plan, not by every command that uses these helpers.
  const { planStacks } = await import("../reconcile/plan.ts");
  const { planWithUnlisted } = await import("../reconcile/unlisted.ts");
  const wanted = new Set(groups.flatMap((group) => group.assets.map((asset) => asset.id)));
  const trashed = new Set<string>();
  const inTrash = new Map<string, string[]>();
  if (wanted.size > 0) {
    const trash = await client.trashedAssets();
    for (const group of groups) {
      const ids = group.assets.map((asset) => asset.id).filter((id) => trash.has(id));
      for (const id of ids) trashed.add(id);
      if (ids.length > 0) inTrash.set(group.key, ids);
    }
  }
  const base: PlanOptions = {
    replaceStacks: true,
    removeSingleAssetStacks: false,
    resetStacks: false,
    ...options,
    trashed,
  };
  const rules = (more: Partial<GroundRules>): GroundRules => {
    const { fileNames: _names, ...plain } = base;
    return { ...plain, ...more };
  };
  const sets = { fileNames: options.fileNames, notFetched: new Set<string>(), trashed };
  const found = await planWithUnlisted(client, planStacks(stacks, groups, base), {
    stacks,
    sets,
    plan: (listed, extra) => {
      // A wanted member is judged by the target, not kept where it is as one the pass never read.
      for (const id of wanted) sets.notFetched.delete(id);
      return planStacks(listed, groups, { ...base, notFetched: sets.notFetched, ...extra });
    },
    log,
  });
  if (found.stacks === stacks) return { plan: found.plan, ground: rules({}), inTrash };
  const unlisted = new Set(
    found.stacks.flatMap((stack, i) => stack.assetIds.slice(stacks[i].assetIds.length)),
  );
  const more = {
    notFetched: sets.notFetched,
    ...found.unseenMembers === undefined ? {} : { unseenMembers: found.unseenMembers },
  };
  return { plan: found.plan, ground: rules({ ...more, unlisted }), inTrash };
}

/**
 * The cache recorder of a command that changes stacks outside a pass (undo, restore): its cover
 * changes make every cache of the server and user full next time (`coverMarker`). None in a dry
 * run, or without STATE_DIR.
 *
 * @param settings DRY_RUN, STATE_DIR and API_URL.
 * @param user The key's user.
 * @param command The command's name.
 * @returns The `cache` of the command's `Prepared`, or nothing.
 */
export function coverMarking(
  settings: Pick<Settings, "dryRun" | "stateDir" | "apiUrl">,
  user: { readonly id: string },
  command: string,
): { cache?: PassCache } {
  if (settings.dryRun || settings.stateDir === undefined) return {};
  const files = cacheFilesOf(settings.stateDir, displayUrl(settings.apiUrl), user.id, {});
  return { cache: coverMarker({ ...files, key: "" }, command) };
}

/**
 * Says, for each wanted stack a command made or changed, which of its members it left out as
 * they are in the trash now, and how to bring them back in.
 *
 * @param inTrash Members in the trash by wanted stack, from {@linkcode planTargets}.
 * @param outcomes What became of the plan's actions.
 * @param names File names by asset id.
 * @param again What to do again once they are restored, e.g. `undo run 20261123-1015 again`.
 * @param log The user's logger.
 */
export function logInTrash(
  inTrash: ReadonlyMap<string, readonly string[]>,
  outcomes: readonly Outcome[],
  names: ReadonlyMap<string, string>,
  again: string,
  log: Logger,
): void {
  if (inTrash.size === 0) return;
  const written = new Set(
    outcomes.filter((o) => o.status === "ok").map((o) => o.action.context.groupKey),
  );
  for (const [key, ids] of inTrash) {
    if (!written.has(key)) continue;
    log.info(
      "Stack {oldStackID} is back without {files}: in the trash now, and Immich takes no photo " +
        "in the trash into a stack; restore them from the trash and {again} to put them back",
      {
        oldStackID: key,
        files: ids.map((id) => names.get(id) ?? id).join(", "),
        assets: ids.length,
        again,
      },
    );
  }
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
