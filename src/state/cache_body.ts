/**
 * The body of the cache (`<key>.<generation>.body`): the library as a pass planned from it, one
 * tab-separated line per asset, stack and group, in sections (`src/state/_cache_text.ts`). Its
 * text format keeps loading 200 000 assets cheap: no JSON but for rare extra fields. This
 * module writes and scans bodies; `cache_full_body.ts` writes a full pass's, `cache_library.ts`
 * reads and rewrites them.
 *
 * @module
 */
import type { Asset, SkipReason } from "../model.ts";
import {
  type CompactStack,
  type OtherAsset,
  type Ref,
  REMOVED,
  type RowData,
} from "../incremental/library.ts";
import { writeAll } from "../write_all.ts";
import { FOLDER_MODE, openPrivate } from "../private_files.ts";
import {
  CACHE_FORMAT,
  CACHE_VERSION,
  cacheFilePath,
  type CacheFiles,
  type CacheHeader,
} from "./cache.ts";
import { type FileSum, Summer } from "./_checksum.ts";
import {
  escapeText,
  NEWLINE,
  scanSections,
  scanSectionsSync,
  type Sectioned,
} from "./_cache_text.ts";

const SECTIONS = ["#assets", "#others", "#stacks", "#groups", "#seen", "#end"] as const;
/** The sections of a body, in order. */
export type Section = typeof SECTIONS[number];

const BODY: Sectioned<Section> = {
  magic: `${CACHE_FORMAT}-body ${CACHE_VERSION}`,
  sections: SECTIONS,
  kind: "body",
};
/** The line of a row whose asset left the searches (its number stays taken). */
export const REMOVED_LINE = "-";

/** The fields of a row beyond id, name and local time, kept as JSON when there are any. */
export interface Extra {
  readonly fields?: Record<string, unknown>;
  readonly size?: number;
  readonly skip?: SkipReason;
  readonly invalid?: { readonly field: string; readonly message: string };
}

const CORE_FIELDS = new Set(["id", "originalFileName", "localDateTime", "fileSizeInByte"]);

/** One row's line: its content and the library's columns for it. */
function rowLine(row: RowData): string {
  // Written for each of a full pass's 200 000 rows: no object or array unless a row has extras.
  const { asset } = row;
  let fields: Record<string, unknown> | undefined;
  if (asset !== undefined) {
    for (const name in asset) {
      if (!CORE_FIELDS.has(name)) (fields ??= {})[name] = asset[name as keyof Asset];
    }
  }
  const size = asset?.fileSizeInByte;
  const json = fields === undefined && size === undefined && row.skip === undefined &&
      row.invalid === undefined
    ? ""
    : escapeText(JSON.stringify(
      {
        ...(fields === undefined ? {} : { fields }),
        ...(size === undefined ? {} : { size }),
        ...(row.skip === undefined ? {} : { skip: row.skip }),
        ...(row.invalid === undefined ? {} : { invalid: row.invalid }),
      } satisfies Extra,
    ));
  const { buckets } = row;
  const hashes = buckets.length === 1
    ? buckets[0].toString(36)
    : buckets.map((hash) => hash.toString(36)).join(",");
  return `${row.id}\t${escapeText(asset?.originalFileName ?? "")}\t${
    escapeText(asset?.localDateTime ?? "")
  }\t${row.updatedAt}\t${row.flags}\t${hashes}\t${json}`;
}

/**
 * Writes a body, section by section, through a buffer of about 1 MB, to a temporary file that
 * {@linkcode BodyWriter.finish} renames into place: nothing of it is held twice.
 */
export class BodyWriter {
  readonly #file: Deno.FsFile;
  readonly #path: string;
  readonly #sum = new Summer();
  readonly #encoder = new TextEncoder();
  #buffer = new Uint8Array(1 << 20);
  #used = 0;
  #section = -1;

  private constructor(file: Deno.FsFile, path: string) {
    this.#file = file;
    this.#path = path;
  }

  /**
   * Starts the body of a new generation.
   *
   * @param files The cache.
   * @param generation The generation it belongs to.
   * @returns The writer.
   */
  static async create(files: CacheFiles, generation: string): Promise<BodyWriter> {
    await Deno.mkdir(files.dir, { recursive: true, mode: FOLDER_MODE });
    const path = cacheFilePath(files, generation, "body");
    const file = await openPrivate(`${path}.tmp`);
    const writer = new BodyWriter(file, path);
    writer.#text(BODY.magic);
    return writer;
  }

  /** The next row, in full. */
  row(row: RowData): void {
    this.#enter("#assets");
    this.#text(row.flags === REMOVED ? REMOVED_LINE : rowLine(row));
  }

  /** Another user's asset. */
  other(id: string, other: OtherAsset): void {
    this.#enter("#others");
    this.#text(`${id}\t${other.updatedAt}\t${other.scopes}`);
  }

