/**
 * A pure in-memory model of Immich v3.1 stack semantics, one store per user.
 *
 * The Immich test server keeps its stacks here, and the reconcile property test applies plans
 * to it, so both see the behaviour recorded in `immich-fixtures` 021–060:
 *
 * - `POST /stacks` always makes a new stack whose primary is the first listed id. A listed
 *   asset that is the primary of an existing stack pulls that whole stack in, and the old
 *   stack is deleted (030, 031). A listed non-primary member is moved out of its old stack,
 *   which survives, possibly with only its primary (025–028). Duplicate ids are accepted and
 *   folded, so a 1-asset stack is possible (043).
 * - Trashed assets (recorded live, see docs/safety.md): a stack merged through its primary loses
 *   its trashed members, which are left without a stack; a trashed asset listed first becomes the
 *   primary and a member, one listed later is left where it is, so `[photo, trashed]` makes a
 *   1-asset stack.
 * - Stacks are listed primary first (022, 033).
 * - `PUT /stacks/{id}` needs the new primary to be a member that Immich lists (035): not trashed,
 *   not hidden; `DELETE /stacks/{id}/assets/…` refuses the primary and non-members (038, 039).
 *
 * Validating request bodies (fewer than 2 ids, malformed UUIDs) is the HTTP server's job.
 *
 * @module
 */

/** One stack as Immich returns it: `assetIds` holds every member, the primary first. */
export interface StackRecord {
  readonly id: string;
  readonly primaryAssetId: string;
  readonly assetIds: readonly string[];
}

/** Options for {@linkcode StackStore}. */
export interface StackStoreOptions {
  /**
   * Makes the id of each new stack.
   *
   * @default {() => crypto.randomUUID()}
   */
  readonly newId?: () => string;
  /**
   * Tells whether an asset is in the trash, for the merge rule.
   *
   * @default {() => false}
   */
  readonly isTrashed?: (assetId: string) => boolean;
  /**
   * Tells whether Immich lists an asset among a stack's members (not trashed, visibility
   * timeline or archive): only such a member can become the primary through `PUT`.
   *
   * @default {() => true}
   */
  readonly isListed?: (assetId: string) => boolean;
}

/**
 * A request Immich would refuse with 400; `message` is Immich's own text, word for word.
 */
export class StackStoreError extends Error {
  /** @param message Immich's error message. */
  constructor(message: string) {
    super(message);
    this.name = "StackStoreError";
  }
}

interface MutableStack {
  readonly id: string;
  primaryAssetId: string;
  /**
   * Members in storage order. Immich lists the primary first and the rest in the order
   * Postgres returns the rows, which this insertion order stands in for.
   */
  readonly members: Set<string>;
}

/**
 * The stacks of one user, with Immich's create/merge, update, delete and remove-asset rules.
 *
 * Every operation is O(size of the stacks it touches), so 50 000 stacks stay fast.
 *
 * @example Creating with the primary of another stack merges that stack in
 * ```ts
 * import assert from "node:assert/strict";
 * import { StackStore } from "./immich_stacks.ts";
 *
 * let n = 0;
 * const store = new StackStore({ newId: () => `s${++n}` });
 * store.create(["jpg", "dng"]);
 * const merged = store.create(["edited", "jpg"]);
 * assert.deepEqual(merged, { id: "s2", primaryAssetId: "edited", assetIds: ["edited", "dng", "jpg"] });
 * assert.equal(store.get("s1"), undefined);
 * ```
 */
export class StackStore {
  readonly #newId: () => string;
  readonly #isTrashed: (assetId: string) => boolean;
  readonly #isListed: (assetId: string) => boolean;
  readonly #stacks = new Map<string, MutableStack>();
  readonly #stackByAsset = new Map<string, MutableStack>();

  /** @param options How new stack ids are made, and which assets are trashed or hidden. */
  constructor(options: StackStoreOptions = {}) {
    this.#newId = options.newId ?? (() => crypto.randomUUID());
    this.#isTrashed = options.isTrashed ?? (() => false);
    this.#isListed = options.isListed ?? (() => true);
  }

