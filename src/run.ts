/**
 * The imperative shell: one pass over every user (fetch, group, promote, plan, apply), the
 * cron loop around it, and the summaries. Users are processed one after the other; a user
 * whose key fails is logged (never with the key) and skipped.
 *
 * @module
 */
import { getLogger, type Logger } from "@logtape/logtape";
import { literal } from "./log.ts";
import { delay } from "./api/delay.ts";
import { ApiError } from "./api/errors.ts";
import { createImmichClient, type ImmichClient } from "./api/immich.ts";
import { neededPermissions } from "./api/permissions.ts";
import { SELF_REKT_PAUSE_MS, type Settings } from "./config.ts";
import { type GroupingRules, parseRules } from "./grouping/criteria.ts";
import { releaseMemory } from "./memory.ts";
import { readPassInput } from "./reading/choose.ts";
import type { PassInput, ReadingOptions } from "./reading/input.ts";
import { libraryQueryOf, type QuerySettings } from "./reading/query.ts";
import { type PassCache, warnCacheUnwritten } from "./state/cache_recorder.ts";
import type { Outcome, Plan, TrashPlan, User } from "./model.ts";
import { type ApplyOptions, applyPlan, type StackWriter } from "./reconcile/apply.ts";
import type { GroundRules } from "./reconcile/ground.ts";
import { namedAfter } from "./reconcile/left_alone.ts";
import type { PlanOptions } from "./reconcile/plan.ts";
import { hasChanges } from "./reconcile/plan_count.ts";
import { fileList, nameList, plural, renderPlan, summarizePlan } from "./reconcile/render.ts";
import type { RunJournal } from "./state/folder.ts";
import type { ConflictMemory } from "./state/named.ts";
import { journalWrites, type StacksAsRead, type UserJournal } from "./state/journal.ts";
import { type HeldLock, LockedError, type UserLocks } from "./state/lock.ts";
import type { TrashOutcome, TrashWriter } from "./trash/apply.ts";
import { startApplying, watchSearch } from "./progress/hooks.ts";
import { NO_PROGRESS, type Progress } from "./progress/show.ts";

export {
  countOutcomes,
  type PassCounts,
  passSucceeded,
  summaryLine,
  type UserReport,
} from "./pass_report.ts";
import {
  addTrashOutcomes,
  countOutcomes,
  type PassCounts,
  passSucceeded,
  summaryLine,
  type UserReport,
  ZERO,
} from "./pass_report.ts";

const logger = getLogger(["stacksync", "run"]);

/**
 * Actions between two {@linkcode releaseMemory} calls: each write's answer is a whole parsed
 * stack, and each dry-run line a log record.
 */
const ACTIONS_PER_RELEASE = 5000;

/** Options of {@linkcode runPass} and {@linkcode runCron}. */
export interface RunOptions {
  /**
   * The shutdown signal: aborts a read in flight and any wait between retries at once (a write
   * already sent gets a second for its answer), skips the actions not started, and ends the
   * cron sleep at once.
   */
  readonly signal?: AbortSignal;
  /**
   * Waits between cron passes and before each retry of a request; rejects when the signal
   * aborts.
   * @default {delay}
   */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Sees each user's plan and what became of its actions, once they are applied. */
  readonly observe?: (pass: PassRecord) => void;
  /** Records every write; see {@linkcode Journaling}. */
  readonly journal?: Journaling;
  /**
   * What earlier passes named of the stacks they left as they are, so each is named once
   * (`src/state/named.ts`); without it every pass names them all.
   */
  readonly named?: ConflictMemory;
  /**
   * Where the cache of incremental passes is and what a pass may do with it; without it every
   * pass reads the whole library and keeps no cache.
   */
  readonly reading?: ReadingOptions;
  /** The state folder's locks: one held for each user's pass; none in a dry run. */
  readonly locks?: UserLocks;
  /** Shows the reading of each user's search and the applying of the plan (`src/progress/`). */
  readonly progress?: Progress;
}

/** The settings a pass over every user reads: server, keys, dry run and how writes are sent. */
export type PassSettings = Pick<
  Settings,
  "apiUrl" | "apiKeys" | "dryRun" | "requestTimeout" | "stackConcurrency" | "preventSelfRekt"
>;

/**
 * Where a pass records its writes, so that `stacksync undo` can put them back (`src/state/`).
 * Without it nothing is recorded.
 */
