/**
 * The state of one real run of a plan (`src/reconcile/apply.ts`): the outcomes so far, the stacks
 * deleted, kept or put back, the 401/403 that ends the pass; and the steps the phases share:
 * the pause and the halt before each write, fresh ground, creating a stack, the lines of a
 * write done, failed or lost.
 *
 * @module
 */
import type { Logger } from "@logtape/logtape";
import { delay } from "../api/delay.ts";
import { isAccessDenied, PermanentError } from "../api/errors.ts";
import { literal } from "../log.ts";
import type {
  Action,
  DeleteAction,
  Outcome,
  Plan,
  PreviousStack,
  RecordedStack,
  ReplaceAction,
  SkipCause,
} from "../model.ts";
import { errorText, properties } from "./action_lines.ts";
import type { ApplyOptions, StackWriter } from "./apply.ts";
import type { Judged } from "./fresh.ts";
import { pacer } from "./lanes.ts";
import { writeMessage } from "./render.ts";

/** What a create came to: done (perhaps found done after a lost answer) or not, and why. */
export type CreateResult =
  | { readonly done: true; readonly id: string }
  | {
    readonly done: false;
    readonly error: string;
    /** The server may have made the stack: nothing can safely be put back. */
    readonly unknown: boolean;
    readonly accessDenied: boolean;
  };

/**
 * One real run of a plan: the outcomes so far, what the server's stacks now are, and the steps
 * every phase takes (`delete_phase.ts`, `write_phase.ts`, `component_writes.ts`).
 */
export class ApplyState {
  /** What became of each action so far. */
  readonly outcomes = new Map<Action, Outcome>();
  /** Actions sent otherwise than planned, as judged on fresh ground, by the plan's action. */
  readonly sent = new Map<Action, Action>();
  readonly plan: Plan;
  readonly writer: StackWriter;
  readonly options: ApplyOptions;
  readonly logger: Logger;
  /** Stacks the plan deletes, as they were. */
  readonly previous = new Map<string, PreviousStack>();
  /** Stacks deleted in the first phase. */
  readonly deleted = new Set<string>();
  /** Stacks the plan deletes that still exist: their deletion failed or never started. */
  readonly notDeleted = new Set<string>();
  /**
   * Assets in a stack that the plan took to be gone (not deleted, or put back): no later write
   * may list them.
   */
  readonly stillStacked = new Map<string, string>();
  /** The 401 or 403 that ended the pass. */
  denied: string | undefined;
  /** PREVENT_SELF_REKT's pause, awaited before each write. */
  readonly pace: () => Promise<void>;

  constructor(plan: Plan, writer: StackWriter, options: ApplyOptions, logger: Logger) {
    this.plan = plan;
    this.writer = writer;
    this.options = options;
    this.logger = logger;
    this.pace = pacer({ ...options, sleep: options.sleep ?? delay });
    for (const action of plan.actions) {
      if (action.kind === "delete" || action.kind === "replace") {
        for (const stack of previousOf(action)) this.previous.set(stack.id, stack);
      }
    }
  }

  /** Whether the signal stopped the run. */
  get stopped(): boolean {
    return this.options.signal?.aborted === true;
  }

  /** Why nothing more may be sent, if so. */
  halt(): SkipCause | undefined {
    if (this.denied !== undefined) return "access-denied";
    return this.stopped ? "aborted" : undefined;
  }

  /** `judge` of src/reconcile/fresh.ts, noting a refused key: no further write is sent. */
  async judge(action: Action): Promise<Judged> {
    // Loaded by the first action judged: a pass with nothing to write loads no ground rules.
    const { judge } = await import("./fresh.ts");
    const judged = await judge(action, this.options.ground, {
      logger: this.logger,
      signal: this.options.signal,
    });
    if ("outcome" in judged && judged.outcome.status === "failed" && judged.outcome.accessDenied) {
      this.denied = judged.outcome.error;
    }
    return judged;
  }

