/**
 * What `stacksync undo` puts back, from a run's journal: pure, no I/O.
 *
 * The journal holds the user's stacks before the run's first write and every write with its
 * outcome. Replaying the writes on those stacks gives, for each asset, every stack it was in
 * along the way (a write whose outcome is unknown or failed may or may not have happened: both
 * count). The writes of earlier undos of the same run are replayed after them, so an undo cut
 * short by a failure can be repeated. An asset the run changed is put back in the stack it was
 * in before, with the same members and the same primary; the stacks now holding such assets
 * that no stack of before keeps are deleted (`planStacks` with `exactFor`).
 *
 * An asset whose stack now is none of those the replay went through was changed by someone
 * else after the run: its stack is left as it is and reported, unless forced.
 *
 * @module
 */
import type { Stack } from "../model.ts";
import type { PlanGroup } from "../reconcile/plan.ts";
import type { RecordedStack, RecordedWrite } from "../state/journal.ts";

/** What {@linkcode undoTargets} reads. */
export interface UndoInput {
  /** The user's stacks before the run, from its journal. */
  readonly before: readonly RecordedStack[];
  /** The run's writes, in order. */
  readonly writes: readonly RecordedWrite[];
  /** Earlier undos of the same run for the user, oldest first: what each read, and its writes. */
  readonly earlierUndos: readonly {
    readonly before: readonly RecordedStack[];
    readonly writes: readonly RecordedWrite[];
  }[];
  /** The user's stacks now. */
  readonly current: readonly Stack[];
  /** Put back also what changed after the run. */
  readonly force: boolean;
}

/** Stacks, or unstacked assets, that changed after the run and are left alone. */
export interface ChangedSince {
  /** The stack now holding them; undefined when they are in no stack now. */
  readonly stackId?: string;
  /** The assets, the stack's primary first. */
  readonly assetIds: readonly string[];
}

/** What to plan for an undo. */
export interface UndoTargets {
  /**
   * The stacks of before to put back, parent first, every member the journal holds (those in
   * the trash or hidden included); each key is the old stack id.
   */
  readonly groups: PlanGroup[];
  /** The assets the run changed, but those left alone: `exactFor` of `planStacks`. */
  readonly scope: ReadonlySet<string>;
  /** What changed after the run and is left alone (empty when forced). */
  readonly changedSince: ChangedSince[];
}

/**
 * A stack during the replay; `content` identifies members and primary, whatever the id. It
 * names only the members `GET /stacks` lists: those the journal marks as in the trash or hidden
 * are members all the same, but no listing of the stacks now shows them.
 */
interface SimStack {
  readonly id: string | undefined;
  readonly primary: string;
  readonly members: readonly string[];
  readonly content: string;
}

/** Makes the replay's stacks, their contents without the members no listing shows. */
function simStacks(unlisted: ReadonlySet<string>) {
  return (id: string | undefined, primary: string, members: Iterable<string>): SimStack => {
    const unique = [...new Set([primary, ...members])];
    const sorted = unique.slice(1).filter((member) => !unlisted.has(member)).sort();
    return { id, primary, members: unique, content: `${primary}|${sorted.join(",")}` };
  };
}

type SimStackOf = ReturnType<typeof simStacks>;

/** The replay: which stack each asset is in, by asset and by stack id. */
class Replay {
  readonly #byAsset = new Map<string, SimStack>();
  readonly #byId = new Map<string, SimStack>();
  /** Every content each touched asset had; "" is no stack. */
  readonly seen: Map<string, string[]>;
  /** Whether a write's starting point counts as seen, or only what the writes made. */
  readonly #recordBefore: boolean;
  readonly #simStack: SimStackOf;

