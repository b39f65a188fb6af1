/**
 * `stacksync undo [RUN_ID]`: puts back, for the assets a recorded run changed, the stacks they
 * were in before it, through the same planner and applier as a run (`planStacks` with exact
 * targets, `applyPlan` through the journal). Without RUN_ID it takes each user's latest run that
 * is not undone. It honours DRY_RUN and is journaled itself, so an undo can be undone.
 *
 * @module
 */
import { getLogger, type Logger } from "@logtape/logtape";
import { displayUrl, serverKey } from "../shown_url.ts";
import type { Assets } from "../api/assets.ts";
import { neededPermissions } from "../api/permissions.ts";
import type { Stacks } from "../api/stacks.ts";
import type { Trash } from "../api/trash.ts";
import { ConfigError } from "../config.ts";
import type { Outcome, Plan, RecordedStack, Stack, TrashPlan, TrashWrite } from "../model.ts";
import { MAX_NAME_LOOKUPS, NO_STACK_PLAN, runUsers, type UserWork } from "../run.ts";
import type { FoundJournal, StateFolder } from "../state/folder.ts";
import { latestToUndo, undoneStatus } from "../undo/history.ts";
import { type ChangedSince, type TrashMove, trashMoves, undoTargets } from "../undo/targets.ts";
import { summarizeMoves } from "../trash/render.ts";
import { coverMarking, locksOf, logInTrash, outcomeOf, planTargets } from "./_users.ts";
import {
  type Command,
  type CommandContext,
  journalingOf,
  stateFolderOf,
  warnIfUnjournaled,
} from "./command.ts";

/** The journals of the run RUN_ID names: its full id or a prefix only it has. */
function journalsOf(found: readonly FoundJournal[], given: string, path: string): FoundJournal[] {
  const runs = [...new Set(found.map((journal) => journal.summary.run))];
  const matching = runs.filter((run) => run.startsWith(given));
  if (matching.length !== 1) {
    const problem = matching.length === 0
      ? `STATE_DIR ${path} has no journal of it`
      : `it is the start of ${matching.length} run ids (${matching.join(", ")})`;
    throw new ConfigError(
      `Cannot undo the run as ${problem}, see stacksync runs: current value is "${given}"`,
    );
  }
  return found.filter((journal) => journal.summary.run === matching[0]);
}

/** Stacks put back, old id to new, from the plan's outcomes and what was in sync already. */
function restoredIds(plan: Plan, outcomes: readonly Outcome[]): Map<string, string> {
  const ids = new Map<string, string>();
  for (const { stackId, groupKey } of plan.inSync) ids.set(groupKey, stackId);
  for (const outcome of outcomes) {
    const { action } = outcome;
    const key = action.context.groupKey;
    if (outcome.status !== "ok" || key === undefined) continue;
    const id = outcome.stackId ?? (action.kind === "update-primary" ? action.stackId : undefined);
    if (id !== undefined) ids.set(key, id);
  }
  return ids;
}

/** Logs each stack put back, old id to new, and each change left alone. */
function logResult(
  context: {
    plan: Plan;
    run: string;
    changedSince: readonly ChangedSince[];
    inTrash: ReadonlyMap<string, readonly string[]>;
  },
  names: ReadonlyMap<string, string>,
  outcomes: readonly Outcome[],
  log: Logger,
): void {
  const changed = new Set(
    outcomes.filter((o) => o.status === "ok").map((o) => o.action.context.groupKey),
  );
  for (const [old, id] of restoredIds(context.plan, outcomes)) {
    const fields = { oldStackID: old, stackID: id };
    const same = id === old;
    if (changed.has(old)) {
      log.info(
        same ? "Restored stack {oldStackID}" : "Restored stack {oldStackID} as {stackID}",
        fields,
      );
    } else {
      log.debug(
        same
          ? "Stack {oldStackID} was already back"
          : "Stack {oldStackID} was already back as {stackID}",
        fields,
      );
    }
  }
  const name = (id: string) => names.get(id) ?? id;
  logInTrash(context.inTrash, outcomes, names, `undo run ${context.run} again`, log);
  for (const { stackId, assetIds } of context.changedSince) {
    const fields = { filename: name(assetIds[0]), assets: assetIds.length, run: context.run };
    if (stackId !== undefined) {
      log.warn(
        "Left stack {stackID} as it is: it changed after run {run}; --force puts back what the " +
          "run changed",
        { ...fields, stackID: stackId, members: assetIds.map(name) },
      );
    } else {
      log.warn(
        "Left {files} as they are: their stacks changed after run {run}; --force puts back " +
          "what the run changed",
        { ...fields, files: assetIds.map(name).join(", ") },
      );
    }
  }
}

