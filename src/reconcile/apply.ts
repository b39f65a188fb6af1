/**
 * Carries out a {@linkcode Plan} through a {@linkcode StackWriter}, one write at a time, and
 * records what became of each action. A failed action is logged with its stack and asset
 * context and the rest of the plan still runs.
 *
 * @module
 */

import { getLogger, type Logger } from "@logtape/logtape";
import type { Action, DeleteAction, Outcome, Plan, ReplaceAction } from "../model.ts";
import { writeMessage } from "./render.ts";

/** The three stack writes a plan needs; the Immich client implements it. */
export interface StackWriter {
  /** `POST /stacks`: the first id becomes the primary. Resolves to the new stack. */
  createStack(assetIds: readonly string[]): Promise<{ id: string }>;
  /** `PUT /stacks/{id}` with a new primary that is already a member. */
  updateStackPrimary(stackId: string, primaryAssetId: string): Promise<unknown>;
  /** `DELETE /stacks/{id}`: the assets stay, unstacked. */
  deleteStack(stackId: string): Promise<void>;
}

/** Options for {@linkcode applyPlan}. */
export interface ApplyOptions {
  /** Log the `[DRY RUN] Would …` lines and call no writer method. */
  readonly dryRun: boolean;
  /**
   * Stops the run before the next write starts; the write in flight finishes. Actions not
   * started are recorded as skipped because `aborted`.
   */
  readonly signal?: AbortSignal;
  /**
   * Where the lines go, e.g. a logger carrying the user's name via `with()`.
   *
   * @default {getLogger(["stacksync", "reconcile"])}
   */
  readonly logger?: Logger;
  /**
   * Called after each action is carried out (for a replace: once after its deletions and once
   * after its creation) or, in a dry run, logged; the run uses it to release memory every few
   * thousand.
   */
  readonly afterAction?: () => void;
}

/**
 * Applies a plan in two phases, as Immich's merge rule requires: first every deletion (the
 * `delete` actions and the deletions of each `replace`), then every write that lists assets
 * (the creations of the replaces, primary updates, grows and creates), each phase in plan
 * order.
 *
 * Stacks already in sync are logged at debug, conflicts left alone (no REPLACE_STACKS) at info.
 * A `replace` stops at its first failed deletion and does not create its group; a replace
 * that needs a stack another replace failed to delete is skipped (`deletion-failed`). A dry
 * run logs what it would do, calls nothing and records every action as skipped (`dry-run`).
 *
 * @param plan The plan from `planStacks`.
 * @param writer Performs the writes.
 * @param options Dry run, stop signal and logger.
 * @returns One outcome per action, in the order of `plan.actions`.
 *
 * @example A failed deletion keeps the replacement from being created
 * ```ts
 * import assert from "node:assert/strict";
 * import { applyPlan } from "./apply.ts";
 *
 * const calls: string[] = [];
 * const writer = {
 *   createStack: (ids: readonly string[]) => (calls.push(`create ${ids}`), Promise.resolve({ id: "new" })),
 *   updateStackPrimary: () => Promise.resolve(),
 *   deleteStack: (id: string) => (calls.push(`delete ${id}`), Promise.reject(new Error("boom"))),
 * };
 * const replace = {
 *   kind: "replace", stackIds: ["s1"], deleteStackIds: ["s1"], assetIds: ["a", "b"],
 *   reason: "member-outside-group", context: { assets: [] },
 * } as const;
 * const outcomes = await applyPlan({ actions: [replace], inSync: [], needsReplace: [] }, writer, { dryRun: false });
 * assert.deepEqual(calls, ["delete s1"]);
 * assert.deepEqual(outcomes, [{ action: replace, status: "failed", error: "Failed to delete stack s1: boom" }]);
 * ```
 */
export async function applyPlan(
  plan: Plan,
  writer: StackWriter,
  options: ApplyOptions,
): Promise<Outcome[]> {
  const logger = options.logger ?? getLogger(["stacksync", "reconcile"]);
  logLeftAlone(plan, logger);
  if (options.dryRun) {
    for (const action of plan.actions) {
      logDryRun(action, logger);
      options.afterAction?.();
    }
    return plan.actions.map((action) => ({ action, status: "skipped", because: "dry-run" }));
  }

  const outcomes = new Map<Action, Outcome>();
  const stopped = () => options.signal?.aborted === true;
  // Stacks a replace needed gone but that still exist: their replacements must not be created,
  // or the merge rule would fold the old stack back in.
  const notDeleted = new Set<string>();

  for (const action of plan.actions) {
    if (action.kind !== "delete" && action.kind !== "replace") continue;
    if (stopped()) {
      outcomes.set(action, { action, status: "skipped", because: "aborted" });
      if (action.kind === "replace") action.deleteStackIds.forEach((id) => notDeleted.add(id));
      continue;
    }
    const failure = action.kind === "delete"
      ? await deleteOne(action, action.stackId, writer, logger)
      : await deleteForReplace(action, writer, logger, notDeleted);
    options.afterAction?.();
    if (failure !== undefined) outcomes.set(action, { action, status: "failed", error: failure });
    else if (action.kind === "delete") outcomes.set(action, { action, status: "ok" });
  }

  for (const action of plan.actions) {
    if (outcomes.has(action) || action.kind === "delete") continue;
    if (stopped()) {
      if (action.kind === "replace") {
        logger.warn(
          `Stopped before creating the stack that replaces ${action.stackIds.join(", ")}; ` +
            "the next run creates it",
          properties(action),
        );
      }
      outcomes.set(action, { action, status: "skipped", because: "aborted" });
      continue;
    }
    const blocker = action.kind === "replace"
      ? action.stackIds.find((id) => notDeleted.has(id))
      : undefined;
    if (blocker !== undefined) {
      logger.warn(
        `Skipped creating the stack that replaces ${blocker}: the stack could not be deleted`,
        properties(action, blocker),
      );
      outcomes.set(action, { action, status: "skipped", because: "deletion-failed" });
      continue;
    }
    outcomes.set(action, await write(action, writer, logger));
    options.afterAction?.();
  }

  return plan.actions.map((action) => outcomes.get(action)!);
}

