/**
 * Regenerates the settings table in README.md from the declarations in src/config.ts. Run it
 * with `deno task readme`; tests/readme_test.ts fails while the README is out of date.
 *
 * @module
 */
import { settingsTable } from "../src/config.ts";

/** The comment that opens the generated table in README.md. */
export const TABLE_BEGIN =
  "<!-- settings:begin (generated from src/config.ts by `deno task readme`) -->";
/** The comment that closes the generated table in README.md. */
export const TABLE_END = "<!-- settings:end -->";

/**
 * Puts the current settings table between the markers of a README.
 *
 * @param readme The README text, holding {@linkcode TABLE_BEGIN} and {@linkcode TABLE_END}.
 * @returns The README with the table between the markers replaced.
 * @throws {SyntaxError} When the markers are missing or out of order.
 *
 * @example Usage
 * ```ts
 * import { TABLE_BEGIN, TABLE_END, withSettingsTable } from "./readme.ts";
 * import { settingsTable } from "../src/config.ts";
 * import assert from "node:assert/strict";
 *
 * const readme = `# Title\n\n${TABLE_BEGIN}\nold\n${TABLE_END}\n`;
 * assert.equal(
 *   withSettingsTable(readme),
 *   `# Title\n\n${TABLE_BEGIN}\n\n${settingsTable()}\n\n${TABLE_END}\n`,
 * );
 * ```
 */
export function withSettingsTable(readme: string): string {
  const begin = readme.indexOf(TABLE_BEGIN);
  const end = readme.indexOf(TABLE_END);
  if (begin < 0 || end < begin) {
    throw new SyntaxError(
      `Cannot find the settings table markers in the README: expected ${TABLE_BEGIN} then ` +
        TABLE_END,
    );
  }
  return `${readme.slice(0, begin + TABLE_BEGIN.length)}\n\n${settingsTable()}\n\n` +
    readme.slice(end);
}

if (import.meta.main) {
  const path = new URL("../README.md", import.meta.url);
  const readme = await Deno.readTextFile(path);
  const updated = withSettingsTable(readme);
  if (updated !== readme) await Deno.writeTextFile(path, updated);
  console.log(updated === readme ? "README.md is up to date" : "README.md updated");
}