/**
 * The moves that put photos back where they were before the run: the photos it moved to the
 * trash that are still there come back, those it restored that are out of the trash go back.
 * The others changed after the run (or are gone for good) and are left as they are.
 */
async function trashPlanOf(
  client: Trash & Pick<Assets, "fileNames">,
  moves: readonly TrashMove[],
  log: Logger,
): Promise<TrashPlan> {
  const inTrash = await client.trashedAssets();
  const retrash = moves.filter((move) => move.kind === "trash").flatMap((move) => move.assetIds)
    .filter((id) => !inTrash.has(id));
  const names = new Map([
    ...inTrash,
    ...await client.fileNames(retrash.slice(0, MAX_NAME_LOOKUPS)),
  ]);
  const actions: TrashWrite[] = [];
  let left = 0;
  for (const move of moves) {
    const assetIds = move.assetIds.filter((id) => inTrash.has(id) === (move.kind === "restore"));
    left += move.assetIds.length - assetIds.length;
    if (assetIds.length === 0) continue;
    const assets = assetIds.map((id) => ({ id, originalFileName: names.get(id) ?? id }));
    actions.push({ kind: move.kind, assetIds, reason: "undo", context: { assets } });
  }
  if (left > 0) {
    log.info(
      "Left {count} photos as they are: they are not where the run left them (moved since, or " +
        "deleted for good)",
      { count: left },
    );
  }
  return { actions };
}

/** What the undos of `of.run` already recorded for its user did: their stacks before and writes. */
async function earlierUndosOf(
  folder: StateFolder,
  found: readonly FoundJournal[],
  of: { readonly run: string; readonly userId: string },
) {
  const earlier = [];
  for (const undo of found) {
    const { undoes, user: owner } = undo.summary;
    if (undoes !== of.run || owner.id !== of.userId) continue;
    const { stacks, writes } = await folder.read(undo);
    earlier.push({ before: stacks, writes });
  }
  return earlier;
}

/** The file names the server gave, and those the journal kept of assets it no longer lists. */
function namesWithJournal(
  fileNames: ReadonlyMap<string, string>,
  recorded: readonly RecordedStack[],
): Map<string, string> {
  const names = new Map(fileNames);
  for (const stack of recorded) {
    for (const { id, originalFileName } of stack.assets) {
      if (originalFileName !== undefined && !names.has(id)) names.set(id, originalFileName);
    }
  }
  return names;
}

/** Reads the stacks now, with every member's file name. */
async function currentStacks(client: Pick<Stacks, "listStacks">) {
  const fileNames = new Map<string, string>();
  const stacks: Stack[] = await client.listStacks({ fileNames });
  return { stacks, fileNames };
}

