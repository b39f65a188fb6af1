/**
 * `stacksync` and `stacksync run`: one pass, or passes in cron mode, journaled unless a dry run
 * or JOURNAL=false.
 *
 * @module
 */
import { runCron, runPass } from "../run.ts";
import { type Command, journalingOf, outcomeOf, warnIfUnjournaled } from "./command.ts";

/** Runs stacksync's pass (RUN_MODE=once) or its cron loop. */
export const runCommand: Command = async (context) => {
  const { settings } = context;
  const journal = await journalingOf(context, "run");
  return async () => {
    warnIfUnjournaled(settings);
    const options = { signal: context.signal, sleep: context.sleep, journal };
    if (settings.runMode === "cron") {
      await runCron(settings, options);
      return "ok";
    }
    return outcomeOf(await runPass(settings, options), settings.apiKeys.length);
  };
};
