/**
 * `stacksync apply FILE [--force]`: carries out a plan file, usually the `plan-approved.json`
 * the review page saved. It reads the server afresh and plans again with the settings the file
 * records (the work of a run), then applies exactly the file's actions that the plan made now
 * holds unchanged: an action whose stacks or photos moved since is skipped as stale and named,
 * and nothing the file does not hold is touched (see `src/plan_file/match.ts`). A file from
 * another server (unless `--force`) or of another user, of another format version, broken, or
 * edited by hand is refused before anything is sent. It honours DRY_RUN and is journaled, so
 * `undo` puts it back.
 *
 * @module
 */
import type { Logger } from "@logtape/logtape";
import { getLogger } from "@logtape/logtape";
import { literal } from "../log.ts";
import { ApiError } from "../api/errors.ts";
import { displayUrl, serverKey } from "../shown_url.ts";
import { neededPermissions } from "../api/permissions.ts";
import { ConfigError, type Settings, settingsOfPlan } from "../config.ts";
import { parseRules } from "../grouping/criteria.ts";
import { NO_DELETION_LIMIT } from "../reconcile/deletions.ts";
import type { Outcome } from "../model.ts";
import { planUser } from "../plan_file/build.ts";
import { parsePlanFile, type PlanFile, type PlanUser } from "../plan_file/format.ts";
import { type Approval, approve } from "../plan_file/match.ts";
import { describeAction } from "../plan_file/words.ts";
import type { ReadingOptions } from "../reading/input.ts";
import { leavingUndone } from "../state/cache_recorder.ts";
import { groupingWork, runUsers, type UserWork } from "../run.ts";
import { readingOf, warnAboutCache } from "./run.ts";
import { sessionOf } from "./_client.ts";
import { locksOf, outcomeOf } from "./_users.ts";
import {
  type Command,
  type CommandContext,
  journalingOf,
  readCommandFile,
  warnIfUnjournaled,
} from "./command.ts";

/**
 * Checks that each key's user has a plan in the file. Keys whose user cannot be read now are
 * left to the pass, which reports them as any run does.
 *
 * @throws {ConfigError} For a key whose user the file does not hold.
 */
async function checkUsers(context: CommandContext, plan: PlanFile, path: string): Promise<void> {
  for (const apiKey of context.settings.apiKeys) {
    const client = sessionOf(context, apiKey);
    try {
      const me = await client.me();
      if (!plan.users.some((user) => user.id === me.id)) {
        const held = plan.users.map((user) => user.name).join(", ") || "no user";
        throw new ConfigError(
          `Cannot apply ${path} for ${me.name} as it is the plan of ${held}: use that user's ` +
            "key, or plan again with this one",
        );
      }
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    } finally {
      client.close();
    }
  }
}

/** One user's plan from the file, with the settings to plan again with. */
interface Approved {
  readonly user: PlanUser;
  readonly settings: Settings;
}

/** Logs what becomes of the file's actions before any write. */
function logApproval(approval: Approval, approved: PlanUser, path: string, log: Logger): void {
  for (const { action, reason } of approval.stale) {
    log.warn(
      literal(
        `Skipped stale action ${action.id}: it would ${describeAction(action)}, but ${reason}`,
      ),
      {
        action: action.id,
        kind: action.kind,
        filename: action.assets[0].originalFileName,
        reason: action.reason.code,
      },
    );
  }
  for (const action of approval.done) {
    log.debug(literal(`Action ${action.id} is done already: ${describeAction(action)}`), {
      action: action.id,
    });
  }
  if (approval.done.length > 0) {
    log.info("{done} actions of {file} are done already", {
      done: approval.done.length,
      file: path,
    });
  }
  if (approval.unapproved.length > 0) {
    log.info(
      "Left {unapproved} changes that {file} does not hold (unticked, or new since the plan): " +
        "stacksync plan shows them",
      { unapproved: approval.unapproved.length, file: path },
    );
  }
  log.info("Applying {actions} of the {planned} actions of {file}", {
    actions: approval.apply.length,
    planned: approved.actions.length,
    file: path,
  });
}

/** The user's line of what became of the file's actions. */
function logCounts(
  approval: Approval,
  outcomes: readonly Outcome[],
  context: { path: string; dryRun: boolean; user: string },
  log: Logger,
): void {
  const applied =
    outcomes.filter((o) =>
      o.status === "ok" || (context.dryRun && o.status === "skipped" && o.because === "dry-run")
    ).length;
  const failed = outcomes.filter((o) => o.status === "failed").length;
  const notDone = outcomes.length - applied - failed;
  const parts = [
    `${applied} ${context.dryRun ? "would be applied" : "applied"}`,
    `${approval.done.length} done already`,
    `${approval.stale.length} stale`,
    `${failed} failed`,
    ...notDone > 0 ? [`${notDone} not done`] : [],
  ];
  const line = `Applied ${context.path} for ${context.user}: ${parts.join(", ")}`;
  const fields = { applied, done: approval.done.length, stale: approval.stale.length, failed };
  if (approval.stale.length + failed + notDone > 0) log.warn(literal(line), fields);
  else log.info(literal(line), fields);
}

