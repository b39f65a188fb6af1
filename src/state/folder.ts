/**
 * The state folder (STATE_DIR): everything stacksync writes there goes through this module.
 *
 * ```text
 * STATE_DIR/
 *   stacksync-state.json            {"format": "stacksync-state", "version": 1}
 *   runs/<run id>/<user id>.jsonl   a journal being written (or left by a killed run)
 *   runs/<run id>/<user id>.jsonl.gz  a closed journal
 *   runs/<run id>/<user id>.json    its summary, for `stacksync runs`
 *   backups/<time>.json             `stacksync backup` without --out
 * ```
 *
 * A run id is the UTC start time, `20261123-101500-123`, so ids sort by time. docs/state.md
 * describes the formats. Like Terraform with its state, stacksync refuses a folder or a file
 * written by a newer format version.
 *
 * @module
 */
import { basename, join } from "node:path";
import { ConfigError } from "../config.ts";
import { exists, gzipFile, replaceFile } from "./_files.ts";
import { keptRuns, type Retention, runStart } from "./retention.ts";
import { FILE_MODE, FOLDER_MODE } from "../private_files.ts";
import {
  EmptyJournalError,
  type JournalCommand,
  type JournalContents,
  type JournalHeader,
  type JournalSummary,
  readJournal,
  readSummary,
  type StacksAsRead,
  UserJournal,
  writeSummary,
} from "./journal.ts";
import { userLocked } from "./lock.ts";

/** The format of the folder's marker file. */
export const STATE_FORMAT = "stacksync-state";
/** The folder layout version this stacksync writes and the newest it reads. */
export const STATE_VERSION = 1;

const MARKER = "stacksync-state.json";
const RUNS = "runs";
const BACKUPS = "backups";
const JOURNAL = /^(.+)\.jsonl(\.gz)?$/;
const RUN_ID = /^\d{8}-\d{6}-\d{3}$/;

/** The state folder cannot be used; nothing was sent. `main.ts` exits with status 2. */
export class StateError extends ConfigError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "StateError";
  }
}

/** Options of {@linkcode openStateFolder}. */
export interface OpenStateOptions {
  /**
   * Create the folder and check that journals can be written in it, and compress the journals
   * of runs that were killed. Without it the folder is only read, and may be missing.
   */
  readonly write: boolean;
}

/** What a journaled command is, for the header of each user's journal. */
export interface RunStart {
  readonly command: JournalCommand;
  /** API_URL without credentials. */
  readonly server: string;
  /** The stacksync version. */
  readonly stacksync: string;
  /** The clock: the run id is its start time; journals record when they close. */
  readonly now: () => Date;
}

/** The journals of one run: one per user, each created at its user's first write. */
export interface RunJournal {
  readonly id: string;
  /** After every user: removes the run's folder when no journal was written in it. */
  end(): Promise<void>;
  /**
   * The journal of one user.
   *
   * @param user The key's user.
   * @param stacks The user's stacks as read, saved when the journal opens.
   * @param undoes For an undo: the run it puts back for this user.
   */
  forUser(user: JournalHeader["user"], stacks: StacksAsRead, undoes?: string): UserJournal;
}

/** A journal found in the folder, with where it is. */
export interface FoundJournal {
  readonly summary: JournalSummary;
  /** The journal file. */
  readonly path: string;
}

/** A journal that could not be read, and why. */
export interface UnreadableJournal {
  readonly path: string;
  readonly error: string;
}

/** The state folder, opened. */
export interface StateFolder {
  readonly path: string;
  /** Starts a journaled run: allocates its id; files appear at each user's first write. */
  startRun(start: RunStart): Promise<RunJournal>;
  /** Every journal with its summary, oldest run first, and those that cannot be read. */
  journals(): Promise<{ found: FoundJournal[]; unreadable: UnreadableJournal[] }>;
  /** Reads one journal whole. */
  read(journal: FoundJournal): Promise<JournalContents>;
  /**
   * Deletes the runs the retention does not keep (older than its days and not among its newest
   * runs); runs still being written stay.
   */
  prune(retention: Retention, now: Date): Promise<void>;
  /** A new file name for a backup in `backups/`, the folder created. */
  backupPath(now: Date): Promise<string>;
}

