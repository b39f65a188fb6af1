/**
 * Plain-text tables for commands that print data (`runs`, `duplicates`).
 *
 * @module
 */

/**
 * Lays rows out in columns two spaces apart, without trailing blanks; the first row is the
 * header.
 *
 * @param rows The rows, all of the same length.
 * @returns One line per row.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { columns } from "./_table.ts";
 *
 * assert.deepEqual(columns([["ID", "NAME"], ["1", "Ada"]]), ["ID  NAME", "1   Ada"]);
 * ```
 */
export function columns(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows.map((row) =>
    row.map((cell, column) => cell.padEnd(widths[column])).join("  ").trimEnd()
  );
}
