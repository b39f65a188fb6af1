/**
 * The real CLI as a subprocess: `deno run` with exactly the permission flags of `deno task start`
 * and `deno task compile` (plus `--no-prompt`, so a missing permission fails instead of asking).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { helpText } from "../src/config.ts";
import { RUN_FLAGS } from "../scripts/compile.ts";
import denoJson from "../deno.json" with { type: "json" };
import { type CliRun, mapLimited, runCli } from "./_cli.ts";
import { caseEnv, INVALID_CASES, VALID_ENV } from "./_config_cases.ts";
import { propertyCases } from "./_property_cases.ts";
import { type ImmichServer, startImmichServer } from "./immich_server.ts";

const VERSION = denoJson.version;

Deno.test("deno task start uses exactly the permission flags the compile task uses", () => {
  assert.equal(denoJson.tasks.start, `deno run ${RUN_FLAGS.join(" ")} main.ts`);
});

Deno.test("main.ts answers --help, a command's --help and --version with status 0", async () => {
  const [help, undoHelp, version] = await mapLimited(
    [["--help"], ["undo", "--help"], ["--version"]],
    (args) => runCli({ args, env: { RUN_MODE: "bad" } }),
    { limit: 2 },
  );
  assert.deepEqual([help.code, help.stderr, help.stdout], [0, "", `${helpText()}\n`]);
  assert.deepEqual([undoHelp.code, undoHelp.stderr], [0, ""]);
  assert.equal(undoHelp.stdout, `${helpText("undo")}\n`);
  assert.deepEqual([version.code, version.stderr, version.stdout], [
    0,
    "",
    `stacksync ${VERSION}\n`,
  ]);
  await Promise.all(
    [help, undoHelp, version].map((run) => Deno.remove(run.cwd, { recursive: true })),
  );
});

Deno.test("main.ts answers -h, help and help COMMAND as --help, loading no npm package", async () => {
  // --no-npm: a line that loaded zod or LogTape would fail instead of answering.
  const forms: [string[], string][] = [
    [["-h"], helpText()],
    [["help"], helpText()],
    [["--help"], helpText()],
    [["help", "fix-trash"], helpText("fix-trash")],
    [["fix-trash", "-h"], helpText("fix-trash")],
    [["fix-trash", "--help"], helpText("fix-trash")],
  ];
  const runs = await mapLimited(
    forms,
    ([args]) => runCli({ args, env: { RUN_MODE: "bad" }, denoFlags: ["--no-npm"] }),
    { limit: 2 },
  );
  for (const [index, [args, text]] of forms.entries()) {
    const run = runs[index];
    assert.deepEqual([run.code, run.stderr, run.stdout], [0, "", `${text}\n`], args.join(" "));
    await Deno.remove(run.cwd, { recursive: true });
  }
  // The longest names no longer run into their summaries.
  assert.match(runs[0].stdout, /^ {2}fix-trash {2,}Move to the trash/m);
  assert.match(runs[0].stdout, /^ {2}duplicates {2,}List photos/m);
});

Deno.test("main.ts takes options before the command and suggests the command meant", async () => {
  const before = await runCli({
    args: ["--env-file", "prod.env", "runs"],
    files: { "prod.env": "STATE_DIR=state-of-prod\n" },
  });
  assert.deepEqual([before.code, before.stderr], [0, ""]);
  assert.match(before.stdout, /^No runs recorded in \S*state-of-prod\n$/);
  const typo = await runCli({ args: ["fixtrash"] });
  assert.deepEqual([typo.code, typo.stdout], [2, ""]);
  assert.equal(
    typo.stderr,
    "error: Cannot run the command as stacksync has no such command (did you mean fix-trash?): " +
      'current value is "fixtrash"\n',
  );
  await Promise.all([before, typo].map((run) => Deno.remove(run.cwd, { recursive: true })));
});

/**
 * tests/config_test.ts reads every invalid configuration in process; here, through the CLI, an
 * even sample of them (flags, files and commands among them), every one in `deno task test:full`.
 */
const THROUGH_CLI = propertyCases(INVALID_CASES.length, { sample: 24 }).seeds
  .map((seed) => INVALID_CASES[seed - 1]);

Deno.test(`main.ts exits 2 with one error line for ${THROUGH_CLI.length} of ${INVALID_CASES.length} invalid configurations`, async () => {
  const results = await mapLimited(
    THROUGH_CLI,
    (invalid) => runCli({ env: caseEnv(invalid), args: invalid.args, files: invalid.files }),
    { limit: 4 },
  );
  const failures = THROUGH_CLI.flatMap((invalid, index) => {
    const { code, stdout, stderr } = results[index];
    const expected = { code: 2, stdout: "", stderr: `error: ${invalid.message}\n` };
    const actual = { code, stdout, stderr };
    return JSON.stringify(actual) === JSON.stringify(expected) ? [] : [{ invalid, actual }];
  });
  assert.deepEqual(failures, []);
  await Promise.all(results.map((run) => Deno.remove(run.cwd, { recursive: true })));
});