/**
 * Opens the state folder.
 *
 * @param path STATE_DIR.
 * @param options Whether the command will write journals.
 * @returns The folder.
 * @throws {StateError} When it cannot be created or written (naming the folder), or a newer
 *   stacksync wrote it.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStateFolder } from "./folder.ts";
 *
 * const dir = await Deno.makeTempDir();
 * const state = await openStateFolder(`${dir}/state`, { write: true });
 * assert.deepEqual((await state.journals()).found, []);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function openStateFolder(
  path: string,
  options: OpenStateOptions,
): Promise<StateFolder> {
  const marker = join(path, MARKER);
  try {
    const text = await Deno.readTextFile(marker);
    checkMarker(text, path);
  } catch (error) {
    if (error instanceof StateError) throw error;
    // Creating the folder names what is wrong in the words of a journal that cannot be written.
    if (options.write) await createFolder(path);
    else if (!(error instanceof Deno.errors.NotFound)) {
      throw new StateError(`Cannot read STATE_DIR ${path}: ${reason(error)}`, { cause: error });
    }
  }
  const folder = stateFolder(path);
  if (options.write) {
    await tightenFolders(path);
    await recoverInterrupted(path);
  }
  return folder;
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function checkMarker(text: string, path: string): void {
  let marker: { format?: unknown; version?: unknown };
  try {
    marker = JSON.parse(text);
  } catch {
    marker = {};
  }
  if (marker.format !== STATE_FORMAT || typeof marker.version !== "number") {
    throw new StateError(
      `Cannot use STATE_DIR ${path} as its ${MARKER} is not a stacksync state marker`,
    );
  }
  if (marker.version > STATE_VERSION) {
    throw new StateError(
      `Cannot use STATE_DIR ${path} as a newer stacksync wrote it (format version ` +
        `${marker.version}, this one reads up to ${STATE_VERSION}): upgrade stacksync`,
    );
  }
}

/** Creates the folder and its marker, and proves that a journal can be written there. */
async function createFolder(path: string): Promise<void> {
  try {
    await Deno.mkdir(join(path, RUNS), { recursive: true, mode: FOLDER_MODE });
    const probe = join(path, RUNS, `.probe-${crypto.randomUUID()}`);
    await Deno.writeTextFile(probe, "", { mode: FILE_MODE });
    await Deno.remove(probe);
    await replaceFile(
      join(path, MARKER),
      `${JSON.stringify({ format: STATE_FORMAT, version: STATE_VERSION })}\n`,
    );
  } catch (error) {
    throw new StateError(
      `Cannot write the journal in STATE_DIR ${path}: ${reason(error)}; make the folder ` +
        "writable, set STATE_DIR to another folder, or set JOURNAL=false to run without undo",
      { cause: error },
    );
  }
}

/** The folders stacksync makes in STATE_DIR: the journals, backups and the cache. */
const OWN_FOLDERS = [RUNS, BACKUPS, "cache"];

/**
 * Makes the folders stacksync made in STATE_DIR owner-only where a stacksync before 0700 left
 * them open to others: what they hold (journals and backups of 0644) is then the owner's alone.
 * Only ever tightens; STATE_DIR itself may be the user's own folder and is left as it is.
 */
async function tightenFolders(path: string): Promise<void> {
  if (Deno.build.os === "windows") return;
  for (const name of OWN_FOLDERS) {
    const folder = join(path, name);
    try {
      const { mode, isDirectory } = await Deno.lstat(folder);
      if (isDirectory && mode !== null && (mode & 0o077) !== 0) {
        await Deno.chmod(folder, mode & FOLDER_MODE);
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) {
        throw new StateError(
          `Cannot make ${folder} of STATE_DIR owner-only: ${reason(error)}`,
          { cause: error },
        );
      }
    }
  }
}

