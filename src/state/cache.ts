/**
 * The cache of incremental passes, in `STATE_DIR/cache/`: per server, user and settings, the
 * library as the last pass left it (docs/state.md, "The cache"; docs/incremental.md).
 *
 * ```text
 * cache/<key>.json               the header: what the cache is, the last pass, its files
 * cache/<key>.<gen>.body         the library as the pass planned from it (text, one line each)
 * cache/<key>.<gen>.delta        the pass's writes, as the server answered them (JSON lines)
 * cache/<key>.<gen>.plan         the plan's entries that are no action, kept by the next pass
 * ```
 *
 * `<key>` is `<server hash>-<user id>-<settings hash>`. A pass writes the body before its first
 * write, records each write's answer in the delta, and replaces the header last (atomically),
 * so a header always names complete files; a pass killed midway leaves the header saying so,
 * and the next pass is full. Nothing waits for the disk: a file a power cut damaged fails its
 * checks (a body ends with `#end`, the header counts the delta's lines) and the next pass is
 * full, which costs less than flushing tens of megabytes on every pass. The body's text format
 * keeps loading 200 000 assets cheap: one tab-separated line per asset, stack and group, no JSON
 * but for rare extra fields.
 *
 * @module
 */
import { join } from "node:path";
import { z } from "zod";
import type { Asset, InSyncStack, NeedsReplace, SkipReason, Stack } from "../model.ts";
import {
  addRow,
  addRowFromBytes,
  bucketsOf,
  type CacheWrite,
  type CompactStack,
  type Digest,
  DigestBuilder,
  emptyLibrary,
  expandStack,
  idOf,
  type Library,
  type OtherAsset,
  type Ref,
  REMOVED,
  type RowData,
  setBuckets,
} from "../incremental/library.ts";
import { type BucketHashes, compare } from "../grouping/group.ts";
import type { Placed, PlanEntries } from "../incremental/entries.ts";
import { writeAll } from "../log.ts";
import { ChunkedText, exists, readLines } from "./_files.ts";
import { FOLDER_MODE, openPrivate, WRITE_PRIVATE } from "../private_files.ts";
import { type RecordedStack, recordStack } from "./journal.ts";

/** The format name of cache headers. */
export const CACHE_FORMAT = "stacksync-cache";
/** The cache version this stacksync writes and reads; another one is rebuilt by a full pass. */
export const CACHE_VERSION = 2;

const BODY_MAGIC = `${CACHE_FORMAT}-body ${CACHE_VERSION}`;
/** How many caches of other settings to keep per server and user (switching back is cheap). */
const KEEP_OTHER_SETTINGS = 2;

/** What the header says about the last pass. */
export interface CacheHeader {
  /** API_URL without credentials. */
  readonly server: string;
  readonly user: { readonly id: string; readonly name: string };
  readonly stacksync: string;
  /** The settings that shape reading and grouping, as text by variable name. */
  readonly settings: Readonly<Record<string, string>>;
  /** The Immich version, `major.minor.patch`. */
  readonly immich: string;
  /** Server time of the last full pass's start (ms since the epoch). */
  readonly fullPassAt: number;
  /** Server time of the last pass's start (ms since the epoch). */
  readonly watermark: number;
  /** Why the last pass did not finish cleanly; absent when it did. */
  readonly unfinished?: string;
  /** Why the next pass must be full though the last one finished: see {@linkcode markCaches}. */
  readonly stale?: string;
  /** The name part of the body, delta and plan files. */
  readonly generation: string;
  /** Lines of the delta that belong to the cache (the writes answered). */
  readonly deltaLines: number;
  /** Per search: the server's count minus the cache's, at the last full pass. */
  readonly offsets: readonly number[];
  /** Per search: how many assets the cache holds. */
  readonly counts: readonly number[];
  /** What a search for changes since `since` finds again when nothing changed. */
  readonly recent: Digest & { readonly since: number };
  /** How many assets the last pass's writes moved: the search for changes finds them too. */
  readonly written: number;
  /** The last pass planned no write: with nothing changed since, its plan holds as it is. */
  readonly steady: boolean;
  /** Sizes, for the log. */
  readonly sizes: { readonly assets: number; readonly stacks: number; readonly groups: number };
}

const digestSchema = z.object({ count: z.number(), digest: z.string(), since: z.number() });
const headerSchema = z.object({
  format: z.literal(CACHE_FORMAT),
  version: z.number(),
  server: z.string(),
  user: z.object({ id: z.string(), name: z.string() }),
  stacksync: z.string(),
  settings: z.record(z.string(), z.string()),
  immich: z.string(),
  fullPassAt: z.number(),
  watermark: z.number(),
  unfinished: z.string().optional(),
  stale: z.string().optional(),
  generation: z.string().regex(/^[0-9a-z]+$/),
  deltaLines: z.number(),
  offsets: z.array(z.number()),
  counts: z.array(z.number()),
  recent: digestSchema,
  written: z.number(),
  steady: z.boolean(),
  sizes: z.object({ assets: z.number(), stacks: z.number(), groups: z.number() }),
});