  /**
   * @param stacks The stacks the writes started from.
   * @param seen Where the contents go (shared between replays).
   * @param options `recordBefore`: count the stacks the writes start from as seen too: yes for
   *   the run (they are the stacks of before), no for an earlier undo (it may have left alone
   *   stacks that had changed, which must not become acceptable through it); `simStack`: how
   *   the stacks the writes make are made.
   */
  constructor(
    stacks: Iterable<SimStack>,
    seen: Map<string, string[]>,
    options: { readonly recordBefore: boolean; readonly simStack: SimStackOf },
  ) {
    for (const stack of stacks) this.#add(stack);
    this.seen = seen;
    this.#recordBefore = options.recordBefore;
    this.#simStack = options.simStack;
  }

  contentOf(assetId: string): string {
    return this.#byAsset.get(assetId)?.content ?? "";
  }

  stackOf(assetId: string): SimStack | undefined {
    return this.#byAsset.get(assetId);
  }

  /**
   * Replays one write. Returns the assets whose stack changed, or may have: with an unknown or
   * failed outcome the change is recorded as possible (kept for an unknown outcome, the last
   * write of a killed run, and not for a failed one, which most likely did not happen).
   */
  apply(write: RecordedWrite): string[] {
    const change = this.#change(write);
    if (change === undefined) return [];
    const affected = new Set<string>();
    for (const stack of change.removed) for (const id of stack.members) affected.add(id);
    for (const stack of change.added) for (const id of stack.members) affected.add(id);
    if (this.#recordBefore) { for (const id of affected) this.#see(id, this.contentOf(id)); }
    const before = new Map([...affected].map((id) => [id, this.contentOf(id)]));
    this.#commit(change);
    const changed = [...affected].filter((id) => this.contentOf(id) !== before.get(id));
    for (const id of changed) this.#see(id, this.contentOf(id));
    if (write.outcome.status === "failed") this.#commit(undoOf(change));
    return changed;
  }

  #see(assetId: string, content: string): void {
    const list = this.seen.get(assetId);
    if (list === undefined) this.seen.set(assetId, [content]);
    else if (!list.includes(content)) list.push(content);
  }

  /** The stacks a write removes and adds, by Immich's rules, or undefined if it changes none. */
  #change(write: RecordedWrite): Change | undefined {
    const { intent, outcome } = write;
    const answer = outcome.status === "done" ? outcome.stack : undefined;
    switch (intent.op) {
      // Immich keeps a trashed photo in its stack: the trash changes no stack.
      case "trash":
      case "restore":
        return undefined;
      case "delete": {
        const stack = this.#byId.get(intent.stackId);
        return stack === undefined ? undefined : { removed: [stack], added: [] };
      }
      case "update-primary": {
        const stack = this.#byId.get(intent.stackId);
        if (stack === undefined) return undefined;
        const members = answer?.assetIds ?? stack.members;
        return {
          removed: [stack],
          added: [this.#simStack(stack.id, intent.primaryAssetId, members)],
        };
      }
      case "create": {
        // Immich: a listed primary brings its whole stack; other listed members move out of
        // theirs, which keep the rest.
        const listed = new Set(intent.assetIds);
        const olds = new Set<SimStack>();
        for (const id of listed) {
          const old = this.#byAsset.get(id);
          if (old !== undefined) olds.add(old);
        }
        const members = new Set(listed);
        for (const old of olds) {
          if (listed.has(old.primary)) { for (const id of old.members) members.add(id); }
        }
        for (const id of answer?.assetIds ?? []) members.add(id);
        const created = this.#simStack(
          answer?.id,
          answer?.primaryAssetId ?? intent.assetIds[0],
          members,
        );
        const added = [created];
        for (const old of olds) {
          if (listed.has(old.primary)) continue;
          const rest = old.members.filter((id) => !members.has(id));
          added.push(this.#simStack(old.id, old.primary, rest));
        }
        return { removed: [...olds], added };
      }
    }
  }

  #commit(change: Change): void {
    for (const stack of change.removed) {
      for (const id of stack.members) {
        if (this.#byAsset.get(id) === stack) this.#byAsset.delete(id);
      }
      if (stack.id !== undefined && this.#byId.get(stack.id) === stack) this.#byId.delete(stack.id);
    }
    for (const stack of change.added) this.#add(stack);
  }

  #add(stack: SimStack): void {
    for (const id of stack.members) this.#byAsset.set(id, stack);
    if (stack.id !== undefined) this.#byId.set(stack.id, stack);
  }
}

