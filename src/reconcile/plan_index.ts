/**
 * What planning (src/reconcile/plan.ts) looks stacks and their members up in: the stacks by
 * member, what is known of each member beyond its id, the file names shown in messages, and
 * what a pass prepares for them from its reading. Built for 200 000 assets in 50 000 stacks:
 * one map from every member to its stack, and nothing allocated per stack that the plan does
 * not touch.
 *
 * @module
 */
import type {
  Asset,
  AssetLabel,
  GroundStack,
  PreviousStack,
  RemovedAsset,
  Stack,
} from "../model.ts";
import type { PlanGroup, PlanOptions } from "./plan.ts";

const NONE: ReadonlySet<string> = new Set();

/** Above this many members a stack's repeats are found through a set, below by a scan. */
const SCANNED_MEMBERS = 32;

/**
 * The distinct members of a stack, primary first, its primary included even if the listing
 * left it out (a trashed primary).
 *
 * @param stack A stack as read.
 * @returns Its member ids, each once, in the order first listed.
 *
 * @example A listing that repeats its primary
 * ```ts
 * import assert from "node:assert/strict";
 * import { membersOf } from "./plan_index.ts";
 *
 * assert.deepEqual(membersOf({ id: "s", primaryAssetId: "b", assetIds: ["a", "b", "a"] }), [
 *   "b",
 *   "a",
 * ]);
 * ```
 */
export function membersOf(stack: Stack): string[] {
  const { primaryAssetId, assetIds } = stack;
  if (assetIds.length > SCANNED_MEMBERS) return [...new Set([primaryAssetId, ...assetIds])];
  const members = [primaryAssetId];
  for (const id of assetIds) if (!members.includes(id)) members.push(id);
  return members;
}

/**
 * A stack as an action that changes it is planned on: its cover and every member.
 *
 * @param stack A stack as read.
 * @returns Its id, cover and distinct members.
 */
export function groundOf(stack: Stack): GroundStack {
  return { id: stack.id, primaryAssetId: stack.primaryAssetId, assetIds: membersOf(stack) };
}

/**
 * The stack members a pass fetched, with their file names (for messages about stacks no group
 * holds), and those it did not fetch: grouping never judged these, so the plan keeps them in
 * their stacks.
 *
 * @param stacks The user's stacks as read.
 * @param assets The assets the pass fetched.
 * @returns File names of the fetched members by id, and the ids of the others.
 *
 * @example A video the search left out
 * ```ts
 * import assert from "node:assert/strict";
 * import { stackMembers } from "./plan_index.ts";
 * import type { Asset } from "../model.ts";
 *
 * const photo = { id: "a", originalFileName: "IMG_1.JPG", localDateTime: "" } as Asset;
 * const stack = { id: "s", primaryAssetId: "a", assetIds: ["a", "clip"] };
 * const { fileNames, notFetched } = stackMembers([stack], [photo]);
 * assert.deepEqual([...fileNames], [["a", "IMG_1.JPG"]]);
 * assert.deepEqual([...notFetched], ["clip"]);
 * ```
 */
export function stackMembers(stacks: readonly Stack[], assets: readonly Asset[]) {
  const notFetched = new Set<string>();
  for (const stack of stacks) {
    notFetched.add(stack.primaryAssetId);
    for (const id of stack.assetIds) notFetched.add(id);
  }
  const fetched: Asset[] = [];
  for (const asset of assets) if (notFetched.delete(asset.id)) fetched.push(asset);
  return { fileNames: new MemberNames(fetched), notFetched };
}

/**
 * File names of fetched stack members by id, a map made when first used: a pass that writes
 * nothing asks for a few names at most, and at 200 000 assets the map would hold 160 000.
 * Every method makes it first, so it is a map like any other.
 */
class MemberNames extends Map<string, string> {
  #pending: readonly Asset[] | undefined;

  constructor(members: readonly Asset[]) {
    super();
    this.#pending = members;
  }

  #made(): void {
    const pending = this.#pending;
    if (pending === undefined) return;
    this.#pending = undefined;
    for (const asset of pending) super.set(asset.id, asset.originalFileName);
  }

  override get size(): number {
    this.#made();
    return super.size;
  }

  override get(id: string): string | undefined {
    this.#made();
    return super.get(id);
  }

  override has(id: string): boolean {
    this.#made();
    return super.has(id);
  }

  override set(id: string, name: string): this {
    this.#made();
    return super.set(id, name);
  }

  override delete(id: string): boolean {
    this.#made();
    return super.delete(id);
  }

  override clear(): void {
    this.#pending = undefined;
    super.clear();
  }

  override forEach(
    callback: (name: string, id: string, map: Map<string, string>) => void,
    thisArg?: unknown,
  ): void {
    this.#made();
    super.forEach(callback, thisArg);
  }

  override entries(): MapIterator<[string, string]> {
    this.#made();
    return super.entries();
  }

  override keys(): MapIterator<string> {
    this.#made();
    return super.keys();
  }

  override values(): MapIterator<string> {
    this.#made();
    return super.values();
  }

  override [Symbol.iterator](): MapIterator<[string, string]> {
    this.#made();
    return super[Symbol.iterator]();
  }
}

