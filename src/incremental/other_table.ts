/**
 * Other users' assets the searches find, by id, their numbers in typed arrays.
 *
 * @module
 */
import { grown, IdSlots } from "./ids.ts";
import type { OtherAsset } from "./library.ts";

/**
 * Other users' assets by id, kept as a map of {@linkcode OtherAsset} would keep them, with ids
 * as 16 bytes and their numbers in typed arrays.
 */
export class OtherTable {
  readonly #slots: IdSlots;
  #updatedAt: Float64Array;
  #scopes: Int32Array;

  /** @param capacity Room for this many assets to start with. */
  constructor(capacity = 0) {
    this.#slots = new IdSlots(capacity);
    this.#updatedAt = new Float64Array(capacity);
    this.#scopes = new Int32Array(capacity);
  }

  /** How many assets there are. */
  get size(): number {
    return this.#slots.size;
  }

  /** Sets an asset: in its place when it has one, else at the end. */
  set(id: string, other: OtherAsset): this {
    const slot = this.#slots.claim(id);
    if (slot >= this.#scopes.length) {
      this.#updatedAt = grown(this.#updatedAt, slot + 1);
      this.#scopes = grown(this.#scopes, slot + 1);
    }
    this.#updatedAt[slot] = other.updatedAt;
    this.#scopes[slot] = other.scopes;
    return this;
  }

  /** Deletes an asset; whether there was one. */
  delete(id: string): boolean {
    return this.#slots.release(id) >= 0;
  }

  /** The assets with their ids, in order. */
  *[Symbol.iterator](): Generator<[string, OtherAsset]> {
    for (const slot of this.#inUse()) yield [this.#slots.id(slot), this.#asset(slot)];
  }

  /** The assets, in order, without their ids. */
  *values(): Generator<OtherAsset> {
    for (const slot of this.#inUse()) yield this.#asset(slot);
  }

  *#inUse(): Generator<number> {
    for (let slot = 0; slot < this.#slots.count; slot++) if (this.#slots.inUse(slot)) yield slot;
  }

  #asset(slot: number): OtherAsset {
    return { updatedAt: this.#updatedAt[slot], scopes: this.#scopes[slot] };
  }
}
