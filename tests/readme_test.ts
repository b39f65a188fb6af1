import assert from "node:assert/strict";
import { settingsTable } from "../src/config.ts";
import { PERMISSION_FLAGS, TARGETS } from "../scripts/compile.ts";
import { helpTexts, TABLE_BEGIN, TABLE_END, withSettingsTable } from "../scripts/readme.ts";

const README = await Deno.readTextFile(new URL("../README.md", import.meta.url));

Deno.test("withSettingsTable() leaves README.md unchanged: its settings table is current", () => {
  assert.ok(README.includes(`${TABLE_BEGIN}\n\n${settingsTable()}\n\n${TABLE_END}`));
  assert.equal(withSettingsTable(README), README);
});

Deno.test("helpTexts() leaves src/help_text.json unchanged: the --help texts are current", async () => {
  const json = await Deno.readTextFile(new URL("../src/help_text.json", import.meta.url));
  assert.equal(json, helpTexts(), "src/help_text.json is out of date: run deno task readme");
});

Deno.test("withSettingsTable() rejects a README without the table markers", () => {
  assert.throws(() => withSettingsTable("# stacksync\n"), SyntaxError);
  assert.throws(() => withSettingsTable(`${TABLE_END}\n${TABLE_BEGIN}\n`), SyntaxError);
});

Deno.test("README.md names every compile target and the permission flags", () => {
  for (const target of TARGETS) assert.ok(README.includes(`stacksync-${target}`), target);
  assert.ok(README.includes(`\`${PERMISSION_FLAGS.join(" ")}\``));
});

Deno.test(".ci/run runs every command of the README's Development block", async () => {
  const ci = (await Deno.readTextFile(new URL("../.ci/run", import.meta.url))).split("\n");
  const block = README.slice(README.indexOf("## Development")).match(/```sh\n([^`]*)```/);
  assert.ok(block !== null, "README has a Development block with commands");
  const commands = block[1].trim().split("\n").map((line) => line.replace(/\s*#.*$/, ""));
  assert.deepEqual(commands, ["deno task check", "deno task test", "deno task test:full"]);
  // CI runs the full suite, which holds the quick one (tests/ship_test.ts checks both tasks).
  for (const command of commands.filter((command) => command !== "deno task test")) {
    const runs = new RegExp(`(^|\\s)${command}(\\s|$)`);
    assert.ok(ci.some((line) => !line.trimStart().startsWith("#") && runs.test(line)), command);
  }
});