/** The files of one cache. */
export interface CacheFiles {
  /** `STATE_DIR/cache`. */
  readonly dir: string;
  /** `<server hash>-<user id>-<settings hash>`. */
  readonly key: string;
  /** The key without the settings: every cache of this server and user starts with it. */
  readonly prefix: string;
}

/**
 * The files of the cache of one server, user and settings.
 *
 * @param stateDir STATE_DIR.
 * @param server API_URL without credentials.
 * @param userId The user's id.
 * @param settings The settings that shape reading and grouping.
 * @returns Where its files are.
 */
export function cacheFilesOf(
  stateDir: string,
  server: string,
  userId: string,
  settings: Readonly<Record<string, string>>,
): CacheFiles {
  const prefix = `${shortHash(server)}-${userId.replace(/[^0-9A-Za-z-]/g, "_")}-`;
  const key = `${prefix}${shortHash(JSON.stringify(sortedEntries(settings)))}`;
  return { dir: join(stateDir, "cache"), key, prefix };
}

function sortedEntries(record: Readonly<Record<string, string>>): [string, string][] {
  return Object.entries(record).sort(([a], [b]) => compare(a, b));
}

/** A file-name hash: the 64-bit digest of {@linkcode DigestBuilder}. */
function shortHash(text: string): string {
  const digest = new DigestBuilder();
  digest.add(text, 0);
  return digest.build().digest;
}

function headerPath(files: CacheFiles, key = files.key): string {
  return join(files.dir, `${key}.json`);
}

function filePath(files: CacheFiles, generation: string, kind: "body" | "delta" | "plan") {
  return join(files.dir, `${files.key}.${generation}.${kind}`);
}

/** A header, or why there is none that can be used. */
export type HeaderRead =
  | { readonly header: CacheHeader }
  | { readonly missing: true }
  | { readonly unreadable: string };

/**
 * Reads the header of a cache.
 *
 * @param files The cache.
 * @returns The header, `missing` when there is no cache, or why it cannot be used (another
 *   version, a damaged file): a cache is rebuilt, never a reason to stop.
 */
export async function readCacheHeader(files: CacheFiles): Promise<HeaderRead> {
  return await readHeaderAt(headerPath(files));
}

async function readHeaderAt(path: string): Promise<HeaderRead> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { missing: true };
    return { unreadable: reasonOf(error) };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { unreadable: `${path} is not JSON` };
  }
  const parsed = headerSchema.safeParse(json);
  if (!parsed.success) return { unreadable: `${path} is not a stacksync cache header` };
  if (parsed.data.version !== CACHE_VERSION) {
    return {
      unreadable: `${path} has format version ${parsed.data.version}, this stacksync ` +
        `uses ${CACHE_VERSION}`,
    };
  }
  const { format: _format, version: _version, ...header } = parsed.data;
  return { header };
}

/**
 * The settings of the newest other cache of the same server and user, to say what changed.
 *
 * @param files The cache of this pass's settings.
 * @returns Those settings, or undefined when there is no other cache.
 */
export async function earlierSettings(
  files: CacheFiles,
): Promise<Readonly<Record<string, string>> | undefined> {
  const others = await otherHeaders(files);
  return others.sort((a, b) => b.header.watermark - a.header.watermark)[0]?.header.settings;
}

async function otherHeaders(files: CacheFiles) {
  const found: { key: string; header: CacheHeader }[] = [];
  for (const name of await listDir(files.dir)) {
    if (!name.startsWith(files.prefix) || !/^[^.]+\.json$/.test(name)) continue;
    const key = name.slice(0, -".json".length);
    if (key === files.key) continue;
    const read = await readHeaderAt(join(files.dir, name));
    if ("header" in read) found.push({ key, header: read.header });
  }
  return found;
}

