/**
 * The cache of incremental passes, in `STATE_DIR/cache/`: per server, user and settings, the
 * library as the last pass left it (docs/state.md, "The cache"; docs/incremental.md). This
 * module names the files and keeps the header; `cache_body.ts` (with `cache_full_body.ts` and
 * `cache_library.ts`), `cache_delta.ts`, `cache_plan.ts` and `cache_unlisted.ts` keep the other
 * files, and `cache_recorder.ts` records a pass in them.
 *
 * ```text
 * cache/<key>.json               the header: what the cache is, the last pass, its files
 * cache/<key>.<gen>.body         the library as the pass planned from it (text, one line each)
 * cache/<key>.<gen>.delta        the pass's writes, as the server answered them (JSON lines)
 * cache/<key>.<gen>.plan         the plan's entries that are no action, kept by the next pass
 * cache/<key>.<gen>.unlisted     the stacks of trashed and hidden members, as looked up
 * ```
 *
 * `<key>` is `<server hash>-<user id>-<settings hash>`. A pass writes the body before its first
 * write, records each write's answer in the delta, and replaces the header last (atomically),
 * so a header always names complete files; a pass killed midway leaves the header saying so,
 * and the next pass is full. Nothing waits for the disk: a file a power cut damaged fails its
 * checks (its size and CRC-32, recorded in the header, which checks itself) and the next pass is
 * full, which costs less than flushing tens of megabytes on every pass.
 *
 * @module
 */
import { join } from "node:path";
import { z } from "zod";
import { type FileSum, fileSumSchema } from "./_checksum.ts";
import { crc32 } from "./_crc32.ts";
import type { Sectioned } from "./_cache_text.ts";
import { compare } from "../grouping/compare.ts";
import { type Digest, DigestBuilder } from "../incremental/digest.ts";
import { FOLDER_MODE, openPrivate } from "../private_files.ts";
import { writeAll } from "../write_all.ts";

/** The format name of cache headers. */
export const CACHE_FORMAT = "stacksync-cache";
/** The cache version this stacksync writes and reads; another one is rebuilt by a full pass. */
export const CACHE_VERSION = 4;

/**
 * The first line and sections of one of the cache's text files: a file of another version is
 * refused, as a header of another version is.
 *
 * @param name What the file is: `body`, `plan`, ….
 * @param sections Its sections, `#end` last.
 * @returns The file's format.
 */
export function cacheText<S extends string>(name: string, sections: readonly S[]): Sectioned<S> {
  return { magic: `${CACHE_FORMAT}-${name} ${CACHE_VERSION}`, sections, kind: name };
}

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
  /** The watermark of the last full pass (server data time, ms since the epoch). */
  readonly fullPassAt: number;
  /** This computer's clock when the last full pass started (ms since the epoch). */
  readonly fullPassClock: number;
  /**
   * The server's data time the last pass's search began at, at the latest: the largest
   * `updatedAt` it found less the search's duration (ms since the epoch; docs/incremental.md).
   */
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
  /** What the generation's files added up to when written: checked when they are read. */
  readonly sums: {
    readonly body?: FileSum;
    readonly delta?: FileSum;
    readonly plan?: FileSum;
    readonly unlisted?: FileSum;
  };
}

const digestSchema = z.object({
  count: z.number(),
  digest: z.string(),
  newest: z.number().optional(),
  scoped: z.array(z.number()).optional(),
  since: z.number(),
});
const headerSchema = z.object({
  format: z.literal(CACHE_FORMAT),
  version: z.number(),
  server: z.string(),
  user: z.object({ id: z.string(), name: z.string() }),
  stacksync: z.string(),
  settings: z.record(z.string(), z.string()),
  immich: z.string(),
  fullPassAt: z.number(),
  fullPassClock: z.number(),
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
  sums: z.object({
    body: fileSumSchema.optional(),
    delta: fileSumSchema.optional(),
    plan: fileSumSchema.optional(),
    unlisted: fileSumSchema.optional(),
  }),
  checksum: z.number(),
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

/**
 * The path of one file of a generation.
 *
 * @param files The cache.
 * @param generation The generation.
 * @param kind Which file.
 * @returns The path.
 */
export function cacheFilePath(
  files: CacheFiles,
  generation: string,
  kind: "body" | "delta" | "plan" | "unlisted",
): string {
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
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(text);
  } catch {
    return { unreadable: `${path} is not JSON` };
  }
  if (json?.format !== CACHE_FORMAT) {
    return { unreadable: `${path} is not a stacksync cache header` };
  }
  // Another version, older or newer, is no cache for this stacksync: the pass is full.
  if (json.version !== CACHE_VERSION) {
    return {
      unreadable:
        `${path} has format version ${json.version}, this stacksync uses ${CACHE_VERSION}`,
    };
  }
  if (json.checksum !== headerChecksum(json)) {
    return { unreadable: `${path} is damaged: its checksum does not match` };
  }
  const parsed = headerSchema.safeParse(json);
  if (!parsed.success) return { unreadable: `${path} is not a stacksync cache header` };
  const { format: _format, version: _version, checksum: _checksum, ...header } = parsed.data;
  return { header };
}

/**
 * The CRC-32 of a header's JSON text with its checksum 0: the header's own checksum. JSON
 * written by `JSON.stringify` reads back to the same text, keys in their order.
 */
function headerChecksum(json: Readonly<Record<string, unknown>>): number {
  return crc32(JSON.stringify({ ...json, checksum: 0 }));
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
 * @param files Where the caches are and the prefix of the server and user's (`cacheFilesOf`);
 *   the cache of `files.key`, which records the writes itself, is left as it is.
 * @param why What the next pass's `Full pass: …` line says.
 * @throws What removing a header that could not be marked throws.
 */
export async function markCaches(files: CacheFiles, why: string): Promise<void> {
  for (const { key, header } of await otherHeaders(files)) {
    if (header.stale !== undefined) continue;
    const other = { ...files, key };
    // A header that cannot be marked goes: no cache is a full pass too.
    await writeCacheHeader(other, { ...header, stale: why })
      .catch(() => Deno.remove(headerPath(other)));
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
  const json = { format: CACHE_FORMAT, version: CACHE_VERSION, ...header, checksum: 0 };
  const text = `${JSON.stringify({ ...json, checksum: headerChecksum(json) })}\n`;
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
 * Marks the cache so that the next pass is full, saying why: its header gets `unfinished`, or,
 * when it cannot be written, goes. A header that can be neither written nor removed stays.
 *
 * @param files The cache.
 * @param why What the next pass's `Full pass: the last pass did not finish cleanly: …` says.
 */
export async function markCacheUnfinished(files: CacheFiles, why: string): Promise<void> {
  try {
    const read = await readCacheHeader(files);
    if ("header" in read) await writeCacheHeader(files, { ...read.header, unfinished: why });
  } catch {
    await Deno.remove(headerPath(files)).catch(() => {});
  }
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

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