/** A test server with one user per given key secret, each owning an unstacked RAW+JPEG pair. */
async function serverWithUsers(...secrets: string[]): Promise<ImmichServer> {
  const server = await startImmichServer();
  for (const [index, secret] of secrets.entries()) {
    const user = server.addUser({ name: `User ${index + 1}` });
    server.addKey(user.id, { secret });
    for (const name of ["IMG_0001.jpg", "IMG_0001.dng"]) {
      server.addAsset(user.id, {
        originalFileName: name,
        localDateTime: "2024-05-01T10:00:00.000Z",
      });
    }
  }
  return server;
}

Deno.test("main.ts reads ./.env, logs one start-up line and tees it to LOG_FILE", async () => {
  await using server = await serverWithUsers("key-a", "key-b");
  const run = await runCli({
    files: { ".env": `API_URL=${server.url}\nAPI_KEY=key-a,key-b\nLOG_FORMAT=json\n` },
    env: { LOG_FILE: "logs/nested/run.log", DRY_RUN: "true" },
  });
  assert.deepEqual([run.code, run.stderr], [0, ""]);
  const lines = run.stdout.trimEnd().split("\n").map((line) => JSON.parse(line));
  assert.equal(lines.filter((line) => line.msg.startsWith("Starting")).length, 1);
  assert.equal(lines[0].msg, `Starting stacksync ${VERSION}`);
  assert.equal(lines[0].level, "info");
  assert.deepEqual(
    [lines[0].apiUrl, lines[0].apiKeys, lines[0].dryRun, lines[0].runMode],
    [server.url, "2 keys", true, "once"],
  );
  assert.deepEqual(
    lines.filter((line) => line.msg.startsWith("Processing user")).map((line) => line.msg),
    ["Processing user: User 1", "Processing user: User 2"],
  );
  assert.equal(await Deno.readTextFile(join(run.cwd, "logs/nested/run.log")), run.stdout);
  await Deno.remove(run.cwd, { recursive: true });
});

Deno.test("main.ts warns and carries on when LOG_FILE cannot be opened", async () => {
  await using server = await serverWithUsers("key-a");
  const run = await runCli({
    env: { ...VALID_ENV, API_URL: server.url, API_KEY: "key-a", LOG_FILE: "blocker/run.log" },
    files: { blocker: "a file, not a folder" },
  });
  assert.deepEqual([run.code, run.stderr], [0, ""]);
  const lines = run.stdout.trimEnd().split("\n");
  assert.match(lines[0], /^time=\S+ level=warn msg="Could not open log file, using stdout only" /);
  assert.match(lines[1], /^time=\S+ level=info msg="Starting stacksync /);
  assert.ok(lines.some((line) => line.includes('msg="Success! Stack created"')), run.stdout);
  await Deno.remove(run.cwd, { recursive: true });
});

Deno.test("main.ts writes an API key to no output, whether it comes from env, file or flag", async () => {
  const secret = "sk-9f8e7d6c5b4a";
  const wrong = "sk-wrong-0a1b2c3d";
  await using server = await serverWithUsers(secret);
  const url = { API_URL: server.url, LOG_FILE: "run.log", LOG_LEVEL: "trace", DRY_RUN: "true" };
  const runs: (CliRun & { code: number })[] = [
    { code: 0, env: { ...url, API_KEY: secret } },
    { code: 0, env: { ...url, API_KEY_FILE: "key" }, files: { key: `${secret}\n` } },
    { code: 0, env: { ...url, LOG_FORMAT: "json" }, args: ["--api-key", secret] },
    { code: 1, env: { ...url, API_KEY: `${wrong},${secret}` } },
    { code: 2, env: { ...url, API_KEY: secret, RUN_MODE: "bad" } },
    // The empty entry is dropped with a warning, as immich-stack drops it.
    { code: 0, env: { ...url, API_KEY: `${secret},,${secret}` } },
    { code: 2, env: { ...url, API_KEY_FILE: "key" }, files: { key: `${secret}\n\nx\n` } },
    { code: 2, env: url, args: ["--api-key", secret, secret] },
    { code: 2, env: { ...url, API_KEY: secret, API_KEY_FILE: "key" }, files: { key: secret } },
  ];
  const results = await mapLimited(runs, runCli, { limit: 4 });
  for (const [index, result] of results.entries()) {
    const logFile = await Deno.readTextFile(join(result.cwd, "run.log")).catch(() => "");
    const output = `${result.stdout}${result.stderr}${logFile}`;
    assert.equal(result.code, runs[index].code, output);
    assert.ok(output.length > 0);
    assert.ok(!output.includes(secret), `run ${index} wrote the key: ${output}`);
    assert.ok(!output.includes(wrong), `run ${index} wrote the wrong key: ${output}`);
    await Deno.remove(result.cwd, { recursive: true });
  }
  // The key reached the server on the runs that went that far.
  assert.ok(
    server.requests.some((request) => request.path === "/users/me" && request.status === 200),
  );
});
