/**
 * The shell step of fresh ground (docs/safety.md, "Fresh ground"): every write the applier
 * sends to a stack that exists goes through {@linkcode checkGround}, in a real run and in a dry
 * run alike. It reads each stack the action changes (`GET /stacks/{id}`), asks the pure
 * `src/reconcile/ground.ts` what becomes of the action, and logs the line of an action that is
 * not sent as planned. A create of a new group changes no stack that exists and reads nothing.
 *
 * @module
 */
import type { Logger } from "@logtape/logtape";
import { literal } from "../log.ts";
import type { Action, Stack } from "../model.ts";
import { type FreshVerdict, freshVerdict, groundOf, type GroundRules, labelsOf } from "./ground.ts";
import { movesText } from "./render.ts";

/** How the applier reads the stacks an action changes, and the rules it plans again with. */
export interface FreshGround {
  /** The rules the pass planned with, and the members its reads do not show. */
  readonly rules: GroundRules;
  /**
   * `GET /stacks/{id}`: the stack as Immich lists it now, undefined when it is gone. The pass's
   * cache takes what it reads as the stack now.
   */
  read(stackId: string): Promise<Stack | undefined>;
}

/**
 * Reads the stacks an action changes and judges it on them. The line of an action not sent is
 * logged here, the same in a dry run and a real run (one line per action, as every action's);
 * an action planned again logs its own line when it is sent, and here only at debug why.
 *
 * @param action The action as planned.
 * @param ground The reads and the rules.
 * @param logger The user's logger.
 * @returns What to send, if anything.
 * @throws What a read throws: the action is not sent.
 */
export async function checkGround(
  action: Action,
  ground: FreshGround,
  logger: Logger,
): Promise<FreshVerdict> {
  const stacks = groundOf(action);
  const now = new Map<string, Stack | undefined>();
  for (const { id } of stacks) now.set(id, await ground.read(id));
  const verdict = freshVerdict(action, now, ground.rules);
  if (verdict.kind === "holds") return verdict;
  const moved = movesText(verdict.moves, labelsOf(action));
  const fields = {
    stackID: stacks.map((stack) => stack.id).join(","),
    assetID: action.assetIds[0],
    reason: action.reason,
    moved,
  };
  switch (verdict.kind) {
    case "replanned":
      logger.debug(literal(`Planned ${describe(action)} again, as read now: ${moved}`), fields);
      break;
    case "in-sync":
      logger.info(literal(`Stack ${fields.stackID} is in sync, as read now: ${moved}`), fields);
      break;
    case "needs-replace":
      logger.info(
        literal(
          `Left stack ${fields.stackID} as it is, as read now: ${moved}; set ` +
            "REPLACE_STACKS=true to replace it",
        ),
        fields,
      );
      break;
    case "changed":
      logger.warn(
        literal(
          `Left stack ${fields.stackID} as it is: it changed since this pass read it (${moved}); ` +
            "the next pass plans it again",
        ),
        fields,
      );
      break;
  }
  return verdict;
}

function describe(action: Action): string {
  return action.kind === "replace"
    ? `the replace of stack ${action.stackIds.join(", ")}`
    : action.kind === "create"
    ? "a create"
    : `the ${action.kind} of stack ${action.stackId}`;
}
