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
import { delay } from "../api/delay.ts";
import { isAccessDenied, PermanentError } from "../api/errors.ts";
import { literal } from "../log.ts";
import type {
  Action,
  CreateAction,
  DeleteAction,
  LostStack,
  Outcome,
  Plan,
  PreviousStack,
  RecordedStack,
  ReplaceAction,
  RestoredStack,
  Rollback,
  SkipCause,
} from "../model.ts";
import { type FreshGround, judge, type Judged } from "./fresh.ts";
import { Lanes, pacer } from "./lanes.ts";
import { nameConflicts, type NamedConflicts } from "./left_alone.ts";
import { fileList, replaceDeletionMessage, unfetchedMessage, writeMessage } from "./render.ts";

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
  const run = new Run(plan, writer, options, logger);
  await run.deletions();
  await run.listingWrites();
  return plan.actions.map((action) => {
    const outcome = run.outcomes.get(action)!;
    // A replace planned again on fresh ground runs as the component of the plan's action.
    const sent = run.sent.get(action);
    return sent === undefined || outcome.action !== action ? outcome : { ...outcome, action: sent };
  });
}

/**
 * A dry run: each action's line as a real run would send it, the stacks it changes read again
 * first as in a real run, and nothing written.
 */
async function dryRun(plan: Plan, options: ApplyOptions, logger: Logger): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let denied: string | undefined;
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

/** A write that lists assets and depends on old stacks being gone: a replace or a reset's create. */
type Dependent = ReplaceAction | (CreateAction & { readonly stackIds: readonly string[] });

/** Dependent writes that share old stacks, in plan order, with those stacks. */
interface Component {
  readonly actions: Dependent[];
  readonly stackIds: Set<string>;
}

/** What a create came to: done (perhaps found done after a lost answer) or not, and why. */
type CreateResult =
  | { readonly done: true; readonly id: string }
  | {
    readonly done: false;
    readonly error: string;
    /** The server may have made the stack: nothing can safely be put back. */
    readonly unknown: boolean;
    readonly accessDenied: boolean;
  };

/** One real run of a plan: the outcomes so far and what the server's stacks now are. */
class Run {
  readonly outcomes = new Map<Action, Outcome>();
  /** Actions sent otherwise than planned, as judged on fresh ground, by the plan's action. */
  readonly sent = new Map<Action, Action>();
  readonly #plan: Plan;
  readonly #writer: StackWriter;
  readonly #options: ApplyOptions;
  readonly #logger: Logger;
  /** Stacks the plan deletes, as they were. */
  readonly #previous = new Map<string, PreviousStack>();
  /** Stacks deleted in the first phase. */
  readonly #deleted = new Set<string>();
  /** Stacks the plan deletes that still exist: their deletion failed or never started. */
  readonly #notDeleted = new Set<string>();
  /**
   * Assets in a stack that the plan took to be gone (not deleted, or put back): no later write
   * may list them.
   */
  readonly #stillStacked = new Map<string, string>();
  /** The 401 or 403 that ended the pass. */
  #denied: string | undefined;
  /** PREVENT_SELF_REKT's pause, awaited before each write. */
  readonly #pace: () => Promise<void>;

  constructor(plan: Plan, writer: StackWriter, options: ApplyOptions, logger: Logger) {
    this.#plan = plan;
    this.#writer = writer;
    this.#options = options;
    this.#logger = logger;
    this.#pace = pacer({ ...options, sleep: options.sleep ?? delay });
    for (const action of plan.actions) {
      if (action.kind === "delete" || action.kind === "replace") {
        for (const stack of previousOf(action)) this.#previous.set(stack.id, stack);
      }
    }
  }

