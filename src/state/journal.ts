/**
 * The journal of one run and one user: what the user's stacks were before the run's first write,
 * then every write, recorded before it is sent (its intent) and after (its outcome). A run
 * killed at any point, SIGKILL included, leaves a journal that `stacksync undo` can use.
 *
 * The file is JSON lines (format `stacksync-journal`, version 1; docs/state.md describes every
 * record), written with one `write()` to the OS per record, so the operating system has each
 * record once the call returns, and flushed to disk at most once a second and at the end. A
 * closed journal is gzip-compressed; the reader takes either form and ignores a torn last line.
 *
 * `journalWrites` (`journal_writes.ts`) records a `StackWriter`'s writes; the writer's caller
 * (`applyPlan`) does not know it is journaled. The format is `journal_format.ts`, reading a journal
 * back `journal_read.ts`, its summary `journal_summary.ts`.
 *
 * @module
 */
import { dirname } from "node:path";
import type { RecordedAsset, RecordedStack, Stack } from "../model.ts";
import { writeAll } from "../log.ts";
import { ChunkedText } from "./_files.ts";
import { FILE_MODE, FOLDER_MODE } from "../private_files.ts";
import {
  countDone,
  JOURNAL_FORMAT,
  JOURNAL_VERSION,
  type JournalEnd,
  JournalError,
  type JournalHeader,
  type JournalSummary,
  NO_WRITES,
  type WriteIntent,
} from "./journal_format.ts";
import { writeSummary } from "./journal_summary.ts";

export type { RecordedAsset, RecordedStack } from "../model.ts";
export {
  EmptyJournalError,
  JOURNAL_FORMAT,
  JOURNAL_VERSION,
  type JournalCommand,
  type JournalContents,
  type JournalCounts,
  type JournalEnd,
  JournalError,
  type JournalHeader,
  type JournalSummary,
  type RecordedWrite,
  type WriteIntent,
  type WriteOutcome,
} from "./journal_format.ts";
export { readJournal } from "./journal_read.ts";
export { readSummary, writeSummary } from "./journal_summary.ts";
export {
  type AnsweringStackWriter,
  journalWrites,
  type JournalWritesOptions,
} from "./journal_writes.ts";

/** Flush to disk at most this often while writing; SIGKILL needs no flush, a power cut does. */
const SYNC_INTERVAL_MS = 1000;

/** The stacks as the run read them, saved before its first write. */
export interface StacksAsRead {
  readonly stacks: readonly Stack[];
  /** File names by asset id, for the members the run read. */
  readonly fileNames: ReadonlyMap<string, string>;
  /** Members in the trash, which `GET /stacks` does not list. */
  readonly trashed?: ReadonlySet<string>;
  /** Members `GET /stacks` does not list (trashed or hidden) that the run looked up. */
  readonly unlisted?: ReadonlySet<string>;
  /**
   * Every stack as recorded, read when the journal opens, in place of `stacks`: an incremental
   * pass holds only the stacks it plans, and reads the others from its cache only if it writes.
   */
  readonly records?: () => Iterable<RecordedStack>;
}

/** Where a user's journal goes and what it starts with. */
export interface UserJournalOptions {
  /** The journal file (`….jsonl`); its folder is created when missing. */
  readonly path: string;
  /** The summary file written when the journal closes. */
  readonly summaryPath: string;
  readonly header: JournalHeader;
  /** Called when the journal file is closed, to compress it. */
  readonly compress: (path: string) => Promise<void>;
  /** The clock for `finishedAt`. */
  readonly now: () => Date;
}

/**
 * The journal of one user in one run. Nothing is written until {@linkcode UserJournal.open}
 * (or the first write, through {@linkcode journalWrites}); a dry run or a run with nothing to
 * change leaves no file.
 */
export class UserJournal {
  readonly #options: UserJournalOptions;
  #stacks: StacksAsRead | undefined;
  #file: Deno.FsFile | undefined;
  #seq = 0;
  #lastSync = 0;
  #closed = false;
  readonly #intents = new Map<number, WriteIntent>();
  readonly #counts = { ...NO_WRITES };

  /**
   * @param options The file, the header and the compression step.
   * @param stacks The user's stacks as read, saved when the journal opens.
   */
  constructor(options: UserJournalOptions, stacks: StacksAsRead) {
    this.#options = options;
    this.#stacks = stacks;
  }

  /** Whether the file exists (a write was recorded, or it was opened on purpose). */
  get opened(): boolean {
    return this.#file !== undefined;
  }

