/**
 * The cache of incremental passes, in `STATE_DIR/cache/`: per server, user and settings, the
 * library as the last pass left it (docs/state.md, "The cache"; docs/incremental.md).
 *
 * ```text
 * cache/<key>.json               the header: what the cache is, the last pass, its files
 * cache/<key>.<gen>.body         the library as the pass planned from it (text, one line each)
 * cache/<key>.<gen>.delta        the pass's writes, as the server answered them (JSON lines)
 * cache/<key>.<gen>.plan.json    the plan of a pass that changed nothing, reused unchanged
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
import type { Asset, Group, NeedsReplace, Stack } from "../model.ts";
import type {
  CachedAsset,
  CachedLibrary,
  CacheWrite,
  Digest,
  OtherAsset,
} from "../incremental/library.ts";
import { applyWrite, DigestBuilder, emptyLibrary } from "../incremental/library.ts";
import { writeAll } from "../log.ts";
import { exists, readLines } from "./_files.ts";

/** The format name of cache headers. */
export const CACHE_FORMAT = "stacksync-cache";
/** The cache version this stacksync writes and reads; another one is rebuilt by a full pass. */
export const CACHE_VERSION = 1;

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
  /** The settings of the plan file when there is one (the last pass changed nothing). */
  readonly plan?: Readonly<Record<string, string>>;
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
  generation: z.string().regex(/^[0-9a-z]+$/),
  deltaLines: z.number(),
  offsets: z.array(z.number()),
  counts: z.array(z.number()),
  recent: digestSchema,
  written: z.number(),
  plan: z.record(z.string(), z.string()).optional(),
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
  return Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
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

