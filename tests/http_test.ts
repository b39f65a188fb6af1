import assert from "node:assert/strict";
import { type LogRecord, reset } from "@logtape/logtape";
import { recordLogs } from "./_logs.ts";
import { z } from "zod";
import { delay } from "../src/api/delay.ts";
import {
  ApiError,
  InvalidResponseError,
  PermanentError,
  TransientError,
} from "../src/api/errors.ts";
import { createHttpClient, type HttpClientOptions } from "../src/api/http.ts";

const API_KEY = "test-secret-key-1234567890";
const BASE_TIME = Date.parse("2026-11-22T10:00:00Z");

interface Recorded {
  readonly method: string;
  readonly path: string;
  readonly headers: Headers;
  readonly body: string;
}

/** A stub API on 127.0.0.1 answering each request with the next of `answers`. */
function stubServer(answers: ((request: Request) => Response | Promise<Response>)[]) {
  const requests: Recorded[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const url = new URL(request.url);
    requests.push({
      method: request.method,
      path: url.pathname,
      headers: request.headers,
      body: await request.text(),
    });
    const answer = answers[Math.min(requests.length, answers.length) - 1];
    return await answer(request);
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/api`,
    requests,
    close: () => server.shutdown(),
  };
}

function status(code: number, body: unknown = { message: `status ${code}` }, headers = {}) {
  return () => Response.json(body, { status: code, headers });
}

/** Injected time: sleeps are recorded and return at once. */
function fakeTime(random = 0.5) {
  const sleeps: number[] = [];
  const options = {
    sleep: (ms: number) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
    random: () => random,
    now: () => BASE_TIME,
  } satisfies Partial<HttpClientOptions>;
  return { sleeps, options };
}

function retryLines(records: readonly LogRecord[]) {
  return records.filter((record) => record.level === "warning").map((record) => ({
    text: record.message.map(String).join(""),
    delay: record.properties.delay,
  }));
}

const versionSchema = z.object({ major: z.number() });

Deno.test("createHttpClient() retries 500 and 502 and then succeeds", async (t) => {
  for (const random of [0, 0.999]) {
    await t.step(`with jitter ${random}`, async () => {
      const records = await recordLogs();
      const server = stubServer([status(500), status(502), () => Response.json({ major: 3 })]);
      const time = fakeTime(random);
      const client = createHttpClient({ baseUrl: server.url, apiKey: API_KEY, ...time.options });
      try {
        const answer = await client.request("GET", "/server/version", { schema: versionSchema });
        assert.deepEqual(answer, { major: 3 });
        assert.equal(server.requests.length, 3);
        const lines = retryLines(records);
        assert.equal(lines.length, 2);
        assert.match(lines[0].text, /^Retry 1\/3 after \d+ms$/);
        assert.match(lines[1].text, /^Retry 2\/3 after \d+ms$/);
        const [first, second] = time.sleeps;
        assert.equal(time.sleeps.length, 2);
        assert.ok(first >= 500 && first <= 750, `first delay ${first}`);
        assert.ok(second >= 1000 && second <= 1500, `second delay ${second}`);
        assert.deepEqual(lines.map((line) => line.delay), [`${first}ms`, `${second}ms`]);
      } finally {
        client.close();
        await server.close();
        await reset();
      }
    });
  }
});

Deno.test("createHttpClient() honours Retry-After in seconds and as an HTTP date", async (t) => {
  const cases = [
    { header: "2", wait: 2000 },
    { header: new Date(BASE_TIME + 3000).toUTCString(), wait: 3000 },
  ];
  for (const { header, wait } of cases) {
    await t.step(`Retry-After: ${header}`, async () => {
      const records = await recordLogs();
      const server = stubServer([
        status(429, { message: "Too many requests" }, { "retry-after": header }),
        () => Response.json({ major: 2 }),
      ]);
      const time = fakeTime();
      const client = createHttpClient({ baseUrl: server.url, apiKey: API_KEY, ...time.options });
      try {
        await client.request("GET", "/server/version", { schema: versionSchema });
        assert.deepEqual(time.sleeps, [wait]);
        assert.deepEqual(retryLines(records).map((line) => line.text), [
          `Retry 1/3 after ${wait}ms`,
        ]);
      } finally {
        client.close();
        await server.close();
        await reset();
      }
    });
  }
});

Deno.test("createHttpClient() gives up with a TransientError after four transient failures", async () => {
  const server = stubServer([status(503, { message: "Service Unavailable" }, {
    "x-correlation-id": "ab12cd34",
  })]);
  const time = fakeTime(0);
  const client = createHttpClient({ baseUrl: server.url, apiKey: API_KEY, ...time.options });
  try {
    await assert.rejects(
      client.request("GET", "/stacks", { schema: z.unknown() }),
      (error) => {
        assert.ok(error instanceof TransientError);
        assert.equal(
          error.message,
          "API request failed: GET /stacks answered 503 Service Unavailable " +
            "(correlation id ab12cd34) after 4 attempts",
        );
        assert.equal(error.status, 503);
        assert.equal(error.attempt, 4);
        return true;
      },
    );
    assert.equal(server.requests.length, 4);
    assert.deepEqual(time.sleeps, [500, 1000, 2000]);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("createHttpClient() never retries 400, 401, 403 or 404", async (t) => {
  const cases = [
    {
      code: 400,
      message: "Not found or no stack.read access",
      expected: "API request failed: POST /stacks answered 400 Not found or no stack.read " +
        "access (correlation id ab12cd34)",
    },
    {
      code: 401,
      message: "Invalid API key",
      expected: "Invalid API key: POST /stacks answered 401 Invalid API key " +
        "(correlation id ab12cd34)",
    },
    {
      code: 403,
      message: "Missing required permission: stack.create",
      expected: "API request failed: POST /stacks answered 403 Missing required permission: " +
        "stack.create (correlation id ab12cd34)",
    },
    {
      code: 404,
      message: "Cannot POST /api/stacks",
      expected: "API request failed: POST /stacks answered 404 Cannot POST /api/stacks " +
        "(correlation id ab12cd34)",
    },
  ];
  for (const { code, message, expected } of cases) {
    await t.step(`status ${code}`, async () => {
      const server = stubServer([
        status(code, { message }, { "x-correlation-id": "ab12cd34" }),
        () => Response.json({ id: "never" }),
      ]);
      const time = fakeTime();
      const client = createHttpClient({ baseUrl: server.url, apiKey: API_KEY, ...time.options });
      try {
        await assert.rejects(
          client.request("POST", "/stacks", { body: { assetIds: [] }, schema: z.unknown() }),
          (error) => {
            assert.ok(error instanceof PermanentError);
            assert.equal(error.message, expected);
            assert.equal(error.status, code);
            assert.equal(error.serverMessage, message);
            assert.equal(error.correlationId, "ab12cd34");
            return true;
          },
        );
        assert.equal(server.requests.length, 1);
        assert.deepEqual(time.sleeps, []);
      } finally {
        client.close();
        await server.close();
      }
    });
  }
});

Deno.test("createHttpClient() reads v1/v2 error bodies with message arrays and correlationId", async () => {
  const server = stubServer([status(400, {
    message: ["assetIds must be an array", "each value in assetIds must be a UUID"],
    error: "Bad Request",
    statusCode: 400,
    correlationId: "v1corrid",
  })]);
  const client = createHttpClient({ baseUrl: server.url, apiKey: API_KEY, ...fakeTime().options });
  try {
    await assert.rejects(client.request("POST", "/stacks", { body: {}, schema: z.unknown() }), {
      name: "PermanentError",
      message: "API request failed: POST /stacks answered 400 assetIds must be an array; " +
        "each value in assetIds must be a UUID (correlation id v1corrid)",
    });
  } finally {
    client.close();
    await server.close();
  }
});

/** A raw TCP server whose first connection is closed without an answer. */
function droppingServer(answer: string) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let connections = 0;
  const serving = (async () => {
    for await (const connection of listener) {
      connections++;
      const buffer = new Uint8Array(64 * 1024);
      await connection.read(buffer);
      if (connections > 1) {
        const body = new TextEncoder().encode(answer);
        await connection.write(new TextEncoder().encode(
          "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n" +
            `content-length: ${body.length}\r\nconnection: close\r\n\r\n`,
        ));
        await connection.write(body);
      }
      connection.close();
    }
  })();
  return {
    url: `http://127.0.0.1:${listener.addr.port}/api`,
    connections: () => connections,
    async close() {
      listener.close();
      await serving.catch(() => {});
    },
  };
}

