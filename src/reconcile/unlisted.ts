/**
 * Planning with the stack members `GET /stacks` leaves out, trashed and hidden ones: looked up
 * when a plan deletes, grows or replaces stacks (only such a plan changes when they are known),
 * added to their stacks, and the plan made again, so that no write drops one silently
 * (docs/safety.md, "Finding trashed and hidden members"). A run, undo and restore plan so.
 *
 * @module
 */
import type { Logger } from "@logtape/logtape";
import {
  keptLookups,
  type UnlistedLookups,
  type UnlistedMember,
  type UnlistedMemberSearch,
} from "../api/unlisted_members.ts";
import type { Plan, Stack } from "../model.ts";
import { actsOnStackMembers, type PlanOptions } from "./plan.ts";
import { literal } from "../log.ts";
import { nameList, plural } from "./render.ts";

/** How many stacks the line about stacks left alone names before it says how many more. */
const MAX_NAMED = 10;

/** What the plan knows of stack members, filled in with those found. */
export interface MemberSets {
  /** File names, for messages. */
  readonly fileNames: Map<string, string>;
  /** Members grouping never judged: a hidden one found joins them. */
  readonly notFetched: Set<string>;
  /** Members in the trash: a trashed one found joins them. */
  readonly trashed: Set<string>;
}

/** What {@linkcode planWithUnlisted} plans from. */
export interface UnlistedPlanning {
  /** The stacks as `GET /stacks` listed them (an incremental pass's: its region's). */
  readonly stacks: readonly Stack[];
  /** The member sets of the plan, filled in with the members found. */
  readonly sets: MemberSets;
  /**
   * Plans again.
   *
   * @param stacks The stacks with the members found.
   * @param options The plan options that name the stacks that may hide members.
   */
  readonly plan: (stacks: readonly Stack[], options: Partial<PlanOptions>) => Plan;
  /** The user's logger. */
  readonly log: Logger;
  /**
   * Stacks the pass does not plan (an incremental pass's rest), by their cover: a cover of one
   * of them is known as such, and its members are not looked up. Asked for only when needed.
   */
  readonly others?: () => readonly Stack[];
  /**
   * What the last pass looked up (the cache's), read when first asked for: the answers of
   * assets that did not move hold.
   */
  readonly known?: () => Promise<UnlistedLookups | undefined>;
}

/** The plan made with the members `GET /stacks` leaves out. */
export interface PlannedWithUnlisted {
  readonly plan: Plan;
  /** The stacks planned, with the members found; the same array when none was found. */
  readonly stacks: readonly Stack[];
  /**
   * Stacks whose plan used what was found (members, stacks that may hide one): that can change
   * with no listed member changing, so an incremental pass that reads changes plans them again.
   */
  readonly volatile: ReadonlySet<string>;
  /**
   * For the cache: what the lookups found, or what still holds of the last ones; undefined when
   * nothing is known.
   */
  readonly lookups?: UnlistedLookups;
  /** Stacks that may hold a member Immich does not name; absent when nothing was looked up. */
  readonly unseenMembers?: ReadonlySet<string>;
}

/**
 * When a plan deletes, grows or replaces stacks: finds the members `GET /stacks` leaves out of
 * the planned stacks, adds them, and plans again. Any other plan is the same with them known,
 * so a pass with nothing to change sends no request for them.
 *
 * @param client The user's client.
 * @param first The plan made without them.
 * @param planning The stacks, the member sets, how to plan again, and what is known.
 * @returns The plan, the stacks it was made from, and what the lookups found.
 */
export async function planWithUnlisted(
  client: UnlistedMemberSearch,
  first: Plan,
  planning: UnlistedPlanning,
): Promise<PlannedWithUnlisted> {
  const { stacks, sets, log } = planning;
  const known = await planning.known?.();
  const others = known !== undefined || actsOnStackMembers(first) ? planning.others?.() ?? [] : [];
  if (!actsOnStackMembers(first)) {
    return {
      plan: first,
      stacks,
      volatile: new Set(),
      ...known === undefined ? {} : { lookups: keptLookups(known, stacks, others) },
    };
  }
  // An incremental pass's stacks come from its cache, whose covers a hand may have changed
  // since: a stack whose cover is in the trash or hidden now and is its cover no longer is read
  // again and planned as read (`cachedCovers`), as a full pass knows it.
  const found = await client.findUnlistedMembers(stacks, {
    others,
    ...known === undefined ? {} : { known },
    cachedCovers: planning.others !== undefined,
  });
  // Only the planned stacks matter: the others are known only to tell covers from other assets.
  const planned = new Set(stacks.map((stack) => stack.id));
  const members = found.members.filter((member) => planned.has(member.stackId));
  // An asset whose lookup failed may be in any stack.
  const unseen = new Set(
    found.unknown === undefined ? found.unseenStackIds.filter((id) => planned.has(id)) : planned,
  );
  const refreshed = new Map(
    found.refreshed.filter((stack) => planned.has(stack.id)).map((stack) => [stack.id, stack]),
  );
  log.debug("Found {count} trashed or hidden stack members", {
    count: members.length,
    unseenStacks: unseen.size,
    lookedUp: found.lookedUp,
    readAgain: refreshed.size,
  });
  const nothing = { plan: first, stacks, volatile: new Set<string>(), lookups: found.lookups };
  if (members.length === 0 && unseen.size === 0 && refreshed.size === 0) return nothing;
  const { withMembers, extra } = addMembers(stacks, members, refreshed, sets);
  const plan = planning.plan(withMembers, { unseenMembers: unseen });
  logLeftUnseen({ first, plan, unseen, withMembers: new Set(extra.keys()) }, found.unknown, log);
  return {
    plan,
    stacks: withMembers,
    volatile: new Set([...unseen, ...extra.keys(), ...refreshed.keys()]),
    lookups: found.lookups,
    unseenMembers: unseen,
  };
}