export interface Journaling {
  /** Starts the journal of one pass; each user's file appears at that user's first write. */
  start(): Promise<RunJournal>;
  /** After a pass: deletes the journals beyond JOURNAL_KEEP. */
  finish(): Promise<void>;
}

/** One user's plan and the outcome of each of its actions, for {@linkcode RunOptions.observe}. */
export interface PassRecord {
  readonly user: string;
  readonly plan: Plan;
  readonly outcomes: readonly Outcome[];
}

/** Everything one user's pass computes before it writes. */
export interface Prepared {
  readonly plan: Plan;
  /** Assets left out of grouping or invalid, by reason. */
  readonly skippedAssets: Readonly<Record<string, number>>;
  /** The stacks the plan was made from: the journal saves them before the first write. */
  readonly stacks: StacksAsRead;
  /** Start the journal even when nothing is written (an undo records that it ran). */
  readonly journalAlways?: boolean;
  /** For an undo: the run it puts back, recorded in the journal. */
  readonly undoes?: string;
  /** Moves to or from the trash, applied after the plan (fix-trash, an undo of it). */
  readonly trash?: TrashPlan;
  /** The line that states the trash plan, logged with the plan's. */
  readonly trashSummary?: string;
  /**
   * Reports what the work adds to the summary once the plan is applied (an undo maps old stack
   * ids to new ones and names the stacks it left alone).
   */
  readonly report?: (outcomes: readonly Outcome[], log: Logger) => { changedSince: number };
  /** Records the writes' answers and the pass's end in the cache of incremental passes. */
  readonly cache?: PassCache;
  /**
   * The rules the plan was made with, and the members its reads do not show: each action that
   * changes a stack is judged again on them, on the stack read just before its write.
   */
  readonly ground: GroundRules;
}

/** What a pass that changes no stack prepares (fix-trash, an undo with nothing to undo). */
export const NO_STACK_PLAN: Pick<Prepared, "plan" | "ground"> = {
  plan: { actions: [], inSync: [], needsReplace: [] },
  ground: { replaceStacks: false, removeSingleAssetStacks: false, resetStacks: false },
};

/**
 * One user's part of a pass that is not shared: what it needs, and reading and planning. The
 * shared part (preflight, journal, applying, summary) is {@linkcode runUsers}.
 */
export interface UserWork {
  /** What the closing line calls the pass: `Run`, `Undo`, `Restore`. */
  readonly title: string;
  /** The permissions the key needs, all checked before anything else. */
  readonly permissions: readonly string[];
  /**
   * The user's closing line.
   *
   * @default {summaryLine}
   */
  readonly summary?: (report: UserReport, dryRun: boolean) => string;
  /**
   * Reads the server and plans.
   *
   * @param client The user's Immich client.
   * @param user The key's user.
   * @param log A logger carrying the user's name.
   * @returns The plan and what goes with it.
   * @throws Anything that should skip this user, with a one-line message.
   */
  prepare(client: ImmichClient, user: User, log: Logger): Promise<Prepared>;
}

/**
 * The work of a stacking pass: read, group, promote and plan with the run's settings. `plan`
 * and `apply` run it too, so that they read and plan exactly as a run does.
 *
 * @param settings The settings that shape the plan, and DRY_RUN (the permissions it needs).
 * @param criteria CRITERIA, parsed.
 * @param reading The cache of incremental passes and what the pass may do with it; without it
 *   the pass reads the whole library and keeps no cache.
 * @returns The work for {@linkcode runUsers}.
 */
export function groupingWork(
  settings: QuerySettings & Pick<Settings, "dryRun" | "maxStackDeletions">,
  criteria: GroupingRules,
  reading?: ReadingOptions,
): UserWork {
  const query = libraryQueryOf(settings, criteria);
  const planning: Planning = {
    replaceStacks: settings.replaceStacks,
    removeSingleAssetStacks: settings.removeSingleAssetStacks,
    resetStacks: settings.resetStacks,
    maxStackDeletions: settings.maxStackDeletions,
  };
  const options = reading ?? { record: false, now: Date.now, version: "" };
  return {
    title: "Run",
    permissions: neededPermissions({ dryRun: settings.dryRun, albums: settings.filterAlbumIds }),
    prepare: async (client, user, log) =>
      prepare(client, user, await readPassInput(client, user, query, options, log), planning, log),
  };
}

