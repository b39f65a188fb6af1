/**
 * How a full pass reads the stacks: `GET /stacks`, or through the timeline when the server fails
 * to list them (docs/incremental.md, "Huge libraries: stacks through the timeline").
 *
 * @module
 */
import type { Logger } from "@logtape/logtape";
import { TransientError } from "../api/errors.ts";
import type { ImmichClient } from "../api/immich.ts";
import type { Stack } from "../model.ts";
import { compareIds } from "./input.ts";

/**
 * Reads the stacks with `GET /stacks`, or through the timeline when the server fails to list
 * them (Immich cannot serialise about 100 000 stacks).
 *
 * @param client The user's client.
 * @param log The user's logger: the fallback is logged once, with the reason.
 * @param knownIds The ids of the assets read, each by itself: members keep these strings.
 * @returns The stacks, ordered by id.
 */
export async function readStacks(
  client: ImmichClient,
  log: Logger,
  knownIds?: ReadonlyMap<string, string>,
): Promise<Stack[]> {
  let stacks: Stack[];
  try {
    stacks = await client.listStacks(knownIds === undefined ? {} : { knownIds });
  } catch (error) {
    if (!(error instanceof TransientError) || error.status === undefined || error.status < 500) {
      throw error;
    }
    log.warn(
      "Reading the stacks through the timeline instead, one request per month and per stack, " +
        "as GET /stacks failed: {error}",
      { error: error.message },
    );
    stacks = await client.listStacksByTimeline();
  }
  return stacks.sort(compareIds);
}
