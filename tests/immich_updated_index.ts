/**
 * The test server's index on assets' `updatedAt`, as Immich's on its asset table: a search with
 * `updatedAfter` (every incremental pass's search for changes and its counts) reads the assets
 * changed since, not the whole library. Without it each such search scanned every asset, tens of
 * milliseconds per request at 200 000 assets, which the bench counted against a pass with nothing
 * to change.
 *
 * @module
 */

/** What the index orders: anything with a time of last change. */
interface Dated {
  readonly updatedAt: number;
}

/**
 * Items in the order their `updatedAt` was set. The server's clock only moves forward between
 * two changes, so a change is one entry appended; the entry it replaces stays behind, stale, until
 * the entries are rebuilt (when they are mostly stale, or a clock set back put them out of order).
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { UpdatedIndex } from "./immich_updated_index.ts";
 *
 * const a = { id: "a", updatedAt: 1 };
 * const b = { id: "b", updatedAt: 2 };
 * const index = new UpdatedIndex([a, b]);
 * a.updatedAt = 3;
 * index.changed(a);
 * assert.deepEqual(index.since(2).map((item) => item.id), ["b", "a"]);
 * index.remove(b);
 * assert.deepEqual(index.since(0).map((item) => item.id), ["a"]);
 * ```
 */
export class UpdatedIndex<T extends Dated> {
  #entries: { readonly item: T; readonly at: number }[] = [];
  /** Each item indexed, with the `updatedAt` of its live entry. */
  readonly #live = new Map<T, number>();
  #ordered = true;

  /** @param items What the index starts with. */
  constructor(items: Iterable<T> = []) {
    this.reset(items);
  }

  /** Indexes these items alone. */
  reset(items: Iterable<T>): void {
    this.#live.clear();
    for (const item of items) this.#live.set(item, item.updatedAt);
    this.#rebuild();
  }

  /** An item added, or whose `updatedAt` was just set. */
  changed(item: T): void {
    const at = item.updatedAt;
    if (this.#live.get(item) === at) return;
    const last = this.#entries.at(-1);
    if (last !== undefined && at < last.at) this.#ordered = false;
    this.#entries.push({ item, at });
    this.#live.set(item, at);
  }

  /** An item deleted. */
  remove(item: T): void {
    this.#live.delete(item);
  }

  /**
   * The items whose `updatedAt` is at or after `time`, oldest change first.
   *
   * @param time The earliest `updatedAt` wanted.
   * @returns The items.
   */
  since(time: number): T[] {
    if (!this.#ordered || this.#entries.length > 2 * this.#live.size + 1024) this.#rebuild();
    const entries = this.#entries;
    let low = 0;
    let high = entries.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (entries[middle].at < time) low = middle + 1;
      else high = middle;
    }
    const found: T[] = [];
    for (let i = low; i < entries.length; i++) {
      const { item, at } = entries[i];
      if (this.#live.get(item) === at) found.push(item);
    }
    return found;
  }

  #rebuild(): void {
    this.#entries = [...this.#live].map(([item, at]) => ({ item, at })).sort((a, b) => a.at - b.at);
    this.#ordered = true;
  }
}
