/**
 * The size and CRC-32 of a file of the cache, taken while it is written and again while it is
 * read: a dropped line, a block of NULs or a file cut short no longer matches, and the cache is
 * not used (docs/state.md, "The cache"). CRC-32 is made for such accidents and costs about
 * 60 ms per 30 MB (`_crc32.ts`). Private to `src/state/`.
 *
 * @module
 */
import { z } from "zod";
import { crc32 } from "./_crc32.ts";

/** What a file's content adds up to. */
export interface FileSum {
  /** Its length in bytes. */
  readonly size: number;
  /** The CRC-32 of its bytes. */
  readonly crc: number;
}

/** The schema of a {@linkcode FileSum} in a header. */
export const fileSumSchema = z.object({ size: z.number(), crc: z.number() });

const encoder = new TextEncoder();

/** Adds up bytes as they pass. */
export class Summer {
  #size = 0;
  #crc = 0;

  /** Adds bytes, or a text as its UTF-8 bytes. */
  add(data: Uint8Array | string): void {
    const bytes = typeof data === "string" ? encoder.encode(data) : data;
    this.#size += bytes.length;
    this.#crc = crc32(bytes, this.#crc);
  }

  /** What was added so far. */
  get sum(): FileSum {
    return { size: this.#size, crc: this.#crc };
  }
}

/**
 * Checks what was read against what was written.
 *
 * @param path The file, for the error.
 * @param read What its bytes add up to.
 * @param written What they added up to when written; nothing is checked without it.
 * @throws {SyntaxError} When they differ: the file is damaged.
 */
export function checkSum(path: string, read: FileSum, written: FileSum | undefined): void {
  if (written === undefined || (read.size === written.size && read.crc === written.crc)) return;
  throw new SyntaxError(
    `Cannot read the cache ${path}: it is damaged (${read.size} bytes with CRC-32 ` +
      `${hex(read.crc)}, written as ${written.size} bytes with ${hex(written.crc)})`,
  );
}

function hex(crc: number): string {
  return crc.toString(16).padStart(8, "0");
}