  get #stopped(): boolean {
    return this.#options.signal?.aborted === true;
  }

  /** Why nothing more may be sent, if so. */
  #halt(): SkipCause | undefined {
    if (this.#denied !== undefined) return "access-denied";
    return this.#stopped ? "aborted" : undefined;
  }

  /**
   * First phase: every `delete` and every deletion of a `replace`, in plan order, up to
   * `concurrency` at once; all of them answered before the second phase starts.
   */
  async deletions(): Promise<void> {
    const lanes = new Lanes(this.#options.concurrency ?? 1);
    for (const action of this.#plan.actions) {
      if (action.kind !== "delete" && action.kind !== "replace") continue;
      const stackIds = action.kind === "delete" ? [action.stackId] : action.deleteStackIds;
      await lanes.start(this.#keysOf([], stackIds), () => this.#deletion(action, stackIds));
    }
    await lanes.idle();
  }

  /**
   * The deletions of one `delete` or `replace`, one after the other, once the stacks they
   * delete are read again: a stack that changed since the pass read it is kept, and with it
   * every later write that lists its assets.
   */
  async #deletion(action: DeleteAction | ReplaceAction, stackIds: readonly string[]) {
    const halt = await this.#ready();
    if (halt !== undefined) {
      this.outcomes.set(action, { action, status: "skipped", because: halt });
      stackIds.forEach((id) => this.#keep(id));
      return;
    }
    const judged = await this.#judge(action);
    if ("outcome" in judged) {
      this.outcomes.set(action, judged.outcome);
      stackIds.forEach((id) => this.#keep(id));
      this.#options.afterAction?.();
      return;
    }
    const sent = judged.send as DeleteAction | ReplaceAction;
    if (sent !== action) this.sent.set(action, sent);
    // A cover changed since the plan: a stack that must be put back is put back with it.
    for (const stack of previousOf(sent)) this.#previous.set(stack.id, stack);
    if (sent.kind === "replace") {
      const unfetched = unfetchedMessage(sent, { dryRun: false });
      if (unfetched !== undefined) this.#logger.info(literal(unfetched), properties(sent));
    }
    for (const [i, stackId] of stackIds.entries()) {
      if (i > 0) await this.#pace();
      const ground = judged.ground.filter((stack) => stack.id === stackId);
      const failure = await this.#deleteOne(sent, stackId, ground);
      if (failure === undefined) continue;
      this.outcomes.set(action, failure);
      stackIds.slice(i).forEach((id) => this.#keep(id));
      break;
    }
    this.#options.afterAction?.();
    if (sent.kind === "delete" && !this.outcomes.has(action)) {
      this.outcomes.set(action, { action: sent, status: "ok" });
    }
  }

  /** {@linkcode judge}, noting a refused key: no further write is sent. */
  async #judge(action: Action): Promise<Judged> {
    const judged = await judge(action, this.#options.ground, {
      logger: this.#logger,
      signal: this.#options.signal,
    });
    if ("outcome" in judged && judged.outcome.status === "failed" && judged.outcome.accessDenied) {
      this.#denied = judged.outcome.error;
    }
    return judged;
  }

  /**
   * Second phase: replaces and reset creates by component, updates, grows and creates, in plan
   * order, up to `concurrency` at once. A write waits for any earlier one that shares an asset
   * or a stack with it, so it sees what that one left (a stack put back holds its assets).
   */
  async listingWrites(): Promise<void> {
    const lanes = new Lanes(this.#options.concurrency ?? 1);
    const components = componentsOf(this.#plan);
    const started = new Set<Component>();
    for (const action of this.#plan.actions) {
      const component = components.get(action);
      if (component !== undefined) {
        if (started.has(component)) continue;
        started.add(component);
        const assetIds = component.actions.flatMap((member) => member.assetIds);
        await lanes.start(
          this.#keysOf(assetIds, [...component.stackIds]),
          () => this.#component(component),
        );
        continue;
      }
      if (action.kind === "delete" || action.kind === "replace") continue;
      const own = "stackId" in action ? [action.stackId] : [];
      // A grow or a new cover planned again lists only members of its stack as read then.
      const listed = action.kind === "create"
        ? action.assetIds
        : [...action.assetIds, ...action.ground.assetIds];
      await lanes.start(this.#keysOf(listed, own), async () => {
        if (!this.outcomes.has(action)) this.outcomes.set(action, await this.#single(action));
      });
    }
    await lanes.idle();
  }

  /**
   * What a task may touch: the assets it lists, and each stack with every member it had (a
   * stack deleted and put back lists them again).
   */
  #keysOf(assetIds: readonly string[], stackIds: readonly string[]): Set<string> {
    const keys = new Set(assetIds.map((id) => `asset:${id}`));
    for (const stackId of stackIds) {
      keys.add(`stack:${stackId}`);
      for (const id of this.#previous.get(stackId)?.assetIds ?? []) keys.add(`asset:${id}`);
    }
    return keys;
  }

  /** The pause before a write, then why nothing more may be sent, if so. */
  async #ready(): Promise<SkipCause | undefined> {
    await this.#pace();
    return this.#halt();
  }

  /** An update, grow or new-group create. */
  async #single(action: Exclude<Action, DeleteAction | ReplaceAction>): Promise<Outcome> {
    const halt = await this.#ready();
    if (halt !== undefined) return { action, status: "skipped", because: halt };
    const own = "stackId" in action ? action.stackId : undefined;
    const blocker = action.assetIds
      .map((id) => this.#stillStacked.get(id))
      .find((stackId) => stackId !== undefined && stackId !== own);
    if (blocker !== undefined) {
      this.#logger.warn(
        literal(
          `Skipped ${describeWrite(action)}: stack ${blocker} holding some of its assets ` +
            "could not be deleted",
        ),
        properties(action, blocker),
      );
      return { action, status: "skipped", because: "deletion-failed" };
    }
    const judged = await this.#judge(action);
    if ("outcome" in judged) {
      this.#options.afterAction?.();
      return judged.outcome;
    }
    const sent = judged.send as Exclude<Action, DeleteAction | ReplaceAction>;
    const outcome = await this.#write(sent, judged.ground);
    this.#options.afterAction?.();
    return outcome;
  }

  async #write(
    action: Exclude<Action, DeleteAction | ReplaceAction>,
    ground: readonly RecordedStack[],
  ): Promise<Outcome> {
    if (action.kind === "update-primary") {
      try {
        await this.#writer.updateStackPrimary(action.stackId, action.assetIds[0], { ground });
      } catch (error) {
        return this.#failed(action, `Failed to update stack ${action.stackId}`, error);
      }
      this.#logWritten(action, lineProperties(action));
      return { action, status: "ok" };
    }
    const result = await this.#create(action, action.assetIds, ground);
    if (!result.done) {
      const what = action.kind === "grow" ? `update stack ${action.stackId}` : "create stack";
      return this.#failedCreate(action, `Failed to ${what}`, result);
    }
    const lineProps = action.kind === "grow"
      ? { ...lineProperties(action), newStackID: result.id }
      : lineProperties(action, result.id);
    this.#logWritten(action, lineProps);
    return { action, status: "ok", stackId: result.id };
  }

  /** Runs the dependent writes of one component: all of them, or none. */
  async #component(component: Component): Promise<void> {
    const pending = component.actions.filter((action) => !this.outcomes.has(action));
    const deleted = [...component.stackIds].filter((id) => this.#deleted.has(id));
    const halt = this.#halt();
    if (halt !== undefined) {
      for (const [i, action] of pending.entries()) {
        this.outcomes.set(action, {
          action,
          status: "skipped",
          because: halt,
          ...(i === 0 && deleted.length > 0 ? { deletedStackIds: deleted } : {}),
        });
        if (halt === "aborted" && deleted.length > 0) {
          this.#logger.warn(
            literal(`Stopped before ${describeWrite(action)}; the next run creates it`),
            properties(action),
          );
        }
      }
      if (halt === "access-denied") this.#reportLost(deleted, this.#denied!);
      return;
    }
    const blocker = [...component.stackIds].find((id) => this.#notDeleted.has(id));
    if (blocker !== undefined) {
      for (const action of pending) {
        this.#logger.warn(
          literal(`Skipped ${describeWrite(action)}: stack ${blocker} could not be deleted`),
          properties(action, blocker),
        );
      }
      const rollback = await this.#putBack(deleted, []);
      this.#settle(component, pending, "deletion-failed", rollback);
      return;
    }

    const created: { action: Dependent; id: string }[] = [];
    let told = false;
    for (const action of pending) {
      const stop = await this.#ready();
      if (stop !== undefined) {
        // The signal came between two creates of one component: leave the rest to the next
        // run rather than send more writes after it.
        this.outcomes.set(action, {
          action,
          status: "skipped",
          because: stop,
          ...(told ? {} : { deletedStackIds: deleted }),
        });
        told = true;
        continue;
      }
      const result = await this.#create(action, action.assetIds);
      this.#options.afterAction?.();
      if (result.done) {
        created.push({ action, id: result.id });
        this.outcomes.set(action, { action, status: "ok", stackId: result.id });
        this.#logWritten(action, lineProperties(action, result.id), result.id);
        continue;
      }
      const failed = this.#failedCreate(action, "Failed to create stack", result);
      this.outcomes.set(action, failed);
      if (result.unknown || result.accessDenied) {
        this.#reportLost(deleted, result.error);
        for (const rest of pending) {
          if (!this.outcomes.has(rest)) {
            this.outcomes.set(rest, {
              action: rest,
              status: "skipped",
              because: result.accessDenied ? "access-denied" : "rolled-back",
            });
          }
        }
        return;
      }
      const rollback = await this.#putBack(deleted, created.map((c) => c.id));
      this.outcomes.set(action, { ...failed, rollback });
      for (const { action: done } of created) {
        this.outcomes.set(done, { action: done, status: "skipped", because: "rolled-back" });
      }
      for (const rest of pending) {
        if (!this.outcomes.has(rest)) {
          this.outcomes.set(rest, { action: rest, status: "skipped", because: "rolled-back" });
        }
      }
      return;
    }
  }

  /** Records the outcome of every action of a component that could not run, with its rollback. */
  #settle(component: Component, pending: Dependent[], because: SkipCause, rollback: Rollback) {
    let attached = false;
    for (const action of component.actions) {
      const outcome = this.outcomes.get(action);
      if (outcome?.status === "failed" && !attached) {
        this.outcomes.set(action, { ...outcome, rollback });
        attached = true;
      }
    }
    for (const action of pending) {
      this.outcomes.set(action, {
        action,
        status: "skipped",
        because,
        ...(attached ? {} : { rollback }),
      });
      attached = true;
    }
  }

  /**
   * Deletes the stacks a component created, then re-creates the stacks it had deleted, members
   * listed cover first, leaving out members in the trash (Immich would drop them).
   */
  async #putBack(deleted: readonly string[], created: readonly string[]): Promise<Rollback> {
    const restored: RestoredStack[] = [];
    const lost: LostStack[] = [];
    const survivors: string[] = [];
    for (const id of created) {
      await this.#pace();
      try {
        await this.#writer.deleteStack(id);
        this.#logger.info("Deleted stack {stackID} again: its replace could not finish", {
          stackID: id,
        });
      } catch (error) {
        if (isAccessDenied(error)) this.#denied = message(error);
        survivors.push(id);
        this.#logger.error("Failed to delete stack {stackID} again", {
          stackID: id,
          error: message(error),
        });
      }
    }
    for (const id of deleted) {
      const previous = this.#previous.get(id)!;
      const trashed = new Set(previous.trashedAssetIds);
      const listed = previous.assetIds.filter((assetId) => !trashed.has(assetId));
      const lose = (error: string) => {
        lost.push({ from: id, assetIds: previous.assetIds, error });
        this.#logLost(id, error);
      };
      if (this.#denied !== undefined) {
        lose(this.#denied);
        continue;
      }
      if (survivors.length > 0) {
        lose(`stacks ${survivors.join(", ")} made by the replace could not be deleted again`);
        continue;
      }
      if (previous.assetIds.length < 2) {
        // Immich shows a 1-asset stack as no stack: there is nothing to put back.
        this.#logger.info("Did not put back stack {stackID}: it held one asset", { stackID: id });
        continue;
      }
      if (listed.length < 2) {
        lose("fewer than 2 of its members are outside the trash, and no create can list those");
        continue;
      }
      await this.#pace();
      const result = await this.#create(undefined, listed);
      if (!result.done) {
        lose(result.error);
        continue;
      }
      for (const assetId of previous.assetIds) this.#stillStacked.set(assetId, result.id);
      const leftOut = previous.trashedAssetIds;
      restored.push({ from: id, to: result.id, leftOut });
      this.#logger.warn(
        leftOut.length > 0
          ? "Put back stack {stackID} as stack {newStackID} without {trashed} members in the trash"
          : "Put back stack {stackID} as stack {newStackID}",
        {
          stackID: id,
          newStackID: result.id,
          assetID: listed[0],
          assets: listed.length,
          trashed: leftOut.length,
        },
      );
    }
    return { restored, lost };
  }

  /** Logs the deleted stacks of a component that cannot be put back, members included. */
  #reportLost(deleted: readonly string[], why: string): void {
    for (const id of deleted) this.#logLost(id, why);
  }

  /**
   * Logs a deleted stack that is not put back, with its members. When the run was stopped,
   * the write was cut off rather than refused: say so, and how the stack still comes back.
   */
  #logLost(id: string, why: string): void {
    const previous = this.#previous.get(id)!;
    const recovery = this.#stopped ? this.#options.recovery : undefined;
    this.#logger.error(
      !this.#stopped
        ? "Could not put back stack {stackID}: {error}"
        : recovery === undefined
        ? "Could not put back stack {stackID}: the run was stopped first ({error})"
        : "Could not put back stack {stackID}: the run was stopped first; {recovery} ({error})",
      {
        stackID: id,
        error: why,
        recovery,
        assetID: previous.primaryAssetId,
        assets: previous.assetIds.length,
        members: previous.assetIds,
      },
    );
  }

  /**
   * `POST /stacks`, refused before it is sent when it would list an asset twice or fewer than
   * 2 assets (but for a 1-asset stack made on purpose, `single`). When no answer tells what
   * happened, the server is asked whether the stack exists.
   */
  async #create(
    action: Action | undefined,
    assetIds: readonly string[],
    ground?: readonly RecordedStack[],
  ): Promise<CreateResult> {
    // A grow lists the primary of the stack it grows: that stack is no sign the create was done.
    const before = action?.kind === "grow" ? action.stackId : undefined;
    const least = action !== undefined && "single" in action && action.single ? 1 : 2;
    if (assetIds.length < least || new Set(assetIds).size !== assetIds.length) {
      return {
        done: false,
        error: `Cannot create a stack of fewer than 2 different assets: current value is ${
          assetIds.join(", ")
        }`,
        unknown: false,
        accessDenied: false,
      };
    }
    try {
      const grows = before === undefined ? {} : { grows: before };
      const sent = { ...grows, ...(ground === undefined ? {} : { ground }) };
      return { done: true, id: (await this.#writer.createStack(assetIds, sent)).id };
    } catch (error) {
      const detail = message(error);
      if (isAccessDenied(error)) {
        this.#denied = detail;
        return { done: false, error: detail, unknown: false, accessDenied: true };
      }
      if (error instanceof PermanentError && isClientError(error.status)) {
        return { done: false, error: detail, unknown: false, accessDenied: false };
      }
      try {
        const found = await this.#writer.stackWithPrimary(assetIds[0]);
        if (found !== undefined && found.id !== before) {
          this.#logger.warn("Created stack {stackID}, though its answer was lost", {
            stackID: found.id,
            assetID: assetIds[0],
            ...(action === undefined ? {} : { reason: action.reason }),
          });
          return { done: true, id: found.id };
        }
        return { done: false, error: detail, unknown: false, accessDenied: false };
      } catch (checkError) {
        if (isAccessDenied(checkError)) this.#denied = message(checkError);
        return {
          done: false,
          error: `${detail}; cannot tell whether the stack was made: ${message(checkError)}`,
          unknown: true,
          accessDenied: isAccessDenied(checkError),
        };
      }
    }
  }

  /** Deletes one stack for a `delete` or `replace` and logs it; returns the failed outcome. */
  async #deleteOne(
    action: DeleteAction | ReplaceAction,
    stackId: string,
    ground: readonly RecordedStack[],
  ) {
    try {
      await this.#writer.deleteStack(stackId, { ground });
    } catch (error) {
      return this.#failed(action, `Failed to delete stack ${stackId}`, error, stackId);
    }
    this.#deleted.add(stackId);
    if (action.kind === "delete") {
      this.#logWritten(action, lineProperties(action));
    } else {
      this.#logger.info(literal(replaceDeletionMessage(stackId)), properties(action, stackId));
    }
    return undefined;
  }

  /** Keeps the assets of a stack the plan meant to delete out of every later write. */
  #keep(stackId: string): void {
    this.#notDeleted.add(stackId);
    for (const assetId of this.#previous.get(stackId)?.assetIds ?? []) {
      this.#stillStacked.set(assetId, stackId);
    }
  }

  /** Logs the line of a write done: a finished text, so it goes through literal(). */
  #logWritten(action: Action, props: Record<string, unknown>, newStackId?: string): void {
    this.#logger.info(literal(writeMessage(action, { dryRun: false, newStackId })), props);
  }

  #failed(action: Action, what: string, error: unknown, stackId?: string): Outcome {
    const detail = message(error);
    const accessDenied = isAccessDenied(error);
    if (accessDenied) this.#denied = detail;
    this.#logger.error(literal(what), { ...properties(action, stackId), error: detail });
    return {
      action,
      status: "failed",
      error: `${what}: ${detail}`,
      ...(accessDenied ? { accessDenied } : {}),
    };
  }

  #failedCreate(
    action: Action,
    what: string,
    result: Extract<CreateResult, { done: false }>,
  ): Extract<Outcome, { status: "failed" }> {
    this.#logger.error(literal(what), { ...properties(action), error: result.error });
    return {
      action,
      status: "failed",
      error: `${what}: ${result.error}`,
      ...(result.accessDenied ? { accessDenied: true } : {}),
    };
  }
}

