/**
 * Where the command is on a command line, and whether the line only asks for help: shared by
 * `src/config/arguments.ts`, which reads the whole line, and `main.ts`, which answers help
 * without loading the settings' schemas (docs/architecture.md, "Start-up"). Loads nothing.
 *
 * @module
 */

/** The flags that ask for help, as `--help` and `-h` both do. */
export const HELP_FLAGS: readonly string[] = ["--help", "-h"];

/** The word that asks for help as a command: `stacksync help [COMMAND]`. */
export const HELP_COMMAND = "help";

/**
 * The position of the command among the arguments: the first one that is neither an option nor
 * the value of an option that takes one, so that options may come before the command
 * (`--env-file prod.env run`).
 *
 * @param args The command-line arguments.
 * @param valueFlags The long flags (without `--`) that take a value, of any command.
 * @returns Its index, or -1 when every argument is an option or an option's value.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { commandPosition } from "./command_line.ts";
 *
 * const values = new Set(["env-file"]);
 * assert.equal(commandPosition(["--env-file", "prod.env", "undo"], values), 2);
 * assert.equal(commandPosition(["--env-file=prod.env", "--dry-run", "undo"], values), 2);
 * assert.equal(commandPosition(["--dry-run"], values), -1);
 * ```
 */
export function commandPosition(
  args: readonly string[],
  valueFlags: ReadonlySet<string>,
): number {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (!arg.startsWith("-")) return index;
    if (arg.startsWith("--") && !arg.includes("=") && valueFlags.has(arg.slice(2))) index++;
  }
  return -1;
}

/**
 * What a command line that only asks for help asks about: `--help`, `-h` or `help` alone ask
 * for the general help, `help COMMAND`, `COMMAND --help` and `COMMAND -h` for a command's.
 * Any other line, even one holding `--help`, is for the settings to read.
 *
 * @param args The command-line arguments.
 * @returns `""` for the general help, the word naming the command (unchecked), or undefined.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { helpTopic } from "./command_line.ts";
 *
 * assert.equal(helpTopic(["-h"]), "");
 * assert.equal(helpTopic(["help", "undo"]), "undo");
 * assert.equal(helpTopic(["undo", "--help"]), "undo");
 * assert.equal(helpTopic(["undo", "--dry-run", "--help"]), undefined);
 * ```
 */
export function helpTopic(args: readonly string[]): string | undefined {
  const [first, second] = args;
  const asks = (arg: string) => HELP_FLAGS.includes(arg) || arg === HELP_COMMAND;
  if (args.length === 1) return asks(first) ? "" : undefined;
  if (args.length !== 2) return undefined;
  if (first === HELP_COMMAND && !second.startsWith("-") && second !== "") return second;
  return HELP_FLAGS.includes(second) && !first.startsWith("-") ? first : undefined;
}
