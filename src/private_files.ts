/**
 * Everything stacksync creates on disk is its user's alone: the state folder, the log file, the
 * plan file, the review page and its pictures hold every file name, the user's name and id and
 * the server's address. Folders are created 0700 and files 0600, with the mode given at creation
 * (the umask can only take bits away) and never loosened later; a temporary file renamed into
 * place carries its mode along (docs/state.md, "Private").
 *
 * @module
 */

/** The mode of every folder stacksync creates. */
export const FOLDER_MODE = 0o700;

/** The mode of every file stacksync creates. */
export const FILE_MODE = 0o600;

/** Opens a file to write from its start, created owner-only when it does not exist. */
export const WRITE_PRIVATE: Deno.OpenOptions = {
  write: true,
  create: true,
  truncate: true,
  mode: FILE_MODE,
};

/**
 * Opens a file to write it from its start, owner-only: created 0600, or, when an earlier process
 * left it (a temporary file of a killed run, or of a stacksync before 0600), made 0600 before
 * anything is written into it.
 *
 * @param path The file.
 * @returns The open file, empty.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { openPrivate } from "./private_files.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/left.tmp`, "old", { mode: 0o644 });
 * const file = await openPrivate(`${dir}/left.tmp`);
 * file.close();
 * if (Deno.build.os !== "windows") {
 *   assert.equal((await Deno.stat(`${dir}/left.tmp`)).mode! & 0o777, 0o600);
 * }
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function openPrivate(path: string): Promise<Deno.FsFile> {
  const file = await Deno.open(path, WRITE_PRIVATE);
  try {
    const { mode } = await file.stat();
    if (mode !== null && (mode & 0o077) !== 0) await Deno.chmod(path, FILE_MODE);
  } catch (error) {
    file.close();
    throw error;
  }
  return file;
}