async function listDir(dir: string): Promise<string[]> {
  try {
    return (await Array.fromAsync(Deno.readDir(dir))).filter((e) => e.isFile).map((e) => e.name);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
}

/**
 * Marks the caches of a server and user so that the next pass of each is full, saying why: a
 * cover changed by a write that a cache does not record (an undo, a restore, a pass with other
 * settings) moves no asset's `updatedAt`, so no search for changes would find it.
 *
 * @param stateDir STATE_DIR.
 * @param owner API_URL without credentials, and the user's id.
 * @param why What the next pass's `Full pass: …` line says.
 * @param except The key of a cache that records the writes itself, left as it is.
 */
export async function markCaches(
  stateDir: string,
  owner: { readonly server: string; readonly userId: string },
  why: string,
  except?: string,
): Promise<void> {
  const { dir, prefix } = cacheFilesOf(stateDir, owner.server, owner.userId, {});
  for (const { key, header } of await otherHeaders({ dir, prefix, key: except ?? "" })) {
    if (header.stale === undefined) {
      await writeCacheHeader({ dir, prefix, key }, { ...header, stale: why });
    }
  }
}

/**
 * Replaces the header atomically (written beside it, renamed over it).
 *
 * @param files The cache.
 * @param header The new header.
 */
export async function writeCacheHeader(files: CacheFiles, header: CacheHeader): Promise<void> {
  await Deno.mkdir(files.dir, { recursive: true, mode: FOLDER_MODE });
  const text = `${JSON.stringify({ format: CACHE_FORMAT, version: CACHE_VERSION, ...header })}\n`;
  const path = headerPath(files);
  const temporary = `${path}.tmp`;
  const file = await openPrivate(temporary);
  try {
    writeAll(file, text);
  } finally {
    file.close();
  }
  await Deno.rename(temporary, path);
}

/**
 * Deletes the files of this cache that the header does not name, and the caches of other
 * settings of the same server and user but the newest few.
 *
 * @param files The cache.
 * @param generation The generation the header names.
 */
export async function pruneCache(files: CacheFiles, generation: string): Promise<void> {
  const others = (await otherHeaders(files))
    .sort((a, b) => b.header.watermark - a.header.watermark)
    .slice(KEEP_OTHER_SETTINGS)
    .map(({ key }) => key);
  for (const name of await listDir(files.dir)) {
    if (!name.startsWith(files.prefix)) continue;
    const [key, part] = name.split(".", 2);
    const stale = key === files.key ? part !== "json" && part !== generation : others.includes(key);
    if (stale) await Deno.remove(join(files.dir, name)).catch(() => {});
  }
}

/** A new generation name: base-36 time and randomness, never reused. */
export function newGeneration(): string {
  const random = crypto.getRandomValues(new Uint32Array(1))[0].toString(36);
  return `${Date.now().toString(36)}${random}`;
}

// ---- the body ------------------------------------------------------------------------------

const SECTIONS = ["#assets", "#others", "#stacks", "#groups", "#seen", "#end"] as const;
/** The sections of a body, in order. */
export type Section = typeof SECTIONS[number];

/** A text file of the cache: its first line, then sections of lines, the last one `#end`. */
interface Sectioned<S extends string> {
  readonly magic: string;
  readonly sections: readonly S[];
  /** What the file is, for errors. */
  readonly kind: string;
}

const BODY: Sectioned<Section> = { magic: BODY_MAGIC, sections: SECTIONS, kind: "body" };
/** The line of a row whose asset left the searches (its number stays taken). */
const REMOVED_LINE = "-";

/** Text fields may hold a tab or a newline: escaped with backslashes. */
function escapeText(text: string): string {
  return /[\\\t\n\r]/.test(text)
    ? text.replace(
      /[\\\t\n\r]/g,
      (c) => c === "\\" ? "\\\\" : c === "\t" ? "\\t" : c === "\n" ? "\\n" : "\\r",
    )
    : text;
}

function unescapeText(text: string): string {
  return text.includes("\\")
    ? text.replace(
      /\\(.)/g,
      (_, c: string) => c === "t" ? "\t" : c === "n" ? "\n" : c === "r" ? "\r" : c,
    )
    : text;
}

/** The fields of a row beyond id, name and local time, kept as JSON when there are any. */
interface Extra {
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
    const path = filePath(files, generation, "body");
    const file = await openPrivate(`${path}.tmp`);
    const writer = new BodyWriter(file, path);
    writer.#text(BODY_MAGIC);
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

  /** Ends the body: renamed into place. */
  async finish(): Promise<void> {
    this.#enter("#end");
    this.#flush();
    this.#file.close();
    await Deno.rename(`${this.#path}.tmp`, this.#path);
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
      writeAll(this.#file, line);
      writeAll(this.#file, LF);
      return;
    }
    this.#buffer.set(line, this.#used);
    this.#used += line.length;
    this.#buffer[this.#used++] = NEWLINE;
  }

  #flush(): void {
    writeAll(this.#file, this.#buffer.subarray(0, this.#used));
    this.#used = 0;
  }
}

const NEWLINE = 0x0a;
const TAB = 0x09;
const LF = new Uint8Array([NEWLINE]);
const decoder = new TextDecoder();

/**
 * Calls `line` for each line of a body after its first, with its section and its number in the
 * section, reading the file in chunks of 1 MB; the line's bytes are only valid during the call.
 * Strings made from them are copies (a slice of one big text would keep all of it).
 *
 * @throws {SyntaxError} When the file is not a body, or ends before `#end`.
 */
function scanBody(
  path: string,
  line: (section: Section, index: number, bytes: Uint8Array) => void,
): Promise<void> {
  return scanSections(path, BODY, line);
}

/** {@linkcode scanBody} for any file of sections. */
async function scanSections<S extends string>(
  path: string,
  format: Sectioned<S>,
  line: (section: S, index: number, bytes: Uint8Array) => void,
): Promise<void> {
  const file = await Deno.open(path, { read: true });
  try {
    const lines = sectionLines(path, format, line);
    for (let read: number | null = 0; read !== null; read = await file.read(lines.space())) {
      lines.filled(read);
    }
    lines.end();
  } finally {
    file.close();
  }
}

/** {@linkcode scanBody} reading synchronously, for the journal, which writes synchronously. */
function scanBodySync(
  path: string,
  line: (section: Section, index: number, bytes: Uint8Array) => void,
): void {
  const file = Deno.openSync(path, { read: true });
  try {
    const lines = sectionLines(path, BODY, line);
    for (let read: number | null = 0; read !== null; read = file.readSync(lines.space())) {
      lines.filled(read);
    }
    lines.end();
  } finally {
    file.close();
  }
}

/**
 * Splits chunks into lines and tracks sections; shared by both scans, which read into
 * `space()` and pass the count to `filled()`.
 */
function sectionLines<S extends string>(
  path: string,
  format: Sectioned<S>,
  line: (section: S, index: number, bytes: Uint8Array) => void,
) {
  const broken = (what: string) => new SyntaxError(`Cannot read the cache ${path}: ${what}`);
  let buffer = new Uint8Array(1 << 20);
  let kept = 0;
  let first = true;
  let section: S | undefined;
  let index = 0;
  let ended = false;
  /** Handles the complete lines of `buffer[0, length)`, moves the rest to the front. */
  const feed = (length: number): number => {
    let start = 0;
    for (;;) {
      // Past `length` the buffer holds stale bytes; searching in place spares a view per line.
      const at = buffer.indexOf(NEWLINE, start);
      if (at < 0 || at >= length) break;
      const bytes = buffer.subarray(start, at);
      start = at + 1;
      if (ended) continue;
      if (first) {
        if (decoder.decode(bytes) !== format.magic) {
          throw broken(`it is not a cache ${format.kind}`);
        }
        first = false;
      } else if (bytes[0] === 0x23 /* # */ && bytes.indexOf(TAB) < 0) {
        const name = decoder.decode(bytes) as S;
        if (!format.sections.includes(name)) throw broken(`unknown section ${name}`);
        section = name;
        index = 0;
        ended = name === "#end";
      } else {
        if (section === undefined) throw broken("a line comes before any section");
        line(section, index++, bytes);
      }
    }
    buffer.copyWithin(0, start, length);
    return length - start;
  };
  return {
    /** Where the next read goes: after the part line kept, the buffer grown when it is full. */
    space(): Uint8Array {
      if (kept === buffer.length) {
        const bigger = new Uint8Array(buffer.length * 2);
        bigger.set(buffer);
        buffer = bigger;
      }
      return buffer.subarray(kept);
    },
    /** Takes in `count` bytes read into {@linkcode space}. */
    filled(count: number): void {
      kept = feed(kept + count);
    },
    end(): void {
      if (!ended) throw broken("it ends early");
    },
  };
}

/** The tab-separated fields of a line, as byte ranges. */
function fieldsOf(bytes: Uint8Array, count: number): number[] {
  const bounds = [0];
  for (let from = 0; bounds.length < count;) {
    const tab = bytes.indexOf(TAB, from);
    if (tab < 0) break;
    bounds.push(tab + 1);
    from = tab + 1;
  }
  return bounds;
}

/** Where a field of {@linkcode fieldsOf}'s bounds ends: before its tab, or at the line's end. */
function fieldEnd(bytes: Uint8Array, bounds: number[], field: number): number {
  return field + 1 < bounds.length ? bounds[field + 1] - 1 : bytes.length;
}

function textAt(bytes: Uint8Array, bounds: number[], field: number): string {
  const end = fieldEnd(bytes, bounds, field);
  return decoder.decode(bytes.subarray(bounds[field], end));
}

/** A field's whole number, read from its bytes: the hot path of loading a cache. */
function numberAt(bytes: Uint8Array, bounds: number[], field: number): number {
  const end = fieldEnd(bytes, bounds, field);
  let at = bounds[field];
  const negative = bytes[at] === 0x2d; /* - */
  if (negative) at++;
  if (at === end) return NaN;
  let value = 0;
  for (; at < end; at++) {
    const digit = bytes[at] - 0x30;
    if (digit < 0 || digit > 9) return Number(textAt(bytes, bounds, field));
    value = value * 10 + digit;
  }
  return negative ? -value : value;
}

function refsOf(text: string): Ref[] {
  return text === "" ? [] : text.split(",").map((item) => /^\d+$/.test(item) ? Number(item) : item);
}

function rowsOf(text: string): number[] {
  return text === "" ? [] : text.split(",").map(Number);
}

/** A field of base-36 bucket hashes separated by commas, read from its bytes. */
function hashesAt(bytes: Uint8Array, bounds: number[], field: number): BucketHashes {
  const end = fieldEnd(bytes, bounds, field);
  if (end === bounds[field]) return [];
  // One hash, the common case, is a number without a list.
  let hashes: number[] | undefined;
  let value = 0;
  for (let at = bounds[field]; at < end; at++) {
    const c = bytes[at];
    if (c === 0x2c /* , */) {
      (hashes ??= []).push(value);
      value = 0;
    } else value = value * 36 + (c <= 0x39 ? c - 0x30 : c - 0x57);
  }
  if (hashes === undefined) return value;
  hashes.push(value);
  return hashes;
}

/** What a cache holds: its compact library, and the writes of the pass that left it. */
export interface CacheRead {
  readonly library: Library;
  readonly writes: readonly CacheWrite[];
}

/**
 * Reads a cache's library without the names and times of its assets (see
 * {@linkcode readRows}), and the writes of its delta.
 *
 * @param files The cache.
 * @param header Its header.
 * @returns The library and the writes to apply to it.
 * @throws {SyntaxError} When a file is damaged; the caller then runs a full pass.
 */
export async function readCache(files: CacheFiles, header: CacheHeader): Promise<CacheRead> {
  // Room for the rows the header counts and some removed or new ones: the columns are not
  // grown, copied and left as garbage while the cache is read.
  const { assets, stacks, groups } = header.sizes;
  const library = emptyLibrary({
    rows: assets + (assets >> 4) + 1024,
    stacks: stacks + 1024,
    groups: groups + 1024,
    others: 1024,
  });
  const path = filePath(files, header.generation, "body");
  await scanBody(path, (section, index, bytes) => {
    switch (section) {
      case "#assets": {
        if (bytes.length === 1 && bytes[0] === 0x2d /* - */) {
          addRow(library, "", -1, REMOVED);
          return;
        }
        const bounds = fieldsOf(bytes, 7);
        const row = addRowFromBytes(
          library,
          bytes,
          0,
          fieldEnd(bytes, bounds, 0),
          numberAt(bytes, bounds, 3),
          numberAt(bytes, bounds, 4),
        );
        setBuckets(library, row, hashesAt(bytes, bounds, 5));
        if (bounds.length === 7 && bounds[6] < bytes.length) {
          const extra: Extra = JSON.parse(unescapeText(textAt(bytes, bounds, 6)));
          if (extra.skip !== undefined) library.skips.set(index, extra.skip);
        }
        return;
      }
      case "#others": {
        const bounds = fieldsOf(bytes, 3);
        library.others.set(textAt(bytes, bounds, 0), {
          updatedAt: numberAt(bytes, bounds, 1),
          scopes: numberAt(bytes, bounds, 2),
        });
        return;
      }
      case "#stacks": {
        const bounds = fieldsOf(bytes, 4);
        const id = textAt(bytes, bounds, 0);
        const [primary] = refsOf(textAt(bytes, bounds, 1));
        library.stacks.set(id, {
          id,
          primary,
          members: refsOf(textAt(bytes, bounds, 2)),
          archived: refsOf(textAt(bytes, bounds, 3)),
        });
        return;
      }
      case "#groups": {
        const bounds = fieldsOf(bytes, 2);
        library.groups.add(rowsOf(textAt(bytes, bounds, 1)));
        return;
      }
      case "#seen": {
        const bounds = fieldsOf(bytes, 2);
        library.seen.set(textAt(bytes, bounds, 0), numberAt(bytes, bounds, 1));
        return;
      }
    }
  });
  const writes: CacheWrite[] = [];
  if (header.deltaLines > 0) {
    for await (const { line } of readLines(filePath(files, header.generation, "delta"))) {
      if (writes.length >= header.deltaLines) break;
      writes.push(parseWrite(line));
    }
    if (writes.length < header.deltaLines) {
      throw new SyntaxError(
        `Cannot read the cache's writes: ${writes.length} of ${header.deltaLines}`,
      );
    }
  }
  return { library, writes };
}

/** The content of a row: what the compact library leaves out. */
export interface RowContent {
  readonly asset?: Asset;
  readonly invalid?: { readonly field: string; readonly message: string };
}

/**
 * Reads in full the rows and the group keys an incremental pass regroups or plans.
 *
 * @param files The cache.
 * @param header Its header.
 * @param rows The rows wanted.
 * @param groups The groups wanted, by their place in the cache.
 * @returns Their contents, and the groups' keys.
 */
export async function readRows(
  files: CacheFiles,
  header: CacheHeader,
  rows: ReadonlySet<number>,
  groups: ReadonlySet<number>,
): Promise<{ rows: Map<number, RowContent>; keys: Map<number, string> }> {
  const contents = new Map<number, RowContent>();
  const keys = new Map<number, string>();
  await scanBody(filePath(files, header.generation, "body"), (section, index, bytes) => {
    if (section === "#assets" && rows.has(index) && bytes.length > 1) {
      contents.set(index, contentOf(bytes));
    } else if (section === "#groups" && groups.has(index)) {
      keys.set(index, unescapeText(textAt(bytes, fieldsOf(bytes, 2), 0)));
    }
  });
  return { rows: contents, keys };
}

function contentOf(bytes: Uint8Array): RowContent {
  const bounds = fieldsOf(bytes, 7);
  const json = bounds.length === 7 && bounds[6] < bytes.length ? textAt(bytes, bounds, 6) : "";
  const extra: Extra = json === "" ? {} : JSON.parse(unescapeText(json));
  if (extra.invalid !== undefined) return { invalid: extra.invalid };
  return {
    asset: {
      id: textAt(bytes, bounds, 0),
      originalFileName: unescapeText(textAt(bytes, bounds, 1)),
      localDateTime: unescapeText(textAt(bytes, bounds, 2)),
      ...extra.fields,
      ...(extra.size === undefined ? {} : { fileSizeInByte: extra.size }),
    } as Asset,
  };
}

/** How {@linkcode rewriteBody} changes a body. */
export interface BodyEdits {
  /** Rows written in full (changed, new, regrouped, moved by a write); others are copied. */
  readonly rows: ReadonlyMap<number, RowContent>;
  /** Groups of the old body that are gone, by their place. */
  readonly droppedGroups: ReadonlySet<number>;
  /** New groups, appended. */
  readonly newGroups: readonly { readonly key: string; readonly rows: readonly number[] }[];
}

/**
 * Writes the body of a new generation from the old one and the library: unchanged rows and
 * groups are copied as bytes, the rest written from the library; the stacks, others and seen
 * assets come from the library.
 *
 * @param files The cache.
 * @param header The header of the old body.
 * @param generation The new generation.
 * @param library The library now.
 * @param edits What changed beyond the library's columns.
 */
export async function rewriteBody(
  files: CacheFiles,
  header: CacheHeader,
  generation: string,
  library: Library,
  edits: BodyEdits,
): Promise<void> {
  const body = await BodyWriter.create(files, generation);
  try {
    const full = (row: number) => {
      const content = edits.rows.get(row);
      if (content === undefined) throw new RangeError(`Cannot write row ${row} of the cache`);
      body.row(rowData(library, row, content));
    };
    let rows = 0;
    const removedId = (row: number) =>
      library.flags[row] === REMOVED ? idOf(library, row) : undefined;
    // The rows, then others and stacks from the library, then the groups kept and new ones.
    let middle = false;
    const writeMiddle = () => {
      if (middle) return;
      middle = true;
      for (let row = rows; row < library.rows; row++) {
        if (library.flags[row] === REMOVED) body.row(REMOVED_ROW);
        else full(row);
      }
      for (const [id, other] of library.others) body.other(id, other);
      for (const stack of library.stacks.values()) body.stack(stack, removedId);
    };
    await scanBody(filePath(files, header.generation, "body"), (section, index, bytes) => {
      if (section === "#assets") {
        rows++;
        if (library.flags[index] === REMOVED) body.row(REMOVED_ROW);
        else if (edits.rows.has(index)) full(index);
        else body.copy("#assets", bytes);
      } else if (section === "#groups" && !edits.droppedGroups.has(index)) {
        writeMiddle();
        body.copy("#groups", bytes);
      }
    });
    writeMiddle();
    for (const group of edits.newGroups) body.group(group.key, group.rows);
    for (const [id, updatedAt] of library.seen) body.seen(id, updatedAt);
    await body.finish();
  } catch (error) {
    await body.abandon();
    throw error;
  }
}

const REMOVED_ROW: RowData = { id: "", updatedAt: -1, flags: REMOVED, buckets: [] };

/**
 * A row in full: its content with the library's columns.
 *
 * @param library The library.
 * @param row The row.
 * @param content Its asset (or why it is invalid).
 * @returns The row.
 */
function rowData(library: Library, row: number, content: RowContent): RowData {
  const skip = library.skips.get(row);
  return {
    id: idOf(library, row),
    ...content,
    updatedAt: library.updatedAt[row],
    flags: library.flags[row],
    buckets: bucketsOf(library, row),
    ...(skip === undefined ? {} : { skip }),
  };
}

/**
 * The stacks of a generation's body with their members' file names, as a journal records them:
 * read synchronously when the journal opens, the body's rows once for the names. The names of
 * 100 000 members wait in one buffer of their bytes, not as strings: each becomes a string only
 * for its stack's record.
 *
 * @param files The cache.
 * @param generation The generation.
 * @param library The library the body was written from (its stacks are the body's).
 * @param marks Members to mark as Immich does not list them (trashed, hidden).
 * @returns The records.
 */
export function* stackRecords(
  files: CacheFiles,
  generation: string,
  library: Library,
  marks: { readonly trashed: ReadonlySet<string>; readonly unlisted: ReadonlySet<string> },
): Generator<RecordedStack> {
  const rows = library.rows;
  const wanted = new Uint8Array(rows);
  library.stacks.forEachRef((ref) => {
    if (typeof ref === "number") wanted[ref] = 1;
  });
  // Row r's name is names[starts[r], ends[r]), escaped as the body has it; empty when unknown.
  const starts = new Int32Array(rows);
  const ends = new Int32Array(rows);
  let names = new Uint8Array(1 << 20);
  let used = 0;
  scanBodySync(filePath(files, generation, "body"), (section, index, bytes) => {
    if (section !== "#assets" || wanted[index] !== 1 || bytes.length <= 1) return;
    const from = bytes.indexOf(TAB) + 1;
    if (from === 0) return;
    const tab = bytes.indexOf(TAB, from);
    const to = tab < 0 ? bytes.length : tab;
    if (used + to - from > names.length) {
      const bigger = new Uint8Array(Math.max(names.length * 2, used + to - from));
      bigger.set(names.subarray(0, used));
      names = bigger;
    }
    names.set(bytes.subarray(from, to), used);
    starts[index] = used;
    used += to - from;
    ends[index] = used;
  });
  for (const compact of library.stacks.values()) {
    const stack = expandStack(library, compact);
    const fileNames = new Map<string, string>();
    for (const ref of [compact.primary, ...compact.members]) {
      if (typeof ref === "number" && ends[ref] > starts[ref]) {
        fileNames.set(
          idOf(library, ref),
          unescapeText(decoder.decode(names.subarray(starts[ref], ends[ref]))),
        );
      }
    }
    yield recordStack(stack, { fileNames, ...marks });
  }
}

// ---- the delta -----------------------------------------------------------------------------

/** A stack as a write's answer gave it. */
const stackSchema = z.object({
  id: z.string(),
  primaryAssetId: z.string(),
  assetIds: z.array(z.string()),
  archivedAssetIds: z.array(z.string()).optional(),
});

const writeSchema = z.discriminatedUnion("op", [
  z.object({
    op: z.literal("create"),
    stack: stackSchema,
    updatedAt: z.array(z.number()),
  }),
  z.object({
    op: z.literal("update"),
    stack: stackSchema,
  }),
  z.object({ op: z.literal("delete"), stackId: z.string() }),
]);

function parseWrite(line: string): CacheWrite {
  return writeSchema.parse(JSON.parse(line));
}

/**
 * Appends the pass's writes to the delta of a generation, one JSON line each as the answer
 * comes. Lines are written 64 KB at a time (a `write()` per answer cost about 1.5 s of a first
 * run of 48 000 writes): the delta counts only once the pass ends well and its header says how
 * many lines it has, so lines a killed pass never wrote are lines no header counts.
 */
export class DeltaWriter {
  readonly #path: string;
  #file: Deno.FsFile | undefined;
  readonly #text = new ChunkedText(() => this.#file ??= Deno.openSync(this.#path, WRITE_PRIVATE));
  #lines = 0;

  /**
   * @param files The cache.
   * @param generation The generation the writes belong to.
   */
  constructor(files: CacheFiles, generation: string) {
    this.#path = filePath(files, generation, "delta");
  }

  /** How many writes were recorded. */
  get lines(): number {
    return this.#lines;
  }

  /**
   * Records one write.
   *
   * @param write The write and its answer.
   */
  record(write: CacheWrite): void {
    const line = write.op === "create"
      ? { op: "create", stack: stackRecord(write.stack), updatedAt: write.updatedAt }
      : write.op === "update"
      ? { op: "update", stack: stackRecord(write.stack) }
      : write;
    this.#text.put(`${JSON.stringify(line)}\n`);
    this.#lines++;
  }

  /** Writes what is left and closes the delta. */
  close(): void {
    this.#text.flush();
    this.#file?.close();
    this.#file = undefined;
  }
}

function stackRecord(stack: Stack) {
  return {
    id: stack.id,
    primaryAssetId: stack.primaryAssetId,
    assetIds: stack.assetIds,
    ...(stack.archivedAssetIds === undefined ? {} : { archivedAssetIds: stack.archivedAssetIds }),
  };
}

// ---- the plan -----------------------------------------------------------------------------

/** What a pass planned that is no action, for the next pass to keep where nothing changed. */
export interface StoredPlan {
  readonly entries: PlanEntries;
  readonly skippedAssets: Readonly<Record<string, number>>;
}

const PLAN_SECTIONS = ["#plan", "#needs-replace", "#in-sync", "#end"] as const;
/** The most entries on a line of the plan file. */
const PLAN_LINE = 100;
const PLAN: Sectioned<typeof PLAN_SECTIONS[number]> = {
  magic: `${CACHE_FORMAT}-plan ${CACHE_VERSION}`,
  sections: PLAN_SECTIONS,
  kind: "plan",
};

/**
 * Writes the plan file of a generation, in pieces of about 64 KB: `#plan` then one JSON line of
 * the skipped counts and volatile stacks, `#needs-replace` then the entries, `#in-sync` then the
 * entries as arrays (stack id, group key, smallest asset id, and the place's key only where it
 * is not the group key), `#end`. Each line of entries is a JSON array of up to
 * {@linkcode PLAN_LINE} of them: one `JSON.parse` per entry made reading the file three times
 * slower.
 *
 * @param files The cache.
 * @param generation The generation.
 * @param plan The plan's entries.
 */
export async function writeStoredPlan(
  files: CacheFiles,
  generation: string,
  plan: StoredPlan,
): Promise<void> {
  await Deno.mkdir(files.dir, { recursive: true, mode: FOLDER_MODE });
  const path = filePath(files, generation, "plan");
  const file = await openPrivate(`${path}.tmp`);
  try {
    const text = new ChunkedText(() => file);
    const put = (line: string) => text.put(`${line}\n`);
    const lines = <T>(entries: readonly T[], form: (entry: T) => unknown) => {
      for (let at = 0; at < entries.length; at += PLAN_LINE) {
        put(JSON.stringify(entries.slice(at, at + PLAN_LINE).map(form)));
      }
    };
    const { inSync, needsReplace, volatile } = plan.entries;
    put(PLAN.magic);
    put("#plan");
    put(JSON.stringify({ skippedAssets: plan.skippedAssets, volatile }));
    put("#needs-replace");
    lines(needsReplace, (entry) => entry);
    put("#in-sync");
    lines(
      inSync,
      ({ stackId, groupKey, key, first }) =>
        key === groupKey ? [stackId, groupKey, first] : [stackId, groupKey, first, key],
    );
    put("#end");
    text.flush();
  } finally {
    file.close();
  }
  await Deno.rename(`${path}.tmp`, path);
}

/**
 * Reads the plan file of a generation, a line of up to {@linkcode PLAN_LINE} entries at a time:
 * 50 000 in-sync entries never make one string of megabytes, and an entry's place shares its
 * group key's string.
 *
 * @param files The cache.
 * @param generation The generation.
 * @returns The plan, or undefined when there is none.
 * @throws {SyntaxError} When the file is damaged; the caller then runs a full pass.
 */
export async function readStoredPlan(
  files: CacheFiles,
  generation: string,
): Promise<StoredPlan | undefined> {
  const path = filePath(files, generation, "plan");
  if (!(await exists(path))) return undefined;
  let head: Pick<StoredPlan, "skippedAssets"> & Pick<PlanEntries, "volatile"> | undefined;
  const inSync: (InSyncStack & Placed)[] = [];
  const needsReplace: (NeedsReplace & Placed)[] = [];
  await scanSections(path, PLAN, (section, _index, bytes) => {
    switch (section) {
      case "#plan":
        head = JSON.parse(decoder.decode(bytes));
        return;
      case "#needs-replace":
        needsReplace.push(...JSON.parse(decoder.decode(bytes)));
        return;
      case "#in-sync": {
        const entries: string[][] = JSON.parse(decoder.decode(bytes));
        for (const [stackId, groupKey, first, key] of entries) {
          inSync.push({ stackId, groupKey, key: key ?? groupKey, first });
        }
        return;
      }
    }
  });
  if (head === undefined) throw new SyntaxError(`Cannot read the cache ${path}: it has no #plan`);
  return {
    entries: { inSync, needsReplace, volatile: head.volatile },
    skippedAssets: head.skippedAssets,
  };
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
