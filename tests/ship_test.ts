/**
 * What ships around the code cannot drift from it: the README and the user's pages of docs/ (the
 * recipes of docs/criteria.md run here against the Immich test server), the Dockerfile, the
 * example compose file and the workflows name only settings that exist, tasks deno.json declares
 * and the permission flags of scripts/compile.ts. The workflows and the image cannot run on this
 * machine; these checks are what keeps them true.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { COMMANDS, loadSettings, SETTINGS, UNSUPPORTED_SETTINGS } from "../src/config.ts";
import { REQUIRED_PERMISSIONS, STATISTICS_PERMISSION } from "../src/api/permissions.ts";
import { THUMBNAIL_PERMISSION } from "../src/review/thumbnails.ts";
import { runPass } from "../src/run.ts";
import { PERMISSION_FLAGS, RUN_FLAGS, V8_FLAGS } from "../scripts/compile.ts";
import { SETTINGS_PAGE, TABLE_BEGIN, TABLE_END } from "../scripts/readme.ts";
import denoJson from "../deno.json" with { type: "json" };
import { parse } from "yaml";
import { startImmichServer } from "./immich_server.ts";

const ROOT = new URL("../", import.meta.url);
const read = (path: string) => Deno.readTextFile(new URL(path, ROOT));

const README = await read("README.md");
/** The user's pages of docs/, by name; the contributors' pages are not read here. */
const PAGES = Object.fromEntries(
  await Promise.all(
    [
      "criteria",
      "development",
      "duplicates",
      "existing-stacks",
      "fix-trash",
      "immich",
      "logging",
      "migrating",
      "review",
      "scheduling",
      "settings",
      "troubleshooting",
      "undo",
    ].map(async (name) => [name, await read(`docs/${name}.md`)] as const),
  ),
);
const SETTINGS_TEXT = await read(SETTINGS_PAGE);
const DOCKERFILE = await read("Dockerfile");
const DOCKERIGNORE = await read(".dockerignore");
const COMPOSE = await read("examples/docker-compose.yml");
const SCHEDULED = await read("examples/github-actions.yml");
const RELEASE = await read(".github/workflows/release.yml");
const ACTION = await read("action.yml");
const CI = await read(".ci/run");

const SETTING_NAMES: ReadonlySet<string> = new Set(
  Object.values(SETTINGS).map((setting) => setting.env),
);
/** Upper-case names in the README and docs/ that are not settings, each for a reason. */
const NOT_SETTINGS = new Set([
  "IMMICH_API_KEY", // the GitHub secret of examples/github-actions.yml
  "IMMICH_API_URL", // the GitHub variable of examples/github-actions.yml
  "IMG_E", // the prefix of an iPhone edit's file name
  "KEY", // the placeholder of `KEY=value` lines
  "STACKSYNC_SCHEDULED", // the GitHub variable of examples/github-actions.yml: run or plan
  "NAME", // the placeholder of `NAME=value` lines
  "DRY_RUNS", // a misspelling the env file section shows being refused
  "API_KEYS", // a slip of API_KEY the settings section shows being refused in the environment
  "APP_KEY", // other programs' names the settings section shows being only warned about
  "APP_URL",
  "DENO_CERT", // Deno's own variables, for a server with a private certificate
  "DENO_TLS_CA_STORE",
  "DENO_UNSTABLE_NPM_LAZY_CACHING", // the Dockerfile's: only the packages main.ts imports
  "TERM", // the terminal's, which the progress line reads with NO_COLOR
  "NO_COLOR",
  "IMMICH_STACK_BIN", // the bench's: where immich-stack's binary is (docs/development.md)
  // immich-stack's settings that stacksync names in order to say they have no effect
  ...UNSUPPORTED_SETTINGS.map((setting) => setting.env),
]);

/** The text of a `## ` section of a page (the README by default), up to the next one. */
function section(title: string, page = README): string {
  const start = page.indexOf(`\n## ${title}\n`);
  assert.ok(start >= 0, `the page has a section ${title}`);
  const end = page.indexOf("\n## ", start + 1);
  return page.slice(start, end < 0 ? undefined : end);
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
  /** The setting lines as docs/criteria.md shows them. */
  readonly lines: readonly string[];
  readonly settings: Record<string, string>;
  readonly files: readonly RecipeFile[];
}

