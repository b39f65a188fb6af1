/**
 * What the plan file, the review page and `apply`'s log lines say about actions, in words.
 * Pure: no I/O.
 *
 * @module
 */
import type { Action, AssetLabel, NeedsReplace } from "../model.ts";
import type { PlanAction } from "./format.ts";
import { plural } from "../reconcile/render.ts";

/**
 * File names for a sentence: the first `max`, then how many more.
 *
 * @param labels The photos.
 * @param max How many names to show.
 * @returns E.g. `a.jpg, b.dng and 2 more`.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { names } from "./words.ts";
 *
 * const labels = ["a.jpg", "b.dng", "c.jpg"].map((name) => ({ id: name, originalFileName: name }));
 * assert.equal(names(labels, 2), "a.jpg, b.dng and 1 more");
 * assert.equal(names(labels.slice(0, 2)), "a.jpg and b.dng");
 * ```
 */
export function names(labels: readonly Pick<AssetLabel, "originalFileName">[], max = 3): string {
  const shown = labels.slice(0, max).map((label) => label.originalFileName);
  const more = labels.length - shown.length;
  if (more > 0) return `${shown.join(", ")} and ${more} more`;
  return shown.length < 2 ? shown.join("") : `${shown.slice(0, -1).join(", ")} and ${shown.at(-1)}`;
}

/**
 * Why an action or a conflict left alone is planned, as a sentence for people; the reason code
 * says the same for machines.
 *
 * @param entry An action of a plan, or a conflict left alone.
 * @returns The sentence.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { reasonText } from "./words.ts";
 *
 * const assets = [{ id: "a", originalFileName: "A.jpg" }, { id: "b", originalFileName: "A.dng" }];
 * assert.equal(
 *   reasonText({ kind: "create", assetIds: ["a", "b"], reason: "new-group", context: { assets } }),
 *   "These 2 photos form a group and none of them is in a stack",
 * );
 * ```
 */
export function reasonText(entry: Action | NeedsReplace): string {
  const { context } = entry;
  const kind = "kind" in entry ? entry.kind : "needs-replace";
  switch (entry.reason) {
    case "new-group":
      return `These ${
        plural(context.assets.length, "photo")
      } form a group and none of them is in a stack`;
    case "reset":
      return kind === "delete"
        ? "RESET_STACKS deletes every stack before it makes the groups again"
        : "RESET_STACKS makes every group again";
    case "group-grew": {
      const added = context.added ?? [];
      return `${names(added)} ${added.length === 1 ? "belongs" : "belong"} to the group of ` +
        "this stack";
    }
    case "primary-changed":
      return `${context.assets[0]?.originalFileName} should be the cover, not ` +
        (context.previousPrimary?.originalFileName ?? "the present one");
    case "member-outside-group": {
      const outside = context.removed ?? [];
      return outside.length === 0
        ? "The stack holds photos outside the group"
        : `The stack holds ${names(outside)}, which ${
          outside.length === 1 ? "is" : "are"
        } outside the group`;
    }
    case "group-spans-stacks": {
      const stacks = "stackIds" in entry ? entry.stackIds.length : 2;
      return `The photos of the group are in ${stacks} stacks`;
    }
    case "member-in-trash":
      return "The stack holds a photo in the trash, which adding photos to it would drop";
    case "single-asset-stack":
      return "The stack holds a single photo (REMOVE_SINGLE_ASSET_STACKS)";
    case "not-in-target":
      return "No wanted stack keeps it";
  }
}

/**
 * What an action of a plan file does, for log lines: `create a stack of 3 photos, cover
 * IMG_1.jpg`, `delete stack <id> (cover IMG_1.jpg)`.
 *
 * @param action The action.
 * @returns The words.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { describeAction } from "./words.ts";
 *
 * const action = {
 *   id: "x", kind: "update-primary", reason: { code: "primary-changed", text: "" },
 *   assets: [{ id: "a", originalFileName: "A.jpg" }, { id: "b", originalFileName: "A.dng" }],
 *   stacks: [{ id: "s1", primaryAssetId: "b", assets: [] }],
 * } as const;
 * assert.equal(describeAction(action), "make A.jpg the cover of stack s1");
 * ```
 */
export function describeAction(action: PlanAction): string {
  const cover = action.assets[0]?.originalFileName;
  const stack = action.stacks[0]?.id;
  switch (action.kind) {
    case "create":
      return `create a stack of ${plural(action.assets.length, "photo")}, cover ${cover}`;
    case "grow":
      return `add ${plural(action.added?.length ?? 0, "photo")} to stack ${stack} (cover ${cover})`;
    case "update-primary":
      return `make ${cover} the cover of stack ${stack}`;
    case "replace":
      return `replace stack ${action.stacks.map((s) => s.id).join(", ")} with a stack of ` +
        `${plural(action.assets.length, "photo")}, cover ${cover}`;
    case "delete":
      return `delete stack ${stack} (cover ${cover})`;
  }
}
