/**
 * The GitHub Action (action.yml) end to end: its own steps, run as a GitHub runner runs a
 * composite action (tests/_actions_runner.ts), against the Immich test server. The jobs run one
 * after another on one runner, so that each restores the state folder the one before saved, as
 * the runs of a scheduled workflow do.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parsePlanFile } from "../src/plan_file/format.ts";
import { type JobResult, readAction, runJob, type Runner } from "./_actions_runner.ts";
import { startImmichServer } from "./immich_server.ts";

/** The log without the lines that mask secrets: what a reader of the job's log sees. */
function shown(job: JobResult): string {
  return job.log.split("\n").filter((line) => !line.startsWith("::add-mask::")).join("\n");
}

/** The outcome of each step, by step. */
function outcomes(job: JobResult): Record<string, string> {
  return Object.fromEntries(job.steps.map(({ step, outcome }) => [step, outcome]));
}

async function files(folder: string): Promise<string[]> {
  return (await Array.fromAsync(Deno.readDir(folder), (entry) => entry.name)).sort();
}

Deno.test("the action's steps pass inputs as variables and name the steps the test plays", async () => {
  const action = await readAction();
  assert.equal(action.runs.using, "composite");
  for (const step of action.runs.steps) {
    // An input in the text of a command line could inject commands; as a variable it cannot.
    if (step.run !== undefined) assert.doesNotMatch(step.run, /\$\{\{/, String(step.name));
  }
  const steps = action.runs.steps.map((step) => step.uses?.replace(/@.*/, "") ?? step.id);
  assert.deepEqual(steps, [
    "denoland/setup-deno",
    "actions/cache/restore",
    "stacksync",
    "actions/upload-artifact",
    "actions/cache/save",
  ]);
});

Deno.test("the action runs, plans with its artifact, and undoes from the state it kept", async (t) => {
  await using server = await startImmichServer();
  const user = server.addUser({ name: "Ada" });
  const key = server.addKey(user.id);
  const pair = (shot: number) => {
    const localDateTime = `2024-05-01T10:0${shot}:00.000Z`;
    for (const extension of ["CR3", "JPG"]) {
      server.addAsset(user.id, { originalFileName: `IMG_000${shot}.${extension}`, localDateTime });
    }
  };
  pair(1);
  pair(2);
  const folder = await Deno.makeTempDir({ prefix: "stacksync_action_test_" });
  const runner: Runner = { cache: join(folder, "cache"), artifacts: join(folder, "artifacts") };
  await Deno.mkdir(runner.cache);
  await Deno.mkdir(runner.artifacts);
  const inputs = { "api-url": server.url, "api-key": key };
  const workspaces: string[] = [];
  const job = async (more: Record<string, string>, runId: number, files = {}) => {
    const result = await runJob({ ...inputs, ...more }, { runner, runId, files });
    workspaces.push(result.workspace);
    assert.ok(result.log.includes(`::add-mask::${key}\n`), shown(result));
    assert.ok(!shown(result).includes(key), "the key appears only where it is masked");
    return result;
  };
  try {
    await t.step("a dry run from the settings, reading no .env of the workspace", async () => {
      const dry = await job({ settings: "DRY_RUN=true\n" }, 1, { ".env": "LOG_LEVEL=loud\n" });
      assert.deepEqual(outcomes(dry), {
        "denoland/setup-deno@v2": "success",
        "Restore the state folder": "success",
        "stacksync": "success",
        "Upload the plan and its review page": "skipped",
        "Keep the state folder for the next run": "success",
      }, dry.log);
      assert.match(dry.log, /\[DRY RUN\] Would create/);
      assert.equal(server.stacks(user.id).length, 0);
    });

    await t.step("a run makes the stacks and saves its journal in the cache", async () => {
      const run = await job({ "dry-run": "false" }, 2);
      assert.equal(outcomes(run)["stacksync"], "success", run.log);
      assert.equal(server.stacks(user.id).length, 2);
      assert.deepEqual(await files(runner.cache), ["stacksync-state-1-1", "stacksync-state-2-1"]);
      assert.equal((await files(join(runner.cache, "stacksync-state-2-1", "runs"))).length, 1);
    });

    pair(3);
    await t.step("plan uploads the plan and its review page, pictures inside", async () => {
      const plan = await job({ command: "plan" }, 3);
      assert.equal(outcomes(plan)["Upload the plan and its review page"], "success", plan.log);
      const folder = join(plan.workspace, "stacksync-plan");
      assert.deepEqual(plan.outputs, {
        "plan-file": join(folder, "plan.json"),
        "review-page": join(folder, "plan.html"),
      });
      const artifact = join(runner.artifacts, "stacksync-plan");
      assert.deepEqual(await files(artifact), ["plan.html", "plan.json"]);
      const path = join(artifact, "plan.json");
      const [ada] = parsePlanFile(await Deno.readTextFile(path), path).users;
      assert.deepEqual(
        ada.actions.map((action) => [action.kind, action.assets.map((a) => a.originalFileName)]),
        [["create", ["IMG_0003.JPG", "IMG_0003.CR3"]]],
      );
      const page = await Deno.readTextFile(join(artifact, "plan.html"));
      assert.equal(page.match(/data:image\/webp;base64,/g)?.length, 2);
      // The state the run before saved was restored.
      const journals = await files(join(plan.workspace, "stacksync-state", "runs"));
      assert.equal(journals.length, 1);
      assert.equal(server.stacks(user.id).length, 2);
    });

    await t.step("undo in a later job puts back what the run changed", async () => {
      const undo = await job({ command: "undo", "dry-run": "false" }, 4);
      assert.equal(outcomes(undo)["stacksync"], "success", undo.log);
      assert.equal(server.stacks(user.id).length, 0);
    });

    await t.step("a refused key fails the step, and the state is kept all the same", async () => {
      const refused = await runJob({ ...inputs, "api-key": "wrong-key, other-key" }, {
        runner,
        runId: 5,
      });
      workspaces.push(refused.workspace);
      assert.deepEqual(
        [
          outcomes(refused)["stacksync"],
          outcomes(refused)["Keep the state folder for the next run"],
        ],
        ["failure", "success"],
      );
      for (const secret of ["wrong-key, other-key", "wrong-key", "other-key"]) {
        assert.ok(refused.log.includes(`::add-mask::${secret}\n`), secret);
        assert.ok(!shown(refused).includes(secret), secret);
      }
      assert.ok((await files(runner.cache)).includes("stacksync-state-5-1"));
    });
  } finally {
    for (const workspace of [folder, ...workspaces]) {
      await Deno.remove(workspace, { recursive: true });
    }
  }
});
