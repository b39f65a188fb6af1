/**
 * Synchronous writes that do not stop half-way, for output, logs and state files; a module of
 * its own so that `--version` and `--help` write without loading logging.
 *
 * @module
 */

const encoder = new TextEncoder();

/**
 * Writes all of a text or bytes to a file or stream synchronously: `writeSync` may write only
 * part of a buffer (pipes), so it loops until all of it is out.
 *
 * @param target Where to write, e.g. `Deno.stdout` or an open file.
 * @param data The text (UTF-8 encoded) or bytes.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { writeAll } from "./write_all.ts";
 *
 * const chunks: string[] = [];
 * const pipe = { // takes at most 2 bytes per write
 *   writeSync(bytes: Uint8Array) {
 *     chunks.push(new TextDecoder().decode(bytes.subarray(0, 2)));
 *     return Math.min(2, bytes.length);
 *   },
 * };
 * writeAll(pipe, "abcde");
 * assert.deepEqual(chunks, ["ab", "cd", "e"]);
 * ```
 */
export function writeAll(
  target: { writeSync(bytes: Uint8Array): number },
  data: string | Uint8Array,
): void {
  let bytes = typeof data === "string" ? encoder.encode(data) : data;
  while (bytes.length > 0) bytes = bytes.subarray(target.writeSync(bytes));
}
