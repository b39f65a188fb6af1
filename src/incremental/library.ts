/**
 * The user's library as an incremental pass keeps it between passes, and the ways it changes:
 * merging the assets changed on the server, the stacks read again, the pass's own writes, and
 * regrouping only the assets a change can regroup. No I/O, clock or logger: `src/library.ts`
 * reads the server and `src/state/cache.ts` the disk.
 *
 * Why regrouping a part is exact: grouping puts every asset in buckets (the values of its
 * criteria but times) and joins assets only within a bucket; so the assets that share a bucket
 * with a changed asset, directly or through other assets, are grouped exactly as the whole
 * library would group them, and no other group can change (docs/incremental.md).
 *
 * @module
 */
import { groupAssets } from "../grouping/group.ts";
import type { Criteria } from "../grouping/criteria.ts";
import type { Asset, Group, SkippedAsset, SkipReason, Stack } from "../model.ts";

/** One of the user's assets that the pass's searches find, as the cache keeps it. */
export interface CachedAsset {
  readonly id: string;
  /** The asset as the pass reads it; absent when the server sent it invalid. */
  readonly asset?: Asset;
  /** Why the server's data is invalid, for an asset without `asset`. */
  readonly invalid?: { readonly field: string; readonly message: string };
  /** ms since the epoch; -1 when unknown (the pass changed it and no answer said when). */
  readonly updatedAt: number;
  /** The searches that find it, one bit per search scope. */
  readonly scopes: number;
  readonly trashed: boolean;
  readonly archived: boolean;
  /** Hashes of its grouping buckets (see {@linkcode bucketHash}); none when left out. */
  readonly buckets: readonly string[];
  /** Why grouping left it out, if it did. */
  readonly skip?: SkipReason;
}

/** Another user's asset the searches find (a partner's): counted by the server's statistics. */
export interface OtherAsset {
  readonly updatedAt: number;
  readonly scopes: number;
}

/** The cached library of one user. Functions of this module change it in place. */
export interface CachedLibrary {
  /** The user's assets the searches find, by id. */
  readonly assets: Map<string, CachedAsset>;
  /** Other users' assets the searches find, by id. */
  readonly others: Map<string, OtherAsset>;
  /** The stacks as `GET /stacks` lists them, by id. */
  readonly stacks: Map<string, Stack>;
  /** The promoted groups, parent first, in grouping's order. */
  groups: Group[];
  /**
   * The user's assets no search finds that the last pass saw change (trashed, hidden, videos
   * without INCLUDE_VIDEOS…), by id with their `updatedAt`: the next search for changes sees
   * them again and must know them as seen.
   */
  readonly seen: Map<string, number>;
}

/** A write of the pass, as the cache records it from the server's answer. */
export type CacheWrite =
  | {
    readonly op: "create";
    readonly stack: Stack;
    /** Each listed member's `updatedAt` after the write. */
    readonly updatedAt: ReadonlyMap<string, number>;
  }
  | { readonly op: "update"; readonly stack: Stack }
  | { readonly op: "delete"; readonly stackId: string };

/**
 * An empty library.
 *
 * @returns A library without assets, stacks or groups.
 */
export function emptyLibrary(): CachedLibrary {
  return { assets: new Map(), others: new Map(), stacks: new Map(), groups: [], seen: new Map() };
}

/**
 * A short hash of a grouping bucket, as the cache stores it: 32-bit FNV-1a in base 36. Two
 * buckets with one hash only make a regroup take in more assets than it needs.
 *
 * @param signature The bucket, as `groupAssets` names it.
 * @returns The hash.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { bucketHash } from "./library.ts";
 *
 * assert.equal(bucketHash("IMG_1234"), bucketHash("IMG_1234"));
 * assert.notEqual(bucketHash("IMG_1234"), bucketHash("IMG_1235"));
 * ```
 */
export function bucketHash(signature: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < signature.length; i++) {
    hash ^= signature.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}

/** An order-independent summary of a set of (asset id, `updatedAt`) pairs. */
export interface Digest {
  readonly count: number;
  /** Two sums of 32-bit hashes, in hex. */
  readonly digest: string;
}

/** Adds (asset id, `updatedAt`) pairs into a {@linkcode Digest}. */
export class DigestBuilder {
  #count = 0;
  #low = 0;
  #high = 0;

