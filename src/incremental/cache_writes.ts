/**
 * The last pass's writes applied to the cached library the way Immich does them.
 *
 * @module
 */
import type { Stack } from "../model.ts";
import { membersOf } from "../reconcile/plan.ts";
import {
  type CompactStack,
  compactStack,
  type Library,
  matchRows,
  type Ref,
  REMOVED,
} from "./library.ts";

/** A write of the pass, as the cache records it from the server's answer. */
export type CacheWrite =
  | {
    readonly op: "create";
    readonly stack: Stack;
    /** Each listed member's `updatedAt` after the write, in `stack.assetIds` order. */
    readonly updatedAt: readonly number[];
  }
  | { readonly op: "update"; readonly stack: Stack }
  | { readonly op: "delete"; readonly stackId: string };

/**
 * Applies the last pass's writes the way Immich does, from the server's answers: a create makes
 * the stack it answered, deleting the stacks whose primary it lists and taking its members out
 * of the others; members it moved carry their new `updatedAt`, members of a deleted stack an
 * unknown one (Immich moved it, no answer said to what).
 *
 * @param library The library, changed in place.
 * @param writes The writes, in order.
 * @returns The stacks and rows they touched: the next plan of those differs from the last.
 */
export function applyWrites(
  library: Library,
  writes: readonly CacheWrite[],
): { readonly stacks: Set<string>; readonly rows: Set<number> } {
  if (writes.length === 0) return { stacks: new Set<string>(), rows: new Set<number>() };
  const ids = new Set<string>();
  for (const write of writes) {
    if (write.op !== "delete") { for (const id of membersOf(write.stack)) ids.add(id); }
  }
  const applier = new WriteApplier(library, ids);
  for (const write of writes) {
    if (write.op === "delete") applier.delete(write.stackId);
    else if (write.op === "update") applier.update(write.stack);
    else applier.create(write.stack, write.updatedAt);
  }
  return applier.touched;
}

/**
 * The library as the writes apply, one after the other: the members they name, by row and id,
 * and the stacks holding each of them, kept up to date.
 */
class WriteApplier {
  /** The stacks and rows the writes touched. */
  readonly touched = { stacks: new Set<string>(), rows: new Set<number>() };
  readonly #library: Library;
  /** The asset ids the writes name. */
  readonly #ids: ReadonlySet<string>;
  /** The live row of each id named. */
  readonly #rowOf = new Map<string, number>();
  /** The id of each row of an id named, live or not. */
  readonly #named = new Map<number, string>();
  /** The stacks holding each asset the writes name. */
  readonly #holders = new Map<string, Set<string>>();

  constructor(library: Library, ids: ReadonlySet<string>) {
    this.#library = library;
    this.#ids = ids;
    // Members are compared with the ids the writes name, and only with those: the rows of these
    // ids are all a member's id is needed for. One scan finds both; the last live row wins, as
    // in findRows().
    matchRows(library, ids, { removed: true }, (id, row) => {
      this.#named.set(row, id);
      if (library.flags[row] !== REMOVED) this.#rowOf.set(id, row);
    });
    // One scan of the stacks, however many writes.
    library.stacks.each(
      (member) => ids.has(this.#nameOf(member)),
      (stack) => this.#index(stack, true),
    );
  }

  /** A stack deleted: its members moved, Immich did not say to what. */
  delete(stackId: string): void {
    const stack = this.#library.stacks.get(stackId);
    this.touched.stacks.add(stackId);
    if (stack === undefined) return;
    this.#remove(stack);
    for (const member of [stack.primary, ...stack.members]) this.#setUpdatedAt(member, -1);
  }

  /** A stack's new cover. */
  update(stack: Stack): void {
    const compact = compactStack(stack, this.#ref);
    this.touched.stacks.add(compact.id);
    this.#put(compact);
  }

  /**
   * A stack created: the stacks whose primary it lists are merged into it, the others lose the
   * members it lists.
   */
  create(stack: Stack, updatedAt: readonly number[]): void {
    const compact = compactStack(stack, this.#ref);
    this.touched.stacks.add(compact.id);
    const nameOf = (member: Ref) => this.#nameOf(member);
    // A cover Immich does not list (hidden, in the trash) is a member all the same.
    const listed = new Set(membersOf(stack));
    const holding = new Set<string>();
    for (const id of listed) {
      for (const stackId of this.#holders.get(id) ?? []) holding.add(stackId);
    }
    for (const holderId of holding) {
      const holder = this.#library.stacks.get(holderId)!;
      const members = [holder.primary, ...holder.members];
      this.touched.stacks.add(holder.id);
      if (listed.has(nameOf(holder.primary))) {
        // Merged into the new stack; members it left out (in the trash) moved too.
        this.#remove(holder);
        for (const member of members) {
          if (!listed.has(nameOf(member))) this.#setUpdatedAt(member, -1);
        }
      } else {
        this.#put({
          ...holder,
          members: holder.members.filter((member) => !listed.has(nameOf(member))),
          archived: holder.archived.filter((member) => !listed.has(nameOf(member))),
        });
      }
    }
    this.#put(compact);
    for (const [i, id] of stack.assetIds.entries()) {
      this.#setUpdatedAt(this.#ref(id), updatedAt[i] ?? -1);
    }
  }

  readonly #ref = (id: string): Ref => this.#rowOf.get(id) ?? id;

  #nameOf(member: Ref): string {
    return typeof member === "number" ? this.#named.get(member) ?? "" : member;
  }

  #setUpdatedAt(member: Ref, updatedAt: number): void {
    if (typeof member === "number") {
      this.#library.updatedAt[member] = updatedAt;
      this.touched.rows.add(member);
    } else if (updatedAt < 0) this.#library.seen.delete(member);
    else this.#library.seen.set(member, updatedAt);
  }

  #index(stack: CompactStack, add: boolean): void {
    for (const member of [stack.primary, ...stack.members]) {
      const id = this.#nameOf(member);
      if (!this.#ids.has(id)) continue;
      let set = this.#holders.get(id);
      if (set === undefined) this.#holders.set(id, set = new Set());
      if (add) set.add(stack.id);
      else set.delete(stack.id);
    }
  }

  #put(stack: CompactStack): void {
    const old = this.#library.stacks.get(stack.id);
    if (old !== undefined) this.#index(old, false);
    this.#library.stacks.set(stack.id, stack);
    this.#index(stack, true);
  }

  #remove(stack: CompactStack): void {
    this.#index(stack, false);
    this.#library.stacks.delete(stack.id);
  }
}
