/**
 * Puts back what a component that could not finish changed: the stacks it created are deleted
 * again, the stacks it deleted created again as they were.
 *
 * @module
 */
import { isAccessDenied } from "../api/errors.ts";
import type { LostStack, RestoredStack, Rollback } from "../model.ts";
import { errorText } from "./action_lines.ts";
import type { ApplyState } from "./apply_state.ts";

/**
 * Deletes the stacks a component created, then re-creates the stacks it had deleted, members
 * listed cover first, leaving out members in the trash (Immich would drop them).
 */
export async function putBack(
  state: ApplyState,
  { deleted, created }: { deleted: readonly string[]; created: readonly string[] },
): Promise<Rollback> {
  const restored: RestoredStack[] = [];
  const lost: LostStack[] = [];
  const survivors: string[] = [];
  for (const id of created) {
    await state.pace();
    try {
      await state.writer.deleteStack(id);
      state.logger.info("Deleted stack {stackID} again: its replace could not finish", {
        stackID: id,
      });
    } catch (error) {
      if (isAccessDenied(error)) state.denied = errorText(error);
      survivors.push(id);
      state.logger.error("Failed to delete stack {stackID} again", {
        stackID: id,
        error: errorText(error),
      });
    }
  }
  for (const id of deleted) {
    const previous = state.previous.get(id)!;
    const trashed = new Set(previous.trashedAssetIds);
    const listed = previous.assetIds.filter((assetId) => !trashed.has(assetId));
    const lose = (error: string) => {
      lost.push({ from: id, assetIds: previous.assetIds, error });
      state.logLost(id, error);
    };
    if (state.denied !== undefined) {
      lose(state.denied);
      continue;
    }
    if (survivors.length > 0) {
      lose(`stacks ${survivors.join(", ")} made by the replace could not be deleted again`);
      continue;
    }
    if (previous.assetIds.length < 2) {
      // Immich shows a 1-asset stack as no stack: there is nothing to put back.
      state.logger.info("Did not put back stack {stackID}: it held one asset", { stackID: id });
      continue;
    }
    if (listed.length < 2) {
      lose("fewer than 2 of its members are outside the trash, and no create can list those");
      continue;
    }
    await state.pace();
    const result = await state.create(undefined, listed);
    if (!result.done) {
      lose(result.error);
      continue;
    }
    for (const assetId of previous.assetIds) state.stillStacked.set(assetId, result.id);
    const leftOut = previous.trashedAssetIds;
    restored.push({ from: id, to: result.id, leftOut });
    state.logger.warn(
      leftOut.length > 0
        ? "Put back stack {stackID} as stack {newStackID} without {trashed} members in the trash"
        : "Put back stack {stackID} as stack {newStackID}",
      {
        stackID: id,
        newStackID: result.id,
        assetID: listed[0],
        assets: listed.length,
        trashed: leftOut.length,
      },
    );
  }
  return { restored, lost };
}
