/**
 * The stack members `GET /stacks` leaves out, trashed and hidden, found so that no plan drops
 * one silently (docs/safety.md, "Immich's rules the promises are shaped by").
 *
 * @module
 */
import type { Stack } from "../model.ts";
import { assetStackSchema } from "./assets.ts";
import { PermanentError } from "./errors.ts";
import { HIDDEN_SEARCH, stackedIn, TRASH_SEARCHES } from "./search_pages.ts";
import type { Session } from "./session.ts";

/**
 * The most `GET /assets/{id}` lookups a pass makes to find the stacks of trashed and hidden
 * assets that are in a stack (the trash empties itself after 30 days by default, and hidden
 * live-photo parts are almost never stacked).
 */
const MAX_UNLISTED_LOOKUPS = 1000;

/** A stack member that `GET /stacks` does not list: it is in the trash, or hidden. */
export interface UnlistedMember {
  readonly id: string;
  readonly originalFileName: string;
  readonly stackId: string;
  readonly trashed: boolean;
}

/** What {@linkcode UnlistedMemberSearch.findUnlistedMembers} found. */
export interface UnlistedMembers {
  /** Trashed and hidden members, each with the stack Immich names for it. */
  readonly members: readonly UnlistedMember[];
  /**
   * Stacks that may hold a trashed or hidden member Immich would not name: `GET /assets/{id}`
   * names the stack only when it has a member besides its primary on the timeline.
   */
  readonly unseenStackIds: readonly string[];
}

/** The search for unlisted stack members. */
export interface UnlistedMemberSearch {
  /**
   * Finds the stack members `GET /stacks` leaves out: assets in the trash and hidden assets
   * that are in a stack (a search of the trash and of hidden assets, with and without stacked
   * ones), each looked up with `GET /assets/{id}`.
   * @param stacks The stacks `listStacks` returned.
   * @throws {PermanentError} When more than {@linkcode MAX_UNLISTED_LOOKUPS} need a lookup.
   */
  findUnlistedMembers(stacks: readonly Stack[]): Promise<UnlistedMembers>;
}

/**
 * The stacks that may hold a trashed or hidden member Immich would not name: `GET /assets/{id}`
 * shows a member's stack only when the stack has a member besides its primary that is on the
 * timeline, so a stack listed with nothing but its primary and archived members may be one.
 */
function mayHideMembers(stacks: readonly Stack[]): string[] {
  return stacks.filter((stack) => {
    const archived = new Set(stack.archivedAssetIds);
    return stack.assetIds.every((id) => id === stack.primaryAssetId || archived.has(id));
  }).map((stack) => stack.id);
}

/**
 * The unlisted-members part of the client.
 *
 * @param session The user's session.
 * @returns {@linkcode UnlistedMemberSearch.findUnlistedMembers}.
 */
export function unlistedMemberSearchOf(session: Session): UnlistedMemberSearch {
  const { http } = session;
  return {
    async findUnlistedMembers(stacks) {
      const { id: userId } = await session.me();
      const unlisted = new Map<string, { name: string; trashed: boolean }>();
      for (const body of [...TRASH_SEARCHES, HIDDEN_SEARCH]) {
        for (const [id, record] of await stackedIn(http, body, { userId })) {
          const name = typeof record.originalFileName === "string" ? record.originalFileName : id;
          unlisted.set(id, { name, trashed: record.isTrashed === true });
        }
      }
      const byPrimary = new Map(stacks.map((stack) => [stack.primaryAssetId, stack.id]));
      const lookups = [...unlisted.keys()].filter((id) => !byPrimary.has(id));
      if (lookups.length > MAX_UNLISTED_LOOKUPS) {
        throw new PermanentError(
          `Cannot find the stacks of ${lookups.length} trashed or hidden assets that are in ` +
            `stacks, more than ${MAX_UNLISTED_LOOKUPS}: empty the trash or restore them`,
          {
            method: "GET",
            path: "/assets/{id}",
            status: 200,
            serverMessage: `${lookups.length} lookups`,
            attempt: 1,
          },
        );
      }
      const known = new Set(stacks.map((stack) => stack.id));
      const members: UnlistedMember[] = [];
      let unnamed = 0;
      for (const [id, { name, trashed }] of unlisted) {
        const stackId = byPrimary.get(id) ??
          (await http.request("GET", `/assets/${encodeURIComponent(id)}`, {
            schema: assetStackSchema,
          })).stack?.id;
        if (stackId === undefined) unnamed++;
        // A stack made after GET /stacks is not in the plan: nothing acts on it.
        else if (known.has(stackId)) members.push({ id, originalFileName: name, stackId, trashed });
      }
      return { members, unseenStackIds: unnamed === 0 ? [] : mayHideMembers(stacks) };
    },
  };
}
