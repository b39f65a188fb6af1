/**
 * A minimal HTTP/1.1 server over a raw TCP listener, private to the Immich test server.
 *
 * `Deno.serve` cannot close a connection without first sending a status line (a body stream
 * that errors still lets the headers through), so a "dropped connection" fault would reach the
 * client as a 200. Owning the socket lets a handler answer `"drop"` and close it mid-request,
 * exactly as a crashed reverse proxy would. It speaks only what the tool's `fetch` sends:
 * keep-alive, `Content-Length` or chunked request bodies, and fixed or chunked responses.
 *
 * @module
 */

/** One parsed request. Header names are lower case. */
export interface RawRequest {
  readonly method: string;
  /** The request target as sent, e.g. `/api/stacks?primaryAssetId=…`. */
  readonly target: string;
  readonly headers: ReadonlyMap<string, string>;
  readonly body: Uint8Array;
}

/** A response: a whole body (text or bytes), a stream of text chunks (sent chunked), or none. */
export interface RawResponse {
  readonly status: number;
  readonly headers: readonly (readonly [string, string])[];
  readonly body: string | Uint8Array | AsyncIterable<string> | null;
}

/** Answers a request; `"drop"` closes the connection without any answer. */
export type RawHandler = (request: RawRequest) => Promise<RawResponse | "drop">;

/** A running listener. */
export interface RawServer {
  readonly port: number;
  close(): Promise<void>;
}