/** A stack in the index. */
export interface Indexed {
  readonly stack: Stack;
  /** Members grouping judged, counted when first needed. */
  fetched?: number;
}

/** What the plan knows about stack members beyond their ids. */
export class Membership {
  readonly trashed: ReadonlySet<string>;
  readonly notFetched: ReadonlySet<string>;
  readonly unseen: ReadonlySet<string>;

  constructor(options: PlanOptions) {
    this.trashed = options.trashed ?? NONE;
    this.notFetched = options.notFetched ?? NONE;
    this.unseen = options.unseenMembers ?? NONE;
  }

  /** A member grouping never judged: not fetched, or in the trash. */
  isKept(assetId: string): boolean {
    return this.notFetched.has(assetId) || this.trashed.has(assetId);
  }

  /** The number of the stack's members that grouping judged. */
  fetchedCount(entry: Indexed): number {
    if (entry.fetched === undefined) {
      let fetched = 0;
      for (const id of membersOf(entry.stack)) if (!this.isKept(id)) fetched++;
      entry.fetched = fetched;
    }
    return entry.fetched;
  }

  /** Whether Immich's merge (a grow) could drop a member: one in the trash, or one unseen. */
  mayLoseOnMerge(entry: Indexed): boolean {
    return this.unseen.has(entry.stack.id) ||
      membersOf(entry.stack).some((id) => this.trashed.has(id));
  }

  /** Exactly one member, counting those Immich hides, and none it may hide unseen. */
  isSingle(stack: Stack): boolean {
    return membersOf(stack).length === 1 && !this.unseen.has(stack.id);
  }

  previous(stack: Stack): PreviousStack {
    const ground = groundOf(stack);
    return { ...ground, trashedAssetIds: ground.assetIds.filter((id) => this.trashed.has(id)) };
  }

  whyRemoved(assetId: string, labels: Labels): RemovedAsset["reason"] {
    if (this.trashed.has(assetId)) return "in-trash";
    if (this.notFetched.has(assetId)) return "not-fetched";
    return labels.isGrouped(assetId) ? "in-other-group" : "in-no-group";
  }
}

/** Stacks by member, every member included (not only primaries). */
export class StackIndex {
  // Keyed by asset id strings only: 50 000 stacks are indexed on every pass, and keying maps
  // by object identity is markedly slower in V8.
  readonly #entryOf = new Map<string, Indexed>();
  readonly #stacks: readonly Stack[];

  constructor(stacks: readonly Stack[]) {
    this.#stacks = stacks;
    // Immich keeps an asset in one stack; should a listing ever repeat one, the first stack
    // wins (the other then has a member outside every group: it is left alone). Set from the
    // last stack to the first, so that the first is set last: one map operation per member.
    for (let s = stacks.length - 1; s >= 0; s--) {
      const stack = stacks[s];
      const entry: Indexed = { stack };
      const { assetIds } = stack;
      for (let m = assetIds.length - 1; m >= 0; m--) this.#entryOf.set(assetIds[m], entry);
      this.#entryOf.set(stack.primaryAssetId, entry);
    }
  }

  entryOf(assetId: string): Indexed | undefined {
    return this.#entryOf.get(assetId);
  }

  /**
   * The indexed stacks not in `touched` that hold an asset of `assets` (`"all"`: any stack), in
   * the order given to the index.
   */
  untouched(touched: ReadonlySet<Indexed>, assets: ReadonlySet<string> | "all"): Stack[] {
    const found = new Set<Stack>();
    for (const [assetId, entry] of this.#entryOf) {
      if (touched.has(entry) || found.has(entry.stack)) continue;
      if (assets === "all" || assets.has(assetId)) found.add(entry.stack);
    }
    return this.#stacks.filter((stack) => found.has(stack));
  }

  /** The distinct stacks holding any of the assets, in the order first met. */
  touchedBy(assets: readonly AssetLabel[]): Stack[] {
    const touched = new Map<string, Stack>();
    for (const asset of assets) {
      const stack = this.#entryOf.get(asset.id)?.stack;
      if (stack !== undefined) touched.set(stack.id, stack);
    }
    return [...touched.values()];
  }
}

/** File names for display of the `wanted` assets, found in one scan of the groups. */
export class Labels {
  readonly #grouped = new Map<string, AssetLabel>();
  readonly #fileNames: ReadonlyMap<string, string>;

  constructor(
    groups: readonly PlanGroup[],
    wanted: ReadonlySet<string>,
    fileNames: ReadonlyMap<string, string> = new Map(),
  ) {
    this.#fileNames = fileNames;
    if (wanted.size === 0) return;
    for (const group of groups) {
      for (const asset of group.assets) {
        if (wanted.has(asset.id)) this.#grouped.set(asset.id, asset);
      }
    }
  }

  /** Whether a wanted asset belongs to some group. */
  isGrouped(assetId: string): boolean {
    return this.#grouped.has(assetId);
  }

  /** A wanted asset's label: its group's, else the caller's file name, else the id. */
  of(assetId: string): AssetLabel {
    return this.#grouped.get(assetId) ??
      { id: assetId, originalFileName: this.#fileNames.get(assetId) ?? assetId };
  }
}
