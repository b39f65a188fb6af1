/**
 * Carries out a {@linkcode Plan} through a {@linkcode StackWriter}, one write at a time or up
 * to STACK_CONCURRENCY at once (`src/reconcile/lanes.ts` keeps the order that matters), and
 * records what became of each action. A failed action is logged with its stack and asset
 * context and the rest of the plan still runs, with three exceptions that keep hand-made stacks
 * safe (docs/safety.md):
 *
 * - A 401 or 403 answer ends the user's pass at once: no further write is sent.
 * - A replace is all or nothing: when one of its deletions or its creation fails, the stacks it
 *   had deleted are put back as they were (members and cover) and the stack it may have created
 *   is deleted again. Replaces that share a stack, and the creates of a reset that list members
 *   of the same old stacks, stand or fall together.
 * - No write lists an asset of a stack that should have been deleted but still exists (or was
 *   put back), since Immich's merge would swallow that stack or pull the asset out of it.
 *
 * @module
 */

import { getLogger, type Logger } from "@logtape/logtape";
import type { Outcome, Plan, RecordedStack } from "../model.ts";
import { ApplyState } from "./apply_state.ts";
import { deletePhase } from "./delete_phase.ts";
import { dryRun } from "./dry_run.ts";
import type { FreshGround } from "./fresh.ts";
import { logLeftAlone } from "./left_alone_lines.ts";
import type { NamedConflicts } from "./left_alone.ts";
import { writePhase } from "./write_phase.ts";

/**
 * What a write is sent on: the stacks it changes as read just before it, every member the pass
 * knows (src/reconcile/ground.ts); the journal records them.
 */
export interface WriteOptions {
  readonly ground?: readonly RecordedStack[];
}

/** What a create is for, beyond its assets. */
export interface CreateOptions extends WriteOptions {
  /** The stack a grow adds photos to. */
  readonly grows?: string;
}

/** The stack writes a plan needs, and the one read that checks a lost answer; the Immich client implements it. */
export interface StackWriter {
  /**
   * `POST /stacks`: the first id becomes the primary. Resolves to the new stack. `grows` names
   * the stack a grow adds photos to (the create merges it), so the journal counts an update.
   */
  createStack(assetIds: readonly string[], options?: CreateOptions): Promise<{ id: string }>;
  /** `PUT /stacks/{id}` with a new primary that is already a member. */
  updateStackPrimary(
    stackId: string,
    primaryAssetId: string,
    options?: WriteOptions,
  ): Promise<unknown>;
  /** `DELETE /stacks/{id}`: the assets stay, unstacked. */
  deleteStack(stackId: string, options?: WriteOptions): Promise<void>;
  /**
   * `GET /stacks?primaryAssetId=…`: the stack whose primary is the asset, if any. It tells
   * whether a create whose answer never came (a time-out, a 5xx after the work) was done.
   */
  stackWithPrimary(assetId: string): Promise<{ id: string } | undefined>;
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
  /**
   * STACK_CONCURRENCY: how many writes may be in flight at once. Every deletion is still
   * answered before any write that lists assets starts, no two writes in flight touch the same
   * asset or stack, and actions that stand or fall together run one after the other.
   *
   * @default {1}
   */
  readonly concurrency?: number;
  /**
   * PREVENT_SELF_REKT: a pause before each write, in milliseconds, to spare a small server.
   *
   * @default {0}
   */
  readonly pauseMs?: number;
  /**
   * Waits out the pause; rejects when the signal aborts.
   *
   * @default {delay}
   */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * How a user still gets back a stack a replace deleted when the run is stopped before it
   * could put it back, e.g. `stacksync undo puts it back` when the writes are journaled.
   */
  readonly recovery?: string;
  /**
   * Fresh ground (docs/safety.md): each stack an action changes is read just before its write,
   * in a dry run too, and the action judged again on it (`src/reconcile/fresh.ts`). Every
   * command's pass gives it (`src/run.ts`); without it actions are sent on the plan's ground,
   * as the applier's own tests do.
   */
  readonly ground?: FreshGround;
  /**
   * The stacks left as they are that earlier passes named (`src/reconcile/left_alone.ts`):
   * each is named at info again only when its reason changed, else at debug, and counted.
   *
   * @default {none: every one is named}
   */
  readonly namedConflicts?: NamedConflicts;
}

/**
 * Applies a plan in two phases, as Immich's merge rule requires: first every deletion (the
 * `delete` actions and the deletions of each `replace`), then every write that lists assets
 * (the creations of the replaces, primary updates, grows and creates), each phase in plan
 * order.
 *
 * Stacks already in sync are logged at debug, conflicts left alone (no REPLACE_STACKS) at info.
 * Every action logs one line at info, worded as in a dry run or as done (see `writeMessage`),
 * with the file names of its assets in the `files` field. A dry run logs what it would do,
 * calls nothing and records every action as skipped (`dry-run`).
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
 *   stackWithPrimary: () => Promise.resolve(undefined),
 * };
 * const replace = {
 *   kind: "replace", stackIds: ["s1"], deleteStackIds: ["s1"], assetIds: ["a", "b"],
 *   previous: [{ id: "s1", primaryAssetId: "a", assetIds: ["a", "z"], trashedAssetIds: [] }],
 *   reason: "member-outside-group", context: { assets: [] },
 * } as const;
 * const outcomes = await applyPlan({ actions: [replace], inSync: [], needsReplace: [] }, writer, { dryRun: false });
 * assert.deepEqual(calls, ["delete s1"]);
 * assert.equal(outcomes[0].status, "failed");
 * ```
 */
export async function applyPlan(
  plan: Plan,
  writer: StackWriter,
  options: ApplyOptions,
): Promise<Outcome[]> {
  const logger = options.logger ?? getLogger(["stacksync", "reconcile"]);
  logLeftAlone(plan, logger, options.namedConflicts ?? new Map());
  if (options.dryRun) return await dryRun(plan, options, logger);
  const run = new ApplyState(plan, writer, options, logger);
  await deletePhase(run);
  await writePhase(run);
  return plan.actions.map((action) => {
    const outcome = run.outcomes.get(action)!;
    // A replace planned again on fresh ground runs as the component of the plan's action.
    const sent = run.sent.get(action);
    return sent === undefined || outcome.action !== action ? outcome : { ...outcome, action: sent };
  });
}
