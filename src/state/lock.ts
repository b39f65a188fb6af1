/**
 * One process at a time per state folder and user: a command that writes (`run`, `apply`,
 * `undo`, `restore`, `fix-trash`) holds `STATE_DIR/locks/<user id>.lock` for each user's pass,
 * from before it reads the user's library to the end of its writes, so that no two processes
 * plan on ground the other is changing, write the same stacks twice, or remove a file of the
 * cache or a journal the other still names. Another process on the same folder and user waits
 * for it (cron mode) or gives up at once (once), naming the holder; two users go on in
 * parallel. The lock is `flock`'s: the kernel releases it when its process ends, however it
 * ends, so a killed process never blocks the next (docs/state.md, "One process at a time").
 *
 * @module
 */
import { join } from "node:path";
import { writeAll } from "../write_all.ts";
import { FILE_MODE, FOLDER_MODE } from "../private_files.ts";

/** Who holds a lock, as its file says. */
export interface LockHolder {
  readonly pid: number;
  /** What it runs: `stacksync run`, `stacksync undo`, … */
  readonly command: string;
  /** When it took the lock (ISO 8601). */
  readonly since: string;
}

/** Another process holds the user's lock, and this one does not wait. */
export class LockedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LockedError";
  }
}

/** A lock held; release it when the user's pass ends (the process's end releases it too). */
export interface HeldLock {
  release(): void;
}

/** How a command takes the lock of each user. */
export interface LockOptions {
  /** What the lock's file says the holder runs, e.g. `stacksync run`. */
  readonly command: string;
  /** Wait for the holder (cron mode); otherwise give up at once. */
  readonly wait: boolean;
  /** Waits between two tries while waiting; rejects when the signal aborts. */
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The clock, for the file's `since`. */
  readonly now: () => Date;
}

/** How long a waiting process sleeps between two tries. */
export const LOCK_RETRY_MS = 1000;
/** How often, and how far apart, a held lock's file is read while it says nothing yet. */
const HOLDER_READS = 20;
const HOLDER_RETRY_MS = 50;

/**
 * The lock of one state folder's users.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { LockedError, UserLocks } from "./lock.ts";
 *
 * const dir = await Deno.makeTempDir();
 * const locks = (wait: boolean) =>
 *   new UserLocks(dir, {
 *     command: "stacksync run",
 *     wait,
 *     sleep: () => Promise.resolve(),
 *     now: () => new Date(0),
 *   });
 * const held = await locks(false).take("u1");
 * await assert.rejects(locks(false).take("u1"), LockedError);
 * (await locks(false).take("u2")).release();
 * held.release();
 * (await locks(false).take("u1")).release();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class UserLocks {
  readonly #dir: string;
  readonly #options: LockOptions;

  /**
   * @param stateDir STATE_DIR.
   * @param options The command, whether to wait, the sleep and the clock.
   */
  constructor(stateDir: string, options: LockOptions) {
    this.#dir = join(stateDir, "locks");
    this.#options = options;
  }

  /**
   * Takes a user's lock, waiting for its holder when the options say so.
   *
   * @param userId The user's id.
   * @param hooks `waiting`: called once, with the holder's words, when the lock is held and
   *   this process waits; `signal`: stops the wait.
   * @returns The held lock.
   * @throws {LockedError} When another process holds it and this one does not wait.
   * @throws When the file cannot be created or locked (the folder cannot be written), or the
   *   signal's reason when it aborts the wait.
   */
  async take(
    userId: string,
    hooks: { readonly waiting?: (holder: string) => void; readonly signal?: AbortSignal } = {},
  ): Promise<HeldLock> {
    const { sleep } = this.#options;
    await Deno.mkdir(this.#dir, { recursive: true, mode: FOLDER_MODE });
    const path = lockPath(this.#dir, userId);
    // Synchronous calls only: Deno runs an asynchronous one on a copy of the descriptor.
    const file = Deno.openSync(path, { read: true, write: true, create: true, mode: FILE_MODE });
    let unread = 0;
    let waited = false;
    try {
      while (!file.tryLockSync(true)) {
        const holder = readHolder(path);
        // Its holder writes the file just after taking the lock: read again a moment later.
        if (holder === undefined && ++unread < HOLDER_READS) {
          await sleep(HOLDER_RETRY_MS, hooks.signal);
          continue;
        }
        const words = describe(holder);
        if (!this.#options.wait) {
          throw new LockedError(
            `Cannot process this user while another stacksync process does: ${words} holds ` +
              path,
          );
        }
        if (!waited) hooks.waiting?.(words);
        waited = true;
        hooks.signal?.throwIfAborted();
        await sleep(LOCK_RETRY_MS, hooks.signal);
      }
    } catch (error) {
      file.close();
      throw error;
    }
    const holder: LockHolder = {
      pid: Deno.pid,
      command: this.#options.command,
      since: this.#options.now().toISOString(),
    };
    // Only words for the next process's message: a file that cannot say them holds the lock
    // all the same.
    try {
      file.truncateSync(0);
      writeAll(file, `${JSON.stringify(holder)}\n`);
    } catch {
      // The lock is what counts.
    }
    return {
      release() {
        // Emptied first, so that the words found in a held lock's file are its holder's.
        try {
          file.truncateSync(0);
          file.unlockSync();
        } finally {
          file.close();
        }
      },
    };
  }
}

/**
 * Whether another process holds a user's lock now: its journals are being written, and no
 * other process may finish or remove them.
 *
 * @param stateDir STATE_DIR.
 * @param userId The user's id.
 * @returns True when it is held (or cannot be tried).
 */
export function userLocked(stateDir: string, userId: string): boolean {
  let file: Deno.FsFile | undefined;
  try {
    file = Deno.openSync(lockPath(join(stateDir, "locks"), userId), { read: true, write: true });
    return !file.tryLockSync(true);
  } catch (error) {
    return !(error instanceof Deno.errors.NotFound);
  } finally {
    file?.close();
  }
}

/** The lock file of a user. */
function lockPath(dir: string, userId: string): string {
  return join(dir, `${userId.replace(/[^0-9A-Za-z-]/g, "_")}.lock`);
}

/** What the lock's file says of its holder; undefined while it is being written. */
function readHolder(path: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(Deno.readTextFileSync(path));
    return typeof holder?.pid === "number" && typeof holder.command === "string" &&
        typeof holder.since === "string"
      ? holder
      : undefined;
  } catch {
    return undefined;
  }
}

/** The holder in words: `pid 4242 (stacksync run, since 2026-11-23T10:15:00.000Z)`. */
function describe(holder: LockHolder | undefined): string {
  return holder === undefined
    ? "a process that has just taken the lock"
    : `pid ${holder.pid} (${holder.command}, since ${holder.since})`;
}
