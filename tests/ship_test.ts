/**
 * What ships around the code cannot drift from it: the README (its recipes run here against the
 * Immich test server), the Dockerfile, the example compose file and the workflows name only
 * settings that exist, tasks deno.json declares and the permission flags of scripts/compile.ts.
 * The workflows and the image cannot run on this machine; these checks are what keeps them true.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { COMMANDS, loadSettings, SETTINGS, UNSUPPORTED_SETTINGS } from "../src/config.ts";
import { REQUIRED_PERMISSIONS, STATISTICS_PERMISSION } from "../src/api/permissions.ts";
import { THUMBNAIL_PERMISSION } from "../src/review/thumbnails.ts";
import { runPass } from "../src/run.ts";
import { PERMISSION_FLAGS, RUN_FLAGS, V8_FLAGS } from "../scripts/compile.ts";
import { TABLE_BEGIN, TABLE_END } from "../scripts/readme.ts";
import denoJson from "../deno.json" with { type: "json" };
import { startImmichServer } from "./immich_server.ts";

const ROOT = new URL("../", import.meta.url);
const read = (path: string) => Deno.readTextFile(new URL(path, ROOT));

const README = await read("README.md");
const DOCKERFILE = await read("Dockerfile");
const DOCKERIGNORE = await read(".dockerignore");
const COMPOSE = await read("examples/docker-compose.yml");
const SCHEDULED = await read("examples/github-actions.yml");
const RELEASE = await read(".github/workflows/release.yml");
const CI = await read(".ci/run");

const SETTING_NAMES: ReadonlySet<string> = new Set(
  Object.values(SETTINGS).map((setting) => setting.env),
);
/** Upper-case names in the README that are not settings, each for a reason. */
const NOT_SETTINGS = new Set([
  "IMMICH_API_KEY", // the GitHub secret of examples/github-actions.yml
  "IMMICH_API_URL", // the GitHub variable of examples/github-actions.yml
  "IMG_E", // the prefix of an iPhone edit's file name
  "KEY", // the placeholder of `KEY=value` lines
  "COMMAND", // the command input of examples/github-actions.yml, passed to `deno task start`
  "PLAN_FILE", // the plan_file input of examples/github-actions.yml, passed to `stacksync apply`
  "STACKSYNC_SCHEDULED", // the GitHub variable of examples/github-actions.yml: run or plan
  "NAME", // the placeholder of `NAME=value` lines
  "DRY_RUNS", // a misspelling the env file section shows being refused
  "DENO_CERT", // Deno's own variables, for a server with a private certificate
  "DENO_TLS_CA_STORE",
  // immich-stack's settings that stacksync names in order to say they have no effect
  ...UNSUPPORTED_SETTINGS.map((setting) => setting.env),
]);

/** The text of a `## ` section of the README, up to the next one. */
function section(title: string): string {
  const start = README.indexOf(`\n## ${title}\n`);
  assert.ok(start >= 0, `README has a section ${title}`);
  const end = README.indexOf("\n## ", start + 1);
  return README.slice(start, end < 0 ? undefined : end);
}

/** The `NAME=value` lines of the ```sh blocks of a text, as written. */
function settingLines(text: string): string[] {
  return [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)]
    .flatMap(([, block]) => block.match(/^[A-Z][A-Z0-9_]*=.*$/gm) ?? []);
}

/** Settings from `NAME=value` lines as a shell reads them: single quotes taken literally. */
function shellSettings(lines: readonly string[]): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const line of lines) {
    const [, name, value] = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line)!;
    settings[name] = value.replace(/^'(.*)'$/, "$1");
  }
  return settings;
}

/** One file of a recipe's table. */
interface RecipeFile {
  readonly name: string;
  /** `HH:MM:SS.mmm` on one day. */
  readonly taken: string;
  /** The stack's letter, or null for "none". */
  readonly stack: string | null;
  readonly parent: boolean;
}

interface Recipe {
  readonly title: string;
  /** The setting lines as the README shows them. */
  readonly lines: readonly string[];
  readonly settings: Record<string, string>;
  readonly files: readonly RecipeFile[];
}