  /** Adds one pair. */
  add(id: string, updatedAt: number): void {
    const text = `${id}:${updatedAt}`;
    let a = 0x811c9dc5;
    let b = 0x9e3779b9;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x85ebca6b) ^ (b >>> 13);
    }
    this.#count++;
    this.#low = (this.#low + (a >>> 0)) >>> 0;
    this.#high = (this.#high + (b >>> 0)) >>> 0;
  }

  /** The digest of every pair added. */
  build(): Digest {
    const hex = (n: number) => n.toString(16).padStart(8, "0");
    return { count: this.#count, digest: hex(this.#high) + hex(this.#low) };
  }
}

/**
 * The (id, `updatedAt`) pairs a search for changes at or after `since` finds again when
 * nothing changed: every known asset (the user's, others', the ones seen out of the searches)
 * changed at or after it.
 *
 * @param library The library.
 * @param since ms since the epoch.
 * @returns Their digest.
 */
export function recentDigest(library: CachedLibrary, since: number): Digest {
  const digest = new DigestBuilder();
  for (const [id, entry] of library.assets) {
    if (entry.updatedAt >= since) digest.add(id, entry.updatedAt);
  }
  for (const [id, other] of library.others) {
    if (other.updatedAt >= since) digest.add(id, other.updatedAt);
  }
  for (const [id, updatedAt] of library.seen) if (updatedAt >= since) digest.add(id, updatedAt);
  return digest.build();
}

/**
 * How many assets each search finds according to the library: the user's and others'.
 *
 * @param library The library.
 * @param scopes The number of searches.
 * @returns One count per search.
 */
export function scopeCounts(library: CachedLibrary, scopes: number): number[] {
  const counts = new Array<number>(scopes).fill(0);
  const add = (bits: number) => {
    for (let i = 0; i < scopes; i++) if (bits & 1 << i) counts[i]++;
  };
  for (const entry of library.assets.values()) add(entry.scopes);
  for (const other of library.others.values()) add(other.scopes);
  return counts;
}

/** An asset found changed since the last pass, as {@linkcode mergeChanges} takes it. */
export interface AssetChange {
  readonly id: string;
  readonly own: boolean;
  readonly updatedAt: number;
  readonly scopes: number;
  readonly trashed: boolean;
  /** Archived (a search of the archive found it). */
  readonly archived: boolean;
  readonly asset?: Asset;
  readonly invalid?: { readonly field: string; readonly message: string };
}

/** What {@linkcode mergeChanges} did. */
export interface MergedChanges {
  /**
   * The user's assets that really changed (the cache knew none of them with this `updatedAt`),
   * in the order given: their stacks must be checked.
   */
  readonly changed: readonly AssetChange[];
  /** Of those, the ones the searches found before or find now: they must be regrouped. */
  readonly regroup: ReadonlySet<string>;
  /** The bucket hashes the regrouped assets had before. */
  readonly previousBuckets: ReadonlySet<string>;
}

/**
 * Tells which changes the cache does not know yet, without changing anything: for
 * INCREMENTAL_MAX_CHANGES before the work starts.
 *
 * @param library The library.
 * @param changes The assets the search for changes found.
 * @returns The user's assets among them that really changed.
 */
export function newChanges(
  library: CachedLibrary,
  changes: readonly AssetChange[],
): AssetChange[] {
  return changes.filter((change) => {
    if (!change.own) return false;
    const cached = library.assets.get(change.id);
    if (cached !== undefined) {
      return cached.updatedAt !== change.updatedAt || cached.scopes !== change.scopes;
    }
    return change.scopes !== 0 || library.seen.get(change.id) !== change.updatedAt;
  });
}

/**
 * Merges the assets found changed into the library: the user's assets the searches find are
 * added or replaced (their buckets are set by {@linkcode regroup}), the ones they no longer find
 * are removed and remembered as seen, others' assets are counted or forgotten.
 *
 * @param library The library, changed in place.
 * @param changes The assets the search for changes found, each once.
 * @returns The user's assets that really changed, and what must be regrouped.
 */