Deno.test("createHttpClient() retries a dropped connection", async () => {
  const records = await recordLogs();
  const server = droppingServer('{"major":1}');
  const time = fakeTime();
  const client = createHttpClient({ baseUrl: server.url, apiKey: API_KEY, ...time.options });
  try {
    const answer = await client.request("GET", "/server/version", { schema: versionSchema });
    assert.deepEqual(answer, { major: 1 });
    assert.equal(server.connections(), 2);
    assert.equal(time.sleeps.length, 1);
    assert.equal(retryLines(records).length, 1);
  } finally {
    client.close();
    await server.close();
    await reset();
  }
});

Deno.test("createHttpClient() fails with Failed to connect to API when nothing listens", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  const time = fakeTime();
  const client = createHttpClient({
    baseUrl: `http://127.0.0.1:${port}/api`,
    apiKey: API_KEY,
    ...time.options,
  });
  try {
    await assert.rejects(client.request("GET", "/users/me", { schema: z.unknown() }), (error) => {
      assert.ok(error instanceof TransientError);
      assert.ok(
        error.message.startsWith(
          `Failed to connect to API: GET http://127.0.0.1:${port}/api/users/me: `,
        ),
        error.message,
      );
      assert.ok(error.message.endsWith(" after 4 attempts"), error.message);
      assert.equal(error.status, undefined);
      return true;
    });
    assert.equal(time.sleeps.length, 3);
  } finally {
    client.close();
  }
});

