/**
 * A dry run of a plan: each action's line as a real run would send it, nothing written.
 *
 * @module
 */
import type { Logger } from "@logtape/logtape";
import { literal } from "../log.ts";
import type { Outcome, Plan } from "../model.ts";
import { lineProperties, properties } from "./action_lines.ts";
import type { ApplyOptions } from "./apply.ts";
import { unfetchedMessage, writeMessage } from "./render.ts";

/**
 * A dry run: each action's line as a real run would send it, the stacks it changes read again
 * first as in a real run, and nothing written.
 */
export async function dryRun(
  plan: Plan,
  options: ApplyOptions,
  logger: Logger,
): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let denied: string | undefined;
  // Loaded only by a dry run: a real pass with nothing to write loads no ground rules.
  const { judge } = await import("./fresh.ts");
  for (const action of plan.actions) {
    if (denied !== undefined) {
      outcomes.push({ action, status: "skipped", because: "access-denied" });
      continue;
    }
    const judged = await judge(action, options.ground, { logger, signal: options.signal });
    if ("outcome" in judged) {
      outcomes.push(judged.outcome);
      options.afterAction?.();
      if (judged.outcome.status === "failed" && judged.outcome.accessDenied) {
        denied = judged.outcome.error;
      }
      continue;
    }
    const sent = judged.send;
    logger.info(literal(writeMessage(sent, { dryRun: true })), lineProperties(sent));
    const unfetched = unfetchedMessage(sent, { dryRun: true });
    if (unfetched !== undefined) logger.info(literal(unfetched), properties(sent));
    options.afterAction?.();
    outcomes.push({ action: sent, status: "skipped", because: "dry-run" });
  }
  return outcomes;
}
