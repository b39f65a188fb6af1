/**
 * `stacksync plan [--out FILE] [--html FILE] [--embed-thumbnails]`: reads and plans exactly as a
 * dry run does (the same work, so the same log lines), then writes the plan file (default
 * `plan.json`) and, with `--html`, the review page with the photos' pictures, in a folder beside
 * it or inside it. It never writes to Immich.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { basename, dirname, extname, join, resolve } from "node:path";
import { getLogger, type Logger } from "@logtape/logtape";
import { displayUrl } from "../shown_url.ts";
import { ConfigError, planSettings } from "../config.ts";
import { parseRules } from "../grouping/criteria.ts";
import { NO_DELETION_LIMIT } from "../reconcile/deletions.ts";
import { planUser } from "../plan_file/build.ts";
import { writeAll } from "../log.ts";
import {
  PLAN_FORMAT,
  PLAN_VERSION,
  type PlanFile,
  planFileChunks,
  type PlanUser,
} from "../plan_file/format.ts";
import { pageChunks } from "../review/page.ts";
import {
  fetchThumbnails,
  picturesOf,
  pictureType,
  type ThumbnailSource,
} from "../review/thumbnails.ts";
import {
  checkPicturesFolder,
  dropOtherPictures,
  makePicturesFolder,
} from "../review/pictures_folder.ts";
import { isImmichId } from "../immich_id.ts";
import { FILE_MODE, WRITE_PRIVATE } from "../private_files.ts";
import { checkOwnFile, PLAN_FILE, REVIEW_PAGE } from "./_own_file.ts";
import { releaseMemory } from "../memory.ts";
import { groupingWork, runUsers, type UserWork } from "../run.ts";
import { outcomeOf } from "./_users.ts";
import { type Command } from "./command.ts";

/** Where the plan goes when `--out` is not given. */
const DEFAULT_OUT = "plan.json";

/** Refuses a file whose folder does not exist, before anything is read. */
async function checkFolder(path: string, what: string): Promise<void> {
  const folder = dirname(resolve(path));
  let isFolder = false;
  try {
    isFolder = (await Deno.stat(folder)).isDirectory;
  } catch {
    // Missing or unreadable: refused below.
  }
  if (!isFolder) {
    throw new ConfigError(
      `Cannot write the ${what} to ${path} as its folder does not exist: create ${folder}, or ` +
        "name a file in a folder that exists",
    );
  }
}

/**
 * Writes a file piece by piece: a plan of 50 000 actions is never held as one text. A new file is
 * owner-only; one stacksync wrote before keeps its mode.
 */
async function writeChunks(path: string, chunks: Iterable<string>): Promise<void> {
  const file = await Deno.open(path, WRITE_PRIVATE);
  try {
    for (const chunk of chunks) writeAll(file, chunk);
  } finally {
    file.close();
  }
}

/** Pictures fetched between two {@linkcode releaseMemory} calls. */
const PICTURES_PER_RELEASE = 500;

/** The folder of a page's pictures: beside it, named after it (plan.html: plan_files). */
function picturesFolderOf(page: string): string {
  return join(dirname(page), `${basename(page, extname(page))}_files`);
}

/** The review page's pictures: saved in the folder beside it, or kept for embedding. */
class Pictures {
  /** Picture sources by asset id, as the page refers to them. */
  readonly sources = new Map<string, string>();
  readonly #folder: string | undefined;
  readonly #prefix: string;
  #left: number;

  /**
   * @param page The page's path.
   * @param embed Keep the pictures for the page itself instead of a folder.
   * @param max How many pictures at most, every user together.
   */
  constructor(page: string, embed: boolean, max: number) {
    const folder = picturesFolderOf(page);
    this.#folder = embed ? undefined : folder;
    this.#prefix = encodeURIComponent(basename(folder));
    this.#left = max;
  }

  /** The folder beside the page, when the pictures go there. */
  get folder(): string | undefined {
    return this.#folder;
  }

