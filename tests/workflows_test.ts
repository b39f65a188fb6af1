/**
 * The last step of `deno task check` (scripts/check_workflows.ts), as a subprocess: the action
 * and every workflow of the repository pass GitHub's published schemas, and a broken workflow or
 * action is refused with a line naming the file, the place and the problem.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import denoJson from "../deno.json" with { type: "json" };
import { commandOutput } from "./_cli.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The check as `deno task check` runs it, on the given files (none: the repository's). */
function check(files: readonly string[]) {
  const step = denoJson.tasks.check.split(" && ").at(-1)!;
  const [deno, run, ...rest] = step.split(" ");
  assert.deepEqual([deno, run, rest.at(-1)], ["deno", "run", "scripts/check_workflows.ts"]);
  return commandOutput(
    new Deno.Command(Deno.execPath(), {
      args: [run, "--no-prompt", ...rest, ...files],
      cwd: ROOT,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }),
  );
}

Deno.test("the action and every workflow of the repository pass GitHub's schemas", async () => {
  assert.deepEqual(await check([]), {
    code: 0,
    stdout: ".github/workflows/release.yml, action.yml, examples/github-actions.yml: " +
      "valid against GitHub's schemas\n",
    stderr: "",
  });
});

Deno.test("the schema check refuses a broken workflow and action, naming each problem", async () => {
  const folder = await Deno.makeTempDir({ prefix: "stacksync_workflows_test_" });
  try {
    const workflow = join(folder, "nightly.yml");
    await Deno.writeTextFile(
      workflow,
      `on:
  schedule:
    - cron: "17 3 * * *"
jobs:
  sync:
    run-on: ubuntu-latest
    steps:
      - uses: OWNER/stacksync@v0
        with: api-url
`,
    );
    const action = join(folder, "action.yml");
    await Deno.writeTextFile(
      action,
      `name: x
description: y
runs:
  using: composite
  steps:
    - run: deno run main.ts
`,
    );
    assert.deepEqual(await check([workflow, action]), {
      code: 1,
      stdout: "",
      stderr: [
        `error: ${workflow}: /jobs/sync: Property conditions are not met ` +
        "(Additional property 'run-on' is not allowed)",
        `error: ${workflow}: /jobs/sync/steps/0/with: Type of the value is wrong ` +
        "(The value must be object)",
        `error: ${workflow}: /jobs/sync/runs-on: This property is required`,
        `error: ${action}: /runs/steps/0/shell: This property is required`,
        "",
      ].join("\n"),
    });
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});
