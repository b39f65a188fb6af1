/**
 * Settings a user types wrong, through the real CLI against the Immich test server: nothing
 * mistyped may make a run do what the user did not ask for, or print a key. Each test here
 * failed before env files were parsed strictly, values that may be keys were hidden and
 * immich-stack's settings were recognised.
 */
import assert from "node:assert/strict";
import { type CliResult, mapLimited, runCli } from "./_cli.ts";
import { type ImmichServer, startImmichServer } from "./immich_server.ts";

/** An Immich API key as Immich makes them: 32 random bytes in base64, non-word characters cut. */
const KEY = "Zq3Xv9Lr2Kd8Pw5Hn1Tc7Yb4Mf6Gs0JaQe2Uo8Ix";

/** A test server with one user whose RAW+JPEG pair is unstacked: a real run stacks it. */
async function serverWithPair(): Promise<{ server: ImmichServer; userId: string }> {
  const server = await startImmichServer();
  const user = server.addUser({ name: "Pat" });
  server.addKey(user.id, { secret: KEY });
  for (const name of ["IMG_0001.jpg", "IMG_0001.dng"]) {
    server.addAsset(user.id, { originalFileName: name, localDateTime: "2024-05-01T10:00:00Z" });
  }
  return { server, userId: user.id };
}

/**
 * Asserts that each run stopped with status 2 and its one line on stderr, removes their folders,
 * and asserts that the server got no request and the user no stack.
 */
async function assertRefused(
  runs: readonly CliResult[],
  messages: readonly string[],
  sent: { readonly server: ImmichServer; readonly userId: string },
): Promise<void> {
  for (const [index, run] of runs.entries()) {
    assert.deepEqual(
      { code: run.code, stdout: run.stdout, stderr: run.stderr },
      { code: 2, stdout: "", stderr: `error: ${messages[index]}\n` },
    );
    await Deno.remove(run.cwd, { recursive: true });
  }
  assert.deepEqual(sent.server.requests, []);
  assert.deepEqual(sent.server.stacks(sent.userId), []);
}

/** JSON log lines of a run's stdout. */
function logLines(stdout: string): { level: string; msg: string; [field: string]: unknown }[] {
  return stdout.trimEnd().split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
}

Deno.test("main.ts refuses an env file line it cannot read, and a misspelt name, before any request", async () => {
  const { server, userId } = await serverWithPair();
  await using _server = server;
  const start = `API_URL=${server.url}\nAPI_KEY=${KEY}\n`;
  const cases = [
    {
      file: `${start}DRY_RUN true\n`,
      message: 'Invalid env file .env at line 3: expected NAME=value, found no "=" after DRY_RUN',
    },
    {
      file: `API_URL=${server.url}\nAPI_KEY="${KEY}\nDRY_RUN=true\n`,
      message: 'Invalid env file .env at line 2: the value of API_KEY opens a " quote that ' +
        "is not closed on the same line",
    },
    {
      file: `${start}DRYRUN=true\n`,
      message: "Invalid env file .env at line 3: DRYRUN is not a setting: did you mean DRY_RUN?",
    },
    {
      file: `${start}dry_run=true\n`,
      message: "Invalid env file .env at line 3: dry_run is not a setting: did you mean DRY_RUN?",
    },
    {
      file: `${start}DRY_RUNS=true\n`,
      message: "Invalid env file .env at line 3: DRY_RUNS is not a setting: did you mean DRY_RUN?",
    },
  ];
  const runs = await mapLimited(cases, (c) => runCli({ files: { ".env": c.file } }), { limit: 3 });
  await assertRefused(runs, cases.map((c) => c.message), { server, userId });
});

