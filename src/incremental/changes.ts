/**
 * The assets found changed since the last pass: which the cache does not know yet, whether the
 * search may have missed some (a clock set back), and merging them into the library.
 *
 * @module
 */
import type { Asset } from "../model.ts";
import {
  addRow,
  bucketsOf,
  findRows,
  flagsOf,
  idOf,
  type Library,
  REMOVED,
  type RowData,
  setBuckets,
} from "./library.ts";

/** An asset found changed since the last pass, as {@linkcode mergeChanges} takes it. */
export interface AssetChange {
  readonly id: string;
  readonly own: boolean;
  readonly updatedAt: number;
  readonly scopes: number;
  readonly trashed: boolean;
  readonly archived: boolean;
  readonly asset?: Asset;
  readonly invalid?: { readonly field: string; readonly message: string };
}

/** What {@linkcode mergeChanges} did. */
export interface MergedChanges {
  /** The user's assets that really changed (the cache did not know them so), in the order given. */
  readonly changed: readonly AssetChange[];
  /** Their rows now, new rows included: their contents are known from the changes. */
  readonly rows: ReadonlyMap<number, RowData>;
  /** Rows whose asset left the searches. */
  readonly removed: ReadonlySet<number>;
  /** The bucket hashes the changed rows had before. */
  readonly previousBuckets: ReadonlySet<number>;
}

/** A recent asset the search for changes did not find again as the cache knows it. */
export interface DatedBack {
  readonly id: string;
  /** Its `updatedAt` in the cache. */
  readonly was: number;
  /** Its `updatedAt` now; undefined when the search did not find it. */
  readonly now?: number;
}

/**
 * Finds an asset that the search for changes should have found again and did not, as when the
 * server's clock went back: every asset the cache knows changed at or after `since` (the user's,
 * others', those seen outside the searches) is found again by a search from `since`, with the
 * same `updatedAt` or a later one. One found with an earlier one, or not found at all (deleted
 * for good, moved to the locked folder, or dated back before `since`), means the search may
 * have missed changes dated back with it.
 *
 * @param library The library as the last pass left it (its writes applied).
 * @param changes The assets the search for changes found.
 * @param since Where that search started.
 * @returns The first such asset, or undefined when every one was found again.
 */
export function datedBack(
  library: Library,
  changes: readonly AssetChange[],
  since: number,
): DatedBack | undefined {
  const found = new Map(changes.map((change) => [change.id, change.updatedAt]));
  const check = (id: string, was: number): DatedBack | undefined => {
    if (was < since) return undefined;
    const now = found.get(id);
    if (now !== undefined && now >= was) return undefined;
    return now === undefined ? { id, was } : { id, was, now };
  };
  for (let row = 0; row < library.rows; row++) {
    if (library.flags[row] === REMOVED || library.updatedAt[row] < since) continue;
    const back = check(idOf(library, row), library.updatedAt[row]);
    if (back !== undefined) return back;
  }
  for (const [id, other] of library.others) {
    const back = check(id, other.updatedAt);
    if (back !== undefined) return back;
  }
  for (const [id, updatedAt] of library.seen) {
    const back = check(id, updatedAt);
    if (back !== undefined) return back;
  }
  return undefined;
}

/**
 * Tells which changes the cache does not know yet, without changing anything.
 *
 * An asset no search of the pass finds, unknown to the cache, changed before the last pass
 * started and in no cached stack is not a change: the last pass read the library after it, and
 * found it in none of its searches. The overlap of the search for changes finds such assets again
 * (the trash, hidden assets, videos), and reading their stacks would cost a request each.
 *
 * @param library The library.
 * @param changes The assets the search for changes found.
 * @param rows Row by asset id (from {@linkcode findRows}).
 * @param before When the last pass started, ms since the epoch.
 * @returns The user's assets among them that really changed.
 */
function newChanges(
  library: Library,
  changes: readonly AssetChange[],
  rows: ReadonlyMap<string, number>,
  before: number,
): AssetChange[] {
  let stacked: Set<string> | undefined;
  const inStack = (id: string) => {
    if (stacked === undefined) {
      const ids = new Set<string>();
      library.stacks.forEachRef((ref) => {
        if (typeof ref === "string") ids.add(ref);
      });
      stacked = ids;
    }
    return stacked.has(id);
  };
  return changes.filter((change) => {
    if (!change.own) return false;
    const row = rows.get(change.id);
    if (row !== undefined) {
      return library.updatedAt[row] !== change.updatedAt ||
        library.flags[row] !== flagsOf(change.scopes, { ...change, invalid: !change.asset });
    }
    if (change.scopes !== 0) return true;
    const seen = library.seen.get(change.id);
    if (seen !== undefined) return seen !== change.updatedAt;
    return change.updatedAt >= before || inStack(change.id);
  });
}

/**
 * Merges the assets found changed into the library: the user's assets the searches find get
 * their row (a new one at the end), those they no longer find lose it and are remembered as
 * seen, others' assets are counted or forgotten. The changed rows' buckets are set by the
 * caller, once computed.
 *
 * @param library The library, changed in place.
 * @param changes The assets the search for changes found, each once.
 * @param before When the last pass started, ms since the epoch (see {@linkcode newChanges}).
 * @returns What changed.
 */
export function mergeChanges(
  library: Library,
  changes: readonly AssetChange[],
  before: number,
): MergedChanges {
  const found = findRows(library, new Set(changes.filter((c) => c.own).map((c) => c.id)));
  const changed = newChanges(library, changes, found, before);
  for (const change of changes) {
    if (change.own) {
      // Known from now on, so that the next search for changes finds what it expects.
      if (change.scopes === 0 && !found.has(change.id)) {
        library.seen.set(change.id, change.updatedAt);
      }
      continue;
    }
    if (change.scopes === 0) library.others.delete(change.id);
    else library.others.set(change.id, { updatedAt: change.updatedAt, scopes: change.scopes });
  }
  const rows = new Map<number, RowData>();
  const removed = new Set<number>();
  const previousBuckets = new Set<number>();
  for (const change of changed) {
    let row = found.get(change.id);
    if (row !== undefined) {
      for (const hash of bucketsOf(library, row)) previousBuckets.add(hash);
      library.skips.delete(row);
    }
    if (change.scopes === 0) {
      library.seen.set(change.id, change.updatedAt);
      if (row === undefined) continue;
      library.flags[row] = REMOVED;
      setBuckets(library, row, []);
      removed.add(row);
      continue;
    }
    library.seen.delete(change.id);
    row ??= addRow(library, change.id, change.updatedAt, 0);
    const flags = flagsOf(change.scopes, { ...change, invalid: change.asset === undefined });
    library.updatedAt[row] = change.updatedAt;
    library.flags[row] = flags;
    setBuckets(library, row, []);
    rows.set(row, {
      id: change.id,
      ...(change.asset === undefined ? {} : { asset: change.asset }),
      ...(change.invalid === undefined ? {} : { invalid: change.invalid }),
      updatedAt: change.updatedAt,
      flags,
      buckets: [],
    });
  }
  return { changed, rows, removed, previousBuckets };
}