export function mergeChanges(
  library: CachedLibrary,
  changes: readonly AssetChange[],
): MergedChanges {
  const changed = newChanges(library, changes);
  const regroup = new Set<string>();
  const previousBuckets = new Set<string>();
  for (const change of changes) {
    if (change.own) continue;
    if (change.scopes === 0) library.others.delete(change.id);
    else library.others.set(change.id, { updatedAt: change.updatedAt, scopes: change.scopes });
  }
  for (const change of changed) {
    const cached = library.assets.get(change.id);
    if (cached !== undefined) {
      regroup.add(change.id);
      for (const hash of cached.buckets) previousBuckets.add(hash);
    }
    if (change.scopes === 0) {
      library.assets.delete(change.id);
      library.seen.set(change.id, change.updatedAt);
      continue;
    }
    library.seen.delete(change.id);
    regroup.add(change.id);
    library.assets.set(change.id, {
      id: change.id,
      ...(change.asset === undefined ? {} : { asset: change.asset }),
      ...(change.invalid === undefined ? {} : { invalid: change.invalid }),
      updatedAt: change.updatedAt,
      scopes: change.scopes,
      trashed: change.trashed,
      archived: change.archived,
      buckets: [],
    });
  }
  return { changed, regroup, previousBuckets };
}

/**
 * The stack the library holds each asset in, for the few assets asked about: one scan of the
 * stacks.
 *
 * @param library The library.
 * @param assetIds The assets.
 * @returns Stack id by asset id, for those in a stack.
 */
export function stacksHolding(
  library: CachedLibrary,
  assetIds: ReadonlySet<string>,
): Map<string, string> {
  const holding = new Map<string, string>();
  for (const stack of library.stacks.values()) {
    if (assetIds.has(stack.primaryAssetId)) holding.set(stack.primaryAssetId, stack.id);
    for (const id of stack.assetIds) if (assetIds.has(id)) holding.set(id, stack.id);
  }
  return holding;
}

/**
 * What a regroup made: the groups it computed anew (not yet promoted) and the assets it left
 * out.
 */
export interface Regrouped {
  readonly groups: readonly Group[];
  readonly skipped: readonly SkippedAsset[];
  /** How many assets it regrouped. */
  readonly assets: number;
}

/**
 * Regroups the assets that share a bucket, directly or through others, with an asset that
 * changed, and keeps every other group as it was. The caller promotes the new groups and hands
 * them to {@linkcode replaceGroups}.
 *
 * @param library The library, its buckets and skip reasons updated in place.
 * @param changed The assets added, replaced or removed.
 * @param previousBuckets The bucket hashes those assets had before.
 * @param criteria The pass's criteria.
 * @returns The new groups of the regrouped assets, in grouping's order, and those left out.
 */
export function regroup(
  library: CachedLibrary,
  changed: ReadonlySet<string>,
  previousBuckets: ReadonlySet<string>,
  criteria: Criteria,
): Regrouped {
  const wanted = new Set(previousBuckets);
  const fresh: CachedAsset[] = [];
  for (const id of changed) {
    const entry = library.assets.get(id);
    if (entry?.asset !== undefined) fresh.push(entry);
  }
  const freshBuckets = groupAssets(fresh.map((entry) => entry.asset!), criteria, { buckets: true })
    .buckets!;
  for (const signatures of freshBuckets) for (const s of signatures) wanted.add(bucketHash(s));
  // The closure: assets sharing a wanted bucket bring their other buckets (OR criteria).
  const members = new Map<string, CachedAsset>();
  for (const entry of fresh) members.set(entry.id, entry);
  for (let grew = true; grew;) {
    grew = false;
    for (const entry of library.assets.values()) {
      if (entry.asset === undefined || members.has(entry.id)) continue;
      if (!entry.buckets.some((hash) => wanted.has(hash))) continue;
      members.set(entry.id, entry);
      for (const hash of entry.buckets) {
        if (!wanted.has(hash)) wanted.add(hash), grew = true;
      }
    }
  }
  const entries = [...members.values()];
  const result = groupAssets(entries.map((entry) => entry.asset!), criteria, { buckets: true });
  const skipReason = new Map(result.skipped.map((skip) => [skip.asset.id, skip.reason]));
  for (const [i, entry] of entries.entries()) {
    const { skip: _skip, ...rest } = entry;
    const reason = skipReason.get(entry.id);
    library.assets.set(entry.id, {
      ...rest,
      buckets: result.buckets![i].map(bucketHash),
      ...(reason === undefined ? {} : { skip: reason }),
    });
  }
  const gone = new Set([...changed].filter((id) => !library.assets.has(id)));
  library.groups = library.groups.filter((group) =>
    !group.assets.some((asset) => members.has(asset.id) || gone.has(asset.id))
  );
  return { groups: result.groups, skipped: result.skipped, assets: entries.length };
}

/**
 * Adds promoted groups to the library's groups in grouping's order: by key, then by the
 * smallest member id.
 *
 * @param library The library, its groups replaced.
 * @param added The promoted new groups.
 */
