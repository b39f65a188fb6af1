/**
 * A writer whose every write is recorded in the journal before it is sent, and its outcome
 * after.
 *
 * @module
 */
import type { RecordedStack, Stack } from "../model.ts";
import type { StackWriter } from "../reconcile/apply.ts";
import type { TrashWriter } from "../trash/apply.ts";
import type { UserJournal } from "./journal.ts";
import { JournalError, type WriteIntent } from "./journal_format.ts";

/**
 * The writes a {@linkcode StackWriter} and a {@linkcode TrashWriter} journal, with the stacks
 * the server answers.
 */
export interface AnsweringStackWriter extends TrashWriter {
  createStack(assetIds: readonly string[]): Promise<Stack>;
  updateStackPrimary(stackId: string, primaryAssetId: string): Promise<Stack>;
  deleteStack(stackId: string): Promise<void>;
  stackWithPrimary(assetId: string): Promise<Stack | undefined>;
}

/** Options of {@linkcode journalWrites}. */
export interface JournalWritesOptions {
  /**
   * Called once when the journal cannot be written, before the error reaches the caller; the
   * run uses it to stop the user's pass, as no further write could be recorded either.
   */
  readonly onFailure?: (error: JournalError) => void;
}

/**
 * Wraps a writer so that each write is recorded in the journal before it is sent and its
 * outcome after; the first write also saves the stacks as read. A write that cannot be
 * recorded is not sent: the call rejects with a {@linkcode JournalError}.
 *
 * @param writer The writer that sends the writes (the Immich client).
 * @param journal The user's journal.
 * @param options What to do when the journal fails.
 * @returns A writer for `applyPlan`.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { journalWrites, UserJournal } from "./journal.ts";
 *
 * const dir = await Deno.makeTempDir();
 * const journal = new UserJournal({
 *   path: `${dir}/run/user.jsonl`,
 *   summaryPath: `${dir}/run/user.json`,
 *   header: {
 *     run: "r1", command: "run", startedAt: "2024-01-01T00:00:00.000Z",
 *     server: "http://immich/api", user: { id: "u1", name: "Ada" }, stacksync: "1.0.0",
 *   },
 *   compress: () => Promise.resolve(),
 *   now: () => new Date("2024-01-01T00:00:01.000Z"),
 * }, { stacks: [], fileNames: new Map() });
 * const writer = journalWrites({
 *   createStack: (ids) => Promise.resolve({ id: "s1", primaryAssetId: ids[0], assetIds: [...ids] }),
 *   updateStackPrimary: () => Promise.reject(new Error("unused")),
 *   deleteStack: () => Promise.resolve(),
 *   stackWithPrimary: () => Promise.resolve(undefined),
 *   trashAssets: () => Promise.resolve(),
 *   restoreAssets: () => Promise.resolve(),
 * }, journal);
 * assert.equal((await writer.createStack(["a", "b"])).id, "s1");
 * await journal.close();
 * const lines = (await Deno.readTextFile(`${dir}/run/user.jsonl`)).trim().split("\n");
 * assert.deepEqual(lines.map((line) => JSON.parse(line).type), [
 *   "journal", "stacks-end", "intent", "done", "end",
 * ]);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function journalWrites(
  writer: AnsweringStackWriter,
  journal: UserJournal,
  options: JournalWritesOptions = {},
): StackWriter & TrashWriter {
  let failed = false;
  const record = (step: () => void) => {
    try {
      step();
    } catch (error) {
      if (error instanceof JournalError && !failed) {
        failed = true;
        options.onFailure?.(error);
      }
      throw error;
    }
  };
  const send = async <T>(
    intent: WriteIntent,
    write: () => Promise<T>,
    answer: (t: T) => Stack | undefined,
    ground?: readonly RecordedStack[],
  ) => {
    let seq = 0;
    record(() => seq = journal.intent(intent, ground));
    let result: T;
    try {
      result = await write();
    } catch (error) {
      record(() => journal.failed(seq, error));
      throw error;
    }
    record(() => journal.done(seq, answer(result)));
    return result;
  };
  return {
    createStack: (assetIds, options) =>
      send(
        { op: "create", assetIds, ...options?.grows === undefined ? {} : { grows: options.grows } },
        () => writer.createStack(assetIds),
        (stack) => stack,
        options?.ground,
      ),
    updateStackPrimary: (stackId, primaryAssetId, options) =>
      send(
        { op: "update-primary", stackId, primaryAssetId },
        () => writer.updateStackPrimary(stackId, primaryAssetId),
        (stack) => stack,
        options?.ground,
      ),
    deleteStack: (stackId, options) =>
      send(
        { op: "delete", stackId },
        () => writer.deleteStack(stackId),
        () => undefined,
        options?.ground,
      ),
    // A read: nothing to record.
    stackWithPrimary: (assetId) => writer.stackWithPrimary(assetId),
    trashAssets: (assetIds) =>
      send({ op: "trash", assetIds }, () => writer.trashAssets(assetIds), () => undefined),
    restoreAssets: (assetIds) =>
      send({ op: "restore", assetIds }, () => writer.restoreAssets(assetIds), () => undefined),
  };
}
