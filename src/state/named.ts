/**
 * What the passes of `run` have named of the stacks they left as they are
 * (`src/reconcile/left_alone.ts`), so that each is named at info once: in memory across the
 * passes of one process (cron), and in `STATE_DIR/named/<user id>.json` across processes. The
 * file is a hint for the log only: a missing, damaged or foreign one means the lines are said
 * again, and one that cannot be written costs the same (docs/state.md, "Conflicts named").
 *
 * @module
 */
import { getLogger } from "@logtape/logtape";
import { join } from "node:path";
import { z } from "zod";
import type { NamedConflicts } from "../reconcile/left_alone.ts";
import { writeAll } from "../write_all.ts";

/** The name of the file's format. */
export const NAMED_FORMAT = "stacksync-named";
/** The version of the file's format this stacksync reads and writes. */
export const NAMED_VERSION = 1;

const fileSchema = z.object({
  format: z.literal(NAMED_FORMAT),
  version: z.literal(NAMED_VERSION),
  server: z.string(),
  user: z.string(),
  conflicts: z.record(
    z.string(),
    z.enum(["member-outside-group", "group-spans-stacks", "member-in-trash"]),
  ),
});

/** Where a {@linkcode ConflictMemory} keeps what was named. */
export interface ConflictMemoryOptions {
  /** STATE_DIR, when it can be used; without it the memory lasts as long as the process. */
  readonly stateDir?: string;
  /** The server, as `serverKey()` names it: a file of another server is not read. */
  readonly server: string;
  /** Whether the file is written (a real run); a dry run only reads it. */
  readonly write: boolean;
}

/** What a user's passes have named, per user, for the passes of one command. */
export class ConflictMemory {
  readonly #options: ConflictMemoryOptions;
  readonly #byUser = new Map<string, { named: NamedConflicts; text?: string }>();

  /** @param options Where the memory is kept. */
  constructor(options: ConflictMemoryOptions) {
    this.#options = options;
  }

  /**
   * What was named for a user: what this process remembers, else its file, else nothing.
   *
   * @param userId The user.
   * @returns The conflicts named before, by key.
   */
  async named(userId: string): Promise<NamedConflicts> {
    const held = this.#byUser.get(userId);
    if (held !== undefined) return held.named;
    const path = this.#path(userId);
    const read = path === undefined
      ? undefined
      : await readNamed(path, this.#options.server, userId);
    const named = read?.named ?? new Map();
    this.#byUser.set(userId, { named, ...(read === undefined ? {} : { text: read.text }) });
    return named;
  }

  /**
   * Remembers what a user's pass named, and writes it to the user's file when it changed (a
   * real run with a state folder). A file that cannot be written is said at debug.
   *
   * @param userId The user.
   * @param named What is named after the pass.
   */
  async remember(userId: string, named: NamedConflicts): Promise<void> {
    const text = fileText(this.#options.server, userId, named);
    const before = this.#byUser.get(userId)?.text;
    this.#byUser.set(userId, { named, text });
    const path = this.#path(userId);
    if (path === undefined || !this.#options.write || text === before) return;
    try {
      await writePrivate(path, text);
    } catch (error) {
      getLogger(["stacksync", "state"]).debug(
        "Cannot keep the stacks left as they are in {path}: {error}; the next process names " +
          "them again",
        { path, error: (error as Error).message },
      );
    }
  }

  #path(userId: string): string | undefined {
    const { stateDir } = this.#options;
    if (stateDir === undefined) return undefined;
    return join(stateDir, "named", `${userId.replace(/[^0-9A-Za-z-]/g, "_")}.json`);
  }
}

/** The text of a user's file. */
function fileText(server: string, userId: string, named: NamedConflicts): string {
  return `${
    JSON.stringify({
      format: NAMED_FORMAT,
      version: NAMED_VERSION,
      server,
      user: userId,
      conflicts: Object.fromEntries(named),
    })
  }\n`;
}

/** A user's file, or undefined when it is missing, damaged, of another version, server or user. */
async function readNamed(
  path: string,
  server: string,
  userId: string,
): Promise<{ named: NamedConflicts; text: string } | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch {
    return undefined;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success || parsed.data.server !== server || parsed.data.user !== userId) {
    return undefined;
  }
  return { named: new Map(Object.entries(parsed.data.conflicts)), text };
}

/** Writes a file readable by its owner only (0600), through a temporary file renamed over it. */
async function writePrivate(path: string, text: string): Promise<void> {
  const folder = join(path, "..");
  await Deno.mkdir(folder, { recursive: true, mode: 0o700 });
  const temporary = `${path}.${Deno.pid}.tmp`;
  const file = await Deno.open(temporary, {
    write: true,
    create: true,
    truncate: true,
    mode: 0o600,
  });
  try {
    writeAll(file, text);
  } finally {
    file.close();
  }
  await Deno.rename(temporary, path);
}