function recipes(): Recipe[] {
  return section("Recipes").split(/^### /m).slice(1).map((text) => ({
    title: text.slice(0, text.indexOf("\n")),
    lines: settingLines(text),
    settings: shellSettings(settingLines(text)),
    files: [...text.matchAll(/^\| `([^`]+)` +\| (\d\d:\d\d:\d\d\.\d{3}) +\| ([^|]+?) +\|$/gm)]
      .map(([, name, taken, stack]) => ({
        name,
        taken,
        stack: stack === "none" ? null : stack.replace(", parent", ""),
        parent: stack.endsWith(", parent"),
      })),
  }));
}

/** Stacks as file names, cover first then the rest sorted, for order-free comparison. */
function described(stacks: readonly (readonly string[])[]): string[] {
  return stacks.map(([cover, ...rest]) => [cover, ...rest.sort()].join(" + ")).sort();
}

Deno.test("README recipes make exactly the stacks their tables show", async (t) => {
  const all = recipes();
  assert.ok(all.length >= 12, `found ${all.length} recipes`);
  await using server = await startImmichServer();
  for (const recipe of all) {
    await t.step(recipe.title, async () => {
      for (const name of Object.keys(recipe.settings)) assert.ok(SETTING_NAMES.has(name), name);
      const letters = [...new Set(recipe.files.flatMap((file) => file.stack ?? []))];
      assert.ok(letters.length > 0, "the table shows at least one stack");
      const expected = letters.map((letter) => {
        const members = recipe.files.filter((file) => file.stack === letter);
        const covers = members.filter((file) => file.parent);
        assert.equal(covers.length, 1, `stack ${letter} has one parent`);
        return [covers[0].name, ...members.filter((file) => !file.parent).map((f) => f.name)];
      });

      const user = server.addUser({ name: recipe.title });
      const key = server.addKey(user.id);
      const names = new Map<string, string>();
      for (const file of recipe.files) {
        const localDateTime = `2024-05-01T${file.taken}Z`;
        names.set(
          server.addAsset(user.id, { originalFileName: file.name, localDateTime }).id,
          file.name,
        );
      }
      const command = loadSettings({
        args: [],
        env: { API_URL: server.url, API_KEY: key, ...recipe.settings },
        version: denoJson.version,
        readTextFile: () => undefined,
      });
      assert.equal(command.kind, "run");
      if (command.kind !== "run") return;
      // The README says the lines work unchanged in a .env file.
      const fromFile = loadSettings({
        args: [],
        env: { API_URL: server.url, API_KEY: key },
        version: denoJson.version,
        readTextFile: () => recipe.lines.join("\n"),
      });
      assert.deepEqual(fromFile, command);
      const [report] = await runPass(command.settings);
      assert.equal(report.status, "done", report.error ?? "");
      const actual = server.stacks(user.id).map((stack) =>
        [stack.primaryAssetId, ...stack.assetIds.filter((id) => id !== stack.primaryAssetId)]
          .map((id) => names.get(id)!)
      );
      assert.deepEqual(described(actual), described(expected));
    });
  }
});

Deno.test("README asks for exactly the key permissions a run and a dry run check", async () => {
  const rows = [...section("Create an API key").matchAll(/^\| `([a-z]+\.[a-z]+)` +\|/gm)];
  const listed = rows.map(([, permission]) => permission);
  // The pictures of the review page and incremental passes need two more, which no check asks
  // for.
  assert.deepEqual(listed, [...REQUIRED_PERMISSIONS, THUMBNAIL_PERMISSION, STATISTICS_PERMISSION]);
  assert.match(
    section("Create an API key"),
    /A key for dry runs only needs the first three, and so does `plan`\./,
  );

  // The first three are all a dry run needs; a real run names the other three as missing.
  await using server = await startImmichServer();
  const user = server.addUser({ name: "Reader" });
  const key = server.addKey(user.id, { permissions: listed.slice(0, 3) });
  const run = async (dryRun: boolean) => {
    const command = loadSettings({
      args: dryRun ? ["--dry-run"] : [],
      env: { API_URL: server.url, API_KEY: key },
      version: denoJson.version,
      readTextFile: () => undefined,
    });
    assert.equal(command.kind, "run");
    return command.kind === "run" ? (await runPass(command.settings))[0] : undefined;
  };
  assert.equal((await run(true))?.status, "done");
  const real = await run(false);
  assert.equal(real?.status, "failed");
  assert.match(
    real?.error ?? "",
    new RegExp(`lacks the permissions ${listed.slice(3, 6).join(", ").replaceAll(".", "\\.")}:`),
  );
});

Deno.test("README, Dockerfile, compose file and example workflow name only existing settings", () => {
  const named = (label: string, names: Iterable<string>) =>
    [...names].filter((name) => !SETTING_NAMES.has(name)).map((name) => `${label}: ${name}`);
  const yamlKeys = (text: string) =>
    [...text.matchAll(/^\s*#?\s*([A-Z][A-Z0-9_]*):/gm)].map(([, name]) => name);
  const readmeNames = [
    ...README.matchAll(/\b([A-Z][A-Z0-9_]*[A-Z0-9])=/g),
    ...README.matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`/g),
  ].map(([, name]) => name).filter((name) => !NOT_SETTINGS.has(name));
  const unknown = [
    ...named("README.md", readmeNames),
    ...named("Dockerfile", [...DOCKERFILE.matchAll(/^ENV ([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1])),
    ...named("examples/docker-compose.yml", yamlKeys(COMPOSE)),
    ...named(
      "examples/github-actions.yml",
      yamlKeys(SCHEDULED).filter((name) => !NOT_SETTINGS.has(name)),
    ),
  ];
  assert.deepEqual(unknown, []);
  assert.ok(
    readmeNames.length > 20 && yamlKeys(COMPOSE).length >= 5 && yamlKeys(SCHEDULED).length >= 3,
  );
});

