/**
 * The cached library's stacks by id, their members in one pool of numbers.
 *
 * @module
 */
import { grown, IdSlots } from "./ids.ts";
import type { CompactStack, Ref } from "./library.ts";

/** The members of a stack with none. */
const NO_REFS: readonly Ref[] = Object.freeze([]);

/**
 * The library's stacks by id, kept as a map of {@linkcode CompactStack} would keep them (the
 * order added, a stack set again keeps its place), in a fraction of its memory: ids as 16 bytes,
 * the members of every stack in one pool of numbers. At 48 500 stacks, about 3 MB instead of 12.
 * A stack is an object only while a caller holds it ({@linkcode StackTable.get},
 * {@linkcode StackTable.values}); {@linkcode StackTable.each} and
 * {@linkcode StackTable.forEachRef} look at the members without making any.
 */
export class StackTable {
  readonly #slots: IdSlots;
  /** Per slot: where its stack starts in the pool. */
  #starts: Int32Array;
  /**
   * Each stack as [primary, members' count, members…, archived count, archived…], each member a
   * row, or an id as -1 - its place in `#strings`.
   */
  #pool: Int32Array;
  #used = 0;
  readonly #strings: string[] = [];

  /** @param capacity Room for this many stacks to start with. */
  constructor(capacity = 0) {
    this.#slots = new IdSlots(capacity);
    this.#starts = new Int32Array(capacity);
    this.#pool = new Int32Array(capacity * 5);
  }

  /** How many stacks there are. */
  get size(): number {
    return this.#slots.size;
  }

  /** The stack of an id, or undefined. */
  get(id: string): CompactStack | undefined {
    const slot = this.#slots.slotOf(id);
    return slot < 0 ? undefined : this.#stack(slot);
  }

  /** Sets the stack of an id: in its place when it has one, else at the end. */
  set(id: string, stack: CompactStack): this {
    const slot = this.#slots.claim(id);
    if (slot >= this.#starts.length) this.#starts = grown(this.#starts, slot + 1);
    const size = 3 + stack.members.length + stack.archived.length;
    if (this.#used + size > this.#pool.length) this.#pool = grown(this.#pool, this.#used + size);
    this.#starts[slot] = this.#used;
    const pool = this.#pool;
    pool[this.#used++] = this.#code(stack.primary);
    for (const list of [stack.members, stack.archived]) {
      pool[this.#used++] = list.length;
      for (const ref of list) pool[this.#used++] = this.#code(ref);
    }
    return this;
  }

  /** Deletes the stack of an id; whether there was one. */
  delete(id: string): boolean {
    return this.#slots.release(id) >= 0;
  }

  /** The stacks, in order. */
  *values(): Generator<CompactStack> {
    for (let slot = 0; slot < this.#slots.count; slot++) {
      if (this.#slots.inUse(slot)) yield this.#stack(slot);
    }
  }

  /**
   * Calls `visit`, in order, with each stack whose primary or a listed member passes `test`
   * (tested at that stack's turn).
   */
  each(test: (ref: Ref) => boolean, visit: (stack: CompactStack) => void): void {
    const pool = this.#pool;
    for (let slot = 0; slot < this.#slots.count; slot++) {
      if (!this.#slots.inUse(slot)) continue;
      const start = this.#starts[slot];
      let hit = test(this.#ref(pool[start]));
      const end = start + 2 + pool[start + 1];
      for (let at = start + 2; !hit && at < end; at++) hit = test(this.#ref(pool[at]));
      if (hit) visit(this.#stack(slot));
    }
  }

  /** Calls `visit` with the primary and the listed members of every stack, in order. */
  forEachRef(visit: (ref: Ref) => void): void {
    const pool = this.#pool;
    for (let slot = 0; slot < this.#slots.count; slot++) {
      if (!this.#slots.inUse(slot)) continue;
      const start = this.#starts[slot];
      const end = start + 2 + pool[start + 1];
      visit(this.#ref(pool[start]));
      for (let at = start + 2; at < end; at++) visit(this.#ref(pool[at]));
    }
  }

  #stack(slot: number): CompactStack {
    const pool = this.#pool;
    let at = this.#starts[slot];
    const primary = this.#ref(pool[at++]);
    const list = () => {
      const count = pool[at++];
      if (count === 0) return NO_REFS;
      const refs: Ref[] = [];
      for (const end = at + count; at < end; at++) refs.push(this.#ref(pool[at]));
      return refs;
    };
    const members = list();
    return { id: this.#slots.id(slot), primary, members, archived: list() };
  }

  #code(ref: Ref): number {
    if (typeof ref === "number") return ref;
    this.#strings.push(ref);
    return -this.#strings.length;
  }

  #ref(code: number): Ref {
    return code >= 0 ? code : this.#strings[-1 - code];
  }
}