function filePath(files: CacheFiles, generation: string, kind: "body" | "delta" | "plan.json") {
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
 * Replaces the header atomically (written beside it, renamed over it).
 *
 * @param files The cache.
 * @param header The new header.
 */
export async function writeCacheHeader(files: CacheFiles, header: CacheHeader): Promise<void> {
  await Deno.mkdir(files.dir, { recursive: true });
  const text = `${JSON.stringify({ format: CACHE_FORMAT, version: CACHE_VERSION, ...header })}\n`;
  const path = headerPath(files);
  const temporary = `${path}.tmp`;
  await Deno.writeTextFile(temporary, text);
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

const SECTIONS = {
  assets: "#assets",
  others: "#others",
  stacks: "#stacks",
  groups: "#groups",
  seen: "#seen",
  end: "#end",
} as const;
type Section = keyof typeof SECTIONS;

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

/** The fields of an asset beyond id, name and local time, kept as JSON when there are any. */
interface Extra {
  readonly fields?: Record<string, unknown>;
  readonly size?: number;
  readonly skip?: string;
  readonly invalid?: { readonly field: string; readonly message: string };
}

const CORE_FIELDS = new Set(["id", "originalFileName", "localDateTime", "fileSizeInByte"]);

/** What a body holds, counted while it was written, for the header. */
export interface BodySummary {
  /** Per search: the assets (the user's and others') it finds. */
  readonly counts: number[];
  /** The known (id, `updatedAt`) pairs at or after the writer's `since`. */
  readonly recent: Digest;
  readonly sizes: { readonly assets: number; readonly stacks: number; readonly groups: number };
}

/**
 * Writes a body, section by section in chunks of about 64 KB, to a temporary file that
 * {@linkcode BodyWriter.finish} renames into place: no part of the library is held twice. It
 * counts what it writes for the header.
 */
export class BodyWriter {
  readonly #file: Deno.FsFile;
  readonly #path: string;
  readonly #since: number;
  readonly #counts: number[];
  readonly #recent = new DigestBuilder();
  readonly #sizes = { assets: 0, stacks: 0, groups: 0 };
  #chunk = "";
  #section: Section | undefined;

  private constructor(file: Deno.FsFile, path: string, scopes: number, since: number) {
    this.#file = file;
    this.#path = path;
    this.#since = since;
    this.#counts = new Array<number>(scopes).fill(0);
  }

  /**
   * Starts the body of a new generation.
   *
   * @param files The cache.
   * @param generation The generation it belongs to.
   * @param scopes How many searches the pass makes.
   * @param since The time from which the next search for changes looks.
   * @returns The writer.
   */
  static async create(
    files: CacheFiles,
    generation: string,
    scopes: number,
    since: number,
  ): Promise<BodyWriter> {
    await Deno.mkdir(files.dir, { recursive: true });
    const path = filePath(files, generation, "body");
    const file = await Deno.open(`${path}.tmp`, { write: true, create: true, truncate: true });
    const writer = new BodyWriter(file, path, scopes, since);
    writer.#line(BODY_MAGIC);
    return writer;
  }

  #count(id: string, updatedAt: number, scopes: number): void {
    for (let i = 0; i < this.#counts.length; i++) if (scopes & 1 << i) this.#counts[i]++;
    if (updatedAt >= this.#since) this.#recent.add(id, updatedAt);
  }

  /** One of the user's assets. */
  asset(entry: CachedAsset): void {
    this.#enter("assets");
    this.#count(entry.id, entry.updatedAt, entry.scopes);
    this.#sizes.assets++;
    const { asset } = entry;
    const extra: { -readonly [K in keyof Extra]: Extra[K] } = {};
    if (asset !== undefined) {
      const fields: Record<string, unknown> = {};
      let any = false;
      for (const [name, value] of Object.entries(asset)) {
        if (CORE_FIELDS.has(name)) continue;
        fields[name] = value;
        any = true;
      }
      if (any) extra.fields = fields;
      if (asset.fileSizeInByte !== undefined) extra.size = asset.fileSizeInByte;
    }
    if (entry.skip !== undefined) extra.skip = entry.skip;
    if (entry.invalid !== undefined) extra.invalid = entry.invalid;
    const meta = entry.scopes * 4 + (entry.archived ? 2 : 0) + (entry.trashed ? 1 : 0);
    const json = Object.keys(extra).length === 0 ? "" : escapeText(JSON.stringify(extra));
    this.#line(
      `${entry.id}\t${escapeText(asset?.originalFileName ?? "")}\t${
        escapeText(asset?.localDateTime ?? "")
      }\t${entry.updatedAt}\t${meta}\t${entry.buckets.join(",")}\t${json}`,
    );
  }

  /** Another user's asset. */
  other(id: string, other: OtherAsset): void {
    this.#enter("others");
    this.#count(id, other.updatedAt, other.scopes);
    this.#line(`${id}\t${other.updatedAt}\t${other.scopes}`);
  }

  /** A stack as listed. */
  stack(stack: Stack): void {
    this.#enter("stacks");
    this.#sizes.stacks++;
    this.#line(
      `${stack.id}\t${stack.primaryAssetId}\t${stack.assetIds.join(",")}\t${
        (stack.archivedAssetIds ?? []).join(",")
      }`,
    );
  }

  /** A promoted group, parent first. */
  group(group: Group): void {
    this.#enter("groups");
    this.#sizes.groups++;
    this.#line(`${escapeText(group.key)}\t${group.assets.map((asset) => asset.id).join(",")}`);
  }

  /** One of the user's assets no search finds, seen changed recently; older ones are dropped. */
  seen(id: string, updatedAt: number): void {
    if (updatedAt < this.#since) return;
    this.#enter("seen");
    this.#count(id, updatedAt, 0);
    this.#line(`${id}\t${updatedAt}`);
  }

  /**
   * Ends the body: renamed into place.
   *
   * @returns What it holds.
   */
  async finish(): Promise<BodySummary> {
    this.#enter("end");
    this.#flush();
    this.#file.close();
    await Deno.rename(`${this.#path}.tmp`, this.#path);
    return { counts: this.#counts, recent: this.#recent.build(), sizes: this.#sizes };
  }

  /** Drops the unfinished body. */
  async abandon(): Promise<void> {
    this.#file.close();
    await Deno.remove(`${this.#path}.tmp`).catch(() => {});
  }

  #enter(section: Section): void {
    if (this.#section === section) return;
    const order = Object.keys(SECTIONS);
    if (this.#section !== undefined && order.indexOf(section) < order.indexOf(this.#section)) {
      throw new RangeError(`Cannot write the cache's ${section} after its ${this.#section}`);
    }
    this.#section = section;
    this.#line(SECTIONS[section]);
  }

  #line(text: string): void {
    this.#chunk += `${text}\n`;
    if (this.#chunk.length >= 65536) this.#flush();
  }

  #flush(): void {
    writeAll(this.#file, this.#chunk);
    this.#chunk = "";
  }
}

/** Splits a comma list of ids; an empty field is no id. */
function idList(text: string): string[] {
  return text === "" ? [] : text.split(",");
}

/**
 * Reads a cache's library: its body, then the writes of its delta.
 *
 * @param files The cache.
 * @param header Its header.
 * @returns The library.
 * @throws {SyntaxError} When a file is damaged; the caller then runs a full pass.
 */
export async function readLibrary(files: CacheFiles, header: CacheHeader): Promise<CachedLibrary> {
  const text = await Deno.readTextFile(filePath(files, header.generation, "body"));
  const library = parseBody(text, filePath(files, header.generation, "body"));
  if (header.deltaLines > 0) {
    let lines = 0;
    for await (const { line } of readLines(filePath(files, header.generation, "delta"))) {
      if (lines++ >= header.deltaLines) break;
      applyWrite(library, parseWrite(line));
    }
    if (lines < header.deltaLines) {
      throw new SyntaxError(`Cannot read the cache's writes: ${lines} of ${header.deltaLines}`);
    }
  }
  return library;
}

function parseBody(text: string, path: string): CachedLibrary {
  const library = emptyLibrary();
  const broken = (what: string) => new SyntaxError(`Cannot read the cache ${path}: ${what}`);
  let at = text.indexOf("\n");
  if (at < 0 || text.slice(0, at) !== BODY_MAGIC) throw broken("it is not a cache body");
  let section = "";
  let ended = false;
  const groupLines: [string, string][] = [];
  for (let start = at + 1; start < text.length; start = at + 1) {
    at = text.indexOf("\n", start);
    if (at < 0) throw broken("it ends early");
    const tab = text.indexOf("\t", start);
    if (tab < 0 || tab > at) {
      section = text.slice(start, at);
      if (section === SECTIONS.end) {
        ended = true;
        break;
      }
      continue;
    }
    switch (section) {
      case SECTIONS.assets:
        parseAsset(text, start, at, library);
        break;
      case SECTIONS.others: {
        const [id, updatedAt, scopes] = text.slice(start, at).split("\t");
        library.others.set(id, { updatedAt: Number(updatedAt), scopes: Number(scopes) });
        break;
      }
      case SECTIONS.stacks: {
        const [id, primaryAssetId, members, archived] = text.slice(start, at).split("\t");
        const archivedAssetIds = idList(archived ?? "");
        library.stacks.set(id, {
          id,
          primaryAssetId,
          assetIds: idList(members),
          ...(archivedAssetIds.length > 0 ? { archivedAssetIds } : {}),
        });
        break;
      }
      case SECTIONS.groups:
        groupLines.push([text.slice(start, tab), text.slice(tab + 1, at)]);
        break;
      case SECTIONS.seen:
        library.seen.set(text.slice(start, tab), Number(text.slice(tab + 1, at)));
        break;
      default:
        throw broken(`unknown section ${section}`);
    }
  }
  if (!ended) throw broken("it ends early");
  for (const [key, members] of groupLines) {
    const assets: Asset[] = [];
    for (const id of idList(members)) {
      const asset = library.assets.get(id)?.asset;
      if (asset === undefined) throw broken(`a group holds an unknown asset ${id}`);
      assets.push(asset);
    }
    library.groups.push({ key: unescapeText(key), assets });
  }
  return library;
}

function parseAsset(text: string, start: number, end: number, library: CachedLibrary): void {
  const fields: string[] = [];
  for (let from = start; fields.length < 6;) {
    const tab = text.indexOf("\t", from);
    fields.push(text.slice(from, tab));
    from = tab + 1;
    if (fields.length === 6) fields.push(text.slice(from, end));
  }
  const [id, name, local, updatedAt, metaText, buckets, json] = fields;
  const meta = Number(metaText);
  const extra: Extra = json === "" ? {} : JSON.parse(unescapeText(json));
  const asset = extra.invalid !== undefined ? undefined : {
    id,
    originalFileName: unescapeText(name),
    localDateTime: unescapeText(local),
    ...extra.fields,
    ...(extra.size === undefined ? {} : { fileSizeInByte: extra.size }),
  } as Asset;
  library.assets.set(id, {
    id,
    ...(asset === undefined ? {} : { asset }),
    ...(extra.invalid === undefined ? {} : { invalid: extra.invalid }),
    updatedAt: Number(updatedAt),
    scopes: Math.floor(meta / 4),
    archived: (meta & 2) !== 0,
    trashed: (meta & 1) !== 0,
    buckets: idList(buckets),
    ...(extra.skip === undefined ? {} : { skip: extra.skip as CachedAsset["skip"] }),
  });
}

// ---- the delta -----------------------------------------------------------------------------

const writeSchema = z.discriminatedUnion("op", [
  z.object({
    op: z.literal("create"),
    stack: z.object({
      id: z.string(),
      primaryAssetId: z.string(),
      assetIds: z.array(z.string()),
      archivedAssetIds: z.array(z.string()).optional(),
    }),
    updatedAt: z.array(z.number()),
  }),
  z.object({
    op: z.literal("update"),
    stack: z.object({
      id: z.string(),
      primaryAssetId: z.string(),
      assetIds: z.array(z.string()),
      archivedAssetIds: z.array(z.string()).optional(),
    }),
  }),
  z.object({ op: z.literal("delete"), stackId: z.string() }),
]);

function parseWrite(line: string): CacheWrite {
  const parsed = writeSchema.parse(JSON.parse(line));
  if (parsed.op !== "create") return parsed;
  const { stack, updatedAt } = parsed;
  return {
    op: "create",
    stack,
    updatedAt: new Map(stack.assetIds.map((id, i) => [id, updatedAt[i] ?? -1])),
  };
}

/**
 * Appends the pass's writes to the delta of a generation, one JSON line each as the answer
 * comes: a pass killed midway leaves lines no header counts.
 */
export class DeltaWriter {
  readonly #path: string;
  #file: Deno.FsFile | undefined;
  #lines = 0;
  #moved = 0;

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

  /** How many assets the writes moved (members of created and deleted stacks). */
  get moved(): number {
    return this.#moved;
  }

  /**
   * Records one write.
   *
   * @param write The write and its answer.
   * @param members How many assets it moved.
   */
  record(write: CacheWrite, members: number): void {
    this.#file ??= Deno.openSync(this.#path, { write: true, create: true, truncate: true });
    const line = write.op === "create"
      ? {
        op: "create",
        stack: stackRecord(write.stack),
        updatedAt: write.stack.assetIds.map((id) => write.updatedAt.get(id) ?? -1),
      }
      : write.op === "update"
      ? { op: "update", stack: stackRecord(write.stack) }
      : write;
    writeAll(this.#file, `${JSON.stringify(line)}\n`);
    this.#lines++;
    this.#moved += members;
  }

  /** Closes the delta. */
  close(): void {
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

// ---- the plan of a pass that changed nothing ------------------------------------------------

/** What a pass that changed nothing planned: the next one reuses it when nothing changed. */
export interface SteadyPlan {
  readonly inSync: readonly { readonly stackId: string; readonly groupKey: string }[];
  readonly needsReplace: readonly NeedsReplace[];
  readonly skippedAssets: Readonly<Record<string, number>>;
}

/**
 * Writes the plan file of a generation.
 *
 * @param files The cache.
 * @param generation The generation.
 * @param plan The plan.
 */
export async function writeSteadyPlan(
  files: CacheFiles,
  generation: string,
  plan: SteadyPlan,
): Promise<void> {
  await Deno.mkdir(files.dir, { recursive: true });
  const path = filePath(files, generation, "plan.json");
  await Deno.writeTextFile(`${path}.tmp`, JSON.stringify(plan));
  await Deno.rename(`${path}.tmp`, path);
}

/**
 * Reads the plan file of a generation.
 *
 * @param files The cache.
 * @param generation The generation.
 * @returns The plan, or undefined when there is none.
 */
export async function readSteadyPlan(
  files: CacheFiles,
  generation: string,
): Promise<SteadyPlan | undefined> {
  const path = filePath(files, generation, "plan.json");
  if (!(await exists(path))) return undefined;
  return JSON.parse(await Deno.readTextFile(path)) as SteadyPlan;
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