/** Context properties of a log line about an action (and one of its stacks). */
function properties(action: Action, stackId?: string): Record<string, unknown> {
  const parent = action.context.assets[0];
  return {
    stackID: stackId ?? ownStacks(action),
    assetID: action.assetIds[0],
    filename: parent?.originalFileName,
    reason: action.reason,
    assets: action.assetIds.length,
  };
}

function ownStacks(action: Action): string | undefined {
  switch (action.kind) {
    case "create":
      return undefined;
    case "replace":
      return action.stackIds.join(",");
    default:
      return action.stackId;
  }
}

/** What the plan leaves as it is: in-sync stacks at debug, conflicts at info. */
function logLeftAlone(plan: Plan, logger: Logger): void {
  for (const entry of plan.inSync) {
    logger.debug(`Stack ${entry.stackId} is in sync`, { stackID: entry.stackId });
  }
  for (const entry of plan.needsReplace) {
    const stackIds = entry.stackIds.join(", ");
    logger.info(`Left stack ${stackIds} as it is: set REPLACE_STACKS=true to replace it`, {
      stackID: entry.stackIds.join(","),
      assetID: entry.assetIds[0],
      filename: entry.context.assets[0]?.originalFileName,
      reason: entry.reason,
      assets: entry.assetIds.length,
    });
  }
}

function logDryRun(action: Action, logger: Logger): void {
  if (action.kind === "replace") {
    for (const stackId of action.deleteStackIds) {
      logger.info(writeMessage(action, { dryRun: true, stackId }), properties(action, stackId));
    }
  } else {
    logger.info(writeMessage(action, { dryRun: true }), properties(action));
  }
}

/** Deletes a replace's stacks, stopping at the first failure; returns its error message. */
async function deleteForReplace(
  action: ReplaceAction,
  writer: StackWriter,
  logger: Logger,
  notDeleted: Set<string>,
): Promise<string | undefined> {
  for (const [i, stackId] of action.deleteStackIds.entries()) {
    const failure = await deleteOne(action, stackId, writer, logger);
    if (failure !== undefined) {
      action.deleteStackIds.slice(i).forEach((id) => notDeleted.add(id));
      return failure;
    }
  }
  return undefined;
}

/** Deletes one stack for a `delete` or `replace` and logs it; returns the error message. */
async function deleteOne(
  action: Action,
  stackId: string,
  writer: StackWriter,
  logger: Logger,
): Promise<string | undefined> {
  try {
    await writer.deleteStack(stackId);
  } catch (error) {
    return logFailure(`Failed to delete stack ${stackId}`, error, action, logger, stackId);
  }
  logger.info(writeMessage(action, { dryRun: false, stackId }), properties(action, stackId));
  return undefined;
}

/** Runs the listing write of a `replace`, `update-primary`, `grow` or `create`. */
async function write(
  action: Exclude<Action, DeleteAction>,
  writer: StackWriter,
  logger: Logger,
): Promise<Outcome> {
  try {
    switch (action.kind) {
      case "update-primary":
        await writer.updateStackPrimary(action.stackId, action.assetIds[0]);
        logger.info(writeMessage(action, { dryRun: false }), properties(action));
        return { action, status: "ok" };
      case "grow": {
        const { id } = await writer.createStack(action.assetIds);
        logger.info(writeMessage(action, { dryRun: false }), {
          ...properties(action),
          newStackID: id,
        });
        return { action, status: "ok", stackId: id };
      }
      case "replace": {
        const { id } = await writer.createStack(action.assetIds);
        logger.debug(`Created stack ${id} replacing ${action.stackIds.join(", ")}`, {
          ...properties(action),
          newStackID: id,
        });
        return { action, status: "ok", stackId: id };
      }
      case "create": {
        const { id } = await writer.createStack(action.assetIds);
        logger.info(writeMessage(action, { dryRun: false }), properties(action, id));
        return { action, status: "ok", stackId: id };
      }
    }
  } catch (error) {
    const what = "stackId" in action ? `update stack ${action.stackId}` : "create stack";
    return {
      action,
      status: "failed",
      error: logFailure(`Failed to ${what}`, error, action, logger),
    };
  }
}

/** Logs a failed write with its context; returns `<message>: <error>` for the outcome. */
function logFailure(
  message: string,
  error: unknown,
  action: Action,
  logger: Logger,
  stackId?: string,
): string {
  const detail = error instanceof Error ? error.message : String(error);
  logger.error(message, { ...properties(action, stackId), error: detail });
  return `${message}: ${detail}`;
}
