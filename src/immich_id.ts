/**
 * Immich's ids are UUIDs. An id from the server becomes part of a file name (a journal, a
 * picture) or of a request's path (`/stacks/{id}`), so anything else is refused where answers
 * are read: an id is data, never a path (docs/safety.md, "Ids from the server").
 *
 * @module
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether a text is an Immich id: a UUID, as Immich makes them for users, assets and stacks.
 *
 * @param text Any text from the server.
 * @returns True for a UUID.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { isImmichId } from "./immich_id.ts";
 *
 * assert.equal(isImmichId("3f0b6a52-1c7e-4d0a-9b8e-2f6d1c0a7e41"), true);
 * assert.equal(isImmichId("../../etc/cron.d/x"), false);
 * ```
 */
export function isImmichId(text: string): boolean {
  return UUID.test(text);
}
