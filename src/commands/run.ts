/**
 * `stacksync` and `stacksync run`: one pass, or passes in cron mode, journaled unless a dry run
 * or JOURNAL=false, stopping a user whose pass deletes more stacks than MAX_STACK_DELETIONS
 * allows unless `--force`, each reading only what changed since the last one when the cache in
 * STATE_DIR allows it (docs/incremental.md). With FIX_TRASH_AFTER_STACKING each pass ends with a
 * fix-trash pass, journaled as a run of its own.
 *
 * @module
 */
import { getLogger } from "@logtape/logtape";
import { PassMemory, type ReadingOptions } from "../reading/input.ts";
import { NO_DELETION_LIMIT } from "../reconcile/deletions.ts";
import { runCron, runPass } from "../run.ts";
import { openStateFolder, StateError } from "../state/folder.ts";
import { ConflictMemory } from "../state/named.ts";
import { serverKey } from "../shown_url.ts";
import { locksOf, outcomeOf } from "./_users.ts";
import {
  type Command,
  type CommandContext,
  type CommandOutcome,
  journalingOf,
  warnIfUnjournaled,
} from "./command.ts";

/** Runs stacksync's pass (RUN_MODE=once) or its cron loop. */
export const runCommand: Command = async (context) => {
  const { settings } = context;
  const journal = await journalingOf(context, "run");
  const { reading, problem } = await readingOf(context);
  // Loaded only when asked for: a pass without it loads none of fix-trash's planning.
  const fixTrash = settings.fixTrashAfterStacking
    ? { journal: await journalingOf(context, "fix-trash"), ...await import("./fix_trash.ts") }
    : undefined;
  return async () => {
    warnIfUnjournaled(settings);
    fixTrash?.warnAboutTrashSettings(settings);
    warnAboutCache(settings, problem);
    const cron = settings.runMode === "cron";
    const options = {
      signal: context.signal,
      sleep: context.sleep,
      journal,
      reading: { ...reading, memory: new PassMemory(), cron },
      locks: locksOf(context, "run", { wait: cron, unwritable: problem }),
      progress: context.progress,
    };
    // Stacks left as they are are named once, across passes and, with a state folder, runs.
    const named = new ConflictMemory({
      ...(reading.stateDir === undefined ? {} : { stateDir: reading.stateDir }),
      server: serverKey(settings.apiUrl),
      write: reading.record,
    });
    const keys = settings.apiKeys.length;
    // --force is consent to delete past MAX_STACK_DELETIONS.
    const stacking = context.options.force
      ? { ...settings, maxStackDeletions: NO_DELETION_LIMIT }
      : settings;
    const pass = async (): Promise<CommandOutcome> => {
      const stacked = outcomeOf(await runPass(stacking, { ...options, named }), keys);
      if (fixTrash === undefined || context.signal.aborted) return stacked;
      const trashed = outcomeOf(
        await fixTrash.fixTrashPass(settings, {
          ...options,
          journal: fixTrash.journal,
          locks: locksOf(context, "fix-trash", { wait: cron, unwritable: problem }),
        }),
        keys,
      );
      return stacked === "ok" && trashed === "ok" ? "ok" : "failed";
    };
    if (settings.runMode === "cron") {
      await runCron(settings, options, pass);
      return "ok";
    }
    return await pass();
  };
};

/** A state folder that cannot keep the cache costs every pass its speed, said once. */
export function warnAboutCache(settings: { readonly stateDir?: string }, problem?: string): void {
  if (problem === undefined) return;
  getLogger(["stacksync", "state"]).warn(
    "Cannot keep the cache of incremental passes in STATE_DIR {stateDir}: {error}; every " +
      "pass reads the whole library",
    { stateDir: settings.stateDir, error: problem },
  );
}

/**
 * Where the cache is: STATE_DIR, made ready for writing in a real run (the journal's check has
 * done so already unless JOURNAL=false, when a folder that cannot be written only costs the
 * cache). A dry run reads the cache and writes nothing.
 */
export async function readingOf(
  context: CommandContext,
): Promise<{ reading: ReadingOptions; problem?: string }> {
  const { settings } = context;
  const reading = {
    record: !settings.dryRun,
    ...(context.options.full ? { full: "--full" } : {}),
    now: () => context.now().getTime(),
    version: context.version,
  };
  if (settings.stateDir === undefined) return { reading };
  if (!settings.dryRun && !settings.journal) {
    try {
      await openStateFolder(settings.stateDir, { write: true });
    } catch (error) {
      if (!(error instanceof StateError)) throw error;
      const cause = error.cause instanceof Error ? error.cause.message : error.message;
      return { reading, problem: cause };
    }
  }
  return { reading: { ...reading, stateDir: settings.stateDir } };
}
