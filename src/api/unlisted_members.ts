/**
 * The stack members `GET /stacks` leaves out, trashed and hidden, found so that no plan drops
 * one silently (docs/safety.md, "Finding trashed and hidden members").
 *
 * @module
 */
import type { Stack } from "../model.ts";
import { forEachBounded } from "./_bounded.ts";
import { timeMs } from "./_values.ts";
import { assetsOf } from "./assets.ts";
import { InvalidResponseError, isAccessDenied, PermanentError, TransientError } from "./errors.ts";
import { HIDDEN_SEARCH, stackedIn, TRASH_SEARCHES } from "./search_pages.ts";
import type { Session } from "./session.ts";
import { stacksOf } from "./stacks.ts";

/**
 * How many `GET /assets/{id}` lookups are in flight at once: 2 000 trashed members of stacks
 * take a quarter of the time they take one after the other, and the server sees no more
 * requests at once than a photo page of its web client sends.
 */
const LOOKUPS_IN_FLIGHT = 4;

/** A stack member that `GET /stacks` does not list: it is in the trash, or hidden. */
export interface UnlistedMember {
  readonly id: string;
  readonly originalFileName: string;
  readonly stackId: string;
  readonly trashed: boolean;
}

/**
 * What `GET /assets/{id}` said of a trashed or hidden asset in a stack, at the `updatedAt` the
 * search gave it: Immich moves an asset's `updatedAt` whenever its stack changes (docs/
 * incremental.md), so the answer holds as long as that does not move.
 */
export interface LookedUpStack {
  readonly id: string;
  readonly updatedAt: number;
  /** The stack Immich named; absent when it named none. */
  readonly stackId?: string;
}

/** What the lookups of a pass found, for the next pass to look up only what moved. */
export interface UnlistedLookups {
  readonly assets: readonly LookedUpStack[];
  /**
   * Every stack that could hold an asset Immich named no stack for (listed with nothing but its
   * primary and archived members) when the answers were given; undefined when not known for
   * every stack. An asset whose `updatedAt` stays is in the same stack, and Immich names it as
   * soon as that stack has a member besides its primary on the timeline: while each of these
   * stacks has none, the answers that named no stack hold too.
   */
  readonly unseenStackIds?: readonly string[];
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
  /**
   * Assets whose lookup failed (after its retries), so that any stack may hold one, and the
   * first error; absent when every lookup was answered.
   */
  readonly unknown?: { readonly count: number; readonly error: string };
  /** What to keep for the next search: the answers, and the stacks that may hide members. */
  readonly lookups: UnlistedLookups;
  /** How many `GET /assets/{id}` the search sent (the others' answers were known). */
  readonly lookedUp: number;
  /** With `cachedCovers`: the stacks read again as their cover in the cache is one no longer. */
  readonly refreshed: readonly Stack[];
}

/** Options of {@linkcode UnlistedMemberSearch.findUnlistedMembers}. */
export interface UnlistedSearchOptions {
  /**
   * Stacks known by their cover alone, unchanged since `known` was found (an incremental pass's
   * stacks outside its region): their covers are told from other assets, and those among
   * `known.unseenStackIds` still have no member besides their primary on the timeline.
   */
  readonly others?: readonly Stack[];
  /** What an earlier search found (the cache's): answers of assets that did not move hold. */
  readonly known?: UnlistedLookups;
  /**
   * The stacks come from a cache, whose covers may have been changed by hand since: a stack
   * whose cover is in the trash or hidden keeps it only when `GET /stacks?primaryAssetId=` says
   * it still is its cover, else it is read again (`refreshed`) and the asset looked up like any
   * member.
   */
  readonly cachedCovers?: boolean;
}

/** The search for unlisted stack members. */
export interface UnlistedMemberSearch {
  /**
   * Finds the stack members `GET /stacks` leaves out: assets in the trash and hidden assets
   * that are in a stack (a search of the trash and of hidden assets, with and without stacked
   * ones), each looked up with `GET /assets/{id}` unless it is a cover or `known` answers for
   * it. Lookups run a few at once; there is no bound on their number.
   * @param stacks The stacks `listStacks` returned (an incremental pass's: its region's).
   * @param options Stacks known by their cover, and what an earlier search found.
   */
  findUnlistedMembers(
    stacks: readonly Stack[],
    options?: UnlistedSearchOptions,
  ): Promise<UnlistedMembers>;
}

/** A stacked asset the searches found. */
interface Found {
  readonly name: string;
  readonly trashed: boolean;
  readonly updatedAt: number;
}

/**
 * Whether a stack may hold a trashed or hidden member Immich would not name: `GET /assets/{id}`
 * shows a member's stack only when the stack has a member besides its primary that is on the
 * timeline, so a stack listed with nothing but its primary and archived members may be one.
 */
