/**
 * How a pass obtains the library it plans from, at the edge of the functional core: the whole
 * library from the server (`full.ts`), or the cache of the last pass plus what changed since
 * (`incremental.ts`). The choice is `src/incremental/decide.ts`'s, from what is known before
 * reading; an incremental pass turns full when reading shows it must. Each pass logs which kind
 * it is and why. docs/incremental.md explains the choice, what is cached and what only a full
 * pass sees.
 *
 * @module
 */
import type { Logger } from "@logtape/logtape";
import type { ImmichClient } from "../api/immich.ts";
import type { SearchFilter } from "../api/search.ts";
import type { UnlistedLookups } from "../api/unlisted_members.ts";
import { decidePass, type Decision } from "../incremental/decide.ts";
import type { User } from "../model.ts";
import {
  type CacheFiles,
  cacheFilesOf,
  type CacheHeader,
  earlierSettings,
  readCacheHeader,
  writeCacheHeader,
} from "../state/cache.ts";
import { CacheLoss } from "../state/cache_recorder.ts";
import { UnlistedFile } from "../state/cache_unlisted.ts";
import { incrementalRead } from "./incremental.ts";
import { type PassInput, PassMemory, type Reading, type ReadingOptions } from "./input.ts";
import { type LibraryQuery, shapingWith } from "./query.ts";

/**
 * Reads the library a user's pass plans from, fully or incrementally, and logs which and why.
 *
 * @param client The user's client.
 * @param user The key's user.
 * @param query What reading needs of the settings.
 * @param options Where the cache is and what the pass may do with it.
 * @param log The user's logger.
 * @returns What to plan from, and the cache's recorder.
 */
export async function readPassInput(
  client: ImmichClient,
  user: User,
  query: LibraryQuery,
  options: ReadingOptions,
  log: Logger,
): Promise<PassInput> {
  const albumIds = query.albums === undefined
    ? undefined
    : await client.resolveAlbumIds(query.albums);
  const filter: SearchFilter = { ...query.search, albumIds };
  const version = await client.serverVersion();
  const settingsText = shapingWith(query, albumIds);
  const files = options.stateDir === undefined
    ? undefined
    : cacheFilesOf(options.stateDir, query.server, user.id, settingsText);
  const memory = options.memory ?? new PassMemory();
  const reading: Reading = {
    memory,
    client,
    user,
    query,
    options,
    log,
    filter,
    ...(files === undefined ? {} : { files, loss: new CacheLoss(files, log) }),
    settingsText,
    immich: `${version.major}.${version.minor}.${version.patch}`,
    startedAt: options.now(),
  };
  const firstPass = !memory.started.has(user.id);
  memory.started.add(user.id);
  const decision = await decide(reading, firstPass);
  // Until the pass ends well the cache says it did not: a pass killed midway makes the next full.
  if (options.record && files !== undefined && decision.header !== undefined) {
    await writeCacheHeader(files, { ...decision.header, unfinished: STOPPED })
      .catch((error) => reading.loss?.note(error));
  }
  const read = decision.kind === "full"
    ? decision.reason
    : await incrementalRead(reading, decision.since, decision.header);
  // The full read is loaded by a full pass only (docs/architecture.md, "Start-up").
  const input = typeof read === "string"
    ? await (await import("./full.ts")).fullRead(reading, read)
    : read;
  const { header } = decision;
  if ("reused" in input || files === undefined || header?.sums.unlisted === undefined) {
    return input;
  }
  return { ...input, known: lastLookups(files, header, log) };
}

/**
 * The stacks of trashed and hidden members as the last pass looked them up, read once when
 * first asked for. A file that cannot be read only costs the lookups again.
 */
function lastLookups(
  files: CacheFiles,
  header: CacheHeader,
  log: Logger,
): () => Promise<UnlistedLookups | undefined> {
  let read: Promise<UnlistedLookups | undefined> | undefined;
  return () =>
    read ??= new UnlistedFile(files, header.generation).read(header.sums.unlisted!).catch(
      (error) => {
        log.debug("Looking up the stacks of trashed and hidden members again: {error}", {
          error: error instanceof Error ? error.message : String(error),
        });
        return undefined;
      },
    );
}

/** Why the last pass did not finish, as long as a pass has not ended well. */
const STOPPED = "it stopped before its end (killed, or a user was skipped)";

/** Full or incremental, from what is known before reading, with the cache's header. */
async function decide(
  reading: Reading,
  firstPass: boolean,
): Promise<
  | { kind: "full"; reason: string; header?: CacheHeader }
  | { kind: "incremental"; since: number; header: CacheHeader }
> {
  const { options, query, files } = reading;
  if (files === undefined) {
    return { kind: "full", reason: options.full ?? "no STATE_DIR to keep a cache in" };
  }
  const read = await readCacheHeader(files);
  const header = "header" in read ? read.header : undefined;
  const forced = options.full !== undefined
    ? options.full
    : query.resetStacks
    ? "RESET_STACKS"
    : options.cron && firstPass
    ? "the first pass of a cron process reads everything"
    : undefined;
  const decision: Decision = decidePass({
    ...(forced === undefined ? {} : { forced }),
    ...(header === undefined ? {} : { cache: header }),
    ...("unreadable" in read ? { unreadable: read.unreadable } : {}),
    ...("missing" in read ? await earlier(files) : {}),
    settings: reading.settingsText,
    immich: reading.immich,
    now: reading.startedAt,
    fullPassInterval: query.fullPassInterval,
    maxChanges: query.maxChanges,
  });
  if (decision.kind === "full" || header === undefined) {
    return {
      kind: "full",
      reason: decision.kind === "full" ? decision.reason : "no cache",
      ...(header === undefined ? {} : { header }),
    };
  }
  return { kind: "incremental", since: decision.since, header };
}

/** The settings of the newest cache of other settings, so the reason names what changed. */
async function earlier(files: CacheFiles) {
  const found = await earlierSettings(files);
  return found === undefined ? {} : { earlier: found };
}
