/**
 * The `--help` text, generated from the commands, their options and the settings.
 *
 * @module
 */
import { HELP_COMMAND } from "../command_line.ts";
import { COMMAND_NAMES, type CommandDeclaration, type CommandName, COMMANDS } from "./commands.ts";
import type { SettingDeclaration } from "./declaration.ts";
import { type OptionDeclaration, OPTIONS, optionsOf } from "./options.ts";
import { SETTINGS, settingsOf } from "./settings.ts";

/** An option's help for one command, or for all of them (`undo: …; restore: …`). */
export function optionHelp(declaration: OptionDeclaration, command?: CommandName): string {
  const { help } = declaration;
  if (typeof help === "string") return help;
  if (command !== undefined) return help[command] ?? "";
  return Object.entries(help).map(([name, text]) => `${name}: ${text}`).join("; ");
}

/** The `--help` lines of one flag: the flag, then its variable (if any), help and default. */
function flagLines(flag: string, kind: "switch" | string, help: string): string[] {
  const shown = kind === "switch" ? `--${flag}` : `--${flag} <${kind}>`;
  return [`  ${shown}`, `      ${help}`];
}

function settingFlag(declaration: SettingDeclaration<unknown>): string {
  return declaration.switch
    ? `--${declaration.flag}, --no-${declaration.flag}`
    : `--${declaration.flag} <value>`;
}

/**
 * The `--help` text, generated from {@linkcode COMMANDS}, {@linkcode OPTIONS} and
 * {@linkcode SETTINGS}: without a command, the list of commands and the options of `run`;
 * with one, that command's usage and only the flags and variables it reads.
 *
 * @param command The command asked about (`stacksync undo --help`), if any.
 * @returns The text `--help` prints.
 *
 * @example Usage
 * ```ts
 * import { helpText } from "../config.ts";
 * import assert from "node:assert/strict";
 *
 * assert.ok(helpText().includes("      RUN_MODE: "));
 * assert.ok(helpText().includes("  --dry-run, --no-dry-run"));
 * assert.ok(helpText("undo").includes("Usage: stacksync undo [RUN_ID] [options]"));
 * assert.ok(!helpText("undo").includes("CRITERIA"));
 * ```
 */
export function helpText(command?: CommandName): string {
  const shown = command ?? "run";
  const declared = COMMANDS[shown] as CommandDeclaration;
  const operand = declared.operand === undefined
    ? ""
    : declared.operand.required
    ? ` ${declared.operand.name}`
    : ` [${declared.operand.name}]`;
  const lines = command === undefined
    ? [
      "stacksync: keep Immich stacks in line with grouping rules",
      "",
      "Usage: stacksync [command] [options]",
      "",
      "Commands:",
      ...commandLines(),
      "",
      "Without a command stacksync runs `run`. `stacksync help <command>` lists what a " +
      "command reads. Options may come before or after the command.",
      "",
    ]
    : [`stacksync ${command}: ${declared.summary}`, ""];
  if (command !== undefined) lines.push(`Usage: stacksync ${command}${operand} [options]`, "");
  lines.push(
    "Every setting can also be set by its environment variable or in an env file.",
    "Precedence: flag > environment > env file > default.",
    "",
    `Options${command === undefined ? " of run" : ""}:`,
  );
  for (const key of optionsOf(shown)) {
    const declaration: OptionDeclaration = OPTIONS[key];
    lines.push(
      ...flagLines(declaration.flag, declaration.value ?? "switch", optionHelp(declaration, shown)),
    );
  }
  for (const key of settingsOf(shown)) {
    const declaration: SettingDeclaration<unknown> = SETTINGS[key];
    const fallback = declaration.default === undefined ? "" : ` [default: ${declaration.default}]`;
    lines.push(
      `  ${settingFlag(declaration)}`,
      `      ${declaration.env}: ${declaration.help}${fallback}`,
    );
  }
  lines.push("  -h, --help", "      Show this help", "  --version", "      Show the version");
  return lines.join("\n");
}

/** The list of commands in the general help: names in a column wide enough for the longest. */
function commandLines(): string[] {
  const rows: [string, string][] = [
    ...COMMAND_NAMES.map((name): [string, string] => [name, COMMANDS[name].summary]),
    [`${HELP_COMMAND} [command]`, "Show this help, or what a command reads"],
  ];
  const width = Math.max(...rows.map(([name]) => name.length)) + 2;
  return rows.map(([name, summary]) => `  ${name.padEnd(width)}${summary}`);
}