/** The settings that shape a plan beyond its groups, and how many deletions it may make. */
export type Planning =
  & Pick<PlanOptions, "replaceStacks" | "removeSingleAssetStacks" | "resetStacks">
  & Pick<Settings, "maxStackDeletions">;

async function prepare(
  client: ImmichClient,
  user: User,
  input: PassInput,
  planning: Planning,
  userLog: Logger,
): Promise<Prepared> {
  const { maxStackDeletions: _, ...rules } = planning;
  if ("reused" in input) {
    return {
      plan: input.reused,
      skippedAssets: input.skippedAssets,
      stacks: { stacks: [], fileNames: new Map() },
      ...(input.cache === undefined ? {} : { cache: input.cache }),
      ground: rules,
    };
  }
  // Planning is loaded by a pass that plans: a pass that reuses the last plan loads none of it.
  const { planPass } = await import("./run_plan.ts");
  return await planPass(input, { client, user, planning, userLog });
}

/**
 * How many file names of photos it did not fetch a command looks up for its lines (the stack
 * members a replace or delete takes out, the photos an undo moves to the trash again); the
 * others are named by id.
 */
export const MAX_NAME_LOOKUPS = 50;

/** How many unfinished actions the closing list names before it says how many more. */
const MAX_LEFT_UNDONE = 10;

/** Why an action was not done, in words. */
const SKIP_WORDS: Readonly<Record<string, string>> = {
  "aborted": "stopped by the shutdown signal",
  "deletion-failed": "held back as a stack it needed deleted could not be",
  "access-denied": "not sent as the server refused the key",
  "rolled-back": "undone as a replace sharing its stacks failed",
  "changed": "not sent as its stack changed since the pass read it",
};

/** Actions not sent as the stack, read again, needs no write or is left alone by the rules. */
const SETTLED: ReadonlySet<string> = new Set(["dry-run", "in-sync", "needs-replace"]);

/** How a user's plan is applied: the pass's settings, its signals and the fresh ground. */
function applyingOptions(
  settings: PassSettings,
  options: RunOptions,
  user: {
    readonly user: string;
    /** Aborts when the journal cannot be written. */
    readonly stop: AbortSignal;
    /** Whether the writes are journaled, so that undo can put them back. */
    readonly recorded: boolean;
    readonly ground: {
      readonly rules: GroundRules;
      readonly client: ImmichClient;
      readonly cache: PassCache | undefined;
    };
    readonly named?: ApplyOptions["namedConflicts"];
  },
): ApplyOptions {
  const { client, cache } = user.ground;
  const progress = options.progress ?? NO_PROGRESS;
  let actions = 0;
  return {
    dryRun: settings.dryRun,
    signal: options.signal === undefined ? user.stop : AbortSignal.any([options.signal, user.stop]),
    logger: getLogger(["stacksync", "reconcile"]).with({ user: user.user }),
    afterAction: () => {
      progress.advance(1);
      if (++actions % ACTIONS_PER_RELEASE === 0) releaseMemory();
    },
    concurrency: settings.stackConcurrency,
    pauseMs: settings.preventSelfRekt ? SELF_REKT_PAUSE_MS : 0,
    ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
    ...(user.recorded ? { recovery: "stacksync undo puts it back" } : {}),
    ground: {
      rules: user.ground.rules,
      read: async (stackId) => {
        const stack = await client.getStack(stackId);
        if (!settings.dryRun) await cache?.reread(stackId, stack);
        return stack;
      },
    },
    ...(user.named === undefined ? {} : { namedConflicts: user.named }),
  };
}

/** A user's report: stopped at the first write the key may not make, else done. */
function reportOf(
  user: string,
  pass: {
    readonly outcomes: readonly (Outcome | TrashOutcome)[];
    readonly counts: UserReport["counts"];
    readonly skippedAssets: UserReport["skippedAssets"];
  },
): UserReport {
  const denied = pass.outcomes.find((outcome) =>
    outcome.status === "failed" && outcome.accessDenied === true
  );
  return {
    user,
    status: denied === undefined ? "done" : "stopped",
    ...(denied?.status === "failed" ? { error: denied.error } : {}),
    counts: pass.counts,
    skippedAssets: pass.skippedAssets,
  };
}

/** The user's summary line: an error when stopped, a warning when something is left. */
function logSummary(report: UserReport, summary: string, userLog: Logger): void {
  if (report.status === "stopped") userLog.error(literal(summary));
  else if (!passSucceeded([report])) userLog.warn(literal(summary));
  else userLog.info(literal(summary));
}

