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
 * {@linkcode journalWrites} records a {@linkcode StackWriter}'s writes; the writer's caller
 * (`applyPlan`) does not know it is journaled.
 *
 * @module
 */
import { dirname } from "node:path";
import { z } from "zod";
import type { Stack } from "../model.ts";
import type { StackWriter } from "../reconcile/apply.ts";
import type { TrashWriter } from "../trash/apply.ts";
import { writeAll } from "../log.ts";
import { ChunkedText, readLines, replaceFile } from "./_files.ts";
import { FILE_MODE, FOLDER_MODE } from "../private_files.ts";

/** The format name of journal files. */
export const JOURNAL_FORMAT = "stacksync-journal";
/** The newest journal version this stacksync reads and the one it writes. */
export const JOURNAL_VERSION = 1;

/** Thrown when the journal cannot be written; the write it was about is not sent. */
export class JournalError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "JournalError";
  }
}

/**
 * A journal file without its first record: the process died while creating it, before anything
 * was recorded or sent.
 */
export class EmptyJournalError extends SyntaxError {
  constructor(message: string) {
    super(message);
    this.name = "EmptyJournalError";
  }
}

/** The commands that write a journal. */
export type JournalCommand = "run" | "undo" | "restore" | "fix-trash" | "apply";

/** What a journal is about: its first record. */
export interface JournalHeader {
  readonly run: string;
  readonly command: JournalCommand;
  /** The run an undo puts back. */
  readonly undoes?: string;
  /** ISO 8601 time the run started. */
  readonly startedAt: string;
  /** API_URL without credentials, query or fragment. */
  readonly server: string;
  readonly user: { readonly id: string; readonly name: string };
  /** The stacksync version that wrote it. */
  readonly stacksync: string;
}

/**
 * A member of a recorded stack: its id and, when the run read it, its file name; members that
 * `GET /stacks` does not list are marked, as in the trash or hidden (a live photo's video).
 */
export interface RecordedAsset {
  readonly id: string;
  readonly originalFileName?: string;
  readonly trashed?: true;
  readonly hidden?: true;
}

/** A stack as a journal or a backup records it: every member, the primary first. */
export interface RecordedStack {
  readonly id: string;
  readonly primaryAssetId: string;
  readonly assets: readonly RecordedAsset[];
}

/** One write as it was about to be sent. */
export type WriteIntent =
  /** `grows`: the stack a grow added the photos to (the create merged it); counted an update. */
  | { readonly op: "create"; readonly assetIds: readonly string[]; readonly grows?: string }
  | { readonly op: "update-primary"; readonly stackId: string; readonly primaryAssetId: string }
  | { readonly op: "delete"; readonly stackId: string }
  /** Photos moved to the trash (`DELETE /assets`, never for good). */
  | { readonly op: "trash"; readonly assetIds: readonly string[] }
  /** Photos brought back out of the trash. */
  | { readonly op: "restore"; readonly assetIds: readonly string[] };

/**
 * What became of a write: `done` with the stack the server answered (none for a delete),
 * `failed` with the error, or unknown when the journal ends before its outcome (the process
 * was killed while the write was in flight).
 */
export type WriteOutcome =
  | { readonly status: "done"; readonly stack?: Stack }
  | { readonly status: "failed"; readonly error: string }
  | { readonly status: "unknown" };

/** One recorded write: its intent and its outcome. */
export interface RecordedWrite {
  readonly seq: number;
  readonly intent: WriteIntent;
  readonly outcome: WriteOutcome;
}

/** Counts of a journal, for `stacksync runs` and to tell whether an undo finished its work. */
export interface JournalCounts {
  /** Writes done, by operation. */
  readonly created: number;
  readonly updated: number;
  readonly deleted: number;
  /** Photos moved to the trash, and brought back out of it, by writes done. */
  readonly trashed: number;
  readonly restored: number;
  /** Writes that failed. */
  readonly failed: number;
  /** Writes whose outcome is unknown. */
  readonly unknown: number;
  /** For an undo: stacks left alone because they changed after the run. */
  readonly changedSince: number;
  /** Actions of the plan not carried out (a shutdown signal, a deletion that failed). */
  readonly notDone: number;
}

/** What a pass left undone, recorded when its journal closes. */
export interface JournalEnd {
  /** For an undo: stacks it left alone because they changed after the run. */
  readonly changedSince?: number;
  /** Actions of the plan not carried out. */
  readonly notDone?: number;
}

/** A journal's summary, kept beside it so that listing runs reads no journal. */
export interface JournalSummary extends JournalHeader {
  /** ISO 8601 time the journal was closed; absent when the run was interrupted. */
  readonly finishedAt?: string;
  readonly counts: JournalCounts;
}

