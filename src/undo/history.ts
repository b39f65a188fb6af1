/**
 * The recorded runs as a history: which are undone, and which run `stacksync undo` takes when
 * it is given none. Pure: works on the journals' summaries.
 *
 * An undo is complete when it finished with no failed write, no write of unknown outcome, no
 * action left undone and no stack left alone; a run is undone by a complete undo that is not itself undone (undoing an
 * undo puts the run's changes back, like a redo).
 *
 * @module
 */
import { serverKey } from "../shown_url.ts";
import type { JournalSummary } from "../state/journal.ts";

/** Whether a run is undone for a user: `yes` (by `by`), `partly` (an undo was incomplete), `no`. */
export interface UndoneStatus {
  readonly status: "yes" | "partly" | "no";
  /** The undo that undid it. */
  readonly by?: string;
}

/** The key of a run for one user. */
function keyOf(run: string, userId: string): string {
  return `${run}\u0000${userId}`;
}

function complete(summary: JournalSummary): boolean {
  const { counts } = summary;
  return summary.finishedAt !== undefined && counts.failed === 0 && counts.unknown === 0 &&
    counts.changedSince === 0 && counts.notDone === 0;
}

/**
 * Tells for each run and user whether it is undone.
 *
 * @param summaries Every journal's summary.
 * @returns A function from a summary to its status.
 *
 * @example An undo of an undo puts the run back
 * ```ts
 * import assert from "node:assert/strict";
 * import { undoneStatus } from "./history.ts";
 *
 * const counts = {
 *   created: 1, updated: 0, deleted: 0, trashed: 0, restored: 0, failed: 0, unknown: 0,
 *   changedSince: 0, notDone: 0,
 * };
 * const base = { startedAt: "", finishedAt: "x", server: "s", user: { id: "u", name: "Ada" }, stacksync: "1", counts };
 * const run = { ...base, run: "r1", command: "run" } as const;
 * const undo = { ...base, run: "r2", command: "undo", undoes: "r1" } as const;
 * assert.equal(undoneStatus([run, undo])(run).status, "yes");
 * const redo = { ...base, run: "r3", command: "undo", undoes: "r2" } as const;
 * assert.equal(undoneStatus([run, undo, redo])(run).status, "no");
 * ```
 */
export function undoneStatus(
  summaries: readonly JournalSummary[],
): (summary: JournalSummary) => UndoneStatus {
  const undos = new Map<string, JournalSummary[]>();
  for (const summary of summaries) {
    if (summary.undoes === undefined) continue;
    const key = keyOf(summary.undoes, summary.user.id);
    undos.set(key, [...undos.get(key) ?? [], summary]);
  }
  const cache = new Map<string, UndoneStatus>();
  const statusOf = (summary: JournalSummary, depth: number): UndoneStatus => {
    const key = keyOf(summary.run, summary.user.id);
    const known = cache.get(key);
    if (known !== undefined) return known;
    // Undos that are themselves undone no longer count. Undo chains are short; the depth guard
    // only stops a cycle in hand-edited files.
    const attempts = (undos.get(key) ?? []).filter((undo) =>
      undo.run > summary.run && (depth > 50 || statusOf(undo, depth + 1).status !== "yes")
    );
    const by = attempts.findLast(complete);
    const status: UndoneStatus = by !== undefined
      ? { status: "yes", by: by.run }
      : { status: attempts.length > 0 ? "partly" : "no" };
    cache.set(key, status);
    return status;
  };
  return (summary) => statusOf(summary, 0);
}

/**
 * The run `stacksync undo` puts back for a user when given none: the latest run or restore of
 * that user on that server that is not undone. Undos are not taken (undo one by its id to put
 * its run back).
 *
 * @param summaries Every journal's summary.
 * @param userId The user.
 * @param server The server, as journals record it; one recorded with or without `/api` is the
 *   same server ({@linkcode serverKey}).
 * @returns The summary of the run to undo, or undefined.
 */
export function latestToUndo(
  summaries: readonly JournalSummary[],
  userId: string,
  server: string,
): JournalSummary | undefined {
  const status = undoneStatus(summaries);
  const key = serverKey(server);
  return summaries
    .filter((summary) =>
      summary.user.id === userId && serverKey(summary.server) === key &&
      summary.command !== "undo" &&
      status(summary).status !== "yes"
    )
    .sort((a, b) => (a.run < b.run ? -1 : a.run > b.run ? 1 : 0))
    .at(-1);
}
