/**
 * `stacksync` and `stacksync run`: one pass, or passes in cron mode, journaled unless a dry run
 * or JOURNAL=false, each reading only what changed since the last one when the cache in
 * STATE_DIR allows it (docs/incremental.md).
 *
 * @module
 */
import { getLogger } from "@logtape/logtape";
import { runCron, type RunOptions, runPass } from "../run.ts";
import { openStateFolder, StateError } from "../state/folder.ts";
import {
  type Command,
  type CommandContext,
  journalingOf,
  outcomeOf,
  warnIfUnjournaled,
} from "./command.ts";

/** Runs stacksync's pass (RUN_MODE=once) or its cron loop. */
export const runCommand: Command = async (context) => {
  const { settings } = context;
  const journal = await journalingOf(context, "run");
  const { reading, problem } = await readingOf(context);
  return async () => {
    warnIfUnjournaled(settings);
    if (problem !== undefined) {
      getLogger(["stacksync", "state"]).warn(
        "Cannot keep the cache of incremental passes in STATE_DIR {stateDir}: {error}; every " +
          "pass reads the whole library",
        { stateDir: settings.stateDir, error: problem },
      );
    }
    const options = { signal: context.signal, sleep: context.sleep, journal, reading };
    if (settings.runMode === "cron") {
      await runCron(settings, options);
      return "ok";
    }
    return outcomeOf(await runPass(settings, options), settings.apiKeys.length);
  };
};

/**
 * Where the cache is: STATE_DIR, made ready for writing in a real run (the journal's check has
 * done so already unless JOURNAL=false, when a folder that cannot be written only costs the
 * cache). A dry run reads the cache and writes nothing.
 */
async function readingOf(
  context: CommandContext,
): Promise<{ reading: NonNullable<RunOptions["reading"]>; problem?: string }> {
  const { settings } = context;
  const reading = {
    record: !settings.dryRun,
    full: context.options.full,
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