function recipes(): Recipe[] {
  return section("Recipes", PAGES.criteria).split(/^### /m).slice(1).map((text) => ({
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

Deno.test("docs/criteria.md's recipes make exactly the stacks their tables show", async (t) => {
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
      // The page says the lines work unchanged in a .env file.
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

Deno.test("README and docs/immich.md ask for exactly the key permissions a run and a dry run check", async () => {
  const rows = [...section("Create an API key").matchAll(/^\| `([a-z]+\.[a-z]+)` +\|/gm)];
  const listed = rows.map(([, permission]) => permission);
  // The pictures of the review page and incremental passes need two more, which no check asks
  // for.
  assert.deepEqual(listed, [...REQUIRED_PERMISSIONS, THUMBNAIL_PERMISSION, STATISTICS_PERMISSION]);
  const items = [...section("The API key", PAGES.immich).matchAll(/^- `([a-z]+\.[a-z]+)`: /gm)];
  assert.deepEqual(items.map(([, permission]) => permission), listed);
  const firstThree = /A key for dry runs only needs the first three, and so does `plan`\./;
  assert.match(section("Create an API key"), firstThree);
  assert.match(section("What each command needs", PAGES.immich), firstThree);

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

Deno.test("README, docs/, Dockerfile, compose file and example workflow name only existing settings", () => {
  const named = (label: string, names: Iterable<string>) =>
    [...names].filter((name) => !SETTING_NAMES.has(name)).map((name) => `${label}: ${name}`);
  const yamlKeys = (text: string) =>
    [...text.matchAll(/^\s*#?\s*([A-Z][A-Z0-9_]*):/gm)].map(([, name]) => name);
  // The settings input's lines, shown as comments.
  const scheduledNames = [...SCHEDULED.matchAll(/^\s*#\s+([A-Z][A-Z0-9_]*)=/gm)]
    .map(([, name]) => name).filter((name) => !NOT_SETTINGS.has(name));
  const namesIn = (text: string) =>
    [
      ...text.matchAll(/\b([A-Z][A-Z0-9_]*[A-Z0-9])=/g),
      ...text.matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`/g),
    ].map(([, name]) => name).filter((name) => !NOT_SETTINGS.has(name));
  const readmeNames = namesIn(README);
  const unknown = [
    ...named("README.md", readmeNames),
    ...Object.entries(PAGES).flatMap(([name, text]) => named(`docs/${name}.md`, namesIn(text))),
    ...named(
      "Dockerfile",
      [...DOCKERFILE.matchAll(/^ENV ([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1])
        .filter((name) => !NOT_SETTINGS.has(name)),
    ),
    ...named("examples/docker-compose.yml", yamlKeys(COMPOSE)),
    ...named("examples/github-actions.yml", scheduledNames),
  ];
  assert.deepEqual(unknown, []);
  assert.ok(
    readmeNames.length > 20 && yamlKeys(COMPOSE).length >= 5 && scheduledNames.length >= 2,
  );
});

Deno.test("README's first commands are the demo, then the tests", () => {
  const block = /^```sh\n([\s\S]*?)^```$/m.exec(README);
  assert.ok(block !== null);
  const commands = block[1].trim().split("\n").map((line) => line.replace(/\s*#.*$/, ""));
  assert.deepEqual(commands, ["deno task demo", "deno task test"]);
});

Deno.test("docs/settings.md's table has a row for every setting", () => {
  const table = SETTINGS_TEXT.slice(
    SETTINGS_TEXT.indexOf(TABLE_BEGIN),
    SETTINGS_TEXT.indexOf(TABLE_END),
  );
  const missing = [...SETTING_NAMES].filter((name) => !table.includes(`\n| \`${name}\` `));
  assert.deepEqual(missing, []);
});

Deno.test("README, docs/, Dockerfile and workflows run only tasks deno.json declares", () => {
  const tasks = new Set(Object.keys(denoJson.tasks));
  const used = [
    README,
    ...Object.values(PAGES),
    DOCKERFILE,
    COMPOSE,
    SCHEDULED,
    RELEASE,
    ACTION,
    CI,
  ]
    .flatMap((text) => [...text.matchAll(/deno task ([a-z:-]+)/g)].map(([, task]) => task));
  assert.deepEqual(used.filter((task) => !tasks.has(task)), []);
  for (const task of ["demo", "test", "test:full", "start", "compile", "check"]) {
    assert.ok(used.includes(task), task);
  }
});

Deno.test("Dockerfile's and the docs' deno run commands use exactly the compile permission flags", () => {
  const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(DOCKERFILE);
  assert.ok(entrypoint !== null, "Dockerfile has an exec-form ENTRYPOINT");
  assert.deepEqual(JSON.parse(entrypoint[1]), ["deno", "run", ...RUN_FLAGS, "main.ts"]);

  const commands = [README, ...Object.values(PAGES)].flatMap((text) => text.split("\n"))
    .filter((line) => /deno run .*main\.ts/.test(line));
  assert.ok(commands.length >= 3, "README and docs/scheduling.md show deno run commands");
  for (const command of commands) {
    // Narrowed values (`--allow-net=host`) are fine; the set of permissions must not change.
    const flags = [...command.matchAll(/(--(?:allow|deny)-[a-z]+)(?:=\S+)?/g)].map(([, f]) => f);
    assert.deepEqual(flags, [...PERMISSION_FLAGS], command);
    for (const flag of V8_FLAGS) assert.ok(command.includes(` ${flag} `), command);
  }
});

Deno.test("docs/scheduling.md's narrowed deno run command works as written", async () => {
  const line = PAGES.scheduling.split("\n")
    .find((text) => text.includes("--allow-net=immich.local:2283"));
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

Deno.test("Dockerfile, workflows, CI, README and docs/scheduling.md pin the same Deno version", () => {
  const versions = {
    "Dockerfile": /^FROM denoland\/deno:(\S+)$/m.exec(DOCKERFILE)?.[1],
    "release.yml": /deno-version: (\S+)/.exec(RELEASE)?.[1],
    "action.yml": /deno-version: (\S+)/.exec(ACTION)?.[1],
    "docs action": /The action installs Deno ([\d.]+)/.exec(PAGES.scheduling)?.[1],
    ".ci/run": /deno@(\S+)/.exec(CI)?.[1],
    "README npm": /npm install -g deno@([\d.]+)/.exec(README)?.[1],
    "docs image": /denoland\/deno:([\d.]+)/.exec(PAGES.scheduling)?.[1],
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

/** A workflow's steps by job, as parsed. */
type Workflow = {
  readonly on: Record<string, unknown>;
  readonly jobs: Record<string, { steps: Record<string, unknown>[]; permissions?: unknown }>;
};

Deno.test("deno task test leaves out only tests/full/, which test:full, CI and a release run", () => {
  const flags = "--allow-net=127.0.0.1 --allow-env --allow-read --allow-write --allow-run";
  // The fast suite leaves types (doc examples' too) to `deno task check`, which CI runs first.
  assert.equal(denoJson.tasks.test, `deno test ${flags} --no-check --parallel --ignore=tests/full`);
  assert.match(denoJson.tasks.check, / deno check --doc main\.ts src\/ tests\/ scripts\/ /);
  assert.equal(
    denoJson.tasks["test:full"],
    `STACKSYNC_PROPERTY_CASES=all deno test ${flags} --doc --parallel`,
  );
  assert.match(CI, /^NO_COLOR=1 deno task test:full 2>&1 \| tee "\$log"/m);
  assert.match(RELEASE, /^ {6}- run: deno task test:full$/m);
});

Deno.test("release workflow checks, tests and compiles on a v* tag, then uploads dist/*", () => {
  assert.match(RELEASE, /^ {4}tags: \["v\*"\]$/m);
  const runs = [...RELEASE.matchAll(/^ {6}- run: (.*)$/gm)].map(([, command]) => command);
  assert.deepEqual(runs, ["deno task check", "deno task test:full", "deno task compile"]);
  assert.match(RELEASE, /gh release create "\$GITHUB_REF_NAME" dist\/\*/);
});

Deno.test("release workflow pushes the image the compose file names, for amd64 and arm64", () => {
  const { jobs } = parse(RELEASE) as Workflow;
  assert.deepEqual(jobs.image.permissions, { contents: "read", packages: "write" });
  assert.equal((jobs.image as { needs?: string }).needs, "release");
  const build = jobs.image.steps.find((step) => String(step.uses).startsWith("docker/build-push"));
  const options = build?.with as Record<string, string>;
  assert.equal(options.platforms, "linux/amd64,linux/arm64");
  assert.equal(options.push, true);
  // The tag is the release's (v0.1.0 → 0.1.0), which the release job checked against deno.json.
  assert.match(
    RELEASE,
    /image="ghcr\.io\/\$\{GITHUB_REPOSITORY_OWNER,,\}\/stacksync"\n.*"tags=\$image:\$\{GITHUB_REF_NAME#v\},\$image:latest"/,
  );
  assert.ok(RELEASE.indexOf("Tag matches the version in deno.json") < RELEASE.indexOf("image:"));
  const image = /^ {4}image: ghcr\.io\/OWNER\/stacksync:(\S+)$/m.exec(COMPOSE)?.[1];
  assert.equal(image, denoJson.version);
  for (const page of [README, PAGES.scheduling]) {
    assert.match(page, new RegExp(`ghcr\\.io/OWNER/stacksync:<version>`));
  }
});

Deno.test("example workflow runs the action daily and by hand, the key from a secret", () => {
  const workflow = parse(SCHEDULED) as Workflow;
  assert.deepEqual(Object.keys(workflow.on), ["schedule", "workflow_dispatch"]);
  const steps = workflow.jobs.stacksync.steps;
  const step = steps.find((s) => String(s.uses).includes("/stacksync@"));
  assert.ok(step !== undefined, "a step uses the action");
  // The tag each release moves: v0 for 0.x, v1 for 1.x.
  assert.equal(step.uses, `OWNER/stacksync@v${denoJson.version.split(".")[0]}`);
  const inputs = step.with as Record<string, string>;
  const declared = (parse(ACTION) as { inputs: Record<string, unknown> }).inputs;
  assert.deepEqual(Object.keys(inputs).filter((name) => !(name in declared)), []);
  assert.equal(inputs["api-key"], "${{ secrets.IMMICH_API_KEY }}");
  assert.equal(inputs["api-url"], "${{ vars.IMMICH_API_URL }}");
  assert.equal(inputs.command, "${{ inputs.command || vars.STACKSYNC_SCHEDULED || 'run' }}");
  assert.equal(inputs.args, "${{ inputs.command == 'apply' && inputs.plan_file || '' }}");
  // The approved plan of apply is a file of the repository.
  assert.deepEqual(steps[0], { uses: "actions/checkout@v4", if: "inputs.command == 'apply'" });
  const dispatch = workflow.on.workflow_dispatch as {
    inputs: { command: { options: string[] } };
  };
  assert.deepEqual(
    dispatch.inputs.command.options,
    Object.keys(COMMANDS).filter((name) => name !== "restore"),
  );
});

Deno.test("README's Commands list every command, and Dockerfile and compose file keep /state", () => {
  const quick = section("Commands");
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

Deno.test("README's and docs/review.md's review shows the page's screenshot and its commands", async () => {
  const pages = [
    { review: section("Review before you apply"), image: "docs/review-page.png" },
    { review: section("Plan, review, apply", PAGES.review), image: "review-page.png" },
  ];
  for (const { review, image } of pages) {
    const shown = /^!\[[^\]]+\]\(([^)]+)\)$/m.exec(review)?.[1];
    assert.equal(shown, image);
    const commands = /^```sh\n([\s\S]*?)^```$/m.exec(review)?.[1].split("\n")
      .map((line) => line.replace(/\s*#.*$/, "")).filter((line) => line !== "");
    assert.deepEqual(commands, [
      "deno task start plan --html plan.html",
      "deno task start apply plan-approved.json",
    ]);
  }
  // Written by deno task screenshot from the page stacksync plan --html makes.
  const png = await Deno.readFile(new URL("docs/review-page.png", ROOT));
  assert.deepEqual([...png.slice(1, 4)], [..."PNG"].map((c) => c.charCodeAt(0)));
  assert.match(section("On a schedule", PAGES.review), /STACKSYNC_SCHEDULED/);
  assert.match(SCHEDULED, /vars\.STACKSYNC_SCHEDULED/);
});
