/**
 * `deno task bench` as a contributor runs it, at its smallest: minutes of work (the review page of
 * 50 000 actions in Chromium, the side-by-side libraries), so only `deno task test:full` runs it.
 */
import assert from "node:assert/strict";
import { commandOutput as output } from "../_cli.ts";
import { ROOT, taskCommand } from "../_task.ts";

Deno.test("deno task bench leaves BENCHMARKS.md alone without --write", async () => {
  const path = `${ROOT}BENCHMARKS.md`;
  const before = await Deno.readTextFile(path);
  const run = await output(taskCommand("bench", ["--sizes", "40", "--repeat", "1"]));
  const after = await Deno.readTextFile(path);
  // A bench that wrote anyway must not leave the committed figures replaced.
  if (after !== before) await Deno.writeTextFile(path, before);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(after, before);
  assert.match(run.stdout, /^# Benchmarks\n/);
  assert.match(run.stdout, /\| 40 \| steady state \|/);
  assert.match(run.stderr, /BENCHMARKS\.md is unchanged: add --write to save these figures/);
});