Deno.test("createHttpClient() retries a request slower than the time-out, then fails", async () => {
  // Answers are held back until the test ends, so every attempt times out.
  const release = Promise.withResolvers<void>();
  const server = stubServer([async () => {
    await release.promise;
    return Response.json({ major: 3 });
  }]);
  const time = fakeTime();
  const client = createHttpClient({
    baseUrl: server.url,
    apiKey: API_KEY,
    // Long enough for a loaded machine's server to see each attempt before it times out.
    timeoutMs: 250,
    ...time.options,
  });
  try {
    await assert.rejects(client.request("GET", "/stacks", { schema: z.unknown() }), {
      name: "TransientError",
      message: `API request timed out: GET ${server.url}/stacks got no answer within 250 ms ` +
        "(REQUEST_TIMEOUT) after 4 attempts",
    });
    assert.equal(server.requests.length, 4);
    assert.equal(time.sleeps.length, 3);
  } finally {
    release.resolve();
    client.close();
    await server.close();
  }
});

Deno.test("createHttpClient() explains an HTML answer, blaming a missing /api only when API_URL lacks it", async () => {
  const server = stubServer([() =>
    new Response("<!doctype html><html><body>Immich</body></html>", {
      headers: { "content-type": "text/html; charset=utf-8" },
    })]);
  const origin = server.url.replace(/\/api$/, "");
  const hints = [
    [origin, "API_URL probably lacks /api"],
    [
      server.url,
      "a web page answers at API_URL though it ends in /api: check its path, and the proxy in " +
      "front of Immich if there is one",
    ],
  ];
  try {
    for (const [baseUrl, hint] of hints) {
      const client = createHttpClient({ baseUrl, apiKey: API_KEY, ...fakeTime().options });
      await assert.rejects(client.request("GET", "/users/me", { schema: z.unknown() }), (error) => {
        assert.ok(error instanceof InvalidResponseError);
        assert.equal(
          error.message,
          "Cannot use the answer of GET /users/me as it is an HTML page, not JSON " +
            `(${hint}): current value is ${baseUrl}`,
        );
        return true;
      });
      client.close();
    }
    assert.equal(server.requests.length, 2);
  } finally {
    await server.close();
  }
});

Deno.test("createHttpClient() rejects answers that are not JSON or do not match the schema", async (t) => {
  const cases = [
    {
      answer: () => new Response("not json", { headers: { "content-type": "text/plain" } }),
      message: /^Cannot parse the answer of GET \/users\/me as JSON: /,
    },
    {
      answer: () => Response.json({ major: "three" }),
      message:
        /^Cannot use the answer of GET \/users\/me as it does not have the expected shape: major: /,
    },
  ];
  for (const { answer, message } of cases) {
    await t.step(String(message), async () => {
      const server = stubServer([answer]);
      const client = createHttpClient({
        baseUrl: server.url,
        apiKey: API_KEY,
        ...fakeTime().options,
      });
      try {
        await assert.rejects(
          client.request("GET", "/users/me", { schema: versionSchema }),
          (error) => error instanceof InvalidResponseError && message.test(error.message),
        );
        assert.equal(server.requests.length, 1);
      } finally {
        client.close();
        await server.close();
      }
    });
  }
});