  /**
   * What a task may touch: the assets it lists, and each stack with every member it had (a
   * stack deleted and put back lists them again).
   */
  keysOf(assetIds: readonly string[], stackIds: readonly string[]): Set<string> {
    const keys = new Set(assetIds.map((id) => `asset:${id}`));
    for (const stackId of stackIds) {
      keys.add(`stack:${stackId}`);
      for (const id of this.previous.get(stackId)?.assetIds ?? []) keys.add(`asset:${id}`);
    }
    return keys;
  }

  /** The pause before a write, then why nothing more may be sent, if so. */
  async ready(): Promise<SkipCause | undefined> {
    await this.pace();
    return this.halt();
  }

  /** Logs the deleted stacks of a component that cannot be put back, members included. */
  reportLost(deleted: readonly string[], why: string): void {
    for (const id of deleted) this.logLost(id, why);
  }

  /**
   * Logs a deleted stack that is not put back, with its members. When the run was stopped,
   * the write was cut off rather than refused: say so, and how the stack still comes back.
   */
  logLost(id: string, why: string): void {
    const previous = this.previous.get(id)!;
    const recovery = this.stopped ? this.options.recovery : undefined;
    this.logger.error(
      !this.stopped
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
  async create(
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
      return { done: true, id: (await this.writer.createStack(assetIds, sent)).id };
    } catch (error) {
      const detail = errorText(error);
      if (isAccessDenied(error)) {
        this.denied = detail;
        return { done: false, error: detail, unknown: false, accessDenied: true };
      }
      if (error instanceof PermanentError && isClientError(error.status)) {
        return { done: false, error: detail, unknown: false, accessDenied: false };
      }
      try {
        const found = await this.writer.stackWithPrimary(assetIds[0]);
        if (found !== undefined && found.id !== before) {
          this.logger.warn("Created stack {stackID}, though its answer was lost", {
            stackID: found.id,
            assetID: assetIds[0],
            ...(action === undefined ? {} : { reason: action.reason }),
          });
          return { done: true, id: found.id };
        }
        return { done: false, error: detail, unknown: false, accessDenied: false };
      } catch (checkError) {
        if (isAccessDenied(checkError)) this.denied = errorText(checkError);
        return {
          done: false,
          error: `${detail}; cannot tell whether the stack was made: ${errorText(checkError)}`,
          unknown: true,
          accessDenied: isAccessDenied(checkError),
        };
      }
    }
  }

  /** Keeps the assets of a stack the plan meant to delete out of every later write. */
  keep(stackId: string): void {
    this.notDeleted.add(stackId);
    for (const assetId of this.previous.get(stackId)?.assetIds ?? []) {
      this.stillStacked.set(assetId, stackId);
    }
  }

  /** Logs the line of a write done: a finished text, so it goes through literal(). */
  logWritten(action: Action, props: Record<string, unknown>, newStackId?: string): void {
    this.logger.info(literal(writeMessage(action, { dryRun: false, newStackId })), props);
  }

  /** Logs a write that failed and returns its outcome, noting a refused key. */
  failed(action: Action, what: string, error: unknown, stackId?: string): Outcome {
    const detail = errorText(error);
    const accessDenied = isAccessDenied(error);
    if (accessDenied) this.denied = detail;
    this.logger.error(literal(what), { ...properties(action, stackId), error: detail });
    return {
      action,
      status: "failed",
      error: `${what}: ${detail}`,
      ...(accessDenied ? { accessDenied } : {}),
    };
  }

  /** Logs a create that failed and returns its outcome. */
  failedCreate(
    action: Action,
    what: string,
    result: Extract<CreateResult, { done: false }>,
  ): Extract<Outcome, { status: "failed" }> {
    this.logger.error(literal(what), { ...properties(action), error: result.error });
    return {
      action,
      status: "failed",
      error: `${what}: ${result.error}`,
      ...(result.accessDenied ? { accessDenied: true } : {}),
    };
  }
}

/** The stacks a `delete` or `replace` deletes, as they were, to put back on failure. */
export function previousOf(action: DeleteAction | ReplaceAction): readonly PreviousStack[] {
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
