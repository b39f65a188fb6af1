/**
 * The lines of what a plan leaves as it is: stacks in sync, and conflicts without
 * REPLACE_STACKS, named once (`left_alone.ts`).
 *
 * @module
 */
import type { Logger } from "@logtape/logtape";
import { literal } from "../log.ts";
import type { Plan } from "../model.ts";
import { nameConflicts, type NamedConflicts } from "./left_alone.ts";

/**
 * What the plan leaves as it is: in-sync stacks at debug; conflicts at info the first time, at
 * debug once named (with one line at info counting those).
 */
export function logLeftAlone(plan: Plan, logger: Logger, named: NamedConflicts): void {
  // Asked first: at 50 000 stacks in sync, a call per stack cost a quiet pass 50-80 ms at info.
  if (logger.isEnabledFor("debug")) {
    for (const entry of plan.inSync) {
      logger.debug("Stack {stackID} is in sync", { stackID: entry.stackId });
    }
  }
  const { name, known } = nameConflicts(plan.needsReplace, named);
  for (const [level, entries] of [["info", name], ["debug", known]] as const) {
    if (!logger.isEnabledFor(level)) continue;
    for (const entry of entries) {
      const stackIds = entry.stackIds.join(", ");
      const why = entry.reason === "member-in-trash"
        ? "adding photos to it would drop its members in the trash; restore or delete them, " +
          "or set REPLACE_STACKS=true to replace it"
        : "set REPLACE_STACKS=true to replace it";
      logger[level](literal(`Left stack ${stackIds} as it is: ${why}`), {
        stackID: entry.stackIds.join(","),
        assetID: entry.assetIds[0],
        filename: entry.context.assets[0]?.originalFileName,
        reason: entry.reason,
        assets: entry.assetIds.length,
      });
    }
  }
  if (known.length === 0) return;
  const [what, them] = known.length === 1
    ? ["stack as it is", "it"]
    : ["stacks as they are", "them"];
  logger.info(
    literal(
      `Left ${known.length} ${what}, named in an earlier pass: set REPLACE_STACKS=true to ` +
        `replace ${them}; LOG_LEVEL=debug names ${them} every pass`,
    ),
    { stacks: known.length },
  );
}
