/**
 * The step of the GitHub Action (action.yml) that runs stacksync: from the action's own checkout,
 * with the permissions of `deno task start` (scripts/compile.ts), for the inputs the step hands
 * over as `INPUT_*` variables. In order, it
 *
 * - masks the API keys (the list and each key of it) and a password in `API_URL` in the job's
 *   log, before anything else is printed;
 * - writes the `settings` input (`NAME=value` lines, as in a `.env` file) to a private env file
 *   under `RUNNER_TEMP`, removed afterwards: a `.env` in the workspace is never read;
 * - runs the command with `API_URL`, `API_KEY`, `DRY_RUN` (when given), `STATE_DIR` and
 *   `RUN_MODE=once` (a job must end), whatever the settings say;
 * - for `plan`, writes `plan.json` and the review page with its pictures inside (`plan.html`)
 *   into the plan folder and names them as the step's outputs `plan-file` and `review-page`;
 * - exits with stacksync's status.
 *
 * @module
 */
import { isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { exists } from "../src/state/_files.ts";
import { RUN_FLAGS } from "./compile.ts";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../deno.json", import.meta.url));

/** The inputs of the action, as its step hands them over. */
export interface ActionInputs {
  readonly apiUrl: string;
  readonly apiKey: string;
  readonly command: string;
  /** Arguments after the command, one per line of the input. */
  readonly args: readonly string[];
  /** `true`, `false`, or empty for the settings' own DRY_RUN. */
  readonly dryRun: string;
  /** `NAME=value` lines. */
  readonly settings: string;
  readonly stateDir: string;
  readonly planDir: string;
}

/**
 * Reads the action's inputs from the step's environment.
 *
 * @param env The environment: `INPUT_API_URL`, `INPUT_API_KEY`, `INPUT_COMMAND`, `INPUT_ARGS`,
 *   `INPUT_DRY_RUN`, `INPUT_SETTINGS`, `INPUT_STATE_DIR`, `INPUT_PLAN_DIR`.
 * @returns The inputs, trimmed, with the defaults of action.yml where one is empty.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { actionInputs } from "./action.ts";
 *
 * const inputs = actionInputs({ INPUT_COMMAND: "apply", INPUT_ARGS: "plan-approved.json\n" });
 * assert.equal(inputs.command, "apply");
 * assert.deepEqual(inputs.args, ["plan-approved.json"]);
 * assert.equal(inputs.stateDir, "stacksync-state");
 * ```
 */
export function actionInputs(env: Readonly<Record<string, string | undefined>>): ActionInputs {
  const input = (name: string, fallback = "") => env[`INPUT_${name}`]?.trim() || fallback;
  return {
    apiUrl: input("API_URL"),
    apiKey: input("API_KEY"),
    command: input("COMMAND", "run"),
    args: input("ARGS").split("\n").map((arg) => arg.trim()).filter((arg) => arg !== ""),
    dryRun: input("DRY_RUN"),
    settings: env.INPUT_SETTINGS ?? "",
    stateDir: input("STATE_DIR", "stacksync-state"),
    planDir: input("PLAN_DIR", "stacksync-plan"),
  };
}

/**
 * The secrets among the inputs, for `::add-mask::`: the keys, each key of a list, and the
 * password of an address that holds one.
 *
 * @param inputs The inputs.
 * @returns The texts to mask, longest first.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { actionInputs, secretsOf } from "./action.ts";
 *
 * const inputs = actionInputs({
 *   INPUT_API_URL: "https://ada:p%40ss@photos.example.com/api",
 *   INPUT_API_KEY: "key-one, key-two",
 * });
 * assert.deepEqual(secretsOf(inputs), ["key-one, key-two", "key-one", "key-two", "p%40ss", "p@ss"]);
 * ```
 */
export function secretsOf(inputs: ActionInputs): string[] {
  const keys = inputs.apiKey.split(",").map((key) => key.trim());
  let password = "";
  try {
    password = new URL(inputs.apiUrl).password;
  } catch {
    // Not an address: stacksync says so, and there is no password to hide.
  }
  const decoded = password === "" ? "" : decodeURIComponent(password);
  return [...new Set([inputs.apiKey, ...keys, password, decoded])].filter((text) => text !== "");
}

/** How stacksync is started for the inputs. */
export interface StacksyncCall {
  /** Arguments after `deno`. */
  readonly args: readonly string[];
  /** Settings for its environment, on top of the job's. */
  readonly env: Readonly<Record<string, string>>;
  /** For `plan`: the step's outputs, the plan file and its page. */
  readonly outputs: Readonly<Record<string, string>>;
}

/**
 * The stacksync command line and settings for the inputs. Pure.
 *
 * @param inputs The inputs.
 * @param options The private env file of the settings, and the folder relative paths start in.
 * @returns The call.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { actionInputs, stacksyncCall } from "./action.ts";
 *
 * const inputs = actionInputs({ INPUT_COMMAND: "plan", INPUT_DRY_RUN: "true" });
 * const call = stacksyncCall(inputs, { envFile: "/tmp/s.env", cwd: "/work" });
 * assert.deepEqual(call.args.slice(call.args.indexOf("plan")), [
 *   "plan", "--env-file", "/tmp/s.env", "--out", "/work/stacksync-plan/plan.json",
 *   "--html", "/work/stacksync-plan/plan.html", "--embed-thumbnails",
 * ]);
 * assert.equal(call.env.DRY_RUN, "true");
 * assert.equal(call.outputs["review-page"], "/work/stacksync-plan/plan.html");
 * ```
 */
export function stacksyncCall(
  inputs: ActionInputs,
  options: { readonly envFile: string; readonly cwd: string },
): StacksyncCall {
  const planDir = resolve(options.cwd, inputs.planDir);
  const [planFile, page] = [join(planDir, "plan.json"), join(planDir, "plan.html")];
  const plan = inputs.command === "plan";
  const outputs: Record<string, string> = plan
    ? { "plan-file": planFile, "review-page": page }
    : {};
  const planArgs = plan ? ["--out", planFile, "--html", page, "--embed-thumbnails"] : [];
  const given = (name: string, value: string) => value === "" ? {} : { [name]: value };
  return {
    args: [
      "run",
      "--no-prompt",
      "--config",
      CONFIG,
      ...RUN_FLAGS,
      MAIN,
      inputs.command,
      "--env-file",
      options.envFile,
      ...planArgs,
      ...inputs.args,
    ],
    env: {
      ...given("API_URL", inputs.apiUrl),
      ...given("API_KEY", inputs.apiKey),
      ...given("DRY_RUN", inputs.dryRun),
      STATE_DIR: isAbsolute(inputs.stateDir)
        ? inputs.stateDir
        : resolve(options.cwd, inputs.stateDir),
      RUN_MODE: "once",
    },
    outputs,
  };
}

async function main(): Promise<number> {
  const env = Deno.env.toObject();
  const inputs = actionInputs(env);
  for (const secret of secretsOf(inputs)) console.log(`::add-mask::${secret}`);
  const cwd = Deno.cwd();
  const envFile = await Deno.makeTempFile({
    dir: env.RUNNER_TEMP || undefined,
    prefix: "stacksync-settings-",
    suffix: ".env",
  });
  try {
    // makeTempFile() made it readable by this user only.
    await Deno.writeTextFile(envFile, inputs.settings);
    const call = stacksyncCall(inputs, { envFile, cwd });
    await Deno.mkdir(call.env.STATE_DIR, { recursive: true });
    if (inputs.command === "plan") {
      await Deno.mkdir(resolve(cwd, inputs.planDir), { recursive: true });
    }
    const job = Object.fromEntries(
      Object.entries(env).filter(([name]) => !name.startsWith("INPUT_")),
    );
    const status = await new Deno.Command("deno", {
      args: [...call.args],
      env: { ...job, ...call.env },
      clearEnv: true,
      stdin: "null",
    }).spawn().status;
    // Only the files the command wrote: a plan that failed names none.
    const lines: string[] = [];
    for (const [name, path] of Object.entries(call.outputs)) {
      if (await exists(path)) lines.push(`${name}=${path}\n`);
    }
    if (env.GITHUB_OUTPUT && lines.length > 0) {
      await Deno.writeTextFile(env.GITHUB_OUTPUT, lines.join(""), { append: true });
    }
    return status.code;
  } finally {
    await Deno.remove(envFile);
  }
}

if (import.meta.main) {
  Deno.exit(await main());
}
