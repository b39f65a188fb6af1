/**
 * The dependent writes of one component (replaces, and the creates of a reset, that share old
 * stacks): all of them, or none, with the deleted stacks put back (docs/safety.md, "All or
 * nothing").
 *
 * @module
 */
import { literal } from "../log.ts";
import type { Rollback, SkipCause } from "../model.ts";
import { describeWrite, lineProperties, properties } from "./action_lines.ts";
import type { ApplyState } from "./apply_state.ts";
import type { Component, Dependent } from "./components.ts";
import { putBack } from "./put_back.ts";

/** Runs the dependent writes of one component: all of them, or none. */
export async function componentWrites(
  state: ApplyState,
  component: Component,
): Promise<void> {
  const pending = component.actions.filter((action) => !state.outcomes.has(action));
  const deleted = [...component.stackIds].filter((id) => state.deleted.has(id));
  const halt = state.halt();
  if (halt !== undefined) return skipHalted(state, pending, { deleted, halt });
  const blocker = [...component.stackIds].find((id) => state.notDeleted.has(id));
  if (blocker !== undefined) {
    for (const action of pending) {
      state.logger.warn(
        literal(`Skipped ${describeWrite(action)}: stack ${blocker} could not be deleted`),
        properties(action, blocker),
      );
    }
    const rollback = await putBack(state, { deleted, created: [] });
    settle(state, component, pending, { because: "deletion-failed", rollback });
    return;
  }
  await createAll(state, pending, deleted);
}

/** Records a component's writes as skipped when the pass was stopped or refused before it. */
function skipHalted(
  state: ApplyState,
  pending: readonly Dependent[],
  { deleted, halt }: { deleted: readonly string[]; halt: SkipCause },
): void {
  for (const [i, action] of pending.entries()) {
    state.outcomes.set(action, {
      action,
      status: "skipped",
      because: halt,
      ...(i === 0 && deleted.length > 0 ? { deletedStackIds: deleted } : {}),
    });
    if (halt === "aborted" && deleted.length > 0) {
      state.logger.warn(
        literal(`Stopped before ${describeWrite(action)}; the next run creates it`),
        properties(action),
      );
    }
  }
  if (halt === "access-denied") state.reportLost(deleted, state.denied!);
}

/**
 * Creates a component's stacks one after the other, their old stacks gone; when one fails, the
 * stacks created are deleted and the old ones put back, unless the server may have made it.
 */
async function createAll(
  state: ApplyState,
  pending: readonly Dependent[],
  deleted: readonly string[],
): Promise<void> {
  const created: { action: Dependent; id: string }[] = [];
  let told = false;
  for (const action of pending) {
    const stop = await state.ready();
    if (stop !== undefined) {
      // The signal came between two creates of one component: leave the rest to the next
      // run rather than send more writes after it.
      state.outcomes.set(action, {
        action,
        status: "skipped",
        because: stop,
        ...(told ? {} : { deletedStackIds: deleted }),
      });
      told = true;
      continue;
    }
    const result = await state.create(action, action.assetIds);
    state.options.afterAction?.();
    if (result.done) {
      created.push({ action, id: result.id });
      state.outcomes.set(action, { action, status: "ok", stackId: result.id });
      state.logWritten(action, lineProperties(action, result.id), result.id);
      continue;
    }
    const failed = state.failedCreate(action, "Failed to create stack", result);
    state.outcomes.set(action, failed);
    if (result.unknown || result.accessDenied) {
      state.reportLost(deleted, result.error);
      skipRest(state, pending, result.accessDenied ? "access-denied" : "rolled-back");
      return;
    }
    const rollback = await putBack(state, { deleted, created: created.map((c) => c.id) });
    state.outcomes.set(action, { ...failed, rollback });
    for (const { action: done } of created) {
      state.outcomes.set(done, { action: done, status: "skipped", because: "rolled-back" });
    }
    skipRest(state, pending, "rolled-back");
    return;
  }
}

/** Records every write of `pending` that has no outcome yet as skipped. */
function skipRest(state: ApplyState, pending: readonly Dependent[], because: SkipCause): void {
  for (const rest of pending) {
    if (!state.outcomes.has(rest)) {
      state.outcomes.set(rest, { action: rest, status: "skipped", because });
    }
  }
}

/** Records the outcome of every action of a component that could not run, with its rollback. */
function settle(
  state: ApplyState,
  component: Component,
  pending: Dependent[],
  { because, rollback }: { because: SkipCause; rollback: Rollback },
) {
  let attached = false;
  for (const action of component.actions) {
    const outcome = state.outcomes.get(action);
    if (outcome?.status === "failed" && !attached) {
      state.outcomes.set(action, { ...outcome, rollback });
      attached = true;
    }
  }
  for (const action of pending) {
    state.outcomes.set(action, {
      action,
      status: "skipped",
      because,
      ...(attached ? {} : { rollback }),
    });
    attached = true;
  }
}