/** HTTP reason phrases for the status line and for v1/v2 error bodies (`error`). */
export const REASONS: Readonly<Record<number, string>> = {
  200: "OK",
  201: "Created",
  204: "No Content",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const HEAD_END = encoder.encode("\r\n\r\n");
const MAX_HEAD_BYTES = 64 * 1024;

/**
 * Listens on 127.0.0.1 and serves every connection with `handler`.
 *
 * @param port The port, 0 for a random free one.
 * @param handler Answers each request.
 * @returns The bound port and a `close` that ends the listener and every open connection.
 */
export function listenHttp(port: number, handler: RawHandler): RawServer {
  const listener = Deno.listen({ hostname: "127.0.0.1", port, transport: "tcp" });
  const conns = new Set<Deno.Conn>();
  const tasks = new Set<Promise<void>>();
  let closed = false;
  const acceptLoop = (async () => {
    try {
      for await (const conn of listener) {
        // Small answers written in pieces would otherwise wait out delayed ACKs (~40 ms each).
        conn.setNoDelay(true);
        conns.add(conn);
        const task = serveConnection(conn, handler).finally(() => {
          conns.delete(conn);
          tasks.delete(task);
        });
        tasks.add(task);
      }
    } catch (error) {
      if (!closed) throw error;
    }
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    async close() {
      if (closed) return;
      closed = true;
      listener.close();
      for (const conn of conns) closeQuietly(conn);
      await acceptLoop;
      await Promise.allSettled([...tasks]);
    },
  };
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // Already closed by the peer or by a drop fault.
  }
}

async function serveConnection(conn: Deno.Conn, handler: RawHandler): Promise<void> {
  const reader = new ConnReader(conn);
  try {
    while (true) {
      const request = await readRequest(reader);
      if (request === null) break;
      const response = await handler(request);
      if (response === "drop") break;
      await writeResponse(conn, request.method, response);
      if (request.headers.get("connection")?.toLowerCase() === "close") break;
    }
  } catch {
    // A peer that resets or sends garbage just loses its connection, as with any server.
  } finally {
    closeQuietly(conn);
  }
}

class ConnReader {
  #buf = new Uint8Array(64 * 1024);
  #start = 0;
  #end = 0;
  constructor(readonly conn: Deno.Conn) {}

  /** Reads more bytes; false at end of stream. */
  async fill(): Promise<boolean> {
    if (this.#start > 0 && this.#start === this.#end) {
      this.#start = 0;
      this.#end = 0;
    }
    if (this.#end === this.#buf.length) {
      const size = this.#end - this.#start;
      const next = new Uint8Array(Math.max(this.#buf.length, size * 2));
      next.set(this.#buf.subarray(this.#start, this.#end));
      this.#buf = next;
      this.#start = 0;
      this.#end = size;
    }
    const n = await this.conn.read(this.#buf.subarray(this.#end));
    if (n === null) return false;
    this.#end += n;
    return true;
  }

  get available(): Uint8Array {
    return this.#buf.subarray(this.#start, this.#end);
  }

  consume(n: number): Uint8Array {
    const out = this.#buf.slice(this.#start, this.#start + n);
    this.#start += n;
    return out;
  }

  async readLine(): Promise<string> {
    while (true) {
      const at = this.available.indexOf(10);
      if (at >= 0) return decoder.decode(this.consume(at + 1)).trimEnd();
      if (!(await this.fill())) throw new Error("Cannot read line: connection closed");
    }
  }

  async readExact(n: number): Promise<Uint8Array> {
    while (this.available.length < n) {
      if (!(await this.fill())) throw new Error("Cannot read body: connection closed");
    }
    return this.consume(n);
  }
}

function indexOfSequence(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) {
      if (haystack[i + j] !== needle[j]) continue outer;
    }
    return i;
  }
  return -1;
}

async function readRequest(reader: ConnReader): Promise<RawRequest | null> {
  let headEnd = indexOfSequence(reader.available, HEAD_END);
  while (headEnd < 0) {
    if (reader.available.length > MAX_HEAD_BYTES) throw new Error("Request head too large");
    if (!(await reader.fill())) return null;
    headEnd = indexOfSequence(reader.available, HEAD_END);
  }
  const head = decoder.decode(reader.consume(headEnd + HEAD_END.length));
  const [requestLine, ...headerLines] = head.split("\r\n").filter((line) => line !== "");
  const [method, target] = requestLine.split(" ");
  const headers = new Map<string, string>();
  for (const line of headerLines) {
    const colon = line.indexOf(":");
    if (colon > 0) {
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
  }
  let body: Uint8Array = new Uint8Array(0);
  if (headers.get("transfer-encoding")?.toLowerCase().includes("chunked")) {
    body = await readChunkedBody(reader);
  } else if (headers.has("content-length")) {
    body = await reader.readExact(Number(headers.get("content-length")));
  }
  return { method, target, headers, body };
}

async function readChunkedBody(reader: ConnReader): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  while (true) {
    const size = parseInt((await reader.readLine()).split(";")[0], 16);
    if (size === 0) {
      while ((await reader.readLine()) !== "") { /* trailers are ignored */ }
      break;
    }
    parts.push(await reader.readExact(size));
    await reader.readLine();
  }
  const total = parts.reduce((sum, part) => sum + part.length, 0);
  const body = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    body.set(part, offset);
    offset += part.length;
  }
  return body;
}

async function writeAll(conn: Deno.Conn, data: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < data.length) offset += await conn.write(data.subarray(offset));
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

async function writeResponse(
  conn: Deno.Conn,
  method: string,
  response: RawResponse,
): Promise<void> {
  let head = `HTTP/1.1 ${response.status} ${REASONS[response.status] ?? "Status"}\r\n`;
  for (const [name, value] of response.headers) head += `${name}: ${value}\r\n`;
  // The handler may date its answer by its own clock (the Immich model does).
  if (!response.headers.some(([name]) => name.toLowerCase() === "date")) {
    head += `date: ${new Date().toUTCString()}\r\n`;
  }
  head += "connection: keep-alive\r\n";
  const body = response.body;
  if (body === null || typeof body === "string" || body instanceof Uint8Array) {
    const bytes = method === "HEAD" || body === null
      ? new Uint8Array(0)
      : typeof body === "string"
      ? encoder.encode(body)
      : body;
    if (response.status !== 204) head += `content-length: ${bytes.length}\r\n`;
    await writeAll(conn, concat(encoder.encode(head + "\r\n"), bytes));
    return;
  }
  let pending = encoder.encode(head + "transfer-encoding: chunked\r\n\r\n");
  for await (const chunk of body) {
    if (chunk === "") continue;
    const bytes = encoder.encode(chunk);
    const framed = concat(encoder.encode(`${bytes.length.toString(16)}\r\n`), bytes);
    await writeAll(conn, concat(pending, framed));
    pending = encoder.encode("\r\n");
  }
  await writeAll(conn, concat(pending, encoder.encode("0\r\n\r\n")));
}
