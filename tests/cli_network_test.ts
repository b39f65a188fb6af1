/**
 * A misbehaving network or server, through the real CLI: a server that never answers, one that
 * cannot be reached, one that is not Immich, one that redirects elsewhere or asks for an hour's
 * pause, and a cron interval longer than a timer holds. None may hang the run silently, send
 * the key where it does not belong, or leave a shutdown signal unanswered.
 */
import assert from "node:assert/strict";
import {
  type CliRun,
  finishCli,
  type FinishedCli,
  mapLimited,
  spawnCli,
  type SpawnedCli,
} from "./_cli.ts";
import { type ImmichServer, startImmichServer } from "./immich_server.ts";

const KEY = "sk-network-7d1e";

/** A test server with one user whose RAW+JPEG pair is unstacked. */
async function serverWithPair(): Promise<ImmichServer> {
  const server = await startImmichServer();
  const user = server.addUser({ name: "Pat" });
  server.addKey(user.id, { secret: KEY });
  for (const name of ["IMG_0001.jpg", "IMG_0001.dng"]) {
    server.addAsset(user.id, { originalFileName: name, localDateTime: "2024-05-01T10:00:00Z" });
  }
  return server;
}

interface LogLine {
  readonly level: string;
  readonly msg: string;
  readonly [field: string]: unknown;
}

function parseLines(lines: readonly string[]): LogLine[] {
  return lines.filter((line) => line !== "").map((line) => JSON.parse(line));
}

function messages(lines: readonly LogLine[], level?: string): string[] {
  return lines.filter((line) => level === undefined || line.level === level).map((l) => l.msg);
}

/** Runs the CLI to its end; one that still runs after `deadlineMs` is killed (code undefined). */
async function runUntil(run: CliRun, deadlineMs = 30_000): Promise<FinishedCli> {
  const cli = await spawnCli(run);
  try {
    return await finishCli(cli, deadlineMs);
  } finally {
    await Deno.remove(cli.cwd, { recursive: true });
  }
}

/** Waits until `check` holds, polling; fails after `ms`. */
async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A port nothing listens on. */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  listener.close();
  return port;
}

Deno.test("main.ts gives up on a silent server after REQUEST_TIMEOUT and its retries", async () => {
  await using server = await serverWithPair();
  server.setFaults({ routes: { "GET /server/version": { hang: true } } });
  const end = await runUntil(
    // The shortest limit: four attempts and three backoffs still wait about 8 s for real.
    { env: { API_URL: server.url, API_KEY: KEY, REQUEST_TIMEOUT: "1", LOG_FORMAT: "json" } },
    60_000,
  );
  assert.equal(end.code, 1, end.lines.join("\n"));
  const lines = parseLines(end.lines);
  const url = `${server.url}/server/version`;
  assert.deepEqual(messages(lines, "error"), [
    `Skipping user 1: API request timed out: GET ${url} got no answer within 1 s ` +
    "(REQUEST_TIMEOUT) after 4 attempts",
  ]);
  const retries = lines.filter((line) => line.msg.startsWith("Retry "));
  assert.deepEqual(retries.map((line) => line.reason), Array(3).fill("no answer within 1 s"));
  assert.equal(server.requests.filter((r) => r.path === "/server/version").length, 4);
});

Deno.test("main.ts stops a request in flight at SIGTERM and says what is left", async () => {
  await using server = await serverWithPair();
  server.setFaults({ routes: { "GET /stacks": { hang: true } } });
  const cli = await spawnCli({
    env: { API_URL: server.url, API_KEY: `${KEY},sk-second-user`, LOG_FORMAT: "json" },
  });
  let end;
  try {
    await until(() => server.requests.some((r) => r.path === "/stacks"), 30_000, "GET /stacks");
    cli.process.kill("SIGTERM");
  } finally {
    end = await finishCli(cli, 10_000);
    await Deno.remove(cli.cwd, { recursive: true });
  }
  assert.equal(end.code, 1, end.lines.join("\n"));
  const lines = messages(parseLines(end.lines));
  const from = lines.indexOf("Received shutdown signal");
  assert.ok(from > 0, lines.join("\n"));
  assert.deepEqual(lines.slice(from), [
    "Received shutdown signal",
    "Stopped Pat by the shutdown signal before any change: nothing was written for this user",
    "Stopped by the shutdown signal: 1 of 2 users not processed; the next run processes them",
    "Run finished: 0 users processed, 1 user skipped, 0 actions failed",
  ]);
});

/** A server that answers every request 404 with an HTML page, as a web server that is not Immich. */
function notImmich() {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () =>
      new Response("<html><body>Not Found</body></html>", {
        status: 404,
        headers: { "content-type": "text/html" },
      }),
  );
  return { url: `http://127.0.0.1:${server.addr.port}/photos/api`, server };
}

