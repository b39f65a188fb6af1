/**
 * Files a command writes where the user says (`plan --out`, `plan --html`, `backup --out`) are
 * replaced only when stacksync wrote them: an existing file that is none of its own stops the
 * command with one line, status 2, before any request (docs/safety.md, "Files on disk").
 *
 * @module
 */
import { ConfigError } from "../config.ts";

/** How much of an existing file is read to tell whether stacksync wrote it. */
const HEAD_BYTES = 4096;

/** What a command writes, and how to tell a file it wrote before. */
export interface OwnFile {
  /** What it is, for the message: `plan`, `review page`, `backup`. */
  readonly what: string;
  /** The flag that names the file, for the message. */
  readonly flag: string;
  /** Whether the first bytes of a file are those of one stacksync wrote. */
  readonly recognize: (head: string) => boolean;
}

/** The plan file (`plan --out`): a JSON document of the format `stacksync-plan`. */
export const PLAN_FILE: OwnFile = {
  what: "plan",
  flag: "--out",
  recognize: (head) => /^\{\s*"format":\s*"stacksync-plan"/.test(head),
};

/** The review page (`plan --html`): its title names stacksync's plan. */
export const REVIEW_PAGE: OwnFile = {
  what: "review page",
  flag: "--html",
  recognize: (head) =>
    /^<!doctype html>/i.test(head) && head.includes("<title>stacksync plan for "),
};

/** A backup (`backup --out`): a JSON document of the format `stacksync-backup`. */
export const BACKUP_FILE: OwnFile = {
  what: "backup",
  flag: "--out",
  recognize: (head) => /^\{\s*"format":\s*"stacksync-backup"/.test(head),
};

/**
 * Refuses a file that exists and that stacksync did not write; a missing file is fine.
 *
 * @param path The file.
 * @param file What it is and how to recognize one stacksync wrote.
 * @throws {ConfigError} When the file exists and is not one stacksync wrote, or cannot be read.
 */
export async function checkOwnFile(path: string, file: OwnFile): Promise<void> {
  let head: string;
  try {
    const opened = await Deno.open(path, { read: true });
    try {
      if (!(await opened.stat()).isFile) throw new TypeError("it is not a file");
      const bytes = new Uint8Array(HEAD_BYTES);
      const read = await opened.read(bytes) ?? 0;
      head = new TextDecoder().decode(bytes.subarray(0, read));
    } finally {
      opened.close();
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw new ConfigError(
      `Cannot write the ${file.what} to ${path}: ${(error as Error).message}`,
    );
  }
  if (file.recognize(head)) return;
  throw new ConfigError(
    `Cannot write the ${file.what} to ${path} as it is a file stacksync did not write: move it ` +
      `away, or name another file with ${file.flag}`,
  );
}