export function replaceGroups(library: CachedLibrary, added: readonly Group[]): void {
  const keyed = (group: Group) => ({ group, first: smallestId(group) });
  library.groups = [...library.groups.map(keyed), ...added.map(keyed)]
    .sort((a, b) => compare(a.group.key, b.group.key) || compare(a.first, b.first))
    .map(({ group }) => group);
}

function smallestId(group: Group): string {
  let smallest = group.assets[0].id;
  for (const asset of group.assets) if (asset.id < smallest) smallest = asset.id;
  return smallest;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Applies one of the pass's writes the way Immich does, from the server's answer: a create
 * makes the stack it answered, deleting the stacks whose primary it lists and taking its
 * members out of the others; members it moved carry their new `updatedAt`, members of a
 * deleted stack an unknown one (Immich moved it, no answer said to what).
 *
 * @param library The library, changed in place.
 * @param write The write and its answer.
 */
export function applyWrite(library: CachedLibrary, write: CacheWrite): void {
  if (write.op === "update") {
    library.stacks.set(write.stack.id, write.stack);
    return;
  }
  if (write.op === "delete") {
    const stack = library.stacks.get(write.stackId);
    if (stack === undefined) return;
    library.stacks.delete(stack.id);
    for (const id of membersOf(stack)) setUpdatedAt(library, id, -1);
    return;
  }
  const { stack, updatedAt } = write;
  // A cover Immich does not list (hidden, in the trash) is a member all the same.
  const listed = new Set(membersOf(stack));
  const touched = new Map<string, Stack>();
  for (const holder of library.stacks.values()) {
    if (membersOf(holder).some((id) => listed.has(id))) touched.set(holder.id, holder);
  }
  for (const holder of touched.values()) {
    if (listed.has(holder.primaryAssetId)) {
      // Merged into the new stack; members it left out (in the trash) moved too.
      library.stacks.delete(holder.id);
      for (const id of membersOf(holder)) if (!listed.has(id)) setUpdatedAt(library, id, -1);
    } else {
      library.stacks.set(holder.id, {
        ...holder,
        assetIds: holder.assetIds.filter((id) => !listed.has(id)),
      });
    }
  }
  library.stacks.set(stack.id, {
    id: stack.id,
    primaryAssetId: stack.primaryAssetId,
    assetIds: stack.assetIds,
    ...(stack.archivedAssetIds === undefined ? {} : { archivedAssetIds: stack.archivedAssetIds }),
  });
  for (const id of stack.assetIds) setUpdatedAt(library, id, updatedAt.get(id) ?? -1);
}

function membersOf(stack: Stack): string[] {
  return stack.assetIds.includes(stack.primaryAssetId)
    ? [...stack.assetIds]
    : [stack.primaryAssetId, ...stack.assetIds];
}

/** Records an asset's new `updatedAt` where the library knows it; others are remembered seen. */
function setUpdatedAt(library: CachedLibrary, id: string, updatedAt: number): void {
  const entry = library.assets.get(id);
  if (entry !== undefined) {
    library.assets.set(id, { ...entry, updatedAt });
    return;
  }
  if (updatedAt < 0) library.seen.delete(id);
  else library.seen.set(id, updatedAt);
}

/**
 * The assets grouping reads, with the ones Immich has in the trash and the count of invalid
 * ones, for planning the whole library.
 *
 * @param library The library.
 * @returns The valid assets, the trashed ones' ids, and why assets were left out, by reason.
 */
export function planningInputs(library: CachedLibrary): {
  assets: Asset[];
  trashed: Set<string>;
  skippedAssets: Record<string, number>;
} {
  const assets: Asset[] = [];
  const trashed = new Set<string>();
  const skipped: { id: string; reason: SkipReason }[] = [];
  let invalid = 0;
  for (const entry of library.assets.values()) {
    if (entry.asset === undefined) {
      invalid++;
      continue;
    }
    assets.push(entry.asset);
    if (entry.trashed) trashed.add(entry.id);
    if (entry.skip !== undefined) skipped.push({ id: entry.id, reason: entry.skip });
  }
  // In the order a full pass counts them: invalid data, then reasons as met by asset id.
  const skippedAssets: Record<string, number> = invalid > 0 ? { "invalid-data": invalid } : {};
  for (const { reason } of skipped.sort((a, b) => compare(a.id, b.id))) {
    skippedAssets[reason] = (skippedAssets[reason] ?? 0) + 1;
  }
  return { assets, trashed, skippedAssets };
}
