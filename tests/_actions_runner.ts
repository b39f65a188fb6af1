/**
 * A stand-in for a GitHub runner that runs a composite action's steps as action.yml declares
 * them, for tests/action_test.ts: its `run` steps in bash with the variables GitHub sets
 * (`GITHUB_ACTION_PATH`, `GITHUB_WORKSPACE`, `RUNNER_TEMP`, `GITHUB_OUTPUT`) and their `env`,
 * their `if` conditions, and the few actions it `uses` played by folders: `actions/cache/restore`
 * and `actions/cache/save` keep the cache in a folder of the runner (a restore takes the newest
 * entry whose key starts with a restore key, as GitHub does), `actions/upload-artifact` copies
 * into a folder of artifacts, and `denoland/setup-deno` finds Deno already there. Expressions
 * (`${{ … }}`) may read `inputs`, `github`, `runner` and `steps`, compare with `==` and `!=`,
 * join with `&&` and `||`, and call `always()`, `success()` and `failure()`; anything else fails
 * the test, so the action stays within what is checked.
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { exists } from "../src/state/_files.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** One step of a composite action. */
interface Step {
  readonly id?: string;
  readonly name?: string;
  readonly if?: string;
  readonly uses?: string;
  readonly with?: Readonly<Record<string, string | number | boolean>>;
  readonly run?: string;
  readonly shell?: string;
  readonly env?: Readonly<Record<string, string>>;
}

/** The parts of action.yml the runner reads. */
export interface ActionFile {
  readonly inputs: Readonly<Record<string, { readonly default?: string }>>;
  readonly outputs: Readonly<Record<string, { readonly value: string }>>;
  readonly runs: { readonly using: string; readonly steps: readonly Step[] };
}

/**
 * Reads the repository's action.yml.
 *
 * @returns The action.
 */
export async function readAction(): Promise<ActionFile> {
  return parse(await Deno.readTextFile(join(ROOT, "action.yml"))) as ActionFile;
}

/** A runner's folders, kept from one job to the next as GitHub keeps its cache and artifacts. */
export interface Runner {
  /** One folder per cache entry, named by its key, with the entry's path inside. */
  readonly cache: string;
  /** One folder per artifact, named by its name. */
  readonly artifacts: string;
}

/** What one job with the action did. */
export interface JobResult {
  /** Per step, by name or `uses`: success, failure or skipped. */
  readonly steps: readonly { readonly step: string; readonly outcome: string }[];
  /** The `run` steps' output, stdout and stderr in turn. */
  readonly log: string;
  /** The action's outputs. */
  readonly outputs: Readonly<Record<string, string>>;
  /** The job's workspace (removed by the caller). */
  readonly workspace: string;
}

type Contexts = Record<string, unknown>;

/** Splits an expression into strings, names, calls and operators. */
function tokens(expression: string): string[] {
  const found = expression.match(
    /'(?:[^']|'')*'|[A-Za-z_][\w.-]*\(\)|[A-Za-z_][\w.-]*|==|!=|&&|\|\||\S/g,
  );
  return found ?? [];
}

/** The value of one operand: a string, a context's field, or a status function. */
function operand(token: string, contexts: Contexts): unknown {
  if (token.startsWith("'")) return token.slice(1, -1).replaceAll("''", "'");
  const failed = contexts.failed === true;
  const calls: Record<string, boolean> = {
    "always()": true,
    "success()": !failed,
    "failure()": failed,
  };
  if (token in calls) return calls[token];
  const [root, ...path] = token.split(".");
  if (!["inputs", "github", "runner", "steps"].includes(root)) {
    throw new Error(`Cannot evaluate ${token}: the runner knows no such context`);
  }
  let value: unknown = contexts[root];
  for (const key of path) value = (value as Record<string, unknown> | undefined)?.[key];
  return value ?? "";
}

/** The runs of tokens between separators. */
function split(list: readonly string[], separator: string): string[][] {
  const parts: string[][] = [[]];
  for (const token of list) {
    if (token === separator) parts.push([]);
    else parts[parts.length - 1].push(token);
  }
  return parts;
}

/**
 * Evaluates an expression as GitHub does within what the runner knows: comparisons bind tighter
 * than `&&`, which binds tighter than `||`; `||` gives its first truthy operand.
 */
function evaluate(expression: string, contexts: Contexts): unknown {
  let value: unknown = false;
  for (const conjunction of split(tokens(expression), "||")) {
    for (const comparison of split(conjunction, "&&")) {
      const [left, operator, right, ...rest] = comparison;
      const known = operator === undefined ||
        (right !== undefined && (operator === "==" || operator === "!="));
      if (left === undefined || !known || rest.length > 0) {
        throw new Error(`Cannot evaluate ${expression}: the runner knows only ==, !=, && and ||`);
      }
      value = operator === undefined
        ? operand(left, contexts)
        : (String(operand(left, contexts)) === String(operand(right, contexts))) ===
          (operator === "==");
      if (!value) break;
    }
    if (value) return value;
  }
  return value;
}

/** A text with its `${{ … }}` expressions replaced by their values. */
function substitute(text: string, contexts: Contexts): string {
  return text.replace(/\$\{\{(.*?)\}\}/g, (_, expression: string) => {
    const value = evaluate(expression.trim(), contexts);
    return typeof value === "string" ? value : String(value);
  });
}

/** Copies a folder's content into another, made if missing. */
async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    const [source, target] = [join(from, entry.name), join(to, entry.name)];
    if (entry.isDirectory) await copyTree(source, target);
    else await Deno.copyFile(source, target);
  }
}

