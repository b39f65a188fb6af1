/**
 * The last step of `deno task check`: every GitHub workflow file of the repository checked
 * against the published schemas of GitHub Actions (SchemaStore's `github-action` and
 * `github-workflow`, as `@action-validator/core` carries them, pinned in deno.json; the check
 * runs offline once the package is cached). The files: the action (`action.yml`), the workflows
 * (`.github/workflows/`) and the examples (`examples/`, but for the Compose file). Given paths,
 * it checks those instead: `action.yml` or `action.yaml` as an action, any other as a workflow.
 *
 * Prints `error: FILE: PLACE: PROBLEM` lines on stderr and exits 1 when a file breaks a schema;
 * else one line naming the files checked.
 *
 * @module
 */
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { validateAction, validateWorkflow, type ValidationError } from "@action-validator/core";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** Files of the folders below that are no workflow. */
const NOT_WORKFLOWS = new Set(["examples/docker-compose.yml"]);

/** Whether a file holds an action's metadata or a workflow, by its name as GitHub reads it. */
function kindOf(path: string): "action" | "workflow" {
  return /^action\.ya?ml$/.test(basename(path)) ? "action" : "workflow";
}

/**
 * The workflow files of a repository: its action, its workflows, its example workflows.
 *
 * @param root The repository's folder.
 * @returns Paths relative to it, sorted.
 */
export async function workflowFiles(root: string): Promise<string[]> {
  const files = ["action.yml"];
  for (const folder of [".github/workflows", "examples"]) {
    for await (const entry of Deno.readDir(join(root, folder))) {
      const path = `${folder}/${entry.name}`;
      if (entry.isFile && /\.ya?ml$/.test(entry.name) && !NOT_WORKFLOWS.has(path)) {
        files.push(path);
      }
    }
  }
  return files.sort();
}

/** The alternatives of an error, when the schema allows one of several shapes. */
function alternatives(error: ValidationError) {
  return "states" in error && error.states !== undefined && error.states.length > 0
    ? error.states
    : undefined;
}

/** How many problems a list of errors tells: the closer of two alternatives has fewer. */
function count(errors: readonly ValidationError[]): number {
  return errors.reduce((sum, error) => {
    const states = alternatives(error);
    return sum + (states === undefined ? 1 : Math.min(...states.map((s) => count(s.errors))));
  }, 0);
}

/**
 * The problems of a validation, one line each. Where the schema allows one of several shapes
 * (a step that runs a command or uses an action), the problems of the closest shape are told.
 */
function problemLines(errors: readonly ValidationError[]): string[] {
  return errors.flatMap((error): string[] => {
    const states = alternatives(error);
    if (states !== undefined) {
      const closest = states.reduce((a, b) => count(b.errors) < count(a.errors) ? b : a);
      return problemLines(closest.errors);
    }
    const place = "path" in error
      ? error.path === "" ? "/" : error.path
      : error.location === undefined
      ? "/"
      : `line ${error.location.line}`;
    return [`${place}: ${error.title}${error.detail === undefined ? "" : ` (${error.detail})`}`];
  });
}

/**
 * Checks one file's text against the schema of its kind.
 *
 * @param path The file's path: `action.yml` or `action.yaml` is an action, else a workflow.
 * @param text Its YAML.
 * @returns One line per problem, `PLACE: PROBLEM`; none when it passes.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { workflowProblems } from "./check_workflows.ts";
 *
 * const job = "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: ls\n";
 * assert.deepEqual(workflowProblems("ok.yml", job), []);
 * assert.deepEqual(workflowProblems("bad.yml", job.replace("runs-on", "run-on")), [
 *   "/jobs/a: Property conditions are not met (Additional property 'run-on' is not allowed)",
 *   "/jobs/a/runs-on: This property is required",
 * ]);
 * ```
 */
export function workflowProblems(path: string, text: string): string[] {
  const state = kindOf(path) === "action" ? validateAction(text) : validateWorkflow(text);
  return [...new Set(problemLines(state.errors))];
}

async function main(args: readonly string[]): Promise<number> {
  const paths = args.length > 0 ? [...args] : await workflowFiles(ROOT);
  let failed = 0;
  for (const path of paths) {
    const file = args.length > 0 ? path : join(ROOT, path);
    const problems = workflowProblems(path, await Deno.readTextFile(file));
    for (const problem of problems) console.error(`error: ${path}: ${problem}`);
    if (problems.length > 0) failed++;
  }
  if (failed > 0) return 1;
  console.log(`${paths.join(", ")}: valid against GitHub's schemas`);
  return 0;
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