/** Everything a journal holds. */
export interface JournalContents {
  readonly header: JournalHeader;
  /** The user's stacks before the first write; complete unless the run died while saving them. */
  readonly stacks: readonly RecordedStack[];
  readonly stacksComplete: boolean;
  readonly writes: readonly RecordedWrite[];
  readonly summary: JournalSummary;
}

const assetSchema = z.object({
  id: z.string(),
  originalFileName: z.string().optional(),
  trashed: z.literal(true).optional(),
  hidden: z.literal(true).optional(),
});
const stackSchema = z.object({
  id: z.string(),
  primaryAssetId: z.string(),
  assets: z.array(assetSchema),
});
const resultSchema = z.object({
  id: z.string(),
  primaryAssetId: z.string(),
  assetIds: z.array(z.string()),
});
const headerFields = {
  run: z.string(),
  command: z.enum(["run", "undo", "restore", "fix-trash", "apply"]),
  undoes: z.string().optional(),
  startedAt: z.string(),
  server: z.string(),
  user: z.object({ id: z.string(), name: z.string() }),
  stacksync: z.string(),
};
const countsSchema = z.object({
  created: z.number(),
  updated: z.number(),
  deleted: z.number(),
  // Summaries written before fix-trash existed have neither.
  trashed: z.number().default(0),
  restored: z.number().default(0),
  failed: z.number(),
  unknown: z.number(),
  changedSince: z.number(),
  notDone: z.number(),
});
const recordSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("journal"),
    format: z.literal(JOURNAL_FORMAT),
    version: z.number(),
    ...headerFields,
  }),
  z.object({ type: z.literal("stack"), ...stackSchema.shape }),
  z.object({ type: z.literal("stacks-end"), count: z.number() }),
  z.object({ type: z.literal("done"), seq: z.number(), stack: resultSchema.optional() }),
  z.object({ type: z.literal("failed"), seq: z.number(), error: z.string() }),
  z.object({
    type: z.literal("end"),
    finishedAt: z.string(),
    changedSince: z.number(),
    notDone: z.number(),
  }),
]);
/** An intent record, told apart by its operation. */
const intentSchema = z.discriminatedUnion("op", [
  z.object({
    type: z.literal("intent"),
    seq: z.number(),
    op: z.literal("create"),
    assetIds: z.array(z.string()),
    grows: z.string().optional(),
  }),
  z.object({
    type: z.literal("intent"),
    seq: z.number(),
    op: z.literal("update-primary"),
    stackId: z.string(),
    primaryAssetId: z.string(),
  }),
  z.object({
    type: z.literal("intent"),
    seq: z.number(),
    op: z.literal("delete"),
    stackId: z.string(),
  }),
  z.object({
    type: z.literal("intent"),
    seq: z.number(),
    op: z.literal("trash"),
    assetIds: z.array(z.string()),
  }),
  z.object({
    type: z.literal("intent"),
    seq: z.number(),
    op: z.literal("restore"),
    assetIds: z.array(z.string()),
  }),
]);
const summarySchema = z.object({
  format: z.literal("stacksync-run"),
  version: z.number(),
  ...headerFields,
  finishedAt: z.string().optional(),
  counts: countsSchema,
});

/** The counts of writes before any. */
const NO_WRITES = {
  created: 0,
  updated: 0,
  deleted: 0,
  trashed: 0,
  restored: 0,
  failed: 0,
  unknown: 0,
};

/**
 * Counts one write done: a stack write once (a grow as an update, as the run's summary counts
 * it), a move to or from the trash by its photos.
 */
function countDone(counts: typeof NO_WRITES, intent: WriteIntent): void {
  switch (intent.op) {
    case "create":
      if (intent.grows === undefined) counts.created++;
      else counts.updated++;
      break;
    case "update-primary":
      counts.updated++;
      break;
    case "delete":
      counts.deleted++;
      break;
    case "trash":
      counts.trashed += intent.assetIds.length;
      break;
    case "restore":
      counts.restored += intent.assetIds.length;
      break;
  }
}

/** The name of a summary file's format. */
const SUMMARY_FORMAT = "stacksync-run";

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
   * @returns The write's sequence number, for its outcome.
   * @throws {JournalError} When it cannot be recorded; the write must not be sent.
   */
  intent(intent: WriteIntent): number {
    this.open();
    const seq = ++this.#seq;
    this.#intents.set(seq, intent);
    this.#record({ type: "intent", seq, ...intent });
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
  ) => {
    let seq = 0;
    record(() => seq = journal.intent(intent));
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
      ),
    updateStackPrimary: (stackId, primaryAssetId) =>
      send(
        { op: "update-primary", stackId, primaryAssetId },
        () => writer.updateStackPrimary(stackId, primaryAssetId),
        (stack) => stack,
      ),
    deleteStack: (stackId) =>
      send({ op: "delete", stackId }, () => writer.deleteStack(stackId), () => undefined),
    // A read: nothing to record.
    stackWithPrimary: (assetId) => writer.stackWithPrimary(assetId),
    trashAssets: (assetIds) =>
      send({ op: "trash", assetIds }, () => writer.trashAssets(assetIds), () => undefined),
    restoreAssets: (assetIds) =>
      send({ op: "restore", assetIds }, () => writer.restoreAssets(assetIds), () => undefined),
  };
}