/**
 * The report of a user whose pass stopped before applying: by the shutdown signal (nothing was
 * written: applyPlan records each write's failure itself), or by an error that costs only this
 * user. API errors name endpoint, status, server message and correlation id, never the key.
 */
function skippedUser(user: string, error: unknown, signal: AbortSignal | undefined): UserReport {
  if (signal?.aborted && error === signal.reason) {
    logger.warn(
      "Stopped {user} by the shutdown signal before any change: " +
        "nothing was written for this user",
      { user },
    );
    return { user, status: "failed", error: SKIP_WORDS.aborted, counts: ZERO, skippedAssets: {} };
  }
  const message = error instanceof Error ? error.message : String(error);
  logger.error("Skipping {user}: {error}", { user, error: message });
  if (!(error instanceof ApiError)) logger.debug("{stack}", { stack: (error as Error).stack });
  return { user, status: "failed", error: message, counts: ZERO, skippedAssets: {} };
}

/** The plan as the user's log states it: each action at debug, then the summary lines. */
function logPlanned(
  prepared: Pick<Prepared, "plan" | "trash" | "trashSummary">,
  userLog: Logger,
): void {
  const { plan, trash } = prepared;
  // The whole plan is one line per action: built only when debug shows it.
  if (userLog.isEnabledFor("debug")) {
    for (const line of renderPlan(plan).slice(0, -1)) userLog.debug(literal(line));
  }
  // A pass that only moves photos to or from the trash has no stacks to state.
  if (trash === undefined || hasChanges(plan)) userLog.info(literal(summarizePlan(plan)));
  if (prepared.trashSummary !== undefined) userLog.info(literal(prepared.trashSummary));
}

/**
 * Lists after the summary what the pass left for the next run, so the failures need not be
 * searched for in a long log. Each line says what became of the stacks involved: a stack a
 * replace deleted and put back has a new id, one it could not put back is named as such.
 */
function logLeftUndone(
  outcomes: readonly (Outcome | TrashOutcome)[],
  userLog: Logger,
): void {
  const undone = outcomes.filter((outcome) =>
    outcome.status === "failed" || (outcome.status === "skipped" && !SETTLED.has(outcome.because))
  );
  for (const outcome of undone.slice(0, MAX_LEFT_UNDONE)) {
    if (outcome.status === "ok") continue;
    const { action } = outcome;
    const target = action.kind === "create"
      ? `create stack with ${action.assetIds.length} assets`
      : action.kind === "replace"
      ? `replace stack ${action.stackIds.join(", ")}`
      : action.kind === "trash"
      ? `move ${nameList(action.context.assets)} to the trash`
      : action.kind === "restore"
      ? `restore ${nameList(action.context.assets)} from the trash`
      : `${action.kind} stack ${action.stackId}`;
    const why = outcome.status === "failed" ? outcome.error : SKIP_WORDS[outcome.because];
    const rollback = outcome.rollback;
    const deleted = outcome.status === "skipped" ? outcome.deletedStackIds ?? [] : [];
    const after = [
      ...rollback?.restored.map((stack) => `; stack ${stack.from} was put back as ${stack.to}`) ??
        [],
      ...rollback?.lost.map((stack) => `; stack ${stack.from} could not be put back`) ?? [],
      ...deleted.map((id) => `; stack ${id} is deleted already`),
    ].join("");
    userLog.warn(literal(`Left for the next run: ${target}: ${why}${after}`), {
      assetID: action.assetIds[0],
      filename: action.context.assets[0]?.originalFileName,
      reason: action.reason,
      files: fileList(action.context.assets),
    });
  }
  if (undone.length > MAX_LEFT_UNDONE) {
    userLog.warn("Left for the next run: {more} more actions", {
      more: undone.length - MAX_LEFT_UNDONE,
    });
  }
}

