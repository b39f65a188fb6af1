/**
 * Carries out a {@linkcode TrashPlan}: each move to or from the trash is one request, up to
 * STACK_CONCURRENCY at once (never two on the same photo), with PREVENT_SELF_REKT's pause, the
 * same dry run, stop signal and 401/403 stop as the stack writes (`src/reconcile/apply.ts`).
 *
 * @module
 */
import { getLogger } from "@logtape/logtape";
import { literal } from "../log.ts";
import { delay } from "../api/delay.ts";
import { isAccessDenied } from "../api/errors.ts";
import type { Outcome, SkipCause, TrashPlan, TrashWrite } from "../model.ts";
import type { ApplyOptions } from "../reconcile/apply.ts";
import { Lanes, pacer } from "../reconcile/lanes.ts";
import { nameList } from "../reconcile/render.ts";
import { trashMessage } from "./render.ts";

/** The moves a trash plan needs; the Immich client implements them. */
export interface TrashWriter {
  /** `DELETE /assets` with `force: false`: to the trash, never deleted for good. */
  trashAssets(assetIds: readonly string[]): Promise<void>;
  /** `POST /trash/restore/assets`: back out of the trash. */
  restoreAssets(assetIds: readonly string[]): Promise<void>;
}

/** What became of one move. */
export type TrashOutcome = Outcome<TrashWrite>;

/**
 * Applies a trash plan. Each move logs one line at info (see `trashMessage`), worded as in a
 * dry run or as done; a dry run sends nothing and records every move as skipped (`dry-run`).
 * A failed move is logged and the others still run, but after a 401 or 403 nothing more is sent.
 *
 * @param plan The moves.
 * @param writer Sends them.
 * @param options Dry run, stop signal, logger, concurrency and pause, as for `applyPlan`.
 * @returns One outcome per move, in plan order.
 *
 * @example A dry run sends nothing
 * ```ts
 * import assert from "node:assert/strict";
 * import { applyTrash } from "./apply.ts";
 *
 * const sent: string[] = [];
 * const writer = {
 *   trashAssets: (ids: readonly string[]) => (sent.push(...ids), Promise.resolve()),
 *   restoreAssets: () => Promise.resolve(),
 * };
 * const action = {
 *   kind: "trash", assetIds: ["r"], reason: "orphaned-raw",
 *   context: { assets: [{ id: "r", originalFileName: "IMG_9.dng" }] },
 * } as const;
 * const [dry] = await applyTrash({ actions: [action] }, writer, { dryRun: true });
 * assert.equal(dry.status, "skipped");
 * const [done] = await applyTrash({ actions: [action] }, writer, { dryRun: false });
 * assert.equal(done.status, "ok");
 * assert.deepEqual(sent, ["r"]);
 * ```
 */
export async function applyTrash(
  plan: TrashPlan,
  writer: TrashWriter,
  options: ApplyOptions,
): Promise<TrashOutcome[]> {
  const logger = options.logger ?? getLogger(["stacksync", "trash"]);
  if (options.dryRun) {
    for (const action of plan.actions) {
      logger.info(literal(trashMessage(action, { dryRun: true })), properties(action));
      options.afterAction?.();
    }
    return plan.actions.map((action) => ({ action, status: "skipped", because: "dry-run" }));
  }
  const lanes = new Lanes(options.concurrency ?? 1);
  const pace = pacer({ ...options, sleep: options.sleep ?? delay });
  const outcomes = new Map<TrashWrite, TrashOutcome>();
  let denied: string | undefined;
  const halt = (): SkipCause | undefined =>
    denied !== undefined ? "access-denied" : options.signal?.aborted ? "aborted" : undefined;
  for (const action of plan.actions) {
    const keys = new Set(action.assetIds.map((id) => `asset:${id}`));
    await lanes.start(keys, async () => {
      await pace();
      const stop = halt();
      if (stop !== undefined) {
        outcomes.set(action, { action, status: "skipped", because: stop });
        return;
      }
      try {
        if (action.kind === "trash") await writer.trashAssets(action.assetIds);
        else await writer.restoreAssets(action.assetIds);
      } catch (error) {
        const detail = error instanceof Error ? error.message : String(error);
        const accessDenied = isAccessDenied(error);
        if (accessDenied) denied = detail;
        const what = action.kind === "trash"
          ? "Failed to move photos to the trash"
          : "Failed to restore photos from the trash";
        logger.error(literal(what), { ...properties(action), error: detail });
        outcomes.set(action, {
          action,
          status: "failed",
          error: `${what}: ${detail}`,
          ...(accessDenied ? { accessDenied } : {}),
        });
        return;
      }
      logger.info(literal(trashMessage(action, { dryRun: false })), properties(action));
      outcomes.set(action, { action, status: "ok" });
      options.afterAction?.();
    });
  }
  await lanes.idle();
  return plan.actions.map((action) => outcomes.get(action)!);
}

/** Context properties of a move's line. */
function properties(action: TrashWrite): Record<string, unknown> {
  return {
    assetID: action.assetIds[0],
    filename: action.context.assets[0]?.originalFileName,
    reason: action.reason,
    assets: action.assetIds.length,
    files: nameList(action.context.assets),
    ...(action.context.cause === undefined ? {} : { cause: nameList(action.context.cause) }),
  };
}