  /**
   * A stack, its members as rows where the library has them.
   *
   * @param stack The stack.
   * @param idOf The asset id of a row that will be written as removed: such a member is
   *   written by id.
   */
  stack(stack: CompactStack, idOf: (row: number) => string | undefined = () => undefined): void {
    this.#enter("#stacks");
    const text = (ref: Ref) => typeof ref === "number" ? idOf(ref) ?? String(ref) : ref;
    this.#text(
      `${stack.id}\t${text(stack.primary)}\t${stack.members.map(text).join(",")}\t${
        stack.archived.map(text).join(",")
      }`,
    );
  }

  /** A promoted group: its key and its rows, parent first. */
  group(key: string, rows: readonly number[]): void {
    this.#enter("#groups");
    this.#text(`${escapeText(key)}\t${rows.join(",")}`);
  }

  /** One of the user's assets no search finds, seen changed recently. */
  seen(id: string, updatedAt: number): void {
    this.#enter("#seen");
    this.#text(`${id}\t${updatedAt}`);
  }

  /** A line of another body, copied as it is, in its section. */
  copy(section: Section, line: Uint8Array): void {
    this.#enter(section);
    this.#bytes(line);
  }

  /**
   * Ends the body: renamed into place.
   *
   * @returns What it adds up to, for the header.
   */
  async finish(): Promise<FileSum> {
    this.#enter("#end");
    this.#flush();
    this.#file.close();
    await Deno.rename(`${this.#path}.tmp`, this.#path);
    return this.#sum.sum;
  }

  /** Drops the unfinished body. */
  async abandon(): Promise<void> {
    this.#file.close();
    await Deno.remove(`${this.#path}.tmp`).catch(() => {});
  }

  #enter(section: Section): void {
    const index = SECTIONS.indexOf(section);
    if (index === this.#section) return;
    if (index < this.#section) {
      throw new RangeError(`Cannot write the cache's ${section} after ${SECTIONS[this.#section]}`);
    }
    for (let next = this.#section + 1; next <= index; next++) this.#text(SECTIONS[next]);
    this.#section = index;
  }

  #text(line: string): void {
    // A line takes at most 3 bytes per UTF-16 unit, plus its newline.
    if (this.#used + line.length * 3 + 1 > this.#buffer.length) {
      this.#flush();
      if (line.length * 3 + 1 > this.#buffer.length) {
        this.#buffer = new Uint8Array(line.length * 3 + 1);
      }
    }
    this.#used += this.#encoder.encodeInto(line, this.#buffer.subarray(this.#used)).written;
    this.#buffer[this.#used++] = NEWLINE;
  }

  #bytes(line: Uint8Array): void {
    if (this.#used + line.length + 1 > this.#buffer.length) this.#flush();
    if (line.length + 1 > this.#buffer.length) {
      this.#write(line);
      this.#write(LF);
      return;
    }
    this.#buffer.set(line, this.#used);
    this.#used += line.length;
    this.#buffer[this.#used++] = NEWLINE;
  }

  #flush(): void {
    this.#write(this.#buffer.subarray(0, this.#used));
    this.#used = 0;
  }

  #write(bytes: Uint8Array): void {
    this.#sum.add(bytes);
    writeAll(this.#file, bytes);
  }
}

const LF = new Uint8Array([NEWLINE]);

/** A body: its generation, and what it added up to when written. */
export interface BodyFile {
  readonly generation: string;
  /** Unchecked without it. */
  readonly sum?: FileSum;
}

/**
 * The body a header names.
 *
 * @param header The header.
 * @returns Its body.
 */
export function bodyOf(header: CacheHeader): BodyFile {
  return header.sums.body === undefined
    ? { generation: header.generation }
    : { generation: header.generation, sum: header.sums.body };
}

/**
 * Calls `line` for each line of a body after its first, with its section and its number in the
 * section (see {@linkcode scanSections}).
 *
 * @param files The cache.
 * @param body The body.
 * @param line Called for each line; its bytes are only valid during the call.
 * @throws {SyntaxError} When the file is not a body, ends before `#end`, or is damaged.
 */
export function scanBody(
  files: CacheFiles,
  body: BodyFile,
  line: (section: Section, index: number, bytes: Uint8Array) => void,
): Promise<void> {
  return scanSections(cacheFilePath(files, body.generation, "body"), BODY, body.sum, line);
}

/**
 * {@linkcode scanBody} reading synchronously, for the journal, which writes synchronously.
 *
 * @param files The cache.
 * @param body The body.
 * @param line Called for each line.
 * @throws {SyntaxError} When the file is not a body, ends before `#end`, or is damaged.
 */
export function scanBodySync(
  files: CacheFiles,
  body: BodyFile,
  line: (section: Section, index: number, bytes: Uint8Array) => void,
): void {
  scanSectionsSync(cacheFilePath(files, body.generation, "body"), BODY, body.sum, line);
}