/**
 * The id of a run starting now, its folder made so that no other process takes it: the start
 * time, or the millisecond after the newest run of the folder when that is not earlier (ids
 * sort in start order, also after a folder dated ahead of now, which costs nothing). A folder
 * that cannot be made leaves the id unreserved: the journal says why at its first write.
 *
 * @param path STATE_DIR.
 * @param now The start time.
 * @param last The id this process gave last.
 * @returns The id.
 */
async function reserveRunId(path: string, now: Date, last: string | undefined): Promise<string> {
  const runs = join(path, RUNS);
  const newest = [last, ...(await runIds(path))].filter((id) => id !== undefined).sort().at(-1);
  let time = newest === undefined ? now.getTime() : Math.max(now.getTime(), runStart(newest) + 1);
  for (;;) {
    const id = runIdOf(new Date(time));
    try {
      await Deno.mkdir(runs, { recursive: true, mode: FOLDER_MODE });
      await Deno.mkdir(join(runs, id), { mode: FOLDER_MODE });
      return id;
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) return id;
      time++;
    }
  }
}

/** `20261123-101500-123`: the run id of a start time. */
function runIdOf(time: Date): string {
  const iso = time.toISOString(); // 2026-11-23T10:15:00.123Z
  return `${iso.slice(0, 10).replaceAll("-", "")}-${iso.slice(11, 19).replaceAll(":", "")}-` +
    iso.slice(20, 23);
}

async function listDir(path: string): Promise<Deno.DirEntry[]> {
  try {
    return await Array.fromAsync(Deno.readDir(path));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
}

/** Run ids in the folder, oldest first. */
async function runIds(path: string): Promise<string[]> {
  return (await listDir(join(path, RUNS)))
    .filter((entry) => entry.isDirectory && RUN_ID.test(entry.name))
    .map((entry) => entry.name)
    .sort();
}

/**
 * Whether another process holds the journal (it is still being written): its own lock, or the
 * lock of its user, which the process takes before it creates the journal (src/state/lock.ts).
 */
function inUse(stateDir: string, path: string): boolean {
  const user = JOURNAL.exec(basename(path))?.[1];
  if (user !== undefined && userLocked(stateDir, user)) return true;
  let file: Deno.FsFile | undefined;
  try {
    file = Deno.openSync(path, { read: true, write: true });
    return !file.tryLockSync(true);
  } catch {
    // A file that cannot be opened or locked here is left to whoever holds it.
    return true;
  } finally {
    file?.close();
  }
}

/** The journal files of a run folder: per user, the plain one when both exist. */
async function journalFiles(runPath: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await listDir(runPath)) {
    const match = JOURNAL.exec(entry.name);
    if (!entry.isFile || match === null) continue;
    const plain = match[2] === undefined;
    if (plain || !files.has(match[1])) files.set(match[1], join(runPath, entry.name));
  }
  return files;
}

/**
 * Finishes the journals of runs that were killed: compresses each plain journal no process
 * holds and writes its summary. A compressed copy that exists already is complete (it is
 * renamed into place only once written), so the plain file just goes.
 */
