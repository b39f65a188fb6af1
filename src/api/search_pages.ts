/**
 * `POST /search/metadata` page by page, held to Immich's paging contract, and the search bodies
 * every server version understands (docs/architecture.md, "Immich versions"): servers ignore the
 * fields they do not know, so each search sends both the old (`isArchived`, `isVisible`) and the
 * new (`visibility`) filters.
 *
 * @module
 */
import type { SearchResponseDto } from "@immich/sdk";
import { z } from "zod";
import type { Fits, Proven } from "./_dto.ts";
import { asRecord, searchItemId } from "./_values.ts";
import { PermanentError } from "./errors.ts";
import type { HttpClient } from "./http.ts";

/** Immich allows at most 1000 items per search page. */
export const PAGE_SIZE = 1000;

/**
 * The most search pages one search may take (5 000 000 assets): a server that keeps answering
 * fresh pages past it is taken to be broken rather than followed forever.
 */
const MAX_SEARCH_PAGES = 5000;

const searchSchema = z.object({
  assets: z.object({
    items: z.array(z.unknown()),
    nextPage: z.string().nullable().optional(),
  }),
});

/** See {@linkcode Fits}: the answers this module reads. */
export type SearchDtoCompatibility = Proven<[
  Fits<SearchResponseDto, z.input<typeof searchSchema>>,
]>;

/** The visibilities a search for changes covers: all but locked, which a key cannot read. */
export const CHANGE_VISIBILITIES = ["timeline", "archive", "hidden"] as const;

/**
 * The body of a search of one visibility, as every server version understands it.
 *
 * @param visibility The visibility searched.
 * @returns The filter fields of old and new servers.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { visibilityBody } from "./search_pages.ts";
 *
 * assert.deepEqual(visibilityBody("archive"), {
 *   visibility: "archive",
 *   isArchived: true,
 *   isVisible: true,
 * });
 * ```
 */
export function visibilityBody(visibility: (typeof CHANGE_VISIBILITIES)[number]) {
  return {
    visibility,
    isArchived: visibility === "archive",
    isVisible: visibility !== "hidden",
  };
}

/** A lower bound of every trash date: searching from it searches the whole trash only. */
export const TRASH_EPOCH = "1970-01-01T00:00:00.000Z";

/** The searches of the trash, by visibility: servers before v3 search one at a time. */
export const TRASH_SEARCHES: readonly Readonly<Record<string, unknown>>[] = (
  ["timeline", "archive"] as const
).map((visibility) => ({
  ...visibilityBody(visibility),
  withDeleted: true,
  trashedAfter: TRASH_EPOCH,
}));

/** The search of hidden assets (live-photo motion parts), in the trash or not. */
export const HIDDEN_SEARCH: Readonly<Record<string, unknown>> = {
  ...visibilityBody("hidden"),
  withDeleted: true,
};

/**
 * A search answer that breaks Immich's paging contract, named with the page.
 *
 * @param problem What the server did.
 * @param page The page it did it on.
 * @returns The error to throw.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { pagingError } from "./search_pages.ts";
 *
 * assert.equal(
 *   pagingError("answered a page it had already sent", 2).message,
 *   "Cannot follow the search pages as the server answered a page it had already sent: " +
 *     "current page is 2",
 * );
 * ```
 */
export function pagingError(problem: string, page: number): PermanentError {
  return new PermanentError(
    `Cannot follow the search pages as the server ${problem}: current page is ${page}`,
    {
      method: "POST",
      path: "/search/metadata",
      status: 200,
      serverMessage: problem,
      attempt: 1,
    },
  );
}

/** Options of {@linkcode searchPages}. */
export interface SearchPagesOptions {
  /**
   * Ask for the next page before handing over this one, so that the server builds it while the
   * caller reads this one: for a caller that reads every page (a full pass's search; on a
   * 200 000-asset library the server's time per page is as long as the client's). A caller that
   * may stop early leaves it off, so that it asks for no page it does not read.
   * @default {false}
   */
  readonly ahead?: boolean;
}