  /**
   * Fetches the pictures of a user's plan, as many as are left of PLAN_THUMBNAILS.
   *
   * @param client The user's client.
   * @param user The user's part of the plan.
   * @param log The user's logger.
   * @param signal Stops the fetching.
   */
  async fetch(client: ThumbnailSource, user: PlanUser, log: Logger, signal: AbortSignal) {
    // Ids become file names: anything but Immich's UUIDs gets no picture.
    const ids = picturesOf(user, this.#left).filter(isImmichId);
    this.#left -= ids.length;
    if (ids.length === 0) return;
    if (this.#folder !== undefined) await makePicturesFolder(this.#folder);
    let saved = 0;
    const result = await fetchThumbnails(client, ids, {
      log,
      signal,
      save: async (id, bytes) => {
        // Each answer leaves garbage outside the JavaScript heap that V8 frees only when it
        // collects: without a collection now and then, 5 000 pictures add 200 MB to the peak.
        if (++saved % PICTURES_PER_RELEASE === 0) releaseMemory();
        const type = pictureType(bytes);
        if (this.#folder === undefined) {
          this.sources.set(
            id,
            `data:image/${type};base64,${Buffer.from(bytes).toString("base64")}`,
          );
          return;
        }
        const file = `${id}.${type}`;
        await Deno.writeFile(join(this.#folder, file), bytes, { mode: FILE_MODE });
        this.sources.set(id, `${this.#prefix}/${file}`);
      },
    });
    log.debug("Fetched {count} pictures for the review page", { count: result.fetched });
  }

  /** Deletes the pictures of earlier plans from the folder, so that it holds this page's. */
  async dropOthers(): Promise<void> {
    if (this.#folder === undefined) return;
    const kept = new Set([...this.sources.values()].map((source) => source.split("/").at(-1)!));
    await dropOtherPictures(this.#folder, kept);
  }
}

/** Plans like a dry run and writes the plan file and the review page. */
export const planCommand: Command = async (context) => {
  const { settings, options } = context;
  const out = options.out ?? DEFAULT_OUT;
  const html = options.html;
  if (options.embedThumbnails && html === undefined) {
    throw new ConfigError(
      "Cannot embed the pictures as there is no review page: add --html FILE, or leave out " +
        "--embed-thumbnails",
    );
  }
  if (html !== undefined && out !== "-" && resolve(html) === resolve(out)) {
    throw new ConfigError(
      `Cannot write the plan and the review page to one file: give --out and --html different ` +
        `names: current value is ${html}`,
    );
  }
  if (html === "-") {
    throw new ConfigError(
      "Cannot write the review page to standard output: name a file such as plan.html",
    );
  }
  // Nothing stacksync did not write is overwritten or emptied.
  if (out !== "-") {
    await checkFolder(out, "plan");
    await checkOwnFile(out, PLAN_FILE);
  }
  if (html !== undefined) {
    await checkFolder(html, "review page");
    await checkOwnFile(html, REVIEW_PAGE);
    if (!options.embedThumbnails) await checkPicturesFolder(picturesFolderOf(html));
  }
  const criteria = parseRules(settings.criteria);
  return async () => {
    const dry = {
      ...settings,
      dryRun: true,
      ...(options.force ? { maxStackDeletions: NO_DELETION_LIMIT } : {}),
    };
    // The file names every stack its actions touch, as read: an incremental pass holds only
    // the part of the library it plans again, so plan reads it all and keeps no cache.
    const inner = groupingWork(dry, criteria, {
      record: false,
      full: "a plan file names every stack its actions touch",
      now: () => context.now().getTime(),
      version: context.version,
    });
    const recorded = planSettings(settings);
    const users: PlanUser[] = [];
    const pictures = html === undefined
      ? undefined
      : new Pictures(html, options.embedThumbnails === true, settings.planThumbnails);
    const work: UserWork = {
      title: "Plan",
      permissions: inner.permissions,
      async prepare(client, user, log) {
        const prepared = await inner.prepare(client, user, log);
        const entry = planUser({
          user,
          settings: recorded,
          plan: prepared.plan,
          read: prepared.stacks,
        });
        users.push(entry);
        await pictures?.fetch(client, entry, log, context.signal);
        return prepared;
      },
    };
    const reports = await runUsers(dry, work, {
      signal: context.signal,
      sleep: context.sleep,
      progress: context.progress,
    });
    const plan: PlanFile = {
      format: PLAN_FORMAT,
      version: PLAN_VERSION,
      createdAt: context.now().toISOString(),
      stacksync: context.version,
      server: displayUrl(settings.apiUrl),
      users,
    };
    const log = getLogger(["stacksync", "plan"]);
    const actions = users.reduce((sum, user) => sum + user.actions.length, 0);
    if (out === "-") { for (const chunk of planFileChunks(plan)) context.stdout(chunk); }
    else await writeChunks(out, planFileChunks(plan));
    log.info(
      out === "-"
        ? "Wrote the plan of {actions} actions to standard output"
        : "Wrote the plan of {actions} actions to {file}",
      { actions, users: users.length, file: out },
    );
    if (pictures !== undefined && html !== undefined) {
      await writeChunks(html, pageChunks(plan, { images: pictures.sources }));
      await pictures.dropOthers();
      log.info(
        pictures.folder === undefined
          ? "Wrote the review page to {file} with {pictures} pictures inside it"
          : "Wrote the review page to {file} with {pictures} pictures in {folder}",
        { file: html, pictures: pictures.sources.size, folder: pictures.folder },
      );
    }
    return outcomeOf(reports, settings.apiKeys.length);
  };
};