/** The stacks a `delete` or `replace` deletes, as they were, to put back on failure. */
function previousOf(action: DeleteAction | ReplaceAction): readonly PreviousStack[] {
  if (action.kind === "replace") return action.previous;
  return [{
    id: action.stackId,
    primaryAssetId: action.assetIds[0],
    assetIds: action.assetIds,
    trashedAssetIds: action.trashedAssetIds,
  }];
}

/** 4xx but 401, 403 (the key) and 429 (retried): the server refused the request unread. */
function isClientError(status: number | undefined): boolean {
  return status !== undefined && status >= 400 && status < 500 && status !== 401 &&
    status !== 403 && status !== 429;
}

/** Groups the dependent writes that share old stacks (union by stack id). */
function componentsOf(plan: Plan): Map<Action, Component> {
  const byStack = new Map<string, Component>();
  const byAction = new Map<Action, Component>();
  for (const action of plan.actions) {
    const stackIds = action.kind === "replace"
      ? action.stackIds
      : action.kind === "create"
      ? action.stackIds
      : undefined;
    if (stackIds === undefined || stackIds.length === 0) continue;
    const dependent = action as Dependent;
    let component: Component = { actions: [dependent], stackIds: new Set(stackIds) };
    for (const id of stackIds) {
      const other = byStack.get(id);
      if (other === undefined || other === component) continue;
      // Merge the smaller into the larger; actions keep plan order.
      const [big, small] = other.actions.length >= component.actions.length
        ? [other, component]
        : [component, other];
      big.actions.push(...small.actions);
      big.actions.sort((a, b) => plan.actions.indexOf(a) - plan.actions.indexOf(b));
      for (const stackId of small.stackIds) big.stackIds.add(stackId);
      component = big;
    }
    for (const id of component.stackIds) byStack.set(id, component);
    for (const member of component.actions) byAction.set(member, component);
  }
  return byAction;
}

/** The write a dependent or single action makes, for "Skipped …" and "Stopped before …" lines. */
function describeWrite(action: Action): string {
  switch (action.kind) {
    case "replace":
      return `creating the stack that replaces ${action.stackIds.join(", ")}`;
    case "create":
      return `creating a stack of ${action.assetIds.length} assets`;
    case "grow":
    case "update-primary":
      return `updating stack ${action.stackId}`;
    case "delete":
      return `deleting stack ${action.stackId}`;
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
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

/** The properties of an action's own line: its context plus the file names of its assets. */
function lineProperties(action: Action, stackId?: string): Record<string, unknown> {
  const { label } = action.context;
  return {
    ...properties(action, stackId),
    ...(label === undefined ? {} : { rule: label }),
    files: fileList(action.context.assets),
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

/**
 * What the plan leaves as it is: in-sync stacks at debug; conflicts at info the first time, at
 * debug once named (with one line at info counting those).
 */
function logLeftAlone(plan: Plan, logger: Logger, named: NamedConflicts): void {
  for (const entry of plan.inSync) {
    logger.debug("Stack {stackID} is in sync", { stackID: entry.stackId });
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
