/**
 * Which conflicts a pass names (docs/architecture.md, "Conflicts named once"): a stack left as
 * it is for want of REPLACE_STACKS is named at info the first time a pass finds it, and again
 * only when its reason changes; every other pass counts it. Pure: the caller keeps what was
 * named (`src/state/named.ts`).
 *
 * @module
 */
import type { NeedsReplace } from "../model.ts";

/** The conflicts named so far: each one's stacks (`conflictKey`) and the reason it was named with. */
export type NamedConflicts = ReadonlyMap<string, NeedsReplace["reason"]>;

/** How a pass logs the conflicts of its plan. */
export interface ConflictNaming {
  /** Named at info: new, or with another reason than when last named. */
  readonly name: readonly NeedsReplace[];
  /** Named before with the same reason: at debug, and counted at info. */
  readonly known: readonly NeedsReplace[];
}

/**
 * The key of a conflict: its stacks, sorted.
 *
 * @param entry The conflict.
 * @returns The key.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { conflictKey } from "./left_alone.ts";
 *
 * const context = { assets: [] };
 * assert.equal(
 *   conflictKey({ stackIds: ["s2", "s1"], assetIds: [], reason: "group-spans-stacks", context }),
 *   "s1,s2",
 * );
 * ```
 */
export function conflictKey(entry: NeedsReplace): string {
  return [...entry.stackIds].sort().join(",");
}

/**
 * Splits a plan's conflicts into those to name and those named before.
 *
 * @param conflicts The plan's `needsReplace`.
 * @param named What was named before (empty when nothing is remembered).
 * @returns The split.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { nameConflicts, namedAfter } from "./left_alone.ts";
 *
 * const context = { assets: [] };
 * const a = { stackIds: ["a"], assetIds: [], reason: "member-outside-group", context } as const;
 * const b = { stackIds: ["b"], assetIds: [], reason: "member-in-trash", context } as const;
 * const first = nameConflicts([a, b], new Map());
 * assert.equal(first.name.length, 2);
 * const second = nameConflicts(
 *   [a, { ...b, reason: "member-outside-group" }],
 *   namedAfter([a, b]),
 * );
 * assert.deepEqual(second.known, [a]);
 * assert.deepEqual(second.name.map((entry) => entry.stackIds), [["b"]]);
 * ```
 */
export function nameConflicts(
  conflicts: readonly NeedsReplace[],
  named: NamedConflicts,
): ConflictNaming {
  const name: NeedsReplace[] = [];
  const known: NeedsReplace[] = [];
  for (const entry of conflicts) {
    (named.get(conflictKey(entry)) === entry.reason ? known : name).push(entry);
  }
  return { name, known };
}

/**
 * What is named once a pass has logged its conflicts: exactly those, so that one that goes
 * away and comes back is named again.
 *
 * @param conflicts The plan's `needsReplace`.
 * @returns Each conflict's key and reason.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { namedAfter } from "./left_alone.ts";
 *
 * const context = { assets: [] };
 * const entry = { stackIds: ["a"], assetIds: [], reason: "member-in-trash", context } as const;
 * assert.deepEqual([...namedAfter([entry])], [["a", "member-in-trash"]]);
 * ```
 */
export function namedAfter(conflicts: readonly NeedsReplace[]): NamedConflicts {
  return new Map(conflicts.map((entry) => [conflictKey(entry), entry.reason]));
}