function mayHideMembers(stack: Stack): boolean {
  const archived = new Set(stack.archivedAssetIds);
  return stack.assetIds.every((id) => id === stack.primaryAssetId || archived.has(id));
}

/** The stacks of a search: those listed in full, and those known by their cover alone. */
class Listing {
  readonly all: readonly Stack[];
  readonly byId: ReadonlyMap<string, Stack>;
  readonly others: ReadonlySet<string>;

  constructor(stacks: readonly Stack[], others: readonly Stack[]) {
    this.all = [...stacks, ...others];
    this.byId = new Map(this.all.map((stack) => [stack.id, stack]));
    this.others = new Set(others.map((stack) => stack.id));
  }

  /**
   * The known answers that still hold but for their asset's `updatedAt`, by asset: a stack
   * named, still listed and still with a member besides its primary on the timeline (else
   * Immich names it no more, and a search without the answers finds the stack may hide members);
   * and, while every stack that could hold one still has no such member, no stack named.
   */
  holding(known: UnlistedLookups | undefined): Map<string, LookedUpStack> {
    const held = new Map<string, LookedUpStack>();
    if (known === undefined) return held;
    const unseenHold = known.unseenStackIds?.every((id) => {
      const stack = this.byId.get(id);
      return stack === undefined || this.others.has(id) || mayHideMembers(stack);
    }) ?? false;
    const namedHolds = (id: string) => {
      const stack = this.byId.get(id);
      return stack !== undefined && (this.others.has(id) || !mayHideMembers(stack));
    };
    for (const answer of known.assets) {
      const holds = answer.stackId === undefined ? unseenHold : namedHolds(answer.stackId);
      if (holds) held.set(answer.id, answer);
    }
    return held;
  }

  /**
   * What to keep of some answers: the stacks that may hide members, when known for every stack
   * (those listed in full now, and the others, unchanged since `known`, as `known` had them),
   * and the answers, those naming no stack only with them.
   */
  lookups(answers: Iterable<LookedUpStack>, known: UnlistedLookups | undefined): UnlistedLookups {
    const listed = this.all.filter((stack) => !this.others.has(stack.id) && mayHideMembers(stack))
      .map((stack) => stack.id);
    const unseenStackIds = this.others.size === 0
      ? listed
      : known?.unseenStackIds === undefined
      ? undefined
      : [...listed, ...known.unseenStackIds.filter((id) => this.others.has(id))];
    return {
      assets: [...answers].filter((answer) =>
        answer.updatedAt >= 0 && (answer.stackId !== undefined || unseenStackIds !== undefined)
      ),
      ...unseenStackIds === undefined ? {} : { unseenStackIds },
    };
  }
}

/**
 * What a pass that looks nothing up keeps of the last lookups for the next one: the answers
 * that still hold but for their asset's `updatedAt` (the next search checks that), and the
 * stacks that may hide members as they are now.
 *
 * @param known What the last pass looked up.
 * @param stacks The stacks listed in full now (an incremental pass's: its region's).
 * @param others The stacks known by their cover alone, unchanged since `known`.
 * @returns What to keep.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { keptLookups } from "./unlisted_members.ts";
 *
 * const known = {
 *   assets: [{ id: "t", updatedAt: 1, stackId: "s" }, { id: "u", updatedAt: 1 }],
 *   unseenStackIds: ["lone"],
 * };
 * // The stack that could hold u has a member besides its cover on the timeline now.
 * const stacks = [
 *   { id: "s", primaryAssetId: "a", assetIds: ["a", "b"] },
 *   { id: "lone", primaryAssetId: "c", assetIds: ["c", "d"] },
 * ];
 * assert.deepEqual(keptLookups(known, stacks, []), {
 *   assets: [{ id: "t", updatedAt: 1, stackId: "s" }],
 *   unseenStackIds: [],
 * });
 * ```
 */
export function keptLookups(
  known: UnlistedLookups,
  stacks: readonly Stack[],
  others: readonly Stack[],
): UnlistedLookups {
  const listing = new Listing(stacks, others);
  return listing.lookups(listing.holding(known).values(), known);
}

/** What {@linkcode lookUp} could not learn, and how many it asked. */
interface LookupOutcome {
  /** The members whose lookup failed or was not tried after a failure. */
  readonly unknown: readonly string[];
  /** The first failure's message. */
  readonly failure: string | undefined;
  /** The lookups sent. */
  readonly lookedUp: number;
}

/**
 * Asks `GET /assets/{id}` for the stack of each pending member, {@linkcode LOOKUPS_IN_FLIGHT} at
 * a time, into `into.answers`. After a failure the server is likely failing them all: the rest
 * are left unknown without waiting for retries.
 */