  /**
   * Creates a stack the way `POST /stacks` does, merge rule included.
   *
   * @param assetIds The assets to stack; the first becomes the primary. Duplicates are folded.
   * @returns The new stack, primary first.
   * @throws {StackStoreError} When `assetIds` is empty (the HTTP layer refuses that earlier).
   */
  create(assetIds: readonly string[]): StackRecord {
    const listedSet = new Set(assetIds);
    const listed = [...listedSet];
    if (listed.length === 0) {
      throw new StackStoreError("Cannot create a stack without assets: no asset id given");
    }
    const first = listed[0];
    // Only the first listed asset may be trashed and still join (recorded live).
    const joins = (assetId: string) => assetId === first || !this.#isTrashed(assetId);
    const merged = new Set<MutableStack>();
    for (const assetId of listed) {
      const stack = this.#stackByAsset.get(assetId);
      if (stack !== undefined && listedSet.has(stack.primaryAssetId)) merged.add(stack);
    }
    const mergedPrimaries = new Set([...merged].map((stack) => stack.primaryAssetId));
    // Order chosen to reproduce fixture 030: listed ids, then the merged stacks' children,
    // then their primaries; only the primary's position is guaranteed by Immich.
    const members = new Set<string>();
    for (const assetId of listed) {
      if (joins(assetId) && (!mergedPrimaries.has(assetId) || assetId === first)) {
        members.add(assetId);
      }
    }
    for (const stack of merged) {
      for (const assetId of stack.members) {
        if (assetId !== stack.primaryAssetId && joins(assetId)) members.add(assetId);
      }
    }
    for (const assetId of mergedPrimaries) if (joins(assetId)) members.add(assetId);

    for (const stack of merged) {
      this.#stacks.delete(stack.id);
      // A merged stack's trashed members are left without a stack.
      for (const assetId of stack.members) {
        if (!members.has(assetId)) this.#stackByAsset.delete(assetId);
      }
    }
    const created: MutableStack = { id: this.#newId(), primaryAssetId: first, members };
    for (const assetId of members) {
      // A non-primary member of a surviving stack moves out; that stack keeps the rest.
      this.#stackByAsset.get(assetId)?.members.delete(assetId);
      this.#stackByAsset.set(assetId, created);
    }
    this.#stacks.set(created.id, created);
    return toRecord(created);
  }

  /**
   * Changes the primary the way `PUT /stacks/{id}` does.
   *
   * @param stackId The stack to change.
   * @param primaryAssetId The new primary; must already be a member Immich lists.
   * @returns The changed stack, new primary first.
   * @throws {StackStoreError} `Not found or no stack.update access` for an unknown stack;
   *   `Primary asset must be in the stack` for a non-member, a trashed or a hidden one.
   */
  updatePrimary(stackId: string, primaryAssetId: string): StackRecord {
    const stack = this.#require(stackId, "stack.update");
    if (!stack.members.has(primaryAssetId) || !this.#isListed(primaryAssetId)) {
      throw new StackStoreError("Primary asset must be in the stack");
    }
    stack.primaryAssetId = primaryAssetId;
    return toRecord(stack);
  }

  /**
   * Deletes a stack the way `DELETE /stacks/{id}` does; its assets stay, unstacked.
   *
   * @param stackId The stack to delete.
   * @throws {StackStoreError} `Not found or no stack.delete access` for an unknown stack.
   */
  delete(stackId: string): void {
    const stack = this.#require(stackId, "stack.delete");
    for (const assetId of stack.members) this.#stackByAsset.delete(assetId);
    this.#stacks.delete(stackId);
  }

  /**
   * Takes one non-primary member out the way `DELETE /stacks/{id}/assets/{assetId}` does.
   * The stack survives, even with a single asset.
   *
   * @param stackId The stack to change.
   * @param assetId The member to take out.
   * @throws {StackStoreError} `Not found or no stack.update access` for an unknown stack;
   *   `Asset not in stack` for a non-member; `Cannot remove stack's primary asset`.
   */
  removeAsset(stackId: string, assetId: string): void {
    const stack = this.#require(stackId, "stack.update");
    if (!stack.members.has(assetId)) throw new StackStoreError("Asset not in stack");
    if (stack.primaryAssetId === assetId) {
      throw new StackStoreError("Cannot remove stack's primary asset");
    }
    stack.members.delete(assetId);
    this.#stackByAsset.delete(assetId);
  }

  /**
   * @param stackId A stack id.
   * @returns The stack, or undefined when it does not exist.
   */
  get(stackId: string): StackRecord | undefined {
    const stack = this.#stacks.get(stackId);
    return stack === undefined ? undefined : toRecord(stack);
  }

  /**
   * @param assetId An asset id.
   * @returns The stack holding the asset (as primary or child), or undefined.
   */
  stackOf(assetId: string): StackRecord | undefined {
    const stack = this.#stackByAsset.get(assetId);
    return stack === undefined ? undefined : toRecord(stack);
  }

  /** @returns Every stack, oldest first, each primary first. */
  list(): StackRecord[] {
    return [...this.#stacks.values()].map(toRecord);
  }

  #require(stackId: string, permission: string): MutableStack {
    const stack = this.#stacks.get(stackId);
    if (stack === undefined) {
      throw new StackStoreError(`Not found or no ${permission} access`);
    }
    return stack;
  }
}

function toRecord(stack: MutableStack): StackRecord {
  const others = [...stack.members].filter((assetId) => assetId !== stack.primaryAssetId);
  return {
    id: stack.id,
    primaryAssetId: stack.primaryAssetId,
    assetIds: [stack.primaryAssetId, ...others],
  };
}