async function processUser(
  apiKey: string,
  position: number,
  settings: PassSettings,
  work: UserWork,
  options: RunOptions & { readonly run?: RunJournal },
): Promise<UserReport> {
  let user = `user ${position}`;
  const client = createImmichClient({
    baseUrl: settings.apiUrl,
    apiKey,
    timeoutMs: settings.requestTimeout * 1000,
    signal: options.signal,
    ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
  });
  let journal: UserJournal | undefined;
  let lock: HeldLock | undefined;
  const progress = options.progress ?? NO_PROGRESS;
  try {
    await client.serverVersion();
    await client.requirePermissions(work.permissions);
    const me = await client.me();
    user = me.name;
    const userLog = logger.with({ user });
    userLog.info("Processing user: {user}", { user });
    lock = await lockUser(me, userLog, options);

    // Released once the journal has them (it drops them at its first write): at 50 000 stacks
    // the stacks as read weigh tens of megabytes that applying does not need.
    let prepared: Prepared | undefined = await work.prepare(
      watchSearch(client, { progress, user }),
      me,
      userLog,
    );
    const { plan, trash, report: reportExtra, skippedAssets, cache, ground } = prepared;
    logPlanned(prepared, userLog);

    // A journal that cannot be written stops the user's pass: no write goes unrecorded.
    const stop = new AbortController();
    const answering = cache?.writes(client) ?? client;
    let writer: StackWriter & TrashWriter = answering;
    if (options.run !== undefined && !settings.dryRun) {
      journal = options.run.forUser(me, prepared.stacks, prepared.undoes);
      if (prepared.journalAlways) journal.open();
      writer = journalWrites(answering, journal, { onFailure: (error) => stop.abort(error) });
    }
    prepared = undefined;
    const applying = applyingOptions(settings, options, {
      user,
      stop: stop.signal,
      recorded: journal !== undefined,
      ground: { rules: ground, client, cache },
      ...(options.named === undefined ? {} : { named: await options.named.named(me.id) }),
    });
    startApplying(progress, { user, plan, trash, dryRun: settings.dryRun });
    const outcomes = await applyPlan(plan, writer, applying);
    await options.named?.remember(me.id, namedAfter(plan.needsReplace));
    // Loaded only by a pass with a trash plan (fix-trash, undo).
    const trashOutcomes = trash === undefined
      ? []
      : await (await import("./trash/apply.ts")).applyTrash(trash, writer, {
        ...applying,
        logger: getLogger(["stacksync", "trash"]).with({ user }),
      });
    progress.end();
    options.observe?.({ user, plan, outcomes });
    const counts = {
      ...addTrashOutcomes(countOutcomes(plan, outcomes, settings.dryRun), trashOutcomes),
      ...reportExtra?.(outcomes, userLog) ?? { changedSince: 0 },
    };
    await journal?.close({ changedSince: counts.changedSince, notDone: counts.notDone });
    const report = reportOf(user, {
      outcomes: [...outcomes, ...trashOutcomes],
      counts,
      skippedAssets,
    });
    logSummary(report, (work.summary ?? summaryLine)(report, settings.dryRun), userLog);
    logLeftUndone([...outcomes, ...trashOutcomes], userLog);
    if (cache !== undefined) {
      const unfinished = unfinishedReason(counts, client.faults(), options.signal?.aborted);
      await cache.finish({ plan, outcomes, ...(unfinished === undefined ? {} : { unfinished }) })
        .catch((error) => warnCacheUnwritten(userLog, error));
    }
    return report;
  } catch (error) {
    await journal?.close().catch(() => {});
    return skippedUser(user, error, options.signal);
  } finally {
    progress.end();
    lock?.release();
    client.close();
  }
}

/**
 * Takes the user's lock of the state folder before anything of the user is read, so that no
 * other process changes the ground the pass plans on (docs/state.md, "One process at a time").
 * A lock that cannot be made (its folder cannot be created or written) does not stop the pass:
 * it goes on, with a warning; a journal that cannot be written stops its writes anyway.
 *
 * @returns The lock, or undefined without one.
 * @throws {LockedError} When another process holds it and the pass does not wait.
 */
