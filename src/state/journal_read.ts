/**
 * Reads a journal back: its header, the stacks as read, the writes and their outcomes.
 *
 * @module
 */
import type { z } from "zod";
import type { RecordedStack } from "../model.ts";
import { readLines } from "./_files.ts";
import {
  checkVersion,
  countDone,
  EmptyJournalError,
  type JournalContents,
  type JournalHeader,
  NO_WRITES,
  type RecordedWrite,
  type WriteIntent,
  type WriteOutcome,
} from "./journal_format.ts";
import { intentSchema, recordSchema } from "./journal_schema.ts";

/**
 * The stacks as read before the first write, each stack a write changed as read just before that
 * write instead (its first one): the snapshot of an incremental pass comes from its cache, which
 * cannot know a cover chosen by hand since, and lists only members `GET /stacks` shows. File
 * names the read does not know are taken from the snapshot.
 */
function withGrounds(
  stacks: readonly RecordedStack[],
  grounds: ReadonlyMap<string, RecordedStack>,
): RecordedStack[] {
  if (grounds.size === 0) return [...stacks];
  const byId = new Map(stacks.map((stack) => [stack.id, stack]));
  const named = (ground: RecordedStack): RecordedStack => {
    const names = new Map(
      (byId.get(ground.id)?.assets ?? []).map((asset) => [asset.id, asset.originalFileName]),
    );
    return {
      ...ground,
      assets: ground.assets.map((asset) => {
        const name = asset.originalFileName ?? names.get(asset.id);
        return name === undefined ? asset : { ...asset, originalFileName: name };
      }),
    };
  };
  return [
    ...stacks.map((stack) => {
      const ground = grounds.get(stack.id);
      return ground === undefined ? stack : named(ground);
    }),
    ...[...grounds.values()].filter((ground) => !byId.has(ground.id)),
  ];
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
  const records = new JournalRecords(path);
  let number = 0;
  for await (const { line, torn } of readLines(path)) {
    number++;
    if (line.trim() === "") continue;
    const record = parseRecord(line, { path, number, torn });
    if (record === undefined) break;
    records.add(record);
  }
  return records.contents();
}

/** One record of a journal, as its schema reads it. */
type JournalRecord = z.output<typeof recordSchema> | z.output<typeof intentSchema>;

/**
 * One line of a journal as a record, or undefined for a torn last line.
 *
 * @throws {SyntaxError} When a line other than the last is not a journal record.
 */
function parseRecord(
  line: string,
  { path, number, torn }: { path: string; number: number; torn: boolean },
): JournalRecord | undefined {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    if (torn) return undefined;
    throw new SyntaxError(`Cannot read the journal ${path}: line ${number} is not JSON`);
  }
  const isIntent = (json as { type?: unknown } | null)?.type === "intent";
  const parsed = isIntent ? intentSchema.safeParse(json) : recordSchema.safeParse(json);
  if (!parsed.success) {
    if (torn) return undefined;
    throw new SyntaxError(
      `Cannot read the journal ${path}: line ${number} is not a journal record`,
    );
  }
  return parsed.data;
}

/** What the records of a journal read so far hold. */
class JournalRecords {
  readonly #path: string;
  #header: JournalHeader | undefined;
  readonly #stacks: RecordedStack[] = [];
  readonly #grounds = new Map<string, RecordedStack>();
  #stacksComplete = false;
  readonly #intents = new Map<number, WriteIntent>();
  readonly #outcomes = new Map<number, WriteOutcome>();
  #end: { finishedAt: string; changedSince: number; notDone: number } | undefined;

  constructor(path: string) {
    this.#path = path;
  }

  /** Takes in the next record. */
  add(record: JournalRecord): void {
    switch (record.type) {
      case "journal": {
        checkVersion(record.version, this.#path);
        const { type: _type, format: _format, version: _version, ...fields } = record;
        this.#header = fields;
        break;
      }
      case "stack": {
        const { type: _type, ...stack } = record;
        this.#stacks.push(stack);
        break;
      }
      case "stacks-end":
        this.#stacksComplete = true;
        break;
      case "intent": {
        const { type: _type, seq, ...intent } = record;
        if ("ground" in intent) {
          const { ground, ...write } = intent;
          for (const stack of ground ?? []) {
            if (!this.#grounds.has(stack.id)) this.#grounds.set(stack.id, stack);
          }
          this.#intents.set(seq, write);
        } else this.#intents.set(seq, intent);
        break;
      }
      case "done":
        this.#outcomes.set(record.seq, {
          status: "done",
          ...(record.stack ? { stack: record.stack } : {}),
        });
        break;
      case "failed":
        this.#outcomes.set(record.seq, { status: "failed", error: record.error });
        break;
      case "end":
        this.#end = {
          finishedAt: record.finishedAt,
          changedSince: record.changedSince,
          notDone: record.notDone,
        };
        break;
    }
  }

  /**
   * The journal's contents; a write with an intent and no outcome has the outcome `unknown`.
   *
   * @throws {EmptyJournalError} When it has no header: nothing was recorded.
   */
  contents(): JournalContents {
    const header = this.#header;
    if (header === undefined) {
      throw new EmptyJournalError(`Cannot read the journal ${this.#path}: it has no header`);
    }
    const writes = [...this.#intents].map(([seq, intent]): RecordedWrite => ({
      seq,
      intent,
      outcome: this.#outcomes.get(seq) ?? { status: "unknown" },
    }));
    const counts = { ...NO_WRITES };
    for (const { intent, outcome } of writes) {
      if (outcome.status === "failed") counts.failed++;
      else if (outcome.status === "unknown") counts.unknown++;
      else countDone(counts, intent);
    }
    const end = this.#end;
    return {
      header,
      stacks: withGrounds(this.#stacks, this.#grounds),
      stacksComplete: this.#stacksComplete,
      writes,
      summary: {
        ...header,
        ...(end === undefined ? {} : { finishedAt: end.finishedAt }),
        counts: { ...counts, changedSince: end?.changedSince ?? 0, notDone: end?.notDone ?? 0 },
      },
    };
  }
}
