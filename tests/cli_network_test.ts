/**
 * A misbehaving network or server, through the real CLI: a request in flight at a shutdown
 * signal, a server that redirects elsewhere or asks for an hour's pause, and a cron interval
 * longer than a timer holds (tests/full/cli_network_test.ts: a server that never answers, one that
 * cannot be reached or is not Immich). None may hang the run silently, send the key where it does
 * not belong, or leave a shutdown signal unanswered.
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
import { KEY, messages, parseLines, runUntil, serverWithPair } from "./_network_cli.ts";

/** Waits until `check` holds, polling; fails after `ms`. */
async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

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