interface Change {
  readonly removed: readonly SimStack[];
  readonly added: readonly SimStack[];
}

function undoOf(change: Change): Change {
  return { removed: change.added, added: change.removed };
}

/**
 * Everything in a stack that changed after the run stays as it is now: the assets to leave, and
 * the stacks (or the unstacked assets) to name as changed since.
 */
function leaveDrifted(
  drifted: readonly string[],
  now: Replay,
): { left: Set<string>; changedSince: ChangedSince[] } {
  const left = new Set<string>();
  const changedSince: ChangedSince[] = [];
  const reported = new Set<SimStack>();
  const unstacked: string[] = [];
  for (const id of drifted) {
    const stack = now.stackOf(id);
    if (stack === undefined) {
      unstacked.push(id);
      left.add(id);
      continue;
    }
    if (reported.has(stack)) continue;
    reported.add(stack);
    for (const member of stack.members) left.add(member);
    changedSince.push({
      ...(stack.id === undefined ? {} : { stackId: stack.id }),
      assetIds: stack.members,
    });
  }
  if (unstacked.length > 0) changedSince.push({ assetIds: unstacked });
  return { left, changedSince };
}

/**
 * Computes what an undo plans: the stacks of before to put back, the assets whose other stacks
 * go, and what changed after the run.
 *
 * @param input The run's journal, earlier undos of it, the stacks now, and `--force`.
 * @returns The groups and scope for `planStacks`, and the changes left alone.
 *
 * @example A stack the run created goes; the stack it grew comes back
 * ```ts
 * import assert from "node:assert/strict";
 * import { undoTargets } from "./targets.ts";
 *
 * const targets = undoTargets({
 *   before: [{ id: "s1", primaryAssetId: "a", assets: [{ id: "a" }, { id: "b" }] }],
 *   writes: [
 *     { seq: 1, intent: { op: "create", assetIds: ["a", "b", "c"] },
 *       outcome: { status: "done", stack: { id: "s2", primaryAssetId: "a", assetIds: ["a", "b", "c"] } } },
 *     { seq: 2, intent: { op: "create", assetIds: ["x", "y"] },
 *       outcome: { status: "done", stack: { id: "s3", primaryAssetId: "x", assetIds: ["x", "y"] } } },
 *   ],
 *   earlierUndos: [],
 *   current: [
 *     { id: "s2", primaryAssetId: "a", assetIds: ["a", "b", "c"] },
 *     { id: "s3", primaryAssetId: "x", assetIds: ["x", "y"] },
 *   ],
 *   force: false,
 * });
 * assert.deepEqual(targets.groups.map((g) => [g.key, g.assets.map((a) => a.id)]), [["s1", ["a", "b"]]]);
 * assert.deepEqual([...targets.scope].sort(), ["a", "b", "c", "x", "y"]);
 * assert.deepEqual(targets.changedSince, []);
 * ```
 */