function undoWork(
  context: CommandContext,
  folder: StateFolder,
  found: readonly FoundJournal[],
  given: readonly FoundJournal[] | undefined,
  reached: Set<string>,
): UserWork {
  const { settings, options } = context;
  const server = displayUrl(settings.apiUrl);
  const summaries = found.map((journal) => journal.summary);
  const status = undoneStatus(summaries);
  return {
    title: "Undo",
    permissions: neededPermissions({
      dryRun: settings.dryRun,
      // Photos a run moved to or from the trash need asset.delete to go back.
      trash: (given ?? found).some(({ summary }) =>
        summary.counts.trashed > 0 || summary.counts.restored > 0
      ),
    }),
    async prepare(client, user, log) {
      reached.add(user.id);
      const target = given === undefined
        ? found.find((journal) => journal.summary === latestToUndo(summaries, user.id, server))
        : given.find((journal) => journal.summary.user.id === user.id);
      if (target === undefined) {
        log.info(
          given === undefined
            ? "Nothing to undo for {user}: no recorded run of this user on this server is left " +
              "to undo"
            : "Nothing to undo for {user}: the run changed nothing of this user",
          { user: user.name },
        );
        return {
          ...NO_STACK_PLAN,
          skippedAssets: {},
          stacks: { stacks: [], fileNames: new Map() },
        };
      }
      const { run } = target.summary;
      const done = status(target.summary);
      if (done.by !== undefined) {
        log.info("Run {run} was undone by {undoneBy} already", { run, undoneBy: done.by });
      }
      log.info("Undoing run {run} of {startedAt}", { run, startedAt: target.summary.startedAt });
      const journal = await folder.read(target);
      const now = await currentStacks(client);
      const earlierUndos = await earlierUndosOf(folder, found, { run, userId: user.id });
      const targets = undoTargets({
        before: journal.stacks,
        writes: journal.writes,
        earlierUndos,
        current: now.stacks,
        force: options.force,
      });
      const names = namesWithJournal(now.fileNames, journal.stacks);
      const { plan, ground, inTrash } = await planTargets(client, now.stacks, targets.groups, {
        fileNames: names,
        exactFor: targets.scope,
      }, log);
      const moves = trashMoves(journal.writes);
      const trash = moves.length === 0 ? undefined : await trashPlanOf(client, moves, log);
      return {
        plan,
        ground,
        ...coverMarking(settings, user, "undo"),
        ...(trash === undefined ? {} : { trash, trashSummary: summarizeMoves(trash) }),
        skippedAssets: {},
        stacks: now,
        journalAlways: true,
        undoes: run,
        report: (outcomes, userLog) => {
          logResult({ plan, run, inTrash, ...targets }, names, outcomes, userLog);
          return { changedSince: targets.changedSince.length };
        },
      };
    },
  };
}

/** Puts back what a recorded run changed. */
export const undoCommand: Command = async (context) => {
  const { settings, operand, options } = context;
  const writes = !settings.dryRun && settings.journal;
  const folder = await stateFolderOf(settings, writes);
  const { found, unreadable } = await folder.journals();
  const given = operand === undefined ? undefined : journalsOf(found, operand, folder.path);
  const server = displayUrl(settings.apiUrl);
  const elsewhere = given?.find((journal) =>
    serverKey(journal.summary.server) !== serverKey(server)
  );
  if (elsewhere !== undefined && !options.force) {
    throw new ConfigError(
      `Cannot undo run ${elsewhere.summary.run} as it changed ${elsewhere.summary.server}, not ` +
        `API_URL: set API_URL to that server, or give --force if it is the same one: current ` +
        `value is ${server}`,
    );
  }
  const journal = await journalingOf(context, "undo", writes ? folder : undefined);
  return async () => {
    warnIfUnjournaled(settings);
    // A journal that cannot be read is no run undo can take: say so once.
    for (const { path, error } of unreadable) {
      getLogger(["stacksync", "state"]).warn("Cannot read the journal {path}: {error}", {
        path,
        error,
      });
    }
    const reached = new Set<string>();
    const work = undoWork(context, folder, found, given, reached);
    const reports = await runUsers(settings, work, {
      signal: context.signal,
      sleep: context.sleep,
      journal,
      locks: locksOf(context, "undo"),
      progress: context.progress,
    });
    // A user the run changed whose key was not given is not undone: say so, and fail.
    const missed = (given ?? []).filter((journal) => !reached.has(journal.summary.user.id));
    for (const { summary } of missed) {
      getLogger(["stacksync", "undo"]).warn(
        "Did not undo run {run} for {user}: no key of API_KEY reached that user",
        { run: summary.run, user: summary.user.name },
      );
    }
    return missed.length > 0 ? "failed" : outcomeOf(reports, settings.apiKeys.length);
  };
};