Deno.test("README's first commands are the demo, then the tests", () => {
  const block = /^```sh\n([\s\S]*?)^```$/m.exec(README);
  assert.ok(block !== null);
  const commands = block[1].trim().split("\n").map((line) => line.replace(/\s*#.*$/, ""));
  assert.deepEqual(commands, ["deno task demo", "deno task test"]);
});

Deno.test("README's settings table has a row for every setting", () => {
  const table = README.slice(README.indexOf(TABLE_BEGIN), README.indexOf(TABLE_END));
  const missing = [...SETTING_NAMES].filter((name) => !table.includes(`\n| \`${name}\` `));
  assert.deepEqual(missing, []);
});

Deno.test("README, Dockerfile and workflows run only tasks deno.json declares", () => {
  const tasks = new Set(Object.keys(denoJson.tasks));
  const used = [README, DOCKERFILE, COMPOSE, SCHEDULED, RELEASE, CI]
    .flatMap((text) => [...text.matchAll(/deno task ([a-z-]+)/g)].map(([, task]) => task));
  assert.deepEqual(used.filter((task) => !tasks.has(task)), []);
  for (const task of ["demo", "test", "start", "compile", "check"]) assert.ok(used.includes(task));
});

Deno.test("Dockerfile and README's deno run commands use exactly the compile permission flags", () => {
  const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(DOCKERFILE);
  assert.ok(entrypoint !== null, "Dockerfile has an exec-form ENTRYPOINT");
  assert.deepEqual(JSON.parse(entrypoint[1]), ["deno", "run", ...RUN_FLAGS, "main.ts"]);

  const commands = README.split("\n").filter((line) => /deno run .*main\.ts/.test(line));
  assert.ok(commands.length >= 2, "README shows deno run commands");
  for (const command of commands) {
    // Narrowed values (`--allow-net=host`) are fine; the set of permissions must not change.
    const flags = [...command.matchAll(/(--(?:allow|deny)-[a-z]+)(?:=\S+)?/g)].map(([, f]) => f);
    assert.deepEqual(flags, [...PERMISSION_FLAGS], command);
    for (const flag of V8_FLAGS) assert.ok(command.includes(` ${flag} `), command);
  }
});

Deno.test("README's narrowed deno run command works as written", async () => {
  const line = README.split("\n").find((text) => text.includes("--allow-net=immich.local:2283"));
  assert.ok(line !== undefined);
  const words = line.split(" ");
  const assignments = words.slice(0, words.indexOf("deno"));
  const args = words.slice(assignments.length + 2);
  const given = Object.fromEntries(assignments.map((assignment) => assignment.split("=")));
  await using server = await startImmichServer();
  const user = server.addUser({ name: "Narrow" });
  const key = server.addKey(user.id);
  for (const file of ["IMG_0001.JPG", "IMG_0001.CR3"]) {
    server.addAsset(user.id, { originalFileName: file, localDateTime: "2024-05-01T10:00:00Z" });
  }
  const cwd = await Deno.makeTempDir({ prefix: "stacksync_ship_test_" });
  const host = new URL(server.url).host;
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      ...args.map((arg) =>
        arg === "main.ts"
          ? fileURLToPath(new URL("main.ts", ROOT))
          : arg.replace("immich.local:2283", host)
      ),
    ],
    env: { ...given, API_URL: server.url, API_KEY: key, NO_COLOR: "1" },
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  assert.equal(output.code, 0, `${stdout}${new TextDecoder().decode(output.stderr)}`);
  assert.doesNotMatch(stdout, /Could not open log file/);
  assert.equal(await Deno.readTextFile(`${cwd}/${given.LOG_FILE}`), stdout);
  assert.equal(server.stacks(user.id).length, 1);
  // The run was journaled in the state folder it names.
  const runs = await Array.fromAsync(Deno.readDir(`${cwd}/${given.STATE_DIR}/runs`));
  assert.equal(runs.length, 1);
  await Deno.remove(cwd, { recursive: true });
});

Deno.test("Dockerfile, workflows, CI and README pin the same Deno version", () => {
  const versions = {
    "Dockerfile": /^FROM denoland\/deno:(\S+)$/m.exec(DOCKERFILE)?.[1],
    "release.yml": /deno-version: (\S+)/.exec(RELEASE)?.[1],
    "github-actions.yml": /deno-version: (\S+)/.exec(SCHEDULED)?.[1],
    ".ci/run": /deno@(\S+)/.exec(CI)?.[1],
    "README npm": /npm install -g deno@([\d.]+)/.exec(README)?.[1],
    "README image": /denoland\/deno:([\d.]+)/.exec(README)?.[1],
  };
  const pinned = versions["Dockerfile"];
  assert.match(pinned ?? "", /^\d+\.\d+\.\d+$/);
  for (const [where, version] of Object.entries(versions)) assert.equal(version, pinned, where);
});

Deno.test("Dockerfile runs as a non-root user and .dockerignore keeps keys out", () => {
  const user = /^USER (\S+)$/m.exec(DOCKERFILE);
  assert.ok(user !== null && user[1] !== "root" && user[1] !== "0");
  assert.ok(DOCKERFILE.indexOf("USER ") < DOCKERFILE.indexOf("ENTRYPOINT"));
  assert.doesNotMatch(DOCKERFILE, /^COPY \. /m);
  assert.match(DOCKERIGNORE, /^\.env$/m);
});

Deno.test("release workflow checks, tests and compiles on a v* tag, then uploads dist/*", () => {
  assert.match(RELEASE, /^ {4}tags: \["v\*"\]$/m);
  const runs = [...RELEASE.matchAll(/^ {6}- run: (.*)$/gm)].map(([, command]) => command);
  assert.deepEqual(runs, ["deno task check", "deno task test", "deno task compile"]);
  assert.match(RELEASE, /gh release create "\$GITHUB_REF_NAME" dist\/\*/);
});

Deno.test("example workflow runs daily and by hand with the key from a secret", () => {
  assert.match(SCHEDULED, /^ {2}schedule:\n {4}- cron: "[^"]+"/m);
  assert.match(SCHEDULED, /^ {2}workflow_dispatch:$/m);
  assert.match(SCHEDULED, /^ {6}API_KEY: \$\{\{ secrets\.IMMICH_API_KEY \}\}$/m);
  assert.match(SCHEDULED, /^ {6}API_URL: \$\{\{ vars\.IMMICH_API_URL \}\}$/m);
  assert.match(SCHEDULED, /^ {6}RUN_MODE: once$/m);
  assert.match(SCHEDULED, /^ {8}run: deno task start "\$COMMAND"$/m);
});

Deno.test("example workflow plans with a page as an artifact, and applies a file by hand", () => {
  assert.match(
    SCHEDULED,
    /^ {6}COMMAND: \$\{\{ inputs\.command \|\| vars\.STACKSYNC_SCHEDULED \|\| 'run' \}\}$/m,
  );
  const plan = /^ {8}run: deno task start plan (.*)$/m.exec(SCHEDULED)?.[1];
  assert.equal(plan, "--out plan.json --html plan.html --embed-thumbnails");
  assert.match(SCHEDULED, /^ {10}name: stacksync-plan\n {10}path: plan\.\*$/m);
  assert.match(
    SCHEDULED,
    /^ {8}run: deno task start apply "\$PLAN_FILE"\n {8}env:\n {10}PLAN_FILE: \$\{\{ inputs\.plan_file \}\}$/m,
  );
  const loaded = loadSettings({
    args: ["plan", ...plan!.split(" ")],
    env: { API_URL: "http://immich:2283/api", API_KEY: "k" },
    version: denoJson.version,
    readTextFile: () => undefined,
  });
  assert.equal(loaded.kind, "run");
});

Deno.test("example workflow keeps STATE_DIR between runs and offers every command but restore", () => {
  const folder = /^ {6}STATE_DIR: (\S+)$/m.exec(SCHEDULED)?.[1];
  assert.ok(folder !== undefined, "STATE_DIR is set");
  // Restored before the run, saved after it even when it fails, under the same key.
  const paths = [...SCHEDULED.matchAll(/^ {10}path: (\S+)$/gm)].map(([, path]) => path);
  assert.deepEqual(paths.filter((path) => path !== "plan.*"), [folder, folder, folder]);
  assert.ok(
    SCHEDULED.indexOf("actions/cache/restore@") < SCHEDULED.indexOf("run: deno task start") &&
      SCHEDULED.indexOf("run: deno task start") < SCHEDULED.indexOf("actions/cache/save@"),
  );
  const options = /^ {8}options: \[(.*)\]$/m.exec(SCHEDULED)?.[1].split(", ");
  assert.deepEqual(options, Object.keys(COMMANDS).filter((name) => name !== "restore"));
});

Deno.test("README's quick start lists every command, and Dockerfile and compose file keep /state", () => {
  const quick = section("Quick start");
  for (const name of Object.keys(COMMANDS)) {
    assert.match(quick, new RegExp(`^\\| .*\`stacksync ${name}[ \`]`, "m"), name);
  }
  assert.match(DOCKERFILE, /^ENV STATE_DIR=\/state$/m);
  assert.match(DOCKERFILE, /^VOLUME \/state$/m);
  assert.ok(DOCKERFILE.indexOf("chown deno:deno /state") < DOCKERFILE.indexOf("USER deno"));
  assert.match(COMPOSE, /^ {6}STATE_DIR: \/state$/m);
  assert.match(COMPOSE, /^ {4}volumes:\n {6}- \S+:\/state$/m);
});

Deno.test("compose service reaches immich-server and reads the key from a Docker secret", () => {
  assert.match(COMPOSE, /^ {6}API_URL: http:\/\/immich-server:2283\/api$/m);
  const file = /^ {6}API_KEY_FILE: \/run\/secrets\/(\S+)$/m.exec(COMPOSE);
  assert.ok(file !== null, "API_KEY_FILE names a Docker secret");
  assert.match(COMPOSE, new RegExp(`^ {4}secrets:\\n {6}- ${file[1]}$`, "m"));
  assert.match(COMPOSE, new RegExp(`^secrets:\\n {2}${file[1]}:\\n {4}file: \\S+$`, "m"));
  assert.doesNotMatch(COMPOSE, /^ {6}API_KEY:/m);
});

Deno.test("README's Review before you apply shows the page's screenshot and its commands", async () => {
  const review = section("Review before you apply");
  const image = /^!\[[^\]]+\]\((docs\/review-page\.png)\)$/m.exec(review)?.[1];
  assert.equal(image, "docs/review-page.png");
  // Written by tests/review_page_test.ts from the page stacksync plan --html makes.
  const png = await Deno.readFile(new URL(image, ROOT));
  assert.deepEqual([...png.slice(1, 4)], [..."PNG"].map((c) => c.charCodeAt(0)));
  const commands = /^```sh\n([\s\S]*?)^```$/m.exec(review)?.[1].split("\n")
    .map((line) => line.replace(/\s*#.*$/, "")).filter((line) => line !== "");
  assert.deepEqual(commands, [
    "deno task start plan --html plan.html",
    "deno task start apply plan-approved.json",
  ]);
  assert.match(review, /STACKSYNC_SCHEDULED/);
  assert.match(SCHEDULED, /vars\.STACKSYNC_SCHEDULED/);
});

Deno.test(".ci/run installs Chromium when it is missing, before the tests", () => {
  const install = CI.indexOf("apt-get install -y chromium");
  assert.ok(install > 0 && install < CI.indexOf("deno task test"));
  assert.match(CI, /if \[ ! -x \/usr\/bin\/chromium \]; then/);
});
