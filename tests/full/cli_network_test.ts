/**
 * A server that never answers and connections that cannot be made, through the real CLI: the
 * CLI's retries and time limits wait for real (seconds each), so only `deno task test:full` runs
 * these; tests/http_test.ts proves the same of the transport with injected time, and
 * tests/cli_network_test.ts holds the other network tests of the CLI.
 */
import assert from "node:assert/strict";
import { mapLimited } from "../_cli.ts";
import {
  closedPort,
  KEY,
  messages,
  notImmich,
  parseLines,
  runUntil,
  serverWithPair,
} from "../_network_cli.ts";

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
