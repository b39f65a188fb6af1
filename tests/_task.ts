/**
 * A task of deno.json as a contributor runs it: its `deno run` flags and script, from the
 * repository root, shared by tests/scripts_test.ts and tests/full/scripts_test.ts.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import denoJson from "../deno.json" with { type: "json" };

/** The repository root, with a trailing slash. */
export const ROOT: string = fileURLToPath(new URL("..", import.meta.url));

/**
 * `deno run` with a task's flags and script, from the repository root.
 *
 * @param task A task of deno.json that is a `deno run` command.
 * @param args Arguments after the script.
 * @returns The command, stdout and stderr piped.
 */
export function taskCommand(
  task: keyof typeof denoJson.tasks,
  args: readonly string[],
): Deno.Command {
  const [deno, run, ...rest] = denoJson.tasks[task].split(" ");
  assert.deepEqual([deno, run], ["deno", "run"]);
  return new Deno.Command(Deno.execPath(), {
    args: [run, "--no-prompt", ...rest, ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
}
