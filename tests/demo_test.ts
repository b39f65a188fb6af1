/**
 * `deno task demo` as a newcomer runs it: a subprocess from the repository root, checked by what
 * it prints and its exit status.
 */
import assert from "node:assert/strict";
import { ROOT } from "./_task.ts";

/** The summary counts of one user in one pass, by label ("created", "in sync", …). */
function counts(summary: string): Record<string, number> {
  const result: Record<string, number> = {};
  for (
    const [, count, label] of summary.matchAll(/(\d+) (?:would be )?([a-z][a-z ]*?)(?=,|$| \()/g)
  ) {
    result[label] = Number(count);
  }
  return result;
}

Deno.test("deno task demo runs a dry run, a real run, a rerun that changes nothing, and an undo", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["task", "demo"],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, `${stdout}\n${stderr}`);
  assert.doesNotMatch(`${stdout}${stderr}`, /error:/);

  const passes = stdout.split(/^━━ Pass \d of 4: /m).slice(1);
  assert.deepEqual(passes.map((pass) => pass.split(" ")[0]), ["dry", "real", "real", "undo"]);
  const summaries = passes.map((pass) =>
    [...pass.matchAll(/^ +Summary for (User \d)( \(dry run\))?: (.*)$/gm)].map((match) => ({
      user: match[1],
      dryRun: match[2] !== undefined,
      counts: counts(match[3]),
    }))
  );
  for (const pass of summaries) assert.deepEqual(pass.map((s) => s.user), ["User 1", "User 2"]);
  assert.deepEqual(summaries.map((pass) => pass.map((s) => s.dryRun)), [
    [true, true],
    [false, false],
    [false, false],
    [false, false],
  ]);
  for (const pass of passes) assert.match(pass, /^ {2}Exit status 0$/m);

  const [dry, real, again, undo] = summaries;
  // The dry run announces exactly what the real run then does, and something is to be done.
  assert.deepEqual(dry.map((s) => s.counts), real.map((s) => s.counts));
  assert.ok(real[0].counts.created > 0 && real[0].counts.updated > 0, JSON.stringify(real));
  for (const { counts } of again) {
    assert.deepEqual(
      [counts.created, counts.updated, counts.replaced, counts.deleted, counts.failed],
      [0, 0, 0, 0, 0],
    );
  }
  assert.equal(again[0].counts["needs replacing"], 1);
  assert.match(passes[2], /^ {4}No changes: \d+ stacks in sync, 1 needs replacing$/m);
  assert.match(passes[2], /^ {4}No changes: \d+ stacks in sync$/m);

  // The undo writes as much as the real run did, the other way round.
  for (const [index, { counts }] of undo.entries()) {
    const changes = (c: Record<string, number>) => c.created + c.updated + c.replaced + c.deleted;
    assert.ok(changes(counts) > 0 && counts.failed === 0, JSON.stringify(undo));
    assert.ok(changes(counts) >= real[index].counts.created, JSON.stringify([real, undo]));
  }
  assert.match(passes[3], /^ {2}Undoing run \d{8}-\d{6}-\d{3} of /m);
  assert.match(passes[3], /^ {6}Restored stack [0-9a-f-]{36} as [0-9a-f-]{36}$/m);
  const restored = stdout.slice(stdout.indexOf("━━ The stacks of User 1 after the undo"));
  const restoredRows = restored.split("\n").filter((line) => /^ {2}[0-9a-f]{8} /.test(line));
  assert.ok(restoredRows.length > 0);
  for (const row of restoredRows) assert.match(row, / kept as it was$/);

  const table = stdout.slice(
    stdout.indexOf("━━ The stacks of User 1 after pass 3"),
    stdout.indexOf("━━ Pass 4 of 4"),
  );
  assert.match(table, /^ {2}Stack +Parent \(cover\) +Other members +Change$/m);
  assert.match(
    table,
    /^ {2}[0-9a-f]{8} +IMG_9001~2\.JPG +IMG_9001\.JPG, IMG_9001\.CR3 +photos added$/m,
  );
  assert.match(table, /^ {2}[0-9a-f]{8} +IMG_9002\.JPG +IMG_9005\.JPG +conflict, left as it is$/m);
  assert.match(table, / created$/m);
  assert.match(table, / new cover$/m);
  // Stacks no group touches (made by hand) are neither in sync nor conflicts, but still listed.
  const rows = table.split("\n").filter((line) => /^ {2}[0-9a-f]{8} /.test(line));
  assert.match(table, new RegExp(`^ {2}${rows.length} stacks\\. `, "m"));
  assert.ok(rows.length > again[0].counts["in sync"] + again[0].counts["needs replacing"]);
});
