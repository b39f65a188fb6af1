/**
 * Readers of the loose values in Immich's answers, shared by the parts of the client.
 *
 * @module
 */
import { z } from "zod";
import { isImmichId } from "../immich_id.ts";
import { InvalidResponseError } from "./errors.ts";

/**
 * An id in an answer: a UUID, as Immich makes them. Ids become file names (journals) and paths
 * (`/stacks/{id}`), so an answer with any other id is refused and the user skipped (docs/safety.md,
 * "Ids from the server").
 */
export const immichId = z.string().refine(isImmichId, { message: "is not an Immich id (a UUID)" });

/**
 * The id of a search item: undefined when it has none (the item is skipped as it always was),
 * else an Immich id.
 *
 * @param record The item.
 * @returns The id, or undefined.
 * @throws {InvalidResponseError} For an id that is not an Immich id: the user is skipped.
 */
export function searchItemId(record: Record<string, unknown>): string | undefined {
  const { id } = record;
  if (typeof id !== "string") return undefined;
  if (isImmichId(id)) return id;
  throw new InvalidResponseError(
    "Cannot use the answer of POST /search/metadata as an asset's id is not an Immich id (a " +
      `UUID): current value is ${JSON.stringify(id.slice(0, 100))}`,
    { method: "POST", path: "/search/metadata", status: 200, serverMessage: "", attempt: 1 },
  );
}

/**
 * An Immich time in ms since the epoch, fractions beyond the millisecond cut (search answers
 * show milliseconds, write answers microseconds: both give the same number); -1 when unreadable.
 */
export function timeMs(value: unknown): number {
  const ms = typeof value === "string" ? Date.parse(value) : NaN;
  return Number.isNaN(ms) ? -1 : ms;
}

/** A search item's fields, or none when the server sent something else than an object. */
export function asRecord(item: unknown): Record<string, unknown> {
  return (typeof item === "object" && item !== null ? item : {}) as Record<string, unknown>;
}
