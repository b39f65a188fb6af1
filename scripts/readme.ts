/**
 * Regenerates what is derived from the declarations in src/config.ts: the settings table of
 * docs/settings.md, and src/help_text.json, the `--help` texts that `--help` prints without loading the
 * settings' schemas (docs/architecture.md, "Start-up"). Run it with `deno task readme`;
 * tests/readme_test.ts fails while either is out of date.
 *
 * @module
 */
import { COMMANDS, helpText, settingsTable } from "../src/config.ts";

/** The page that holds the generated settings table. */
export const SETTINGS_PAGE = "docs/settings.md";

/** The comment that opens the generated table in {@linkcode SETTINGS_PAGE}. */
export const TABLE_BEGIN =
  "<!-- settings:begin (generated from src/config.ts by `deno task readme`) -->";
/** The comment that closes the generated table in {@linkcode SETTINGS_PAGE}. */
export const TABLE_END = "<!-- settings:end -->";

/**
 * Puts the current settings table between the markers of a page.
 *
 * @param readme The page's text, holding {@linkcode TABLE_BEGIN} and {@linkcode TABLE_END}.
 * @returns The page with the table between the markers replaced.
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
      `Cannot find the settings table markers in ${SETTINGS_PAGE}: expected ${TABLE_BEGIN} then ` +
        TABLE_END,
    );
  }
  return `${readme.slice(0, begin + TABLE_BEGIN.length)}\n\n${settingsTable()}\n\n` +
    readme.slice(end);
}

/**
 * The text of src/help_text.json: {@linkcode helpText} of no command (key `""`) and of each
 * command, by name.
 *
 * @returns The JSON text, formatted as `deno fmt` leaves it.
 *
 * @example Usage
 * ```ts
 * import { helpTexts } from "./readme.ts";
 * import { helpText } from "../src/config.ts";
 * import assert from "node:assert/strict";
 *
 * const texts = JSON.parse(helpTexts());
 * assert.equal(texts[""], helpText());
 * assert.equal(texts.undo, helpText("undo"));
 * ```
 */
export function helpTexts(): string {
  const texts: Record<string, string> = { "": helpText() };
  for (const name of Object.keys(COMMANDS) as (keyof typeof COMMANDS)[]) {
    texts[name] = helpText(name);
  }
  return `${JSON.stringify(texts, null, 2)}\n`;
}

/** Writes a derived file again when its text has changed; a missing one is made. */
async function regenerate(file: string, derive: (current: string) => string): Promise<void> {
  const path = new URL(`../${file}`, import.meta.url);
  const current = await Deno.readTextFile(path).catch((error) => {
    if (error instanceof Deno.errors.NotFound) return "";
    throw error;
  });
  const updated = derive(current);
  if (updated !== current) await Deno.writeTextFile(path, updated);
  console.log(updated === current ? `${file} is up to date` : `${file} updated`);
}

if (import.meta.main) {
  await regenerate(SETTINGS_PAGE, withSettingsTable);
  await regenerate("src/help_text.json", helpTexts);
}