/** Plays one `uses` step; resolves to whether it succeeded. */
async function useAction(
  step: Step,
  input: (name: string) => string,
  context: { runner: Runner; workspace: string },
): Promise<boolean> {
  const action = step.uses!.replace(/@.*$/, "");
  const path = join(context.workspace, input("path"));
  switch (action) {
    case "denoland/setup-deno":
      return true;
    case "actions/cache/restore": {
      const prefixes = input("restore-keys").split("\n").filter((key) => key !== "");
      const entries = await Array.fromAsync(Deno.readDir(context.runner.cache));
      // The newest entry first, as GitHub restores.
      const names = entries.map((entry) => entry.name).sort().reverse();
      const hit =
        [input("key"), ...prefixes].flatMap((key) =>
          names.filter((name) => name.startsWith(key))
        )[0];
      if (hit !== undefined) await copyTree(join(context.runner.cache, hit), path);
      return true;
    }
    case "actions/cache/save": {
      const entry = join(context.runner.cache, input("key"));
      if (await exists(entry) || !await exists(path)) return true; // GitHub only warns
      await copyTree(path, entry);
      return true;
    }
    case "actions/upload-artifact": {
      if (!await exists(path)) return input("if-no-files-found") !== "error";
      await copyTree(path, join(context.runner.artifacts, input("name")));
      return true;
    }
    default:
      throw new Error(`Cannot play the step ${step.uses}: the runner does not know it`);
  }
}

/** Options of {@linkcode runJob}. */
export interface RunJobOptions {
  /** The runner whose cache and artifacts the job uses. */
  readonly runner: Runner;
  /** `github.run_id`: each job is a run of its own. */
  readonly runId: number;
  /** Files written into the workspace before the action runs. */
  readonly files?: Readonly<Record<string, string>>;
}

/**
 * Runs the action's steps in a fresh workspace, as one job of a workflow that says
 * `uses: <owner>/stacksync@v1` with these inputs.
 *
 * @param inputs The `with:` of the step, by input name.
 * @param options The runner, the run's id and the workspace's files.
 * @returns What each step did, the log and the action's outputs.
 */
export async function runJob(
  inputs: Readonly<Record<string, string>>,
  options: RunJobOptions,
): Promise<JobResult> {
  const action = await readAction();
  const workspace = await Deno.makeTempDir({ prefix: "stacksync_action_workspace_" });
  const temp = await Deno.makeTempDir({ prefix: "stacksync_action_temp_" });
  for (const [path, text] of Object.entries(options.files ?? {})) {
    await Deno.writeTextFile(join(workspace, path), text);
  }
  const defaults = Object.fromEntries(
    Object.entries(action.inputs).map(([name, input]) => [name, input.default ?? ""]),
  );
  const steps: Record<string, { outputs: Record<string, string> }> = {};
  const contexts: Contexts = {
    inputs: { ...defaults, ...inputs },
    github: { action_path: ROOT, run_id: String(options.runId), run_attempt: "1" },
    runner: { temp },
    steps,
    failed: false,
  };
  const done: { step: string; outcome: string }[] = [];
  let log = "";
  try {
    for (const step of action.runs.steps) {
      const title = step.name ?? step.uses ?? "run";
      if (!evaluate(step.if ?? "success()", contexts)) {
        done.push({ step: title, outcome: "skipped" });
        continue;
      }
      const input = (name: string) => substitute(String(step.with?.[name] ?? ""), contexts);
      let ok: boolean;
      if (step.uses !== undefined) {
        ok = await useAction(step, input, { runner: options.runner, workspace });
      } else {
        const output = join(temp, `output_${done.length}`);
        await Deno.writeTextFile(output, "");
        const env = Object.fromEntries(
          Object.entries(step.env ?? {}).map((
            [name, value],
          ) => [name, substitute(value, contexts)]),
        );
        const result = await new Deno.Command("bash", {
          // As GitHub runs `shell: bash`.
          args: ["--noprofile", "--norc", "-eo", "pipefail", "-c", substitute(step.run!, contexts)],
          cwd: workspace,
          env: {
            PATH: Deno.env.get("PATH") ?? "",
            HOME: Deno.env.get("HOME") ?? "",
            ...Deno.env.get("DENO_DIR") === undefined
              ? {}
              : { DENO_DIR: Deno.env.get("DENO_DIR")! },
            NO_COLOR: "1",
            GITHUB_ACTION_PATH: ROOT,
            GITHUB_WORKSPACE: workspace,
            RUNNER_TEMP: temp,
            GITHUB_OUTPUT: output,
            ...env,
          },
          clearEnv: true,
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).output();
        const decoder = new TextDecoder();
        log += decoder.decode(result.stdout) + decoder.decode(result.stderr);
        ok = result.success;
        const lines = (await Deno.readTextFile(output)).split("\n").filter((line) => line !== "");
        if (step.id !== undefined) {
          steps[step.id] = {
            outputs: Object.fromEntries(lines.map((line) => line.split(/=(.*)/s).slice(0, 2))),
          };
        }
      }
      done.push({ step: title, outcome: ok ? "success" : "failure" });
      if (!ok) contexts.failed = true;
    }
    const outputs = Object.fromEntries(
      Object.entries(action.outputs).map(([name, output]) => [
        name,
        substitute(output.value, contexts),
      ]),
    );
    return { steps: done, log, outputs, workspace };
  } finally {
    await Deno.remove(temp, { recursive: true });
  }
}
