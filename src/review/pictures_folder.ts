/**
 * The folder of the review page's pictures (`plan.html` → `plan_files/`): stacksync's own, marked
 * by a file `stacksync-pictures.json` it writes when it makes the folder. A folder of that name
 * that stacksync did not make (a browser's "Save page as" makes such folders) is never written
 * to nor emptied; in its own folder stacksync deletes only pictures named as it names them
 * (docs/safety.md, "Files on disk").
 *
 * @module
 */
import { join } from "node:path";
import { ConfigError } from "../config.ts";
import { FILE_MODE, FOLDER_MODE } from "../private_files.ts";

/** The file that marks the folder as stacksync's. */
const MARKER = "stacksync-pictures.json";

/** The marker's content. */
const MARKER_TEXT = `${JSON.stringify({ format: "stacksync-pictures", version: 1 })}\n`;

/** A picture as stacksync names it: the photo's Immich id and the picture's kind. */
const PICTURE_FILE =
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.(webp|jpeg|png)$/i;

/**
 * Checks, before any request, that the pictures may go in the folder: it does not exist, it is
 * stacksync's (marked), or it holds nothing but pictures named as stacksync names them (the
 * folder of a stacksync before the marker, or an empty one), which it then marks.
 *
 * @param folder The folder beside the page.
 * @throws {ConfigError} When the folder is someone else's, or not a folder.
 */
export async function checkPicturesFolder(folder: string): Promise<void> {
  let names: string[];
  try {
    if (!(await Deno.lstat(folder)).isDirectory) throw new TypeError("it is not a folder");
    names = (await Array.fromAsync(Deno.readDir(folder))).map((entry) => entry.name);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw new ConfigError(
      `Cannot put the review page's pictures in ${folder}: ${(error as Error).message}`,
    );
  }
  if (names.includes(MARKER) || names.every((name) => PICTURE_FILE.test(name))) return;
  throw new ConfigError(
    `Cannot put the review page's pictures in ${folder} as stacksync did not make that folder: ` +
      "move it away, name another page with --html, or give --embed-thumbnails",
  );
}

/**
 * Makes the folder (owner-only) and marks it as stacksync's, unless it is marked already.
 *
 * @param folder The folder beside the page, checked by {@linkcode checkPicturesFolder}.
 */
export async function makePicturesFolder(folder: string): Promise<void> {
  await Deno.mkdir(folder, { recursive: true, mode: FOLDER_MODE });
  try {
    await Deno.writeTextFile(join(folder, MARKER), MARKER_TEXT, {
      createNew: true,
      mode: FILE_MODE,
    });
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  }
}

/**
 * Deletes the pictures of earlier plans from stacksync's folder, so that it holds this page's:
 * only files named as stacksync names pictures, and nothing in a folder it did not mark.
 *
 * @param folder The folder beside the page.
 * @param kept The file names of this page's pictures.
 */
export async function dropOtherPictures(folder: string, kept: ReadonlySet<string>): Promise<void> {
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(folder));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  if (!entries.some((entry) => entry.isFile && entry.name === MARKER)) return;
  for (const entry of entries) {
    if (entry.isFile && PICTURE_FILE.test(entry.name) && !kept.has(entry.name)) {
      await Deno.remove(join(folder, entry.name));
    }
  }
}