/** Writes a journal's summary beside it. */
export function writeSummary(path: string, summary: JournalSummary): Promise<void> {
  return replaceFile(
    path,
    `${JSON.stringify({ format: SUMMARY_FORMAT, version: JOURNAL_VERSION, ...summary })}\n`,
  );
}

/**
 * Reads a journal's summary file.
 *
 * @param path The summary file.
 * @returns The summary, or undefined when the file is missing.
 * @throws {SyntaxError} When the file is not a summary; a {@linkcode RangeError} when a newer
 *   stacksync wrote it.
 */
export async function readSummary(path: string): Promise<JournalSummary | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  const parsed = summarySchema.safeParse(JSON.parse(text));
  if (!parsed.success) {
    throw new SyntaxError(`Cannot read the run summary ${path}: it is not a stacksync summary`);
  }
  const { format: _format, version, ...summary } = parsed.data;
  checkVersion(version, path);
  return summary;
}

function checkVersion(version: number, path: string): void {
  if (version > JOURNAL_VERSION) {
    throw new RangeError(
      `Cannot read ${path} as a newer stacksync wrote it (format version ${version}, this one ` +
        `reads up to ${JOURNAL_VERSION}): upgrade stacksync`,
    );
  }
}

/**
 * Reads a journal, plain or gzip-compressed. A torn last line (the process was killed while
 * writing it) is ignored; a write with an intent and no outcome has the outcome `unknown`.
 *
 * @param path The journal file (`.jsonl` or `.jsonl.gz`).
 * @returns Its header, the stacks as read, the writes and a summary of them.
 * @throws {EmptyJournalError} When it has no header: nothing was recorded.
 * @throws {SyntaxError} When a line other than the last is not a journal record.
 * @throws {RangeError} When a newer stacksync wrote it.
 */
export async function readJournal(path: string): Promise<JournalContents> {
  let header: JournalHeader | undefined;
  const stacks: RecordedStack[] = [];
  let stacksComplete = false;
  const intents = new Map<number, WriteIntent>();
  const outcomes = new Map<number, WriteOutcome>();
  let end: { finishedAt: string; changedSince: number; notDone: number } | undefined;
  let number = 0;
  for await (const { line, torn } of readLines(path)) {
    number++;
    if (line.trim() === "") continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      if (torn) break;
      throw new SyntaxError(`Cannot read the journal ${path}: line ${number} is not JSON`);
    }
    const isIntent = (json as { type?: unknown } | null)?.type === "intent";
    const parsed = isIntent ? intentSchema.safeParse(json) : recordSchema.safeParse(json);
    if (!parsed.success) {
      if (torn) break;
      throw new SyntaxError(
        `Cannot read the journal ${path}: line ${number} is not a journal record`,
      );
    }
    const record = parsed.data;
    switch (record.type) {
      case "journal": {
        checkVersion(record.version, path);
        const { type: _type, format: _format, version: _version, ...fields } = record;
        header = fields;
        break;
      }
      case "stack": {
        const { type: _type, ...stack } = record;
        stacks.push(stack);
        break;
      }
      case "stacks-end":
        stacksComplete = true;
        break;
      case "intent": {
        const { type: _type, seq, ...intent } = record;
        intents.set(seq, intent);
        break;
      }
      case "done":
        outcomes.set(record.seq, {
          status: "done",
          ...(record.stack ? { stack: record.stack } : {}),
        });
        break;
      case "failed":
        outcomes.set(record.seq, { status: "failed", error: record.error });
        break;
      case "end":
        end = {
          finishedAt: record.finishedAt,
          changedSince: record.changedSince,
          notDone: record.notDone,
        };
        break;
    }
  }
  if (header === undefined) {
    throw new EmptyJournalError(`Cannot read the journal ${path}: it has no header`);
  }
  const writes = [...intents].map(([seq, intent]): RecordedWrite => ({
    seq,
    intent,
    outcome: outcomes.get(seq) ?? { status: "unknown" },
  }));
  const counts = { ...NO_WRITES };
  for (const { intent, outcome } of writes) {
    if (outcome.status === "failed") counts.failed++;
    else if (outcome.status === "unknown") counts.unknown++;
    else countDone(counts, intent);
  }
  return {
    header,
    stacks,
    stacksComplete,
    writes,
    summary: {
      ...header,
      ...(end === undefined ? {} : { finishedAt: end.finishedAt }),
      counts: { ...counts, changedSince: end?.changedSince ?? 0, notDone: end?.notDone ?? 0 },
    },
  };
}
