/**
 * Where a pass tells its progress (`show.ts`): the search of a user's library, page by page,
 * against the count `POST /search/statistics` gave when the pass asked for one; and the steps of
 * applying a plan, one for each `afterAction` call of `applyPlan` and `applyTrash`
 * (docs/architecture.md, "Progress").
 *
 * @module
 */
import type { AssetPage, AssetSearch } from "../api/search.ts";
import type { Plan, TrashPlan } from "../model.ts";
import type { Progress } from "./show.ts";

/** Options of {@linkcode watchSearch}. */
export interface WatchSearchOptions {
  readonly progress: Progress;
  /** The user whose library it is. */
  readonly user: string;
}

/** The items of a page the statistics count too: the user's, invalid ones and a partner's. */
function itemsOf(page: AssetPage): number {
  return page.assets.length + page.invalid.length + page.repeats.length + page.others.length;
}

/**
 * The search, telling each page it reads as a stage of reading that ends with the search. The
 * total is the last count of the same filter's assets, when the reader asked for one before it
 * searched: a pass asks only when it keeps a cache, and no request is added for the progress.
 *
 * @param search The search (the Immich client, or its search part).
 * @param options Where progress goes, and whose library it is.
 * @returns The same search, watched.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import type { AssetSearch } from "../api/search.ts";
 * import { watchSearch } from "./hooks.ts";
 *
 * const page = { assets: [], invalid: [], trashedIds: [], search: 0, updatedAt: [], repeats: ["a"], others: [] };
 * const search: AssetSearch = {
 *   async *searchAssets() { yield page; },
 *   countAssets: () => Promise.resolve([7]),
 * };
 * const told: string[] = [];
 * const progress = {
 *   start: (kind: string, user: string, total?: number) => told.push(`${kind} ${user} ${total}`),
 *   advance: (done: number, pages?: number) => told.push(`${done} ${pages}`),
 *   end: () => told.push("end"),
 * };
 * const watched = watchSearch(search, { progress, user: "Ann" });
 * const filter = { withArchived: false, withDeleted: false, includeVideos: false };
 * await watched.countAssets(filter);
 * for await (const _ of watched.searchAssets(filter));
 * assert.deepEqual(told, ["reading Ann 7", "1 1", "end"]);
 * ```
 */
export function watchSearch<S extends AssetSearch>(search: S, options: WatchSearchOptions): S {
  const { progress, user } = options;
  let total: number | undefined;
  return {
    ...search,
    async countAssets(filter, updated) {
      const counts = await search.countAssets(filter, updated);
      // A count of recent changes is no size of the library.
      if (updated === undefined) total = counts?.reduce((sum, count) => sum + count, 0);
      return counts;
    },
    async *searchAssets(filter) {
      progress.start("reading", user, total);
      try {
        for await (const page of search.searchAssets(filter)) {
          progress.advance(itemsOf(page), 1);
          yield page;
        }
      } finally {
        progress.end();
      }
    },
  };
}

/** Options of {@linkcode startApplying}. */
export interface StartApplyingOptions {
  readonly user: string;
  readonly plan: Plan;
  /** Moves to or from the trash applied after the plan. */
  readonly trash?: TrashPlan;
  readonly dryRun: boolean;
}

/**
 * How many times applying a plan calls `afterAction` when every action is carried out: once an
 * action, twice a replace in a real run (after its deletions, after its new stack), once a move
 * to or from the trash.
 *
 * @param plan The plan.
 * @param options The trash plan, and whether it is a dry run.
 * @returns The steps.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { stepsOf } from "./hooks.ts";
 *
 * const replace = { kind: "replace" } as never;
 * const create = { kind: "create" } as never;
 * const plan = { actions: [replace, create], inSync: [], needsReplace: [] };
 * assert.equal(stepsOf(plan, { dryRun: false }), 3);
 * assert.equal(stepsOf(plan, { dryRun: true }), 2);
 * ```
 */
export function stepsOf(
  plan: Plan,
  options: Pick<StartApplyingOptions, "trash" | "dryRun">,
): number {
  const replaces = options.dryRun
    ? 0
    : plan.actions.filter((action) => action.kind === "replace").length;
  return plan.actions.length + replaces + (options.trash?.actions.length ?? 0);
}

/**
 * Starts the stage of applying a plan, when it has steps; each `afterAction` then advances it.
 *
 * @param progress Where progress goes.
 * @param options The user, the plans, and whether it is a dry run.
 */
export function startApplying(progress: Progress, options: StartApplyingOptions): void {
  const steps = stepsOf(options.plan, options);
  if (steps === 0) return;
  progress.start(options.dryRun ? "dry-run" : "applying", options.user, steps);
}