async function lockUser(
  me: User,
  userLog: Logger,
  options: RunOptions,
): Promise<HeldLock | undefined> {
  if (options.locks === undefined) return undefined;
  try {
    return await options.locks.take(me.id, {
      waiting: (holder) =>
        userLog.info("Waiting for another stacksync process to finish this user: {holder}", {
          holder,
        }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } catch (error) {
    if (error instanceof LockedError || options.signal?.aborted) throw error;
    userLog.warn(
      "Cannot lock the state folder for this user: {error}; another stacksync process could " +
        "work on it at the same time",
      { error: error instanceof Error ? error.message : String(error) },
    );
    return undefined;
  }
}

/**
 * Why a user's pass did not finish cleanly, for the cache: the next pass is then full.
 *
 * @param counts The pass's counts.
 * @param faults How many requests failed and were retried or not.
 * @param aborted Whether the shutdown signal came.
 * @returns The reason, or undefined for a clean pass.
 */
function unfinishedReason(
  counts: PassCounts,
  faults: number,
  aborted: boolean | undefined,
): string | undefined {
  if (counts.failed > 0) return `${plural(counts.failed, "action")} failed`;
  if (counts.notDone > 0 || aborted) return "it was stopped before its end";
  if (faults > 0) return `the server answered ${plural(faults, "request")} with an error`;
  return undefined;
}

/**
 * Runs one pass over every user, one after the other, and logs the end-of-run summary.
 *
 * @param settings The validated settings.
 * @param options The stop signal, the sleep between request attempts, and the journal.
 * @returns One report per user that was reached; users after a shutdown signal are not.
 * @throws {SyntaxError} When CRITERIA is invalid (already checked at start-up).
 */
export function runPass(settings: Settings, options: RunOptions = {}): Promise<UserReport[]> {
  return runUsers(
    settings,
    groupingWork(settings, parseRules(settings.criteria), options.reading),
    options,
  );
}

/**
 * Carries out one user's work for every key, one user after the other, the way a pass does:
 * preflight of the key's permissions, the work's reading and planning, the journal (unless a
 * dry run), `applyPlan`, the summary per user and the closing line. A user whose key or work
 * fails is logged (never with the key) and skipped.
 *
 * @param settings The server, the keys, whether it is a dry run, and how writes are sent.
 * @param work What each user's pass reads and plans.
 * @param options The stop signal, the sleep between request attempts, and the journal.
 * @returns One report per user that was reached.
 */
export async function runUsers(
  settings: PassSettings,
  work: UserWork,
  options: RunOptions = {},
): Promise<UserReport[]> {
  const run = settings.dryRun ? undefined : await options.journal?.start();
  const reports: UserReport[] = [];
  for (const [index, apiKey] of settings.apiKeys.entries()) {
    if (options.signal?.aborted) break;
    reports.push(await processUser(apiKey, index + 1, settings, work, { ...options, run }));
  }
  if (run !== undefined) {
    await run.end();
    await options.journal?.finish();
  }
  const notReached = settings.apiKeys.length - reports.length;
  if (notReached > 0) {
    logger.warn(
      literal(
        `Stopped by the shutdown signal: ${notReached} of ${
          plural(settings.apiKeys.length, "user")
        } not processed; the next run processes them`,
      ),
    );
  }
  const failedUsers = reports.filter((r) => r.status === "failed");
  const stoppedUsers = reports.filter((r) => r.status === "stopped");
  const failedActions = reports.reduce((sum, r) => sum + r.counts.failed, 0);
  // A user skipped or stopped was not processed: each is counted once, under its own word.
  const processed = reports.length - failedUsers.length - stoppedUsers.length;
  const line = `${work.title} finished: ${plural(processed, "user")} processed, ` +
    `${plural(failedUsers.length, "user")} skipped, ` +
    (stoppedUsers.length > 0 ? `${plural(stoppedUsers.length, "user")} stopped, ` : "") +
    `${plural(failedActions, "action")} failed`;
  const context = {
    users: reports.length,
    failedUsers: [...failedUsers, ...stoppedUsers].map((r) => `${r.user}: ${r.error}`),
    failedActions,
  };
  if (passSucceeded(reports) && reports.length === settings.apiKeys.length) {
    logger.info(literal(line), context);
  } else {
    logger.warn(literal(line), context);
  }
  return reports;
}

/**
 * Runs a pass every `settings.cronInterval` seconds until the signal aborts; the sleep ends at
 * once and the action in flight finishes.
 *
 * @param settings The validated settings (RUN_MODE=cron).
 * @param options The stop signal and an injectable sleep.
 * @param pass One pass; by default {@linkcode runPass} (the run command adds fix-trash to it).
 */
export async function runCron(
  settings: Settings,
  options: RunOptions = {},
  pass: () => Promise<unknown> = () => runPass(settings, options),
): Promise<void> {
  const sleep = options.sleep ?? delay;
  while (!options.signal?.aborted) {
    await pass();
    if (options.signal?.aborted) break;
    logger.info("Next pass in {seconds} s", { seconds: settings.cronInterval });
    try {
      await sleep(settings.cronInterval * 1000, options.signal);
    } catch (error) {
      if (options.signal?.aborted) break;
      throw error;
    }
  }
}
