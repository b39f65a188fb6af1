/**
 * `stacksync runs`: the recorded runs as a table, one row per run and user, oldest first, like
 * `restic snapshots`, each with how long it is kept (JOURNAL_KEEP, JOURNAL_KEEP_DAYS). It reads
 * the state folder only.
 *
 * @module
 */
import type { JournalSummary } from "../state/journal.ts";
import { type Kept, keptRuns, type Retention } from "../state/retention.ts";
import { undoneStatus } from "../undo/history.ts";
import { columns } from "./_table.ts";
import { type Command, stateFolderOf } from "./command.ts";

/**
 * The table of `stacksync runs`.
 *
 * @param summaries The journals' summaries, oldest run first.
 * @param options How long runs are kept, and the time now.
 * @returns The lines: a header, then one row per run and user.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { runsTable } from "./runs.ts";
 *
 * const counts = {
 *   created: 7, updated: 1, deleted: 0, trashed: 0, restored: 0, failed: 0, unknown: 0,
 *   changedSince: 0, notDone: 0,
 * };
 * const lines = runsTable([{
 *   run: "20261123-101500-123", command: "run", startedAt: "2026-11-23T10:15:00.123Z",
 *   finishedAt: "2026-11-23T10:15:04.000Z", server: "http://immich:2283/api",
 *   user: { id: "u1", name: "Ada" }, stacksync: "0.1.0", counts,
 * }], { retention: { keep: 30, days: 30 }, now: new Date("2026-11-24T00:00:00.000Z") });
 * assert.equal(lines.length, 2);
 * assert.match(lines[1], /^20261123-101500-123 +2026-11-23 10:15:00 +run +Ada +http:\/\/immich:2283\/api +7 +1 +0 +0 +0 +0 +yes +no +until 2026-12-23 10:15$/);
 * ```
 */
export function runsTable(
  summaries: readonly JournalSummary[],
  options: { readonly retention: Retention; readonly now: Date },
): string[] {
  const status = undoneStatus(summaries);
  const ids = [...new Set(summaries.map((summary) => summary.run))];
  const kept = new Map(
    keptRuns(ids, options.retention, options.now).map((entry, index) => [ids[index], entry]),
  );
  const rows = [[
    "ID",
    "STARTED (UTC)",
    "COMMAND",
    "USER",
    "SERVER",
    "CREATED",
    "UPDATED",
    "DELETED",
    "TRASHED",
    "RESTORED",
    "FAILED",
    "FINISHED",
    "UNDONE",
    "KEPT",
  ]];
  for (const summary of summaries) {
    const { counts } = summary;
    const undone = status(summary);
    const problems = counts.failed + counts.unknown;
    rows.push([
      summary.run,
      summary.startedAt.slice(0, 19).replace("T", " "),
      summary.undoes === undefined ? summary.command : `${summary.command} ${summary.undoes}`,
      summary.user.name,
      summary.server,
      String(counts.created),
      String(counts.updated),
      String(counts.deleted),
      String(counts.trashed),
      String(counts.restored),
      counts.unknown > 0 ? `${problems} (${counts.unknown} unknown)` : String(problems),
      summary.finishedAt === undefined
        ? "no"
        : counts.notDone > 0
        ? `yes, ${counts.notDone} not done`
        : "yes",
      undone.by === undefined ? undone.status : `yes, by ${undone.by}`,
      keptWords(kept.get(summary.run)!, options.retention),
    ]);
  }
  return columns(rows);
}

/** How long a run is kept, in the words of the KEPT column. */
function keptWords(kept: Kept, retention: Retention): string {
  if (kept.by === "age") return `until ${kept.until.slice(0, 16).replace("T", " ")}`;
  if (kept.by === "count") return `as one of the last ${retention.keep}`;
  return "no, the next run deletes it";
}

/** Prints the table of recorded runs. */
export const runsCommand: Command = async (context) => {
  const folder = await stateFolderOf(context.settings, false);
  return async () => {
    const { found, unreadable } = await folder.journals();
    for (const { path, error } of unreadable) {
      context.stderr(`warning: Cannot read the journal ${path}: ${error}\n`);
    }
    if (found.length === 0) {
      context.stdout(`No runs recorded in ${folder.path}\n`);
    } else {
      const { settings } = context;
      const table = runsTable(found.map((journal) => journal.summary), {
        retention: { keep: settings.journalKeep, days: settings.journalKeepDays },
        now: context.now(),
      });
      context.stdout(`${table.join("\n")}\n`);
    }
    return unreadable.length === 0 ? "ok" : "failed";
  };
};
