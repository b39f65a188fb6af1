/**
 * The README's settings table, generated from the settings and the commands' own flags.
 *
 * @module
 */
import { COMMAND_NAMES, type CommandName } from "./commands.ts";
import type { SettingDeclaration } from "./declaration.ts";
import { optionHelp } from "./help.ts";
import { OPTION_KEYS, type OptionDeclaration, OPTIONS } from "./options.ts";
import { KEYS, SETTINGS } from "./settings.ts";

/** The commands cell of the README table: `all`, or the names. */
function commandsCell(commands: readonly CommandName[]): string {
  return commands.length === COMMAND_NAMES.length ? "all" : commands.join(", ");
}

/**
 * The README's settings table as Markdown, generated from {@linkcode SETTINGS} and
 * {@linkcode OPTIONS} and padded the way `deno fmt` lays out tables, so the README can hold it
 * verbatim. The commands' own flags come last, without a variable.
 *
 * @returns One table row per setting and flag: variable, flag, default, commands and meaning.
 *
 * @example Usage
 * ```ts
 * import { settingsTable } from "../config.ts";
 * import assert from "node:assert/strict";
 *
 * const rows = settingsTable().split("\n");
 * assert.match(rows[0], /^\| Variable +\| Flag +\| Default +\| Commands +\| Meaning +\|$/);
 * assert.ok(rows.some((row) => row.startsWith("| `RUN_MODE` ")));
 * ```
 */
export function settingsTable(): string {
  const code = (text: string) => `\`${text}\``;
  const rows = [["Variable", "Flag", "Default", "Commands", "Meaning"]];
  for (const key of KEYS) {
    const declaration: SettingDeclaration<unknown> = SETTINGS[key];
    const flag = declaration.switch
      ? `${code(`--${declaration.flag}`)}, ${code(`--no-${declaration.flag}`)}`
      : code(`--${declaration.flag}`);
    const fallback = declaration.default === undefined ? "" : code(declaration.default);
    rows.push([
      code(declaration.env),
      flag,
      fallback,
      commandsCell(declaration.commands),
      declaration.help,
    ]);
  }
  for (const key of OPTION_KEYS) {
    const declaration: OptionDeclaration = OPTIONS[key];
    const flag = code(
      declaration.value === undefined
        ? `--${declaration.flag}`
        : `--${declaration.flag} ${declaration.value}`,
    );
    rows.push(["", flag, "", commandsCell(declaration.commands), optionHelp(declaration)]);
  }
  const cells = rows.map((row) => row.map((cell) => cell.replaceAll("|", "\\|")));
  const widths = cells[0].map((_, column) =>
    Math.max(3, ...cells.map((row) => row[column].length))
  );
  const line = (row: string[]) =>
    `| ${row.map((cell, column) => cell.padEnd(widths[column])).join(" | ")} |`;
  return [
    line(cells[0]),
    line(widths.map((width) => "-".repeat(width))),
    ...cells.slice(1).map(line),
  ].join("\n");
}