export function undoTargets(input: UndoInput): UndoTargets {
  // Compared with what GET /stacks lists, a stack's content leaves out the members the journals
  // mark as in the trash or hidden (a trashed primary stays the primary, as GET /stacks still
  // names it); they are members all the same, and put back with their stack.
  const unlisted = new Set<string>();
  for (const stacks of [input.before, ...input.earlierUndos.map((undo) => undo.before)]) {
    for (const stack of stacks) {
      for (const asset of stack.assets) if (asset.trashed || asset.hidden) unlisted.add(asset.id);
    }
  }
  const simStack = simStacks(unlisted);
  const fromRecorded = (stack: RecordedStack) =>
    simStack(stack.id, stack.primaryAssetId, stack.assets.map((asset) => asset.id));
  const before = input.before;
  const seen = new Map<string, string[]>();
  const replay = new Replay(before.map(fromRecorded), seen, { recordBefore: true, simStack });
  const changed = new Set<string>();
  for (const write of input.writes) for (const id of replay.apply(write)) changed.add(id);
  for (const undo of input.earlierUndos) {
    const again = new Replay(undo.before.map(fromRecorded), seen, {
      recordBefore: false,
      simStack,
    });
    for (const write of undo.writes) again.apply(write);
  }

  const beforeOf = new Map<string, RecordedStack>();
  for (const stack of before) for (const asset of stack.assets) beforeOf.set(asset.id, stack);
  const targets = new Set<RecordedStack>();
  for (const id of changed) {
    const stack = beforeOf.get(id);
    if (stack !== undefined) targets.add(stack);
  }

  const now = new Replay(
    input.current.map((stack) => simStack(stack.id, stack.primaryAssetId, stack.assetIds)),
    new Map(),
    { recordBefore: false, simStack },
  );
  // An asset may be as it was before the run, or as any of the recorded writes left it.
  const acceptable = (id: string) => {
    const stack = beforeOf.get(id);
    return [stack === undefined ? "" : fromRecorded(stack).content, ...seen.get(id) ?? []];
  };
  const checked = new Set(changed);
  for (const stack of targets) for (const asset of stack.assets) checked.add(asset.id);
  // No listing shows where a member in the trash or hidden is now: only its stack tells.
  for (const id of unlisted) checked.delete(id);
  const drifted = input.force
    ? []
    : [...checked].filter((id) => !acceptable(id).includes(now.contentOf(id)));

  const { left, changedSince } = leaveDrifted(drifted, now);

  const groups: PlanGroup[] = [];
  for (const stack of targets) {
    if (stack.assets.some((asset) => left.has(asset.id))) continue;
    groups.push({
      key: stack.id,
      assets: stack.assets.map((asset) => ({
        id: asset.id,
        originalFileName: asset.originalFileName ?? asset.id,
      })),
    });
  }
  return {
    groups,
    scope: new Set([...changed].filter((id) => !left.has(id))),
    changedSince,
  };
}

/** A move an undo makes to put back what a run did to the trash. */
export interface TrashMove {
  /** `restore` what the run moved to the trash; `trash` again what it restored. */
  readonly kind: "restore" | "trash";
  /** The photos, as the run's write listed them. */
  readonly assetIds: readonly string[];
}

/**
 * The moves that put back what a run did to the trash: each photo goes back to where it was
 * before the run's first move of it, in moves grouped as the run's writes were. A write that
 * failed or whose outcome is unknown counts too: moving a photo where it already is changes
 * nothing, and the caller leaves out the photos that are no longer where the run left them.
 *
 * @param writes The run's writes, in order.
 * @returns The moves, in the order of the run's writes.
 *
 * @example A photo the run moved to the trash comes back
 * ```ts
 * import assert from "node:assert/strict";
 * import { trashMoves } from "./targets.ts";
 *
 * const moves = trashMoves([
 *   { seq: 1, intent: { op: "trash", assetIds: ["a", "b"] }, outcome: { status: "done" } },
 *   { seq: 2, intent: { op: "delete", stackId: "s" }, outcome: { status: "done" } },
 * ]);
 * assert.deepEqual(moves, [{ kind: "restore", assetIds: ["a", "b"] }]);
 * ```
 */
export function trashMoves(writes: readonly RecordedWrite[]): TrashMove[] {
  const first = new Map<string, "trash" | "restore">();
  for (const { intent } of writes) {
    if (intent.op !== "trash" && intent.op !== "restore") continue;
    for (const id of intent.assetIds) if (!first.has(id)) first.set(id, intent.op);
  }
  const moves: TrashMove[] = [];
  const placed = new Set<string>();
  for (const { intent } of writes) {
    if (intent.op !== "trash" && intent.op !== "restore") continue;
    const kind = intent.op === "trash" ? "restore" : "trash";
    const assetIds = intent.assetIds.filter((id) => !placed.has(id) && first.get(id) === intent.op);
    for (const id of assetIds) placed.add(id);
    if (assetIds.length > 0) moves.push({ kind, assetIds });
  }
  return moves;
}
