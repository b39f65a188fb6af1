import assert from "node:assert/strict";
import { settingsTable } from "../src/config.ts";
import { PERMISSION_FLAGS, TARGETS } from "../scripts/compile.ts";
import {
  helpTexts,
  SETTINGS_PAGE,
  TABLE_BEGIN,
  TABLE_END,
  withSettingsTable,
} from "../scripts/readme.ts";
import denoJson from "../deno.json" with { type: "json" };

const read = (path: string) => Deno.readTextFile(new URL(`../${path}`, import.meta.url));
const README = await read("README.md");
const SETTINGS = await read(SETTINGS_PAGE);

Deno.test("withSettingsTable() leaves docs/settings.md unchanged: its settings table is current", () => {
  assert.ok(SETTINGS.includes(`${TABLE_BEGIN}\n\n${settingsTable()}\n\n${TABLE_END}`));
  assert.equal(withSettingsTable(SETTINGS), SETTINGS);
});

Deno.test("helpTexts() leaves src/help_text.json unchanged: the --help texts are current", async () => {
  const json = await read("src/help_text.json");
  assert.equal(json, helpTexts(), "src/help_text.json is out of date: run deno task readme");
});

Deno.test("withSettingsTable() rejects a page without the table markers", () => {
  assert.throws(() => withSettingsTable("# stacksync\n"), SyntaxError);
  assert.throws(() => withSettingsTable(`${TABLE_END}\n${TABLE_BEGIN}\n`), SyntaxError);
});

Deno.test("deno task readme may read and write exactly the files it regenerates", () => {
  const files = `${SETTINGS_PAGE},src/help_text.json`;
  assert.match(denoJson.tasks.readme, new RegExp(`--allow-read=${files} --allow-write=${files} `));
});

Deno.test("README.md names every compile target and the permission flags", () => {
  for (const target of TARGETS) assert.ok(README.includes(`stacksync-${target}`), target);
  assert.ok(README.includes(`\`${PERMISSION_FLAGS.join(" ")}\``));
});

Deno.test("README's Development block names the test tasks, and .ci/run runs what it says CI runs", async () => {
  const ci = (await read(".ci/run")).split("\n")
    .filter((line) => !line.trimStart().startsWith("#"));
  const block = README.slice(README.indexOf("\n## Development\n")).match(/```sh\n([^`]*)```/);
  assert.ok(block !== null, "README has a Development block with commands");
  const lines = block[1].trim().split("\n");
  const commands = lines.map((line) => line.replace(/\s*#.*$/, ""));
  assert.deepEqual(commands, ["deno task check", "deno task test", "deno task test:full"]);
  for (const command of commands) {
    assert.ok(command.slice("deno task ".length) in denoJson.tasks, command);
  }
  const inCi = [
    "deno task check",
    ...lines.filter((line) => line.includes("(what CI runs)")).map((line) =>
      line.replace(/\s*#.*$/, "")
    ),
  ];
  assert.equal(inCi.length, 2, "one test command is what CI runs");
  for (const command of inCi) {
    const runs = new RegExp(`(^|\\s)${command}(\\s|$)`);
    assert.ok(ci.some((line) => runs.test(line)), `.ci/run runs ${command}`);
  }
  // The page of every task shows the same block.
  assert.ok((await read("docs/development.md")).includes(block[0]), "docs/development.md");
});
