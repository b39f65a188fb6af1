/**
 * Readers of the loose values in Immich's answers, shared by the parts of the client.
 *
 * @module
 */

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
