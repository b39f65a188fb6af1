/**
 * The command line: which subcommand, `help`, and the flags parsed for the command.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { closestName } from "../closest_name.ts";
import { commandPosition, HELP_COMMAND } from "../command_line.ts";
import { COMMAND_NAMES, type CommandDeclaration, type CommandName, COMMANDS } from "./commands.ts";
import type { SettingDeclaration } from "./declaration.ts";
import { ConfigError } from "./error.ts";
import { helpText } from "./help.ts";
import type { Command } from "./load.ts";
import { OPTION_KEYS, type OptionDeclaration, OPTIONS, optionsOf } from "./options.ts";
import { KEYS, SETTINGS, settingsOf } from "./settings.ts";
import { looksLikeKey } from "./shown.ts";

/** How help and errors name a command's help: `--help` for the default one. */
export function helpHint(command: CommandName, explicit: boolean): string {
  return explicit ? `stacksync ${command} --help` : "--help";
}

/** The long flags of every command that take a value: what follows one is no command. */
const VALUE_FLAGS: ReadonlySet<string> = new Set([
  ...KEYS.flatMap((key) => {
    const declaration: SettingDeclaration<unknown> = SETTINGS[key];
    return declaration.switch ? [] : [declaration.flag];
  }),
  ...OPTION_KEYS.flatMap((key) => {
    const declaration: OptionDeclaration = OPTIONS[key];
    return declaration.value === undefined ? [] : [declaration.flag];
  }),
]);

/** A word that may be shown as a mistyped command; a key never is one. */
const COMMAND_WORD = /^[a-z]{1,20}(-[a-z]{1,20})?$/;

/** The error for a word that names no command, with the command it most likely means. */
function unknownCommand(word: string, what: string): ConfigError {
  const near = closestName(word, COMMAND_NAMES);
  const advice = near === undefined
    ? `, choose one of ${COMMAND_NAMES.join(", ")}`
    : ` (did you mean ${near}?)`;
  return new ConfigError(
    `Cannot ${what} as stacksync has no such command${advice}: current value is "${word}"`,
  );
}

/**
 * Finds the subcommand: the first argument that is neither an option nor an option's value
 * (so options may come before it), else `run`.
 *
 * @throws {ConfigError} For a word where the command goes that names no command; anything
 *   else is not shown, as it may be a key typed in the wrong place.
 */
export function splitCommand(args: readonly string[]) {
  const at = commandPosition(args, VALUE_FLAGS);
  const word = args[at];
  if (word === undefined) return { command: "run" as CommandName, explicit: false, rest: args };
  if (Object.hasOwn(COMMANDS, word)) {
    const rest = [...args.slice(0, at), ...args.slice(at + 1)];
    return { command: word as CommandName, explicit: true, rest };
  }
  if (COMMAND_WORD.test(word)) throw unknownCommand(word, "run the command");
  // After options, a stray argument of `run`, which says so without showing it.
  if (at > 0) return { command: "run" as CommandName, explicit: false, rest: args };
  throw new ConfigError(
    `Cannot parse the command line: the first argument must be a command (${
      COMMAND_NAMES.join(", ")
    }) or an option; see --help`,
  );
}

/**
 * The help `stacksync help [COMMAND]` asks for, or undefined when the command is not `help`.
 *
 * @throws {ConfigError} For a COMMAND that names none, or more than one argument after it.
 */
export function helpCommand(args: readonly string[]): Command | undefined {
  const at = commandPosition(args, VALUE_FLAGS);
  if (args[at] !== HELP_COMMAND) return undefined;
  const topic = args.slice(at + 1);
  if (topic.length === 0) return { kind: "help", text: helpText() };
  const [word] = topic;
  if (topic.length === 1 && Object.hasOwn(COMMANDS, word)) {
    return { kind: "help", text: helpText(word as CommandName) };
  }
  if (topic.length === 1 && COMMAND_WORD.test(word)) throw unknownCommand(word, "show the help");
  throw new ConfigError(
    "Cannot parse the command line: help takes one COMMAND at most, as in stacksync help " +
      "undo; see --help",
  );
}

/** The first sentence of a parseArgs error (its advice about `--` does not apply here). */
function problemOf(error: unknown): string {
  return (error as Error).message.split("\n")[0].split(". To specify")[0];
}

/**
 * What parseArgs found wrong, without echoing anything that may be a key, with a suggestion for
 * a misspelt flag.
 *
 * @param error What `parseArgs` threw.
 * @param flags The long flags that exist, without `--`.
 * @param hint Where the help is: `--help`, or `stacksync <command> --help`.
 * @returns The problem, e.g. `Unknown option '--dryrun': did you mean --dry-run?`.
 */
export function commandLineProblem(
  error: unknown,
  flags: readonly string[],
  hint = "--help",
): string {
  const { code, message } = error as { code?: string; message: string };
  // A stray positional argument may be a key typed in the wrong place: never echo it.
  if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL") {
    return `positional arguments are not accepted; see ${hint}`;
  }
  const option = /'(--?[^'=]+)'/.exec(message)?.[1];
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && option !== undefined) {
    const named = looksLikeKey(option.replace(/^-+/, "")) ? "an option" : `'${option}'`;
    const near = closestName(option.replace(/^-+/, ""), flags);
    return near === undefined
      ? `Unknown option ${named}; see ${hint}`
      : `Unknown option ${named}: did you mean --${near}?`;
  }
  return `${problemOf(error)}; see ${hint}`;
}

/** Parses the flags of `command`, refusing those of other commands and stray arguments. */
export function parseCommandLine(args: readonly string[], command: CommandName, hint: string) {
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = {
    help: { type: "boolean", short: "h" },
    version: { type: "boolean" },
  };
  for (const key of settingsOf(command)) {
    const declaration: SettingDeclaration<unknown> = SETTINGS[key];
    options[declaration.flag] = { type: declaration.switch ? "boolean" : "string" };
  }
  for (const key of optionsOf(command)) {
    const declaration: OptionDeclaration = OPTIONS[key];
    options[declaration.flag] = { type: declaration.value === undefined ? "boolean" : "string" };
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      options,
      strict: true,
      allowNegative: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw new ConfigError(
      `Cannot parse the command line: ${commandLineProblem(error, Object.keys(options), hint)}`,
    );
  }
  // A stray positional argument may be a key typed in the wrong place: never echo it.
  const operand = COMMANDS[command] as CommandDeclaration;
  if (parsed.positionals.length > (operand.operand === undefined ? 0 : 1)) {
    const problem = operand.operand === undefined
      ? "positional arguments are not accepted"
      : `${command} takes one ${operand.operand.name}`;
    throw new ConfigError(`Cannot parse the command line: ${problem}; see ${hint}`);
  }
  return parsed;
}
