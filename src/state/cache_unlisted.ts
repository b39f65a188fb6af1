/**
 * The stacks of trashed and hidden members as a pass looked them up
 * (`<key>.<generation>.unlisted`): the next search of the trash and of hidden assets looks up
 * only the assets whose `updatedAt` moved since (docs/state.md, "The cache"). It decides what
 * to read, never what to write: an answer is used only for an asset the server's own search
 * gives the same `updatedAt` again.
 *
 * @module
 */
import type { LookedUpStack, UnlistedLookups } from "../api/unlisted_members.ts";
import { FOLDER_MODE } from "../private_files.ts";
import type { FileSum } from "./_checksum.ts";
import { exists } from "./_files.ts";
import { decoder, scanSections, writeLines } from "./_cache_text.ts";
import { cacheFilePath, type CacheFiles, cacheText } from "./cache.ts";

const SECTIONS = ["#unseen", "#assets", "#end"] as const;
/** The most entries on a line. */
const PER_LINE = 100;
const UNLISTED = cacheText("unlisted", SECTIONS);

/** The file of one generation's lookups. */
export class UnlistedFile {
  readonly #files: CacheFiles;
  readonly #path: string;

  /**
   * @param files The cache.
   * @param generation The generation.
   */
  constructor(files: CacheFiles, generation: string) {
    this.#files = files;
    this.#path = cacheFilePath(files, generation, "unlisted");
  }

  /**
   * Writes the lookups: `#unseen` then the stacks that may hide members (only when they are
   * known for every stack), `#assets` then `[id, updatedAt, stack id or null]` arrays, `#end`.
   *
   * @param lookups What the pass looked up.
   * @returns What the file adds up to, for the header.
   */
  async write(lookups: UnlistedLookups): Promise<FileSum> {
    await Deno.mkdir(this.#files.dir, { recursive: true, mode: FOLDER_MODE });
    return await writeLines(this.#path, (lines) => {
      lines.line(UNLISTED.magic);
      if (lookups.unseenStackIds !== undefined) {
        lines.line("#unseen");
        // One line at least, `[]` when there are none: the section says they are known.
        if (lookups.unseenStackIds.length === 0) lines.line("[]");
        lines.entries(lookups.unseenStackIds, PER_LINE, (id) => id);
      }
      lines.line("#assets");
      lines.entries(
        lookups.assets,
        PER_LINE,
        ({ id, updatedAt, stackId }) => [id, updatedAt, stackId ?? null],
      );
      lines.line("#end");
    });
  }

  /**
   * Reads the lookups.
   *
   * @param written What the file added up to when written.
   * @returns The lookups, or undefined when there is no file.
   * @throws {SyntaxError} When the file is damaged: the caller looks everything up again.
   */
  async read(written: FileSum): Promise<UnlistedLookups | undefined> {
    if (!(await exists(this.#path))) return undefined;
    let unseenStackIds: string[] | undefined;
    const assets: LookedUpStack[] = [];
    await scanSections(this.#path, UNLISTED, written, (section, _index, bytes) => {
      const entries = JSON.parse(decoder.decode(bytes));
      if (section === "#unseen") (unseenStackIds ??= []).push(...entries);
      else if (section === "#assets") {
        for (const [id, updatedAt, stackId] of entries as [string, number, string | null][]) {
          assets.push(stackId === null ? { id, updatedAt } : { id, updatedAt, stackId });
        }
      }
    });
    return { assets, ...unseenStackIds === undefined ? {} : { unseenStackIds } };
  }
}
