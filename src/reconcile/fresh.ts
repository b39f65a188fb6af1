/**
 * The shell step of fresh ground (docs/safety.md, "Fresh ground"): every write the applier
 * sends to a stack that exists goes through {@linkcode judge}, in a real run and in a dry run
 * alike. It reads each stack the action changes (`GET /stacks/{id}`), asks the pure
 * `src/reconcile/ground.ts` what becomes of the action, and logs the line of an action that is
 * not sent as planned. A create of a new group changes no stack that exists and reads nothing.
 *
 * @module
 */
import type { Logger } from "@logtape/logtape";
import { isAccessDenied } from "../api/errors.ts";
import { literal } from "../log.ts";
import type { Action, Outcome, RecordedStack, Stack } from "../model.ts";
import { freshVerdict, groundOf, type GroundRules, labelsOf } from "./ground.ts";
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

/** An action judged on fresh ground: what to send and on what, or its outcome when not sent. */
export type Judged =
  | { readonly send: Action; readonly ground: readonly RecordedStack[] }
  | { readonly outcome: Outcome };

/**
 * Judges an action on the stacks it changes as read now, when the pass gives fresh ground and
 * the action changes a stack that exists; a create of a new group is sent as planned. The line
 * of an action not sent is logged here, the same in a dry run and a real run (one line per
 * action, as every action's); an action planned again logs its own line when it is sent, and
 * here only at debug why. A read that fails fails the action, which is not sent.
 *
 * @param action The action as planned.
 * @param ground The reads and the rules; none: the action is sent as planned.
 * @param options The user's logger, and the stop signal (a read it cuts short skips the action).
 * @returns What to send and on what, or the action's outcome.
 */
export async function judge(
  action: Action,
  ground: FreshGround | undefined,
  options: { readonly logger: Logger; readonly signal?: AbortSignal },
): Promise<Judged> {
  const stacks = groundOf(action);
  if (ground === undefined || stacks.length === 0) return { send: action, ground: [] };
  const { logger } = options;
  const fields = {
    stackID: stacks.map((stack) => stack.id).join(","),
    assetID: action.assetIds[0],
    filename: action.context.assets[0]?.originalFileName,
    reason: action.reason,
  };
  const now = new Map<string, Stack | undefined>();
  try {
    for (const { id } of stacks) now.set(id, await ground.read(id));
  } catch (error) {
    if (options.signal?.aborted) {
      return { outcome: { action, status: "skipped", because: "aborted" } };
    }
    const what = `Failed to read stack ${fields.stackID} before ${describe(action)}`;
    const detail = error instanceof Error ? error.message : String(error);
    logger.error(literal(what), { ...fields, error: detail });
    return {
      outcome: {
        action,
        status: "failed",
        error: `${what}: ${detail}`,
        ...(isAccessDenied(error) ? { accessDenied: true } : {}),
      },
    };
  }
  const verdict = freshVerdict(action, now, ground.rules);
  if (verdict.kind === "holds") return { send: verdict.action, ground: verdict.ground };
  const moved = movesText(verdict.moves, labelsOf(action));
  const props = { ...fields, moved };
  switch (verdict.kind) {
    case "replanned":
      logger.debug(literal(`Planned ${describe(action)} again, as read now: ${moved}`), props);
      return { send: verdict.action, ground: verdict.ground };
    case "in-sync":
      logger.info(literal(`Stack ${fields.stackID} is in sync, as read now: ${moved}`), props);
      break;
    case "needs-replace":
      logger.info(
        literal(
          `Left stack ${fields.stackID} as it is, as read now: ${moved}; set ` +
            "REPLACE_STACKS=true to replace it",
        ),
        props,
      );
      break;
    case "changed":
      logger.warn(
        literal(
          `Left stack ${fields.stackID} as it is: it changed since this pass read it (${moved}); ` +
            "the next pass plans it again",
        ),
        props,
      );
      break;
  }
  return { outcome: { action, status: "skipped", because: verdict.kind } };
}

function describe(action: Action): string {
  return action.kind === "replace"
    ? `the replace of stack ${action.stackIds.join(", ")}`
    : action.kind === "create"
    ? "a create"
    : `the ${action.kind} of stack ${action.stackId}`;
}
