/**
 * `stacksync` and `stacksync run`: one pass, or passes in cron mode, journaled unless a dry run
 * or JOURNAL=false. With FIX_TRASH_AFTER_STACKING each pass ends with a fix-trash pass,
 * journaled as a run of its own.
 *
 * @module
 */
import { runCron, runPass } from "../run.ts";
import { fixTrashPass, warnAboutTrashSettings } from "./fix_trash.ts";
import {
  type Command,
  type CommandOutcome,
  journalingOf,
  outcomeOf,
  warnIfUnjournaled,
} from "./command.ts";

/** Runs stacksync's pass (RUN_MODE=once) or its cron loop. */
export const runCommand: Command = async (context) => {
  const { settings } = context;
  const journal = await journalingOf(context, "run");
  const fixTrash = settings.fixTrashAfterStacking
    ? { journal: await journalingOf(context, "fix-trash") }
    : undefined;
  return async () => {
    warnIfUnjournaled(settings);
    if (fixTrash !== undefined) warnAboutTrashSettings(settings);
    const options = { signal: context.signal, sleep: context.sleep, journal };
    const keys = settings.apiKeys.length;
    const pass = async (): Promise<CommandOutcome> => {
      const stacked = outcomeOf(await runPass(settings, options), keys);
      if (fixTrash === undefined || context.signal.aborted) return stacked;
      const trashed = outcomeOf(
        await fixTrashPass(settings, { ...options, journal: fixTrash.journal }),
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