Deno.test("main.ts refuses a setting's name typed with a slip in the environment, before any request", async () => {
  const { server, userId } = await serverWithPair();
  await using _server = server;
  const base = { API_URL: server.url, API_KEY: KEY };
  const typos = ["DRYRUN", "dry_run", "DRY_RUNS", "Dry-Run"];
  const runs = await mapLimited(
    typos,
    (name) => runCli({ env: { ...base, [name]: "true" } }),
    { limit: 2 },
  );
  const messages = typos.map((name) =>
    `Invalid environment variable ${name}: it is not a setting: did you mean DRY_RUN?`
  );
  await assertRefused(runs, messages, { server, userId });
});

Deno.test("main.ts only warns about a name one letter from a setting's, common in other programs", async () => {
  const { server, userId } = await serverWithPair();
  await using _server = server;
  const run = await runCli({
    env: { API_URL: server.url, API_KEY: KEY, APP_KEY: "base64:laravel", LOG_FORMAT: "json" },
  });
  assert.deepEqual([run.code, run.stderr], [0, ""]);
  const warnings = logLines(run.stdout).filter((line) => line.level === "warn").map((l) => l.msg);
  assert.deepEqual(warnings, [
    "Ignored APP_KEY from the environment: it is not a setting, did you mean API_KEY?",
  ]);
  assert.equal(server.stacks(userId).length, 1);
  await Deno.remove(run.cwd, { recursive: true });
});

Deno.test("main.ts warns once about unknown env file names, and takes immich-stack's settings", async () => {
  const { server } = await serverWithPair();
  await using _server = server;
  const run = await runCli({
    files: {
      "shared.env": `API_URL=${server.url}\nAPI_KEY=${KEY}\nTZ=Europe/Paris\n` +
        "DB_PASSWORD=postgres\nPREVENT_SELF_REKT=true\nTRASH_ORPHANED_RAWS=false\n",
    },
    env: { ENV_FILE: "shared.env", DRY_RUN: "true", LOG_FORMAT: "json", STACK_CONCURRENCY: "8" },
  });
  assert.deepEqual([run.code, run.stderr], [0, ""]);
  const lines = logLines(run.stdout);
  const warnings = lines.filter((line) => line.level === "warn").map((l) => l.msg);
  assert.deepEqual(warnings, [
    "Ignored 2 variables of shared.env that are not stacksync settings: TZ (line 3), " +
    "DB_PASSWORD (line 4)",
  ]);
  const start = lines.find((line) => line.msg.startsWith("Starting stacksync"))!;
  assert.deepEqual(
    [start.stackConcurrency, start.preventSelfRekt, start.trashOrphanedRaws],
    [8, true, false],
  );
  await Deno.remove(run.cwd, { recursive: true });
});

Deno.test("main.ts never prints a value that may be an API key, nor a password in API_URL", async () => {
  const { server } = await serverWithPair();
  await using _server = server;
  const password = "pw-s3cr3t-9";
  const withPassword = server.url.replace("http://", `http://stacksync:${password}@`);
  const [swapped, credentials] = await mapLimited(
    [
      { env: { API_URL: KEY, API_KEY: server.url } },
      { env: { API_URL: withPassword, API_KEY: KEY, DRY_RUN: "true", LOG_LEVEL: "trace" } },
    ],
    runCli,
    { limit: 2 },
  );
  assert.deepEqual([swapped.code, swapped.stdout, swapped.stderr], [
    2,
    "",
    "error: Invalid API_URL (--api-url): must be an http(s) URL such as " +
    "http://immich:2283/api: the current value is not shown as it looks like an API key\n",
  ]);
  assert.equal(credentials.code, 0, credentials.stderr);
  assert.ok(!`${credentials.stdout}${credentials.stderr}`.includes(password), credentials.stdout);
  assert.match(
    credentials.stdout,
    /msg="Starting stacksync [^"]+" version=\S+ command=run apiUrl=http:\/\/\*\*\*:\*\*\*@127\.0\.0\.1:/,
  );
  await Promise.all([swapped, credentials].map((run) => Deno.remove(run.cwd, { recursive: true })));
});
