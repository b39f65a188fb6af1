/**
 * The backup file of `stacksync backup` and `stacksync restore`: every stack of every user, as
 * stable JSON (format `stacksync-backup`, version 1; docs/state.md). Stacks are sorted by their
 * primary's file name and members by file name after the primary, one stack per line, so two
 * backups of the same stacks are the same file and a diff shows what changed.
 *
 * @module
 */
import { z } from "zod";
import { stackSchemaOf } from "../stack_schema.ts";
import type { RecordedStack } from "./journal.ts";
import { writeAll } from "../log.ts";
import { openPrivate } from "../private_files.ts";

/** The format name of backup files. */
export const BACKUP_FORMAT = "stacksync-backup";
/** The backup version this stacksync writes and the newest it reads. */
export const BACKUP_VERSION = 1;

/** One user's stacks in a backup. */
export interface BackupUser {
  readonly id: string;
  readonly name: string;
  readonly stacks: readonly RecordedStack[];
}

/** A backup: when, from where, by which stacksync, and every user's stacks. */
export interface Backup {
  /** ISO 8601 time the backup was read. */
  readonly createdAt: string;
  /** API_URL without credentials, query or fragment. */
  readonly server: string;
  readonly stacksync: string;
  readonly users: readonly BackupUser[];
}

const assetSchema = z.object({ id: z.string(), originalFileName: z.string().optional() });
const stackSchema = stackSchemaOf(assetSchema);
const backupSchema = z.object({
  format: z.literal(BACKUP_FORMAT),
  version: z.number(),
  createdAt: z.string(),
  server: z.string(),
  stacksync: z.string(),
  users: z.array(z.object({ id: z.string(), name: z.string(), stacks: z.array(stackSchema) })),
});

function byName(a: { id: string; originalFileName?: string }, b: typeof a): number {
  const x = a.originalFileName ?? "";
  const y = b.originalFileName ?? "";
  return x < y ? -1 : x > y ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * Puts stacks in the backup's order: members by file name (then id) after the primary, stacks
 * by their primary's file name (then id).
 *
 * @param stacks Recorded stacks, primary first.
 * @returns The same stacks, sorted.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { sortStacks } from "./backup.ts";
 *
 * const sorted = sortStacks([
 *   { id: "s2", primaryAssetId: "b", assets: [{ id: "b", originalFileName: "B.jpg" }] },
 *   { id: "s1", primaryAssetId: "a", assets: [
 *     { id: "a", originalFileName: "A.jpg" },
 *     { id: "z", originalFileName: "A.dng" },
 *     { id: "y", originalFileName: "A.cr3" },
 *   ] },
 * ]);
 * assert.deepEqual(sorted.map((s) => s.assets.map((a) => a.originalFileName)), [
 *   ["A.jpg", "A.cr3", "A.dng"],
 *   ["B.jpg"],
 * ]);
 * ```
 */
export function sortStacks(stacks: readonly RecordedStack[]): RecordedStack[] {
  return stacks
    .map((stack) => ({
      ...stack,
      assets: [stack.assets[0], ...stack.assets.slice(1).toSorted(byName)],
    }))
    .sort((a, b) => byName(a.assets[0], b.assets[0]) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * The backup as text, in pieces of about 64 KB: the fields, then each user with one stack per
 * line. It is JSON; stacks and users come in the order given (see {@linkcode sortStacks}).
 *
 * @param backup The backup.
 * @returns The pieces, in order.
 */
export function* backupText(backup: Backup): Generator<string> {
  const { users, ...fields } = backup;
  let text = `{\n  "format": "${BACKUP_FORMAT}",\n  "version": ${BACKUP_VERSION},\n`;
  for (const [key, value] of Object.entries(fields)) {
    text += `  ${JSON.stringify(key)}: ${JSON.stringify(value)},\n`;
  }
  text += `  "users": [`;
  for (const [u, user] of users.entries()) {
    text += `${u === 0 ? "" : ","}\n    {\n      "id": ${JSON.stringify(user.id)},\n` +
      `      "name": ${JSON.stringify(user.name)},\n      "stacks": [`;
    for (const [s, stack] of user.stacks.entries()) {
      text += `${s === 0 ? "" : ","}\n        ${JSON.stringify(stack)}`;
      if (text.length >= 65536) {
        yield text;
        text = "";
      }
    }
    text += `${user.stacks.length === 0 ? "" : "\n      "}]\n    }`;
  }
  yield `${text}${users.length === 0 ? "" : "\n  "}]\n}\n`;
}

/**
 * Writes a backup file: beside the target first, flushed, then renamed over it, so a backup
 * file is never half written.
 *
 * @param path The file.
 * @param backup The backup.
 */
export async function writeBackupFile(path: string, backup: Backup): Promise<void> {
  const temporary = `${path}.tmp`;
  const file = await openPrivate(temporary);
  try {
    for (const piece of backupText(backup)) writeAll(file, piece);
    await file.syncData();
  } finally {
    file.close();
  }
  await Deno.rename(temporary, path);
}

/**
 * Reads and checks a backup file.
 *
 * @param text The file's content.
 * @param name The file's name, for messages.
 * @returns The backup.
 * @throws {SyntaxError} When it is not a stacksync backup, naming the first problem.
 * @throws {RangeError} When a newer stacksync wrote it.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { backupText, parseBackup } from "./backup.ts";
 *
 * const backup = {
 *   createdAt: "2024-01-01T00:00:00.000Z", server: "http://immich/api", stacksync: "1.0.0",
 *   users: [{ id: "u1", name: "Ada", stacks: [] }],
 * };
 * assert.deepEqual(parseBackup([...backupText(backup)].join(""), "b.json"), backup);
 * ```
 */
export function parseBackup(text: string, name: string): Backup {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SyntaxError(
      `Cannot read the backup ${name} as it is not JSON: ${(error as Error).message}`,
    );
  }
  const version = (json as { version?: unknown } | null)?.version;
  if (typeof version === "number" && version > BACKUP_VERSION) {
    throw new RangeError(
      `Cannot read the backup ${name} as a newer stacksync wrote it (format version ${version}, ` +
        `this one reads up to ${BACKUP_VERSION}): upgrade stacksync`,
    );
  }
  const parsed = backupSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join(".") : "the file";
    throw new SyntaxError(
      `Cannot read the backup ${name} as it is not a stacksync backup: ${where}: ` +
        (issue?.message ?? "invalid"),
    );
  }
  const { format: _format, version: _version, ...backup } = parsed.data;
  return backup;
}