async function recoverInterrupted(path: string): Promise<void> {
  for (const run of await runIds(path)) {
    const runPath = join(path, RUNS, run);
    for (const [user, file] of await journalFiles(runPath)) {
      if (!file.endsWith(".jsonl") || inUse(path, file)) continue;
      try {
        const summaryPath = join(runPath, `${user}.json`);
        if (!(await exists(`${file}.gz`))) {
          const read = await readJournal(file).catch((error) => {
            if (error instanceof EmptyJournalError) return undefined;
            throw error;
          });
          // Killed while creating the file: nothing was recorded, nothing sent.
          if (read === undefined) {
            await Deno.remove(file);
            continue;
          }
          const { summary } = read;
          await gzipFile(file, `${file}.gz`);
          await writeSummary(summaryPath, summary);
        } else if (!(await exists(summaryPath))) {
          await writeSummary(summaryPath, (await readJournal(`${file}.gz`)).summary);
        }
        await Deno.remove(file);
      } catch (error) {
        throw new StateError(
          `Cannot finish the journal of interrupted run ${run} in STATE_DIR ${path}: ` +
            reason(error),
          { cause: error },
        );
      }
    }
  }
}

/** Compresses a closed journal beside itself and removes the plain file. */
async function compressJournal(file: string): Promise<void> {
  await gzipFile(file, `${file}.gz`);
  await Deno.remove(file);
}

function stateFolder(path: string): StateFolder {
  const runsPath = join(path, RUNS);
  let lastRun: string | undefined;
  return {
    path,
    async startRun(start) {
      const id = await reserveRunId(path, start.now(), lastRun);
      lastRun = id;
      const startedAt = start.now().toISOString();
      return {
        id,
        async end() {
          // Only an empty folder goes: a run that wrote nothing leaves nothing.
          await Deno.remove(join(runsPath, id)).catch(() => {});
        },
        forUser(user, stacks, undoes) {
          const header: JournalHeader = {
            run: id,
            command: start.command,
            ...(undoes === undefined ? {} : { undoes }),
            startedAt,
            server: start.server,
            user: { id: user.id, name: user.name },
            stacksync: start.stacksync,
          };
          return new UserJournal({
            path: join(runsPath, id, `${user.id}.jsonl`),
            summaryPath: join(runsPath, id, `${user.id}.json`),
            header,
            compress: compressJournal,
            now: start.now,
          }, stacks);
        },
      };
    },
    async journals() {
      const found: FoundJournal[] = [];
      const unreadable: UnreadableJournal[] = [];
      for (const run of await runIds(path)) {
        const runPath = join(runsPath, run);
        for (const [user, file] of await journalFiles(runPath)) {
          try {
            const closed = file.endsWith(".gz")
              ? await readSummary(join(runPath, `${user}.json`))
              : undefined;
            const summary = closed ?? (await readJournal(file)).summary;
            found.push({ summary, path: file });
          } catch (error) {
            // A file still being created, or left empty by a killed run, holds no run yet.
            if (!(error instanceof EmptyJournalError)) {
              unreadable.push({ path: file, error: reason(error) });
            }
          }
        }
      }
      return { found, unreadable };
    },
    read(journal) {
      return readJournal(journal.path);
    },
    async prune(retention, now) {
      // A run's folder is made when it starts: one without a journal (a run of another process
      // that has not written yet, or one killed before its first write) takes no place among the
      // kept, and goes once older than the oldest kept run (a run still going makes it again).
      const all = await runIds(path);
      const ids: string[] = [];
      for (const run of all) if ((await journalFiles(join(runsPath, run))).size > 0) ids.push(run);
      const kept = keptRuns(ids, retention, now);
      const oldestKept = ids.find((_, index) => kept[index].by !== "none");
      for (const run of all) {
        const index = ids.indexOf(run);
        const goes = index >= 0
          ? kept[index].by === "none"
          : oldestKept !== undefined && run < oldestKept;
        if (!goes) continue;
        const runPath = join(runsPath, run);
        const files = [...(await journalFiles(runPath)).values()];
        if (files.some((file) => file.endsWith(".jsonl") && inUse(path, file))) continue;
        await Deno.remove(runPath, { recursive: true });
      }
    },
    async backupPath(now) {
      const folder = join(path, BACKUPS);
      await Deno.mkdir(folder, { recursive: true, mode: FOLDER_MODE });
      return join(folder, `${runIdOf(now)}.json`);
    },
  };
}