async function lookUp(
  pending: readonly string[],
  into: {
    readonly unlisted: ReadonlyMap<string, Found>;
    readonly answers: Map<string, LookedUpStack>;
    readonly assetStack: (id: string) => Promise<{ readonly stackId?: string } | undefined>;
  },
): Promise<LookupOutcome> {
  const unknown: string[] = [];
  let failure: string | undefined;
  let lookedUp = 0;
  await forEachBounded(pending, LOOKUPS_IN_FLIGHT, async (id) => {
    if (failure !== undefined) {
      unknown.push(id);
      return;
    }
    lookedUp++;
    try {
      const named = await into.assetStack(id);
      // Gone meanwhile (deleted for good): in no stack.
      if (named === undefined) return;
      const { updatedAt } = into.unlisted.get(id)!;
      const { stackId } = named;
      into.answers.set(id, { id, updatedAt, ...stackId === undefined ? {} : { stackId } });
    } catch (error) {
      if (!lookupFailed(error)) throw error;
      failure ??= (error as Error).message;
      unknown.push(id);
    }
  });
  return { unknown, failure, lookedUp };
}

/**
 * The unlisted-members part of the client.
 *
 * @param session The user's session.
 * @returns {@linkcode UnlistedMemberSearch.findUnlistedMembers}.
 */
export function unlistedMemberSearchOf(session: Session): UnlistedMemberSearch {
  const { http } = session;
  const assets = assetsOf(session);
  const stackReads = stacksOf(session);
  /**
   * The stacks of a cache whose cover, in the trash or hidden now, is one no longer (a cover
   * chosen by hand since: `GET /stacks?primaryAssetId=` finds none), read again.
   */
  const staleCovers = async (
    stacks: readonly Stack[],
    unlisted: ReadonlyMap<string, unknown>,
  ): Promise<Stack[]> => {
    const refreshed: Stack[] = [];
    for (const stack of stacks) {
      if (!unlisted.has(stack.primaryAssetId)) continue;
      if ((await stackReads.stackWithPrimary(stack.primaryAssetId))?.id === stack.id) continue;
      const fresh = await stackReads.getStack(stack.id);
      if (fresh !== undefined) refreshed.push(fresh);
    }
    return refreshed;
  };
  return {
    async findUnlistedMembers(cached, options = {}) {
      const { id: userId } = await session.me();
      const unlisted = new Map<string, Found>();
      for (const body of [...TRASH_SEARCHES, HIDDEN_SEARCH]) {
        for (const [id, record] of await stackedIn(http, body, { userId })) {
          const name = typeof record.originalFileName === "string" ? record.originalFileName : id;
          unlisted.set(id, {
            name,
            trashed: record.isTrashed === true,
            updatedAt: timeMs(record.updatedAt),
          });
        }
      }
      const refreshed = options.cachedCovers ? await staleCovers(cached, unlisted) : [];
      const stacks = refreshed.length === 0
        ? cached
        : cached.map((stack) => refreshed.find((fresh) => fresh.id === stack.id) ?? stack);
      const listing = new Listing(stacks, options.others ?? []);
      const byPrimary = new Map(listing.all.map((stack) => [stack.primaryAssetId, stack.id]));
      const held = listing.holding(options.known);
      const answers = new Map<string, LookedUpStack>();
      const pending: string[] = [];
      for (const [id, { updatedAt }] of unlisted) {
        if (byPrimary.has(id)) continue;
        const answer = held.get(id);
        if (answer !== undefined && answer.updatedAt === updatedAt) answers.set(id, answer);
        else pending.push(id);
      }
      const { unknown, failure, lookedUp } = await lookUp(pending, {
        unlisted,
        answers,
        assetStack: (id) => assets.assetStack(id),
      });
      const members: UnlistedMember[] = [];
      let unnamed = 0;
      for (const [id, { name, trashed }] of unlisted) {
        const stackId = byPrimary.get(id) ?? answers.get(id)?.stackId;
        if (stackId !== undefined) {
          // A stack made after GET /stacks is not in the plan: nothing acts on it.
          if (listing.byId.has(stackId)) {
            members.push({ id, originalFileName: name, stackId, trashed });
          }
        } else if (answers.has(id)) unnamed++;
      }
      return {
        members,
        unseenStackIds: unnamed === 0
          ? []
          : listing.all.filter(mayHideMembers).map((stack) => stack.id),
        ...failure === undefined ? {} : { unknown: { count: unknown.length, error: failure } },
        lookups: listing.lookups(answers.values(), options.known),
        lookedUp,
        refreshed,
      };
    },
  };
}

/**
 * Whether a lookup's error leaves only that asset's stack unknown: the server failed it after
 * its retries, or refused it for another reason than the key. A refused key, an answer of the
 * wrong shape and the shutdown signal end the user's pass as any read does.
 */
function lookupFailed(error: unknown): boolean {
  if (isAccessDenied(error) || error instanceof InvalidResponseError) return false;
  return error instanceof TransientError || error instanceof PermanentError;
}