/**
 * The stacks with the members found added, each stack read again in place of its cached self,
 * and those members marked in the sets.
 */
function addMembers(
  stacks: readonly Stack[],
  members: readonly UnlistedMember[],
  refreshed: ReadonlyMap<string, Stack>,
  sets: MemberSets,
): { withMembers: Stack[]; extra: Map<string, string[]> } {
  const extra = new Map<string, string[]>();
  for (const member of members) {
    extra.set(member.stackId, [...extra.get(member.stackId) ?? [], member.id]);
    sets.fileNames.set(member.id, member.originalFileName);
    if (member.trashed) sets.trashed.add(member.id);
    else sets.notFetched.add(member.id);
  }
  const withMembers = stacks.map((listed) => {
    // A stack whose cover in the cache was one no longer is planned as read again.
    const stack = refreshed.get(listed.id) ?? listed;
    const more = extra.get(stack.id);
    return more === undefined ? stack : { ...stack, assetIds: [...stack.assetIds, ...more] };
  });
  return { withMembers, extra };
}

/**
 * Every stack with the members `GET /stacks` leaves out (trashed, hidden) added and marked in
 * the sets, whatever a plan would do: a backup records every member Immich holds for a stack.
 *
 * @param client The user's client.
 * @param stacks The stacks as `GET /stacks` listed them.
 * @param sets The member sets, filled in with the members found.
 * @param log The user's logger.
 * @returns The stacks with those members.
 */
export async function withUnlisted(
  client: UnlistedMemberSearch,
  stacks: readonly Stack[],
  sets: MemberSets,
  log: Logger,
): Promise<Stack[]> {
  const found = await client.findUnlistedMembers(stacks);
  if (found.unknown !== undefined) {
    throw new Error(
      `Cannot look up the stack of ${plural(found.unknown.count, "trashed or hidden asset")}: ` +
        found.unknown.error,
    );
  }
  log.debug("Found {count} trashed or hidden stack members", { count: found.members.length });
  return addMembers(stacks, found.members, new Map(), sets).withMembers;
}

/** The stacks a plan grows or deletes: what a member Immich does not name can stop. */
function grownOrDeleted(plan: Plan): Set<string> {
  const ids = new Set<string>();
  for (const action of plan.actions) {
    if (action.kind === "grow" || action.kind === "delete") ids.add(action.stackId);
  }
  return ids;
}

/**
 * Names in one line the stacks left as they are only because they may hold a member Immich does
 * not name (or whose lookup failed): the plan would grow or delete them otherwise. A stack with
 * a member found is named as a conflict of its own.
 */
function logLeftUnseen(
  plans: {
    readonly first: Plan;
    readonly plan: Plan;
    readonly unseen: ReadonlySet<string>;
    readonly withMembers: ReadonlySet<string>;
  },
  unknown: { readonly count: number; readonly error: string } | undefined,
  log: Logger,
): void {
  if (plans.unseen.size === 0) return;
  const acting = grownOrDeleted(plans.plan);
  const left = [...grownOrDeleted(plans.first)].filter((id) =>
    plans.unseen.has(id) && !plans.withMembers.has(id) && !acting.has(id)
  );
  const stacks = nameList(left.map((id) => ({ id, originalFileName: id })), MAX_NAMED);
  const properties = { left: left.length, stackIds: left, count: unknown?.count };
  const leftLine = left.length === 0
    ? "no stack that could hold one is grown or deleted"
    : `stacks left as they are because they could hold one: ${stacks}`;
  if (unknown !== undefined) {
    log.warn(
      literal(
        `Cannot look up the stack of ${plural(unknown.count, "trashed or hidden asset")}: ` +
          `${unknown.error}; ${leftLine}`,
      ),
      properties,
    );
  } else if (left.length > 0) {
    log.info(
      literal(`Immich does not name the stack of some trashed or hidden assets; ${leftLine}`),
      properties,
    );
  } else {
    log.debug(
      "Immich does not name the stack of some trashed or hidden assets: {count} stacks that " +
        "could hold them are neither grown nor counted as holding one asset",
      { count: plans.unseen.size },
    );
  }
}
