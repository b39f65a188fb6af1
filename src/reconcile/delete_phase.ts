/**
 * The first phase of a real run: every `delete` and every deletion of a `replace`, answered
 * before any write that lists assets starts (Immich's merge rule, docs/safety.md).
 *
 * @module
 */
import { literal } from "../log.ts";
import type { DeleteAction, RecordedStack, ReplaceAction } from "../model.ts";
import { lineProperties, properties } from "./action_lines.ts";
import { type ApplyState, previousOf } from "./apply_state.ts";
import { Lanes } from "./lanes.ts";
import { replaceDeletionMessage, unfetchedMessage } from "./render.ts";

/**
 * First phase: every `delete` and every deletion of a `replace`, in plan order, up to
 * `concurrency` at once; all of them answered before the second phase starts.
 */
export async function deletePhase(state: ApplyState): Promise<void> {
  const lanes = new Lanes(state.options.concurrency ?? 1);
  for (const action of state.plan.actions) {
    if (action.kind !== "delete" && action.kind !== "replace") continue;
    const stackIds = action.kind === "delete" ? [action.stackId] : action.deleteStackIds;
    await lanes.start(state.keysOf([], stackIds), () => deletion(state, action, stackIds));
  }
  await lanes.idle();
}

/**
 * The deletions of one `delete` or `replace`, one after the other, once the stacks they
 * delete are read again: a stack that changed since the pass read it is kept, and with it
 * every later write that lists its assets.
 */
async function deletion(
  state: ApplyState,
  action: DeleteAction | ReplaceAction,
  stackIds: readonly string[],
) {
  const halt = await state.ready();
  if (halt !== undefined) {
    state.outcomes.set(action, { action, status: "skipped", because: halt });
    stackIds.forEach((id) => state.keep(id));
    return;
  }
  const judged = await state.judge(action);
  if ("outcome" in judged) {
    state.outcomes.set(action, judged.outcome);
    stackIds.forEach((id) => state.keep(id));
    state.options.afterAction?.();
    return;
  }
  const sent = judged.send as DeleteAction | ReplaceAction;
  if (sent !== action) state.sent.set(action, sent);
  // A cover changed since the plan: a stack that must be put back is put back with it.
  for (const stack of previousOf(sent)) state.previous.set(stack.id, stack);
  if (sent.kind === "replace") {
    const unfetched = unfetchedMessage(sent, { dryRun: false });
    if (unfetched !== undefined) state.logger.info(literal(unfetched), properties(sent));
  }
  for (const [i, stackId] of stackIds.entries()) {
    if (i > 0) await state.pace();
    const ground = judged.ground.filter((stack) => stack.id === stackId);
    const failure = await deleteOne(state, sent, stackId, ground);
    if (failure === undefined) continue;
    state.outcomes.set(action, failure);
    stackIds.slice(i).forEach((id) => state.keep(id));
    break;
  }
  state.options.afterAction?.();
  if (sent.kind === "delete" && !state.outcomes.has(action)) {
    state.outcomes.set(action, { action: sent, status: "ok" });
  }
}

/** Deletes one stack for a `delete` or `replace` and logs it; returns the failed outcome. */
async function deleteOne(
  state: ApplyState,
  action: DeleteAction | ReplaceAction,
  stackId: string,
  ground: readonly RecordedStack[],
) {
  try {
    await state.writer.deleteStack(stackId, { ground });
  } catch (error) {
    return state.failed(action, `Failed to delete stack ${stackId}`, error, stackId);
  }
  state.deleted.add(stackId);
  if (action.kind === "delete") {
    state.logWritten(action, lineProperties(action));
  } else {
    state.logger.info(literal(replaceDeletionMessage(stackId)), properties(action, stackId));
  }
  return undefined;
}