  /**
   * Creates the file and writes the header and the stacks as read, flushed to disk.
   *
   * @throws {JournalError} When the file cannot be created or written.
   */
  open(): void {
    if (this.#file !== undefined) return;
    if (this.#closed) throw new JournalError("Cannot write to a closed journal");
    const { path, header } = this.#options;
    try {
      Deno.mkdirSync(dirname(path), { recursive: true, mode: FOLDER_MODE });
      const file = Deno.openSync(path, { write: true, createNew: true, mode: FILE_MODE });
      // Held until the journal closes, so a later start does not take it for an interrupted one.
      // Waited for, never skipped: another process that asks whether the journal is in use
      // holds the lock for that instant (src/state/folder.ts), and its user's lock, held by this
      // process since before the file existed, already told it so.
      file.lockSync(true);
      this.#file = file;
      this.#write({ type: "journal", format: JOURNAL_FORMAT, version: JOURNAL_VERSION, ...header });
      this.#writeStacks();
      this.#file.syncDataSync();
      this.#lastSync = performance.now();
    } catch (error) {
      throw this.#failure(error);
    }
  }

  /**
   * Records a write before it is sent.
   *
   * @param intent The write.
   * @param ground The stacks it changes as read just before it, every member the pass knows:
   *   for undo, they stand in for the stacks as read before the first write.
   * @returns The write's sequence number, for its outcome.
   * @throws {JournalError} When it cannot be recorded; the write must not be sent.
   */
  intent(intent: WriteIntent, ground: readonly RecordedStack[] = []): number {
    this.open();
    const seq = ++this.#seq;
    this.#intents.set(seq, intent);
    this.#record({ type: "intent", seq, ...intent, ...(ground.length > 0 ? { ground } : {}) });
    return seq;
  }

  /**
   * Records that a write was done, with the stack the server answered.
   *
   * @throws {JournalError} When it cannot be recorded.
   */
  done(seq: number, stack?: Stack): void {
    const intent = this.#intents.get(seq);
    this.#intents.delete(seq);
    if (intent !== undefined) countDone(this.#counts, intent);
    const result = stack === undefined
      ? {}
      : { stack: { id: stack.id, primaryAssetId: stack.primaryAssetId, assetIds: stack.assetIds } };
    this.#record({ type: "done", seq, ...result });
  }

  /**
   * Records that a write failed.
   *
   * @throws {JournalError} When it cannot be recorded.
   */
  failed(seq: number, error: unknown): void {
    this.#intents.delete(seq);
    this.#counts.failed++;
    const message = error instanceof Error ? error.message : String(error);
    this.#record({ type: "failed", seq, error: message });
  }

  /**
   * Ends the journal: writes the end record, flushes, compresses the file and writes its
   * summary. Nothing happens for a journal that was never opened.
   *
   * @param end What the pass left undone.
   * @throws {JournalError} When the journal cannot be finished.
   */
  async close(end: JournalEnd = {}): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stacks = undefined;
    const file = this.#file;
    if (file === undefined) return;
    const finishedAt = this.#options.now().toISOString();
    const changedSince = end.changedSince ?? 0;
    const notDone = end.notDone ?? 0;
    try {
      this.#write({ type: "end", finishedAt, changedSince, notDone });
      file.syncDataSync();
      file.close();
      this.#file = undefined;
      const summary: JournalSummary = {
        ...this.#options.header,
        finishedAt,
        counts: { ...this.#counts, unknown: this.#intents.size, changedSince, notDone },
      };
      await this.#options.compress(this.#options.path);
      await writeSummary(this.#options.summaryPath, summary);
    } catch (error) {
      throw this.#failure(error);
    }
  }

  /** Writes a record, flushing to disk when the last flush is a second old. */
  #record(record: Record<string, unknown>): void {
    if (this.#file === undefined || this.#closed) {
      throw new JournalError(`Cannot write to the closed journal ${this.#options.path}`);
    }
    try {
      this.#write(record);
      const now = performance.now();
      if (now - this.#lastSync >= SYNC_INTERVAL_MS) {
        this.#file.syncDataSync();
        this.#lastSync = now;
      }
    } catch (error) {
      throw this.#failure(error);
    }
  }

  #write(record: Record<string, unknown>): void {
    writeAll(this.#file!, `${JSON.stringify(record)}\n`);
  }

  /** The stacks as read, one record each, written in chunks of about 64 KB. */
  #writeStacks(): void {
    const { stacks, records, ...members } = this.#stacks!;
    this.#stacks = undefined;
    const text = new ChunkedText(() => this.#file!);
    let count = 0;
    const recorded = records?.() ?? (function* () {
      for (const stack of stacks) yield recordStack(stack, members);
    })();
    for (const record of recorded) {
      count++;
      text.put(`${JSON.stringify({ type: "stack", ...record })}\n`);
    }
    text.put(`${JSON.stringify({ type: "stacks-end", count })}\n`);
    text.flush();
  }

  #failure(error: unknown): JournalError {
    if (error instanceof JournalError) return error;
    const detail = error instanceof Error ? error.message : String(error);
    return new JournalError(`Cannot write the journal ${this.#options.path}: ${detail}`, {
      cause: error,
    });
  }
}

/**
 * A stack with its members' file names, as journals and backups record it.
 *
 * @param stack The stack, every member listed.
 * @param members File names by asset id (members without one are recorded by id alone), and
 *   which members `GET /stacks` does not list, marked `trashed` or `hidden`.
 * @returns The record: id, primary, and the members, primary first.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordStack } from "./journal.ts";
 *
 * const stack = { id: "s1", primaryAssetId: "b", assetIds: ["a", "b"] };
 * assert.deepEqual(recordStack(stack, { fileNames: new Map([["b", "IMG_1.jpg"]]) }), {
 *   id: "s1",
 *   primaryAssetId: "b",
 *   assets: [{ id: "b", originalFileName: "IMG_1.jpg" }, { id: "a" }],
 * });
 * ```
 */
export function recordStack(
  stack: Stack,
  members: Omit<StacksAsRead, "stacks">,
): RecordedStack {
  const { fileNames, trashed, unlisted } = members;
  const ids = [stack.primaryAssetId, ...stack.assetIds.filter((id) => id !== stack.primaryAssetId)];
  return {
    id: stack.id,
    primaryAssetId: stack.primaryAssetId,
    assets: ids.map((id): RecordedAsset => {
      const name = fileNames.get(id);
      return {
        id,
        ...(name === undefined ? {} : { originalFileName: name }),
        ...(trashed?.has(id) ? { trashed: true } : unlisted?.has(id) ? { hidden: true } : {}),
      };
    }),
  };
}