/**
 * The answers of one search, page by page, checked against Immich's paging contract: a page
 * announces the next only when it is full, and the next is the following number. A server
 * that breaks it would otherwise be followed forever.
 *
 * @param http The user's transport.
 * @param body The search, without page and size.
 * @param options Whether to ask for each page before the last one is read.
 * @returns Each page's items.
 * @throws {PermanentError} When the server breaks the paging contract.
 */
export async function* searchPages(
  http: HttpClient,
  body: Readonly<Record<string, unknown>>,
  options: SearchPagesOptions = {},
): AsyncGenerator<readonly unknown[]> {
  const ask = (page: number): Promise<z.infer<typeof searchSchema>> =>
    http.request("POST", "/search/metadata", {
      body: { ...body, page, size: PAGE_SIZE },
      schema: searchSchema,
    });
  let asked: Promise<z.infer<typeof searchSchema>> | undefined = ask(1);
  try {
    for (let page = 1;; page++) {
      const { items, nextPage } = (await asked!).assets;
      asked = undefined;
      const last = nextPage === null || nextPage === undefined || nextPage === "";
      const check = () => {
        if (last) return;
        if (nextPage !== String(page + 1)) {
          throw pagingError(
            `answered nextPage ${JSON.stringify(nextPage)} after page ${page}`,
            page,
          );
        }
        if (items.length < PAGE_SIZE) {
          throw pagingError(
            `announced page ${page + 1} after a page of only ${items.length} assets`,
            page,
          );
        }
        if (page + 1 > MAX_SEARCH_PAGES) {
          throw pagingError(`kept announcing pages past ${MAX_SEARCH_PAGES}`, page + 1);
        }
      };
      if (options.ahead) {
        check();
        if (!last) asked = ask(page + 1);
      }
      yield items;
      if (last) return;
      if (!options.ahead) {
        check();
        asked = ask(page + 1);
      }
    }
  } finally {
    // A page asked for ahead that the caller no longer reads: its failure is nobody's.
    asked?.catch(() => {});
  }
}

/** Options of {@linkcode scan}. */
export interface ScanOptions {
  /** Only this user's own assets; anyone's (a partner's changes count too) without. */
  readonly userId?: string;
  /**
   * Stop reading pages once more than this many assets were found.
   * @default {Infinity}
   */
  readonly stopAfter?: number;
}

/**
 * The assets of one search, every page, each once, by id.
 *
 * @param http The user's transport.
 * @param body The search.
 * @param options Whose assets, and when to stop.
 * @returns The items by id.
 * @throws {PermanentError} When the server sends a page twice or breaks the paging contract.
 */
export async function scan(
  http: HttpClient,
  body: Readonly<Record<string, unknown>>,
  options: ScanOptions = {},
): Promise<Map<string, Record<string, unknown>>> {
  const { userId, stopAfter = Infinity } = options;
  const found = new Map<string, Record<string, unknown>>();
  let page = 0;
  for await (const items of searchPages(http, body)) {
    if (found.size > stopAfter) break;
    page++;
    let fresh = 0;
    let mine = 0;
    for (const item of items) {
      const record = asRecord(item);
      const id = searchItemId(record);
      if (id === undefined) continue;
      if (userId !== undefined && record.ownerId !== userId) continue;
      mine++;
      if (found.has(id)) continue;
      fresh++;
      found.set(id, record);
    }
    if (mine > 0 && fresh === 0) throw pagingError("answered a page it had already sent", page);
  }
  return found;
}

/**
 * The user's assets of one search that are in a stack: Immich names no stack in search
 * results, but leaves stacked assets out of the same search with `withStacked: false`.
 *
 * @param http The user's transport.
 * @param body The search.
 * @param options The user.
 * @returns The stacked items by id.
 */
export async function stackedIn(
  http: HttpClient,
  body: Readonly<Record<string, unknown>>,
  options: { readonly userId: string },
): Promise<Map<string, Record<string, unknown>>> {
  const found = await scan(http, body, options);
  for (const id of (await scan(http, { ...body, withStacked: false }, options)).keys()) {
    found.delete(id);
  }
  return found;
}