Deno.test("createHttpClient() sends the key, Accept and Content-Type only with a body", async () => {
  const server = stubServer([() => Response.json({}), () => new Response(null, { status: 204 })]);
  const client = createHttpClient({ baseUrl: server.url, apiKey: API_KEY, ...fakeTime().options });
  try {
    await client.request("POST", "/stacks", {
      body: { assetIds: ["a", "b"] },
      schema: z.unknown(),
    });
    const result = await client.request("DELETE", "/stacks/x", { schema: z.undefined() });
    assert.equal(result, undefined);
    const [post, remove] = server.requests;
    assert.equal(post.path, "/api/stacks");
    assert.equal(post.headers.get("x-api-key"), API_KEY);
    assert.equal(post.headers.get("accept"), "application/json");
    assert.equal(post.headers.get("content-type"), "application/json");
    assert.deepEqual(JSON.parse(post.body), { assetIds: ["a", "b"] });
    assert.equal(remove.method, "DELETE");
    assert.equal(remove.headers.get("x-api-key"), API_KEY);
    assert.equal(remove.headers.get("content-type"), null);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("createHttpClient() logs bodies at trace and never the API key", async () => {
  const records = await recordLogs();
  const server = stubServer([
    status(500, { message: `upstream rejected key ${API_KEY}` }),
    () => Response.json({ major: 3, echo: API_KEY }),
    status(400, { message: `Invalid key ${API_KEY}` }, { "x-correlation-id": "zz99yy88" }),
  ]);
  const client = createHttpClient({ baseUrl: server.url, apiKey: API_KEY, ...fakeTime().options });
  try {
    await client.request("POST", "/search/metadata", {
      body: { page: 1, size: 1000 },
      schema: z.unknown(),
    });
    const failure = await client.request("GET", "/users/me", { schema: z.unknown() }).catch((
      error: ApiError,
    ) => error);
    assert.ok(failure instanceof PermanentError);
    assert.equal(
      failure.message,
      "API request failed: GET /users/me answered 400 Invalid key [redacted] " +
        "(correlation id zz99yy88)",
    );
    const traced = records.filter((record) => record.level === "trace");
    assert.equal(traced.length, 3);
    const ok = traced[1].properties;
    assert.equal(ok.method, "POST");
    assert.equal(ok.path, "/search/metadata");
    assert.equal(ok.status, 200);
    assert.equal(ok.durationMs, 0);
    assert.equal(ok.requestBody, '{"page":1,"size":1000}');
    assert.equal(ok.responseBody, '{"major":3,"echo":"[redacted]"}');
    assert.equal(traced[2].properties.correlationID, "zz99yy88");
    const everything = JSON.stringify(records.map((record) => [record.message, record.properties]));
    assert.ok(!everything.includes(API_KEY));
    assert.ok(!failure.message.includes(API_KEY) && !failure.serverMessage.includes(API_KEY));
  } finally {
    client.close();
    await server.close();
    await reset();
  }
});

Deno.test("createHttpClient() logs method, path, status and time without bodies at debug", async () => {
  const records = await recordLogs("debug");
  const server = stubServer([() => Response.json({ major: 3 })]);
  const client = createHttpClient({ baseUrl: server.url, apiKey: API_KEY, ...fakeTime().options });
  try {
    await client.request("GET", "/server/version", { schema: versionSchema });
    assert.equal(records.length, 1);
    assert.equal(records[0].level, "debug");
    assert.deepEqual(Object.keys(records[0].properties).sort(), [
      "correlationID",
      "durationMs",
      "method",
      "path",
      "status",
    ]);
  } finally {
    client.close();
    await server.close();
    await reset();
  }
});

Deno.test("createHttpClient() stops waiting between retries when the signal aborts", async () => {
  const server = stubServer([status(503)]);
  const controller = new AbortController();
  const client = createHttpClient({
    baseUrl: server.url,
    apiKey: API_KEY,
    signal: controller.signal,
    now: () => BASE_TIME,
    sleep: (_ms, signal) => {
      controller.abort(new Error("shutdown"));
      return Promise.reject(signal?.reason);
    },
  });
  try {
    await assert.rejects(client.request("GET", "/stacks", { schema: z.unknown() }), {
      message: "shutdown",
    });
    assert.equal(server.requests.length, 1);
  } finally {
    client.close();
    await server.close();
  }
});

/** A stub whose answers are bodies written chunk by chunk, `gapMs` apart. */
function chunkedServer(chunks: readonly string[], gapMs: number, stallAfter = Infinity) {
  let requests = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    requests++;
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent >= stallAfter) return await new Promise(() => {}); // silent from here on
        if (sent > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
        if (sent === chunks.length) return controller.close();
        controller.enqueue(new TextEncoder().encode(chunks[sent++]));
      },
    });
    return new Response(body, { headers: { "content-type": "application/json" } });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/api`,
    requests: () => requests,
    close: () => server.shutdown(),
  };
}

Deno.test("createHttpClient() lets an answer take longer than the time-out while it keeps moving", async () => {
  // Ten chunks 40 ms apart: 360 ms in all, never 150 ms of silence.
  const chunks = ['{"items":[', ...Array.from({ length: 8 }, (_, i) => `${i},`), "8]}"];
  const server = chunkedServer(chunks, 40);
  const client = createHttpClient({
    baseUrl: server.url,
    apiKey: API_KEY,
    timeoutMs: 150,
    ...fakeTime().options,
  });
  try {
    const answer = await client.request("GET", "/stacks", {
      schema: z.object({ items: z.array(z.number()) }),
    });
    assert.deepEqual(answer.items, [0, 1, 2, 3, 4, 5, 6, 7, 8]);
    assert.equal(server.requests(), 1);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("createHttpClient() retries an answer that stops moving for the time-out, then fails", async () => {
  const records = await recordLogs();
  const server = chunkedServer(['{"items":[', "1,"], 10, 2);
  const time = fakeTime();
  const client = createHttpClient({
    baseUrl: server.url,
    apiKey: API_KEY,
    // Long enough for a loaded machine's server to see each attempt before it times out.
    timeoutMs: 250,
    ...time.options,
  });
  try {
    await assert.rejects(client.request("GET", "/stacks", { schema: z.unknown() }), {
      name: "TransientError",
      message: `API request timed out: GET ${server.url}/stacks sent no part of its answer for ` +
        "250 ms (REQUEST_TIMEOUT) after 4 attempts",
    });
    assert.equal(server.requests(), 4);
    assert.deepEqual(
      records.filter((r) => r.level === "warning").map((r) => r.properties.reason),
      Array(3).fill("answer stalled for 250 ms"),
    );
  } finally {
    client.close();
    await server.close();
    await reset();
  }
});

Deno.test("createHttpClient() does not retry a connection no attempt can make", async (t) => {
  const plain = stubServer([() => Response.json({ major: 3 })]);
  const cases = [
    {
      url: "http://127.0.0.1:6000/api",
      message: "Failed to connect to API: GET http://127.0.0.1:6000/api/users/me: Deno never " +
        "sends requests to port 6000 (browsers block it too): use another port",
    },
    {
      url: plain.url.replace("http:", "https:"),
      message: `Failed to connect to API: GET ${plain.url.replace("http:", "https:")}/users/me: ` +
        "TLS handshake failed: the server does not speak https at this address",
    },
  ];
  try {
    for (const { url, message } of cases) {
      await t.step(url, async () => {
        const time = fakeTime();
        const client = createHttpClient({ baseUrl: url, apiKey: API_KEY, ...time.options });
        try {
          await assert.rejects(client.request("GET", "/users/me", { schema: z.unknown() }), {
            name: "PermanentError",
            message,
          });
          assert.deepEqual(time.sleeps, []);
        } finally {
          client.close();
        }
      });
    }
    assert.equal(plain.requests.length, 0);
  } finally {
    await plain.close();
  }
});

Deno.test("createHttpClient() fails at once when Retry-After asks for more than it waits", async () => {
  const server = stubServer([status(503, { message: "Maintenance" }, { "retry-after": "301" })]);
  const time = fakeTime();
  const client = createHttpClient({ baseUrl: server.url, apiKey: API_KEY, ...time.options });
  try {
    await assert.rejects(client.request("GET", "/stacks", { schema: z.unknown() }), {
      name: "PermanentError",
      message: "API request failed: GET /stacks answered 503 Maintenance: the server asks to " +
        "wait 301 s (Retry-After), more than the 300 s stacksync waits",
    });
    assert.deepEqual(time.sleeps, []);
    assert.equal(server.requests.length, 1);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("createHttpClient() follows redirects within its origin only, keeping key and body", async (t) => {
  const other = stubServer([() => Response.json({ never: true })]);
  const server = stubServer([
    () => new Response(null, { status: 307, headers: { location: "/api/stacks-moved" } }),
    () => Response.json({ id: "s1" }),
    () => new Response(null, { status: 302, headers: { location: `${other.url}/stacks?t=1` } }),
    () => new Response(null, { status: 301, headers: { location: "/api/loop" } }),
  ]);
  const client = createHttpClient({ baseUrl: server.url, apiKey: API_KEY, ...fakeTime().options });
  try {
    await t.step("same origin: followed with the key and the body", async () => {
      const answer = await client.request("POST", "/stacks", {
        body: { assetIds: ["a", "b"] },
        schema: z.object({ id: z.string() }),
      });
      assert.deepEqual(answer, { id: "s1" });
      const [first, second] = server.requests;
      assert.deepEqual([first.path, second.path], ["/api/stacks", "/api/stacks-moved"]);
      assert.equal(second.method, "POST");
      assert.equal(second.headers.get("x-api-key"), API_KEY);
      assert.equal(second.body, '{"assetIds":["a","b"]}');
    });
    await t.step("another origin: an error naming the target, nothing sent there", async () => {
      await assert.rejects(client.request("GET", "/stacks", { schema: z.unknown() }), {
        name: "PermanentError",
        message: `Cannot follow the redirect of GET /stacks to ${other.url}/stacks as it leaves ` +
          "the origin of API_URL, and the API key goes nowhere else: set API_URL to the " +
          "address that answers without redirecting",
      });
      assert.equal(other.requests.length, 0);
    });
    await t.step("a loop within the origin: an error after 5 redirects", async () => {
      await assert.rejects(client.request("GET", "/loop", { schema: z.unknown() }), {
        name: "PermanentError",
        message: `Cannot follow the redirects of GET /loop: more than 5 in a row, the last to ` +
          `${server.url}/loop`,
      });
    });
  } finally {
    client.close();
    await Promise.all([server.close(), other.close()]);
  }
});

Deno.test("createHttpClient() ends a read at a shutdown signal, and gives a write a moment for its answer", async (t) => {
  const end = Promise.withResolvers<void>();
  const received = new Map<string, PromiseWithResolvers<void>>();
  const arrival = (path: string) => {
    if (!received.has(path)) received.set(path, Promise.withResolvers());
    return received.get(path)!;
  };
  const made = () => Response.json({ id: "made" }, { status: 201 });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const path = new URL(request.url).pathname;
    arrival(path).resolve();
    if (path === "/api/late") {
      return new Promise<Response>((resolve) => setTimeout(() => resolve(made()), 300));
    }
    if (path === "/api/started") {
      // The status line and headers go now; the body only when the test ends.
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          await end.promise;
          controller.enqueue(new TextEncoder().encode('{"id":"made"}'));
          controller.close();
        },
      });
      return new Response(body, { status: 201, headers: { "content-type": "application/json" } });
    }
    // Answered only when the test ends, long after the client has stopped waiting.
    return end.promise.then(made);
  });
  const baseUrl = `http://127.0.0.1:${server.addr.port}/api`;
  /** Sends a request, and the shutdown signal once the server has it (plus `afterMs`). */
  const stopDuring = async (method: "GET" | "POST", path: string, afterMs = 0) => {
    const shutdown = new AbortController();
    const client = createHttpClient({ baseUrl, apiKey: API_KEY, signal: shutdown.signal });
    const answer = client.request(method, path, { schema: z.object({ id: z.string() }) });
    await arrival(`/api${path}`).promise;
    await new Promise((resolve) => setTimeout(resolve, afterMs));
    shutdown.abort(new Error("stopped"));
    return answer.finally(() => client.close());
  };
  try {
    await t.step("a read stops at once", async () => {
      await assert.rejects(stopDuring("GET", "/never"), { message: "stopped" });
    });
    await t.step("a write answered within a second after the signal is done", async () => {
      assert.deepEqual(await stopDuring("POST", "/late"), { id: "made" });
    });
    await t.step("a write with no answer a second after the signal stops", async () => {
      await assert.rejects(stopDuring("POST", "/unanswered"), { message: "stopped" });
    });
    await t.step("a write whose answer has started is read to its end", async () => {
      const answer = stopDuring("POST", "/started", 100);
      // Past the second a write gets: the answer had started, so it is still read.
      await new Promise((resolve) => setTimeout(resolve, 1300));
      end.resolve();
      assert.deepEqual(await answer, { id: "made" });
    });
  } finally {
    end.resolve();
    await server.shutdown();
  }
});

Deno.test("delay() waits out more than a timer holds instead of returning at once", async () => {
  const controller = new AbortController();
  let settled = false;
  const waiting = delay(30 * 86_400_000, controller.signal).finally(() => settled = true);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(settled, false);
  controller.abort(new Error("stop"));
  await assert.rejects(waiting, { message: "stop" });
});