Deno.test("main.ts names the cause of a failed connection and retries only what may succeed", async () => {
  const other = notImmich();
  const refused = `http://127.0.0.1:${closedPort()}/api`;
  // An https request to a plain HTTP server that answers garbage with 400, as Immich does.
  const https = other.url.replace("http:", "https:");
  const cases = [
    {
      url: refused,
      error: `Failed to connect to API: GET ${refused}/server/version: connection refused ` +
        "after 4 attempts",
      retries: 3,
    },
    {
      url: "http://stacksync-test.invalid/api",
      error: "Failed to connect to API: GET http://stacksync-test.invalid/api/server/version: " +
        "cannot resolve the host name stacksync-test.invalid (DNS) after 4 attempts",
      retries: 3,
    },
    {
      url: https,
      error: `Failed to connect to API: GET ${https}/server/version: TLS handshake failed: ` +
        "the server does not speak https at this address",
      retries: 0,
    },
    {
      url: "http://127.0.0.1:6000/api",
      error: "Failed to connect to API: GET http://127.0.0.1:6000/api/server/version: " +
        "Deno never sends requests to port 6000 (browsers block it too): use another port",
      retries: 0,
    },
    {
      url: other.url,
      error: "Cannot find the Immich API at API_URL as GET /server/version answered 404 Not " +
        "Found: check the address, which ends in /api (e.g. http://immich:2283/api): current " +
        `value is ${other.url}`,
      retries: 0,
    },
  ];
  try {
    const runs = await mapLimited(
      cases,
      ({ url }) => runUntil({ env: { API_URL: url, API_KEY: KEY, LOG_FORMAT: "json" } }),
      { limit: 3 },
    );
    for (const [index, run] of runs.entries()) {
      const lines = parseLines(run.lines);
      assert.equal(run.code, 1, run.lines.join("\n"));
      assert.deepEqual(messages(lines, "error"), [`Skipping user 1: ${cases[index].error}`]);
      const retries = messages(lines).filter((m) => m.startsWith("Retry ")).length;
      assert.equal(retries, cases[index].retries);
    }
  } finally {
    await other.server.shutdown();
  }
});

Deno.test("main.ts follows a redirect only within API_URL's origin and never sends the key elsewhere", async () => {
  await using server = await serverWithPair();
  const seenElsewhere: (string | null)[] = [];
  const elsewhere = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    seenElsewhere.push(request.headers.get("x-api-key"));
    return Response.json({ major: 3, minor: 1, patch: 0 });
  });
  const target = `http://127.0.0.1:${elsewhere.addr.port}/login`;
  // Redirects /old/api/… to /api/… on its own origin, anything else to another origin; forwards
  // /api/… to the test server.
  const proxy = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const url = new URL(request.url);
    if (url.pathname.startsWith("/old/")) {
      return new Response(null, {
        status: 308,
        headers: { location: url.pathname.slice(4) + url.search },
      });
    }
    if (!url.pathname.startsWith("/api/")) {
      return new Response(null, { status: 302, headers: { location: `${target}?rd=x` } });
    }
    const answer = await fetch(`${server.origin}${url.pathname}${url.search}`, {
      method: request.method,
      headers: request.headers,
      body: request.body,
    });
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  });
  const origin = `http://127.0.0.1:${proxy.addr.port}`;
  try {
    const [away, within] = await mapLimited<CliRun, FinishedCli>(
      [
        { env: { API_URL: `${origin}/auth/api`, API_KEY: KEY, LOG_FORMAT: "json" } },
        { env: { API_URL: `${origin}/old/api`, API_KEY: KEY, LOG_FORMAT: "json", DRY_RUN: "1" } },
      ],
      (run) => runUntil(run),
      { limit: 2 },
    );
    assert.deepEqual(seenElsewhere, []);
    assert.equal(away.code, 1, away.lines.join("\n"));
    assert.deepEqual(messages(parseLines(away.lines), "error"), [
      "Skipping user 1: Cannot follow the redirect of GET /server/version to " +
      `${target} as it leaves the origin of API_URL, and the API key goes nowhere else: set ` +
      "API_URL to the address that answers without redirecting",
    ]);
    assert.equal(within.code, 0, within.lines.join("\n"));
    assert.ok(within.lines.some((line) => line.includes("Summary for Pat (dry run): 1 would be")));
  } finally {
    await Promise.all([proxy.shutdown(), elsewhere.shutdown()]);
  }
});

Deno.test("main.ts refuses a Retry-After beyond its bound instead of waiting an hour", async () => {
  await using server = await serverWithPair();
  server.setFaults({ retryAfterSeconds: 3600, routes: { "GET /stacks": { status: 429 } } });
  const end = await runUntil({ env: { API_URL: server.url, API_KEY: KEY, LOG_FORMAT: "json" } });
  assert.equal(end.code, 1, end.lines.join("\n"));
  const [error] = messages(parseLines(end.lines), "error");
  assert.match(
    error,
    /^Skipping Pat: API request failed: GET \/stacks answered 429 Too Many Requests \(correlation id \w+\): the server asks to wait 3600 s \(Retry-After\), more than the 300 s stacksync waits$/,
  );
  assert.equal(server.requests.filter((r) => r.path === "/stacks").length, 1);
});

Deno.test("main.ts in cron mode waits out a CRON_INTERVAL of 30 days", async () => {
  await using server = await serverWithPair();
  let cli: SpawnedCli | undefined;
  let end;
  try {
    cli = await spawnCli({
      env: {
        API_URL: server.url,
        API_KEY: KEY,
        RUN_MODE: "cron",
        CRON_INTERVAL: String(30 * 86400),
        DRY_RUN: "true",
        LOG_FORMAT: "json",
      },
    });
    let line: string | undefined;
    do line = await cli.nextLine(); while (line !== undefined && !line.includes("Next pass in"));
    // A timer that overflowed would start the next passes within milliseconds.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    cli.process.kill("SIGTERM");
  } finally {
    end = cli && await finishCli(cli, 10_000);
    if (cli) await Deno.remove(cli.cwd, { recursive: true });
  }
  assert.equal(end?.code, 0, end?.lines.join("\n"));
  const lines = messages(parseLines(end.lines));
  assert.equal(lines.filter((msg) => msg.startsWith("Processing user")).length, 1);
  assert.ok(lines.includes("Received shutdown signal"));
});