/**
 * Why apply reads the whole library: a cover changed by hand since the plan moves no asset's
 * `updatedAt`, so only a full read sees that the action's ground moved.
 */
const APPLY_READS_ALL = "apply reads the whole library, as a cover changed by hand since the " +
  "plan shows only there";

function applyWork(
  context: CommandContext,
  path: string,
  plans: ReadonlyMap<string, Approved>,
  reached: Set<string>,
  reading: ReadingOptions,
): UserWork {
  const { settings } = context;
  const albums = [...plans.values()].flatMap((plan) => plan.settings.filterAlbumIds ?? []);
  return {
    title: "Apply",
    permissions: neededPermissions({ dryRun: settings.dryRun, albums }),
    async prepare(client, user, log) {
      reached.add(user.id);
      const approved = plans.get(user.id);
      if (approved === undefined) {
        throw new Error(`Cannot apply ${path} for ${user.name}: it holds no plan of this user`);
      }
      // The file reviewed is consent to its deletions, as it is to a reset's.
      const work = groupingWork(
        { ...approved.settings, maxStackDeletions: NO_DELETION_LIMIT },
        parseRules(approved.settings.criteria),
        reading,
      );
      const prepared = await work.prepare(client, user, log);
      const fresh = {
        plan: prepared.plan,
        read: prepared.stacks,
        user: planUser({
          user,
          settings: approved.user.settings,
          plan: prepared.plan,
          read: prepared.stacks,
        }),
      };
      const approval = approve(approved.user, fresh);
      logApproval(approval, approved.user, path, log);
      // Actions a run would carry out and the file leaves out stay undone: the next run is full.
      const left = prepared.plan.actions.length - approval.apply.length;
      const cache = prepared.cache === undefined || left === 0
        ? prepared.cache
        : leavingUndone(prepared.cache, `stacksync apply left ${left} of the actions undone`);
      return {
        plan: { ...prepared.plan, actions: approval.apply },
        skippedAssets: prepared.skippedAssets,
        stacks: prepared.stacks,
        ground: prepared.ground,
        ...(cache === undefined ? {} : { cache }),
        report: (outcomes, userLog) => {
          logCounts(
            approval,
            outcomes,
            { path, dryRun: settings.dryRun, user: user.name },
            userLog,
          );
          return { changedSince: approval.stale.length };
        },
      };
    },
  };
}

/** Carries out a plan file. */
export const applyCommand: Command = async (context) => {
  const { settings, options } = context;
  const path = context.operand!;
  const plan = await readCommandFile(path, "plan", parsePlanFile);
  const server = displayUrl(settings.apiUrl);
  if (serverKey(plan.server) !== serverKey(server) && !options.force) {
    throw new ConfigError(
      `Cannot apply ${path} as it is a plan of ${plan.server}, not of API_URL: set API_URL to ` +
        `that server, or give --force if it is the same one: current value is ${server}`,
    );
  }
  const plans = new Map(
    plan.users.map((user) => [user.id, {
      user,
      settings: settingsOfPlan(user.settings, settings, path),
    }]),
  );
  await checkUsers(context, plan, path);
  const journal = await journalingOf(context, "apply");
  const { reading, problem } = await readingOf(context);
  return async () => {
    warnIfUnjournaled(settings);
    warnAboutCache(settings, problem);
    const reached = new Set<string>();
    const work = applyWork(context, path, plans, reached, { ...reading, full: APPLY_READS_ALL });
    const reports = await runUsers(settings, work, {
      signal: context.signal,
      sleep: context.sleep,
      journal,
      locks: locksOf(context, "apply", { unwritable: problem }),
      progress: context.progress,
    });
    // A user the file plans for whose key was not given is not applied: say so, and fail.
    const missed = plan.users.filter((user) => user.actions.length > 0 && !reached.has(user.id));
    for (const user of missed) {
      getLogger(["stacksync", "apply"]).warn(
        "Did not apply the plan of {user}: no key of API_KEY reached that user",
        { user: user.name },
      );
    }
    return missed.length > 0 ? "failed" : outcomeOf(reports, settings.apiKeys.length);
  };
};
