/**
 * REQUEST_TIMEOUT limits silence, not length: a `GET /stacks` answer of about 60 MB streamed at
 * 1 MB/s for a minute, through the real CLI with REQUEST_TIMEOUT=5, is read to its end. This test
 * takes that minute by design, so only `deno task test:full` runs it; tests/http_test.ts proves
 * the same of the transport in a fraction of a second.
 */
import assert from "node:assert/strict";
import { finishCli, spawnCli } from "../_cli.ts";
import { startImmichServer } from "../immich_server.ts";

/** Stacks of two photos each; at about 2.7 KB per stack the answer is about 60 MB. */
const STACKS = 22_000;
const BYTES_PER_SECOND = 1_000_000;
/** Chunks per second: the answer never pauses longer than this allows. */
const CHUNKS_PER_SECOND = 10;
/**
 * A limit a twelfth of the answer's length; short, yet long enough that the test server's other
 * answers never near it on a busy machine.
 */
const REQUEST_TIMEOUT_S = 5;

Deno.test("main.ts reads a GET /stacks answer streamed at 1 MB/s for a minute to its end", async () => {
  await using server = await startImmichServer();
  const user = server.addUser({ name: "Slow" });
  const key = server.addKey(user.id);
  const assets = server.addAssets(
    user.id,
    Array.from({ length: STACKS * 2 }, (_, i) => ({
      originalFileName: `IMG_${String(Math.floor(i / 2)).padStart(5, "0")}.${
        i % 2 ? "dng" : "jpg"
      }`,
      localDateTime: new Date(Date.UTC(2024, 0, 1) + Math.floor(i / 2) * 60_000).toISOString(),
    })),
  );
  for (let i = 0; i < assets.length; i += 2) {
    server.addStack(user.id, [assets[i].id, assets[i + 1].id]);
  }

  // The answer as the test server gives it, read before the CLI starts, so that the proxy sends
  // its first bytes at once rather than after building 60 MB.
  const bytes = new Uint8Array(
    await (await fetch(`${server.url}/stacks`, { headers: { "x-api-key": key } })).arrayBuffer(),
  );
  let stacksServed = 0;
  let streamedMs = 0;
  // Forwards every request to the test server; the stack list goes out at 1 MB/s.
  const proxy = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const url = new URL(request.url);
    if (url.pathname !== "/api/stacks") {
      const answer = await fetch(`${server.origin}${url.pathname}${url.search}`, {
        method: request.method,
        headers: request.headers,
        body: request.body,
      });
      return new Response(answer.body, { status: answer.status, headers: answer.headers });
    }
    stacksServed++;
    const chunk = BYTES_PER_SECOND / CHUNKS_PER_SECOND;
    let offset = 0;
    const started = performance.now();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (offset >= bytes.length) {
          streamedMs = performance.now() - started;
          return controller.close();
        }
        await new Promise((resolve) => setTimeout(resolve, 1000 / CHUNKS_PER_SECOND));
        controller.enqueue(bytes.subarray(offset, offset + chunk));
        offset += chunk;
      },
    });
    return new Response(body, { headers: { "content-type": "application/json" } });
  });
  try {
    const cli = await spawnCli({
      env: {
        API_URL: `http://127.0.0.1:${proxy.addr.port}/api`,
        API_KEY: key,
        REQUEST_TIMEOUT: String(REQUEST_TIMEOUT_S),
        DRY_RUN: "true",
        LOG_FORMAT: "json",
      },
    });
    const end = await finishCli(cli, 240_000);
    await Deno.remove(cli.cwd, { recursive: true });
    const messages = end.lines.map((line) => JSON.parse(line).msg as string);
    assert.equal(end.code, 0, messages.join("\n"));
    assert.deepEqual(messages.filter((msg) => /^Retry |timed out/.test(msg)), []);
    assert.ok(messages.includes(`No changes: ${STACKS} stacks in sync`), messages.join("\n"));
    assert.equal(stacksServed, 1);
    // The answer took many times REQUEST_TIMEOUT: the limit applies to pauses, not to length.
    assert.ok(
      streamedMs > 10 * REQUEST_TIMEOUT_S * 1000,
      `streamed in ${Math.round(streamedMs)} ms`,
    );
  } finally {
    await proxy.shutdown();
  }
});
