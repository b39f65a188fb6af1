/**
 * A journal's summary, kept beside it so that listing runs reads no journal.
 *
 * @module
 */
import { replaceFile } from "./_files.ts";
import { checkVersion, JOURNAL_VERSION, type JournalSummary } from "./journal_format.ts";
import { summarySchema } from "./journal_schema.ts";

/** The name of a summary file's format. */
const SUMMARY_FORMAT = "stacksync-run";

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
