/**
 * What a journal records (docs/state.md): its header, each write's intent and outcome, the
 * counts of a run and its summary; the journal's format name and version, and its errors.
 *
 * @module
 */
import type { RecordedStack, Stack } from "../model.ts";

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

/** The counts of writes before any. */
export const NO_WRITES = {
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
export function countDone(counts: typeof NO_WRITES, intent: WriteIntent): void {
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

/** Refuses a journal or summary a newer stacksync wrote. */
export function checkVersion(version: number, path: string): void {
  if (version > JOURNAL_VERSION) {
    throw new RangeError(
      `Cannot read ${path} as a newer stacksync wrote it (format version ${version}, this one ` +
        `reads up to ${JOURNAL_VERSION}): upgrade stacksync`,
    );
  }
}
