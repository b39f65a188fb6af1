/**
 * The second phase of a real run: the writes that list assets, once every deletion is answered.
 *
 * @module
 */
import { literal } from "../log.ts";
import type { Action, DeleteAction, Outcome, RecordedStack, ReplaceAction } from "../model.ts";
import { describeWrite, lineProperties, properties } from "./action_lines.ts";
import type { ApplyState } from "./apply_state.ts";
import { componentWrites } from "./component_writes.ts";
import { type Component, componentsOf } from "./components.ts";
import { Lanes } from "./lanes.ts";

/**
 * Second phase: replaces and reset creates by component, updates, grows and creates, in plan
 * order, up to `concurrency` at once. A write waits for any earlier one that shares an asset
 * or a stack with it, so it sees what that one left (a stack put back holds its assets).
 */
export async function writePhase(state: ApplyState): Promise<void> {
  const lanes = new Lanes(state.options.concurrency ?? 1);
  const components = componentsOf(state.plan);
  const started = new Set<Component>();
  for (const action of state.plan.actions) {
    const component = components.get(action);
    if (component !== undefined) {
      if (started.has(component)) continue;
      started.add(component);
      const assetIds = component.actions.flatMap((member) => member.assetIds);
      await lanes.start(
        state.keysOf(assetIds, [...component.stackIds]),
        () => componentWrites(state, component),
      );
      continue;
    }
    if (action.kind === "delete" || action.kind === "replace") continue;
    const own = "stackId" in action ? [action.stackId] : [];
    // A grow or a new cover planned again lists only members of its stack as read then.
    const listed = action.kind === "create"
      ? action.assetIds
      : [...action.assetIds, ...action.ground.assetIds];
    await lanes.start(state.keysOf(listed, own), async () => {
      if (!state.outcomes.has(action)) state.outcomes.set(action, await single(state, action));
    });
  }
  await lanes.idle();
}

/** An update, grow or new-group create. */
async function single(
  state: ApplyState,
  action: Exclude<Action, DeleteAction | ReplaceAction>,
): Promise<Outcome> {
  const halt = await state.ready();
  if (halt !== undefined) return { action, status: "skipped", because: halt };
  const own = "stackId" in action ? action.stackId : undefined;
  const blocker = action.assetIds
    .map((id) => state.stillStacked.get(id))
    .find((stackId) => stackId !== undefined && stackId !== own);
  if (blocker !== undefined) {
    state.logger.warn(
      literal(
        `Skipped ${describeWrite(action)}: stack ${blocker} holding some of its assets ` +
          "could not be deleted",
      ),
      properties(action, blocker),
    );
    return { action, status: "skipped", because: "deletion-failed" };
  }
  const judged = await state.judge(action);
  if ("outcome" in judged) {
    state.options.afterAction?.();
    return judged.outcome;
  }
  const sent = judged.send as Exclude<Action, DeleteAction | ReplaceAction>;
  const outcome = await write(state, sent, judged.ground);
  state.options.afterAction?.();
  return outcome;
}

/** Sends an update, grow or create and logs its line. */
async function write(
  state: ApplyState,
  action: Exclude<Action, DeleteAction | ReplaceAction>,
  ground: readonly RecordedStack[],
): Promise<Outcome> {
  if (action.kind === "update-primary") {
    try {
      await state.writer.updateStackPrimary(action.stackId, action.assetIds[0], { ground });
    } catch (error) {
      return state.failed(action, `Failed to update stack ${action.stackId}`, error);
    }
    state.logWritten(action, lineProperties(action));
    return { action, status: "ok" };
  }
  const result = await state.create(action, action.assetIds, ground);
  if (!result.done) {
    const what = action.kind === "grow" ? `update stack ${action.stackId}` : "create stack";
    return state.failedCreate(action, `Failed to ${what}`, result);
  }
  const lineProps = action.kind === "grow"
    ? { ...lineProperties(action), newStackID: result.id }
    : lineProperties(action, result.id);
  state.logWritten(action, lineProps);
  return { action, status: "ok", stackId: result.id };
}
