/**
 * Task scripts as a contributor runs them, that take long or start Chromium: `deno task bench` at
 * its smallest (minutes of work: the review page of 50 000 actions in Chromium, the side-by-side
 * libraries) and `deno task screenshot`, twice. Only `deno task test:full` runs them; the
 * review page's own tests in Chromium are in tests/review_page_test.ts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
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
Deno.test("deno task screenshot rewrites the picture only when the page looks different", async () => {
  const folder = await Deno.makeTempDir({ prefix: "stacksync_scripts_test_" });
  try {
    const out = join(folder, "review-page.png");
    // A picture of another size: the page's picture replaces it.
    await Deno.copyFile(new URL("../testdata/thumbnails/1-hills.webp", import.meta.url), out);
    const first = await output(taskCommand("screenshot", ["--out", out]));
    assert.deepEqual(first, { code: 0, stdout: `Wrote ${out} (the size differs)\n`, stderr: "" });
    const png = await Deno.readFile(out);
    assert.deepEqual([...png.slice(1, 4)], [..."PNG"].map((c) => c.charCodeAt(0)));
    const again = await output(taskCommand("screenshot", ["--out", out]));
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^\S+ is unchanged \(\d+ pixels differ\)\n$/);
    assert.deepEqual(await Deno.readFile(out), png);
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});
