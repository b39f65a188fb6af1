/**
 * The command line of the task scripts (`deno task bench`, `deno task sandbox`): strict flags
 * with "did you mean …?", usage on `--help`, and one `error:` line with status 2 for bad input
 * instead of a stack trace.
 *
 * @module
 */
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import { commandLineProblem } from "../src/config.ts";

/**
 * Reads a script's flags strictly.
 *
 * @param what The script's name in messages, e.g. `bench`.
 * @param args The arguments.
 * @param options The flags, as `node:util` `parseArgs` takes them.
 * @returns The values by flag.
 * @throws {RangeError} One line naming the problem, with a suggestion for a misspelt flag.
 */
export function scriptArgs<const O extends ParseArgsOptionsConfig>(
  what: string,
  args: readonly string[],
  options: O,
) {
  try {
    return parseArgs({ args: [...args], options, strict: true }).values;
  } catch (error) {
    throw new RangeError(
      `Cannot parse the ${what} arguments: ${commandLineProblem(error, Object.keys(options))}`,
    );
  }
}

/** A task script: its usage text, how it reads its arguments, and what it does. */
export interface Script<C> {
  readonly usage: string;
  /** The command, or `"help"`; throws a RangeError for arguments it cannot use. */
  readonly parse: (args: readonly string[]) => C | "help";
  /** Carries the command out; resolves to the exit status. */
  readonly run: (command: C) => Promise<number>;
}

/**
 * Runs a task script: the usage for `--help` (status 0), one `error: …` line for bad arguments
 * (status 2), else the script itself.
 *
 * @param args The arguments.
 * @param script The script.
 * @returns The exit status.
 */
export async function runScript<C>(args: readonly string[], script: Script<C>): Promise<number> {
  let command: C | "help";
  try {
    command = script.parse(args);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    console.error(`error: ${error.message}`);
    return 2;
  }
  if (command === "help") {
    console.log(script.usage);
    return 0;
  }
  return await script.run(command);
}
