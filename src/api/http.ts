/**
 * JSON over HTTP for one Immich user: pooled connections, an idle time limit per request, the
 * retry policy (docs/architecture.md, "Retries and time limits"), error classes callers can tell
 * apart, and request logging.
 *
 * The API key is sent in `x-api-key` to API_URL's origin and nowhere else: redirects are followed
 * only within that origin, and the key never appears in a log line, an error message or a trace
 * body (any echo of it by a server is redacted).
 *
 * @module
 */
import { getLogger } from "@logtape/logtape";
import type { z } from "zod";
import { shownUrl } from "../shown_url.ts";
import { concat } from "./_json_array.ts";

const logger = getLogger(["stacksync", "api"]);

/** The HTTP methods the Immich client uses. */
export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE";

/** What every {@linkcode ApiError} records about the failed exchange. */
export interface ApiErrorDetails {
  /** HTTP method of the request. */
  readonly method: HttpMethod;
  /** API path, relative to the base URL (e.g. `/stacks`). */
  readonly path: string;
  /** Status of the answer; undefined when no answer came (network failure, time-out). */
  readonly status?: number;
  /** The server's own message, or a description of the failure when there was no answer. */
  readonly serverMessage: string;
  /** Immich's correlation id (header `x-correlation-id` or body `correlationId`), if any. */
  readonly correlationId?: string;
  /** Which attempt failed, 1 for the first request. */
  readonly attempt: number;
  /** The underlying error, if any. */
  readonly cause?: unknown;
}

/** Base class of every failed API request; the message is one line naming the exchange. */
export class ApiError extends Error {
  /** HTTP method of the request. */
  readonly method: HttpMethod;
  /** API path, relative to the base URL. */
  readonly path: string;
  /** Status of the answer, undefined when none came. */
  readonly status?: number;
  /** The server's message or the failure's description. */
  readonly serverMessage: string;
  /** Immich's correlation id, if the answer had one. */
  readonly correlationId?: string;
  /** Which attempt failed, 1 for the first request. */
  readonly attempt: number;

  /**
   * @param message The one-line message.
   * @param details The exchange that failed.
   */
  constructor(message: string, details: ApiErrorDetails) {
    super(message, { cause: details.cause });
    this.name = "ApiError";
    this.method = details.method;
    this.path = details.path;
    this.status = details.status;
    this.serverMessage = details.serverMessage;
    this.correlationId = details.correlationId;
    this.attempt = details.attempt;
  }
}

/**
 * Tells whether the server refused the key: a 401 (unknown or revoked key) or a 403 (a
 * permission missing). Such an answer ends the user's pass: every later write would be refused
 * the same way, or half of a replace would be done.
 *
 * @param error What a writer method threw.
 * @returns True for an API answer 401 or 403.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { isAccessDenied } from "./http.ts";
 *
 * assert.equal(isAccessDenied(new Error("boom")), false);
 * ```
 */
export function isAccessDenied(error: unknown): boolean {
  return error instanceof ApiError && (error.status === 401 || error.status === 403);
}

/** A failure worth retrying: a network error that may pass, a time-out, 5xx or 429. */
export class TransientError extends ApiError {
  /** The wait the server asked for with `Retry-After`, in milliseconds. */
  readonly retryAfterMs?: number;

  /**
   * @param message The one-line message.
   * @param details The exchange that failed, plus the wait asked for by `Retry-After`.
   */
  constructor(message: string, details: ApiErrorDetails & { retryAfterMs?: number }) {
    super(message, details);
    this.name = "TransientError";
    this.retryAfterMs = details.retryAfterMs;
  }
}

/**
 * A failure that retrying cannot fix, so it is not retried: any 4xx except 429, a network error
 * no retry can change (a port Deno refuses, a TLS certificate or handshake failure), a redirect
 * away from API_URL's origin, or a `Retry-After` longer than the client waits. 401 and 403 end
 * the user's pass.
 */
export class PermanentError extends ApiError {
  /**
   * @param message The one-line message.
   * @param details The exchange that failed.
   */
  constructor(message: string, details: ApiErrorDetails) {
    super(message, details);
    this.name = "PermanentError";
  }
}

/** A successful status with an answer that is not the expected JSON (e.g. an HTML page). */
export class InvalidResponseError extends ApiError {
  /**
   * @param message The one-line message.
   * @param details The exchange that failed.
   */
  constructor(message: string, details: ApiErrorDetails) {
    super(message, details);
    this.name = "InvalidResponseError";
  }
}

/** Settings of {@linkcode createHttpClient}. */
export interface HttpClientOptions {
  /** API base URL, ending in `/api` (any reverse-proxy prefix is kept). */
  readonly baseUrl: string;
  /** The user's API key, sent as `x-api-key`. */
  readonly apiKey: string;
  /**
   * How long an attempt may wait for its answer to start, and how long the answer may then pause
   * while its body streams in, in milliseconds (REQUEST_TIMEOUT). A slow answer that keeps
   * moving is never cut; a silent server is noticed.
   * @default {120_000}
   */
  readonly timeoutMs?: number;
  /**
   * The longest `Retry-After` waited out; a server asking for longer fails the request at once.
   * @default {300_000}
   */
  readonly maxRetryAfterMs?: number;
  /**
   * Retries after the first attempt for transient failures.
   * @default {3}
   */
  readonly retries?: number;
  /**
   * Delay before the first retry; it doubles for each further retry.
   * @default {500}
   */
  readonly baseDelayMs?: number;
  /**
   * Waits between attempts; rejects when `signal` aborts.
   * @default a setTimeout-based wait
   */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * Source of jitter in [0, 1).
   * @default {Math.random}
   */
  readonly random?: () => number;
  /**
   * The clock in milliseconds since the epoch, for durations and `Retry-After` dates.
   * @default {Date.now}
   */
  readonly now?: () => number;
  /**
   * The shutdown signal: aborts reads in flight and waits between retries at once, and sends no
   * new request. A write (any method but GET) already sent gets 1 s more for its answer, and an
   * answer that has started to arrive is read to its end, so that a change the server made is
   * known as made.
   */
  readonly signal?: AbortSignal;
  /** Sees every answer and every failed attempt, e.g. to read the server's clock. */
  readonly observer?: ExchangeObserver;
}

/** What {@linkcode HttpClientOptions.observer} is told. */
export interface ExchangeObserver {
  /** An answer arrived (any status); its headers are read, its body not yet. */
  answered?(response: Response): void;
  /** An attempt failed in a way worth retrying (network, time-out, 5xx, 429), retried or not. */
  failed?(error: TransientError): void;
}

/** Options of {@linkcode HttpClient.request}. */
export interface RequestOptions<T> {
  /** JSON request body. */
  readonly body?: unknown;
  /** Validates the JSON answer; an empty answer (204) is validated as `undefined`. */
  readonly schema: z.ZodType<T>;
}

/** Options of {@linkcode HttpClient.stream}. */
export interface StreamOptions<T> {
  /** JSON request body. */
  readonly body?: unknown;
  /**
   * Consumes the answer's body; runs inside the retry loop, so a connection lost mid-body is
   * retried. Throw {@linkcode InvalidResponseError} (via `invalid`) for malformed content.
   */
  readonly read: (
    body: ReadableStream<Uint8Array>,
    invalid: (message: string) => InvalidResponseError,
  ) => Promise<T>;
}

/** Requests against one user's API, sharing one connection pool. */
export interface HttpClient {
  /** Sends a request and returns its JSON answer validated by `options.schema`. */
  request<T>(method: HttpMethod, path: string, options: RequestOptions<T>): Promise<T>;
  /** Sends a request and hands the answer's body, as bytes, to `options.read`. */
  stream<T>(method: HttpMethod, path: string, options: StreamOptions<T>): Promise<T>;
  /** Closes the pooled connections. */
  close(): void;
}

/** The longest wait one `setTimeout` holds (about 24.8 days); longer ones overflow to 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Waits `ms` milliseconds, however long (a cron interval of months included); rejects with the
 * signal's reason as soon as it aborts.
 *
 * @param ms How long to wait.
 * @param signal Ends the wait early.
 * @returns A promise that resolves after the wait.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { delay } from "./http.ts";
 *
 * const controller = new AbortController();
 * const waiting = delay(60_000, controller.signal);
 * controller.abort(new Error("stop"));
 * await assert.rejects(waiting, { message: "stop" });
 * ```
 */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    let remaining = ms;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const arm = () => {
      if (remaining <= 0) {
        signal?.removeEventListener("abort", onAbort);
        return resolve();
      }
      const step = Math.min(remaining, MAX_TIMER_MS);
      remaining -= step;
      timer = setTimeout(arm, step);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    arm();
  });
}

/** Turns a `Retry-After` value (seconds or an HTTP date) into milliseconds from now. */
function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function firstLine(text: string): string {
  const line = text.trim().split(/\r?\n/, 1)[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

function looksLikeHtml(text: string, contentType: string | null): boolean {
  return (contentType ?? "").includes("html") || /^\s*</.test(text);
}

/** Immich's message and correlation id from an error body of any version. */
function describeErrorBody(
  text: string,
  contentType: string | null,
  statusText: string,
): { message: string; correlationId?: string } {
  if (looksLikeHtml(text, contentType)) return { message: statusText || "HTML page" };
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const raw = body.message;
    const message = Array.isArray(raw) ? raw.map(String).join("; ") : String(raw ?? "");
    const correlationId = typeof body.correlationId === "string" ? body.correlationId : undefined;
    return { message: message || statusText, correlationId };
  } catch {
    return { message: firstLine(text) || statusText };
  }
}

function isTransientStatus(status: number): boolean {
  return status >= 500 || status === 429;
}

/** A duration as messages give it: whole seconds when it is one, else milliseconds. */
function duration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** Every message down an error's `cause` chain, joined: fetch hides the reason in its cause. */
function causeChain(error: unknown): string {
  const parts: string[] = [];
  for (let cause = error; cause !== undefined && parts.length < 8;) {
    parts.push(cause instanceof Error ? cause.message : String(cause));
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return parts.join(": ");
}

/** A network failure as a user can act on it, and whether another attempt may succeed. */
interface NetworkCause {
  readonly pattern: RegExp;
  readonly describe: (match: RegExpExecArray, url: URL) => string;
  readonly retry: boolean;
}

/**
 * The failures `fetch` reports, most specific first. A port Deno refuses, a certificate it does
 * not trust, or https against a plain HTTP server fail the same way every time, so they are not
 * retried; a refused connection or a failed name lookup may pass (a server restarting, a
 * container network coming up).
 */
const NETWORK_CAUSES: readonly NetworkCause[] = [
  {
    pattern: /Requests to port (\d+) are blocked/,
    describe: (match) =>
      `Deno never sends requests to port ${match[1]} (browsers block it too): use another port`,
    retry: false,
  },
  {
    pattern: /invalid peer certificate: ([^:\n]+)/i,
    describe: (match) => `TLS certificate not accepted: ${match[1].trim()}`,
    retry: false,
  },
  {
    pattern: /received corrupt message|InvalidContentType|HandshakeFailure|tls handshake/i,
    describe: () => "TLS handshake failed: the server does not speak https at this address",
    retry: false,
  },
  {
    pattern: /invalid HTTP version parsed|invalid HTTP status/i,
    describe: () => "the answer is not HTTP: the server may expect https at this address",
    retry: false,
  },
  {
    pattern: new RegExp(
      "dns error|failed to lookup address|Name or service not known|nodename nor servname|" +
        "No address associated|name resolution",
      "i",
    ),
    describe: (_, url) => `cannot resolve the host name ${url.hostname} (DNS)`,
    retry: true,
  },
  { pattern: /Connection refused/i, describe: () => "connection refused", retry: true },
  {
    pattern: /Connection reset/i,
    describe: () => "connection reset by the server",
    retry: true,
  },
  {
    pattern: /connection closed before message completed|IncompleteMessage|unexpected EOF/i,
    describe: () => "connection closed before the answer was complete",
    retry: true,
  },
  {
    pattern: /Network is unreachable|No route to host|Host is unreachable/i,
    describe: () => "network unreachable",
    retry: true,
  },
  { pattern: /timed out/i, describe: () => "connection timed out", retry: true },
];

/** Which part of an attempt a time limit cut: the wait for the answer, or a pause inside it. */
type TimedOut = "no answer" | "stalled";

/** The idle time limit of one attempt: it aborts `controller` after `timeoutMs` of silence. */
interface IdleWatch {
  /** Set once the limit has cut the attempt. */
  readonly timedOut: TimedOut | undefined;
  /** The answer has started: from now on the limit measures pauses in its body. */
  answered(): void;
  /** A chunk of the body arrived: the limit starts again. */
  touch(): void;
  /** Ends the watch when the attempt ends. */
  stop(): void;
}

/** An answer's body, read so that each chunk restarts the idle limit. */
interface AnswerBody {
  /** The whole body as text (empty when there is none). */
  text(): Promise<string>;
  /** The body as a stream of chunks, for answers too large to hold as text; null when none. */
  stream(): ReadableStream<Uint8Array> | null;
}

const utf8 = new TextDecoder();

/**
 * Answers up to this size, announced by `content-length`, are read in one go: the idle limit then
 * bounds their whole transfer (256 KB within 120 s is 2 KB/s), and `response.text()` costs a
 * tenth of reading chunk by chunk, which tens of thousands of writes per run would feel.
 */
const SMALL_ANSWER_BYTES = 256 * 1024;

/**
 * Reads an answer's body, touching the idle limit at each chunk: `text()` chunk by chunk unless
 * the answer is small, `stream()` through a stream that touches as its consumer pulls.
 */
function answerBody(response: Response, watch: IdleWatch): AnswerBody {
  return {
    async text() {
      if (response.body === null) return "";
      const declared = Number(response.headers.get("content-length") ?? NaN);
      if (declared <= SMALL_ANSWER_BYTES) return await response.text();
      const reader = response.body.getReader();
      const chunks: Uint8Array[] = [];
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        watch.touch();
        chunks.push(chunk.value);
      }
      return utf8.decode(concat(chunks));
    },
    stream() {
      if (response.body === null) return null;
      const reader = response.body.getReader();
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          const chunk = await reader.read();
          if (chunk.done) return controller.close();
          watch.touch();
          controller.enqueue(chunk.value);
        },
        cancel: (reason) => reader.cancel(reason),
      }, { highWaterMark: 0 });
    },
  };
}

/**
 * Starts the idle time limit of an attempt. One timer, re-armed for the time left since the last
 * chunk rather than reset on each of the thousands of chunks of a large answer; cleared when the
 * attempt ends, so that a finished request is not kept reachable for the whole limit.
 */
function watchIdle(controller: AbortController, timeoutMs: number): IdleWatch {
  let last = performance.now();
  let phase: TimedOut = "no answer";
  let timedOut: TimedOut | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const check = () => {
    const idle = performance.now() - last;
    if (idle >= timeoutMs) {
      timedOut = phase;
      controller.abort(new DOMException("Signal timed out", "TimeoutError"));
      return;
    }
    timer = setTimeout(check, Math.min(MAX_TIMER_MS, timeoutMs - idle));
  };
  timer = setTimeout(check, Math.min(MAX_TIMER_MS, timeoutMs));
  return {
    get timedOut() {
      return timedOut;
    },
    answered() {
      phase = "stalled";
      last = performance.now();
    },
    touch() {
      last = performance.now();
    },
    stop() {
      clearTimeout(timer);
    },
  };
}

/**
 * How long a write already sent may still wait for its answer after the shutdown signal, well
 * within the 2 s in which a stopped run ends.
 */
const WRITE_GRACE_MS = 1000;

/** Redirects followed within API_URL's origin before the request fails. */
const MAX_REDIRECTS = 5;

/**
 * Creates the HTTP client of one user.
 *
 * Transient failures (a network error that may pass, a time-out, 5xx, 429) are retried
 * `retries` times after the first attempt, waiting `baseDelayMs · 2^(k-1)` plus jitter of up
 * to half that, unless the answer carries `Retry-After`, which wins up to `maxRetryAfterMs`.
 * Each retry logs `Retry <k>/<retries> after <delay>` at warn as soon as the attempt has failed.
 * Other failures ({@linkcode PermanentError}) are never retried. A redirect is followed only
 * within the origin of `baseUrl`, with the same method, headers and body; any other ends the
 * request before the key is sent there.
 *
 * @param options Base URL, key, time limits, retry settings and injectable clock, sleep and
 * jitter, and the shutdown signal.
 * @returns A client to send requests with; call `close()` when the user is done.
 * @throws {TypeError} When `baseUrl` is not a URL.
 *
 * @example Usage
 * ```ts
 * import { createHttpClient } from "./http.ts";
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 *
 * const server = Deno.serve(
 *   { hostname: "127.0.0.1", port: 0, onListen() {} },
 *   () => Response.json({ major: 3, minor: 1, patch: 0 }),
 * );
 * const client = createHttpClient({
 *   baseUrl: `http://127.0.0.1:${server.addr.port}/api`,
 *   apiKey: "example-key",
 * });
 * const version = await client.request("GET", "/server/version", {
 *   schema: z.object({ major: z.number() }),
 * });
 * assert.equal(version.major, 3);
 * client.close();
 * await server.shutdown();
 * ```
 */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const baseUrl = new URL(options.baseUrl).href.replace(/\/+$/, "");
  const shownBaseUrl = shownUrl(baseUrl);
  const timeoutMs = options.timeoutMs ?? 120_000;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 300_000;
  const retries = options.retries ?? 3;
  const baseDelayMs = options.baseDelayMs ?? 500;
  const sleep = options.sleep ?? delay;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const client = Deno.createHttpClient({ poolMaxIdlePerHost: 100, poolIdleTimeout: 90_000 });
  // A password in API_URL goes to the server as Basic auth, and nowhere else either.
  const secrets = [options.apiKey, new URL(baseUrl).password].filter((secret) => secret !== "");
  const redact = (text: string) =>
    secrets.reduce((result, secret) => result.replaceAll(secret, "[redacted]"), text);

  interface Exchange {
    readonly method: HttpMethod;
    readonly path: string;
    readonly requestText?: string;
  }

  /** Builds the error for a non-2xx answer whose body has been read. */
  function statusError(
    exchange: Exchange,
    response: Response,
    text: string,
    attempt: number,
  ): ApiError {
    const { method, path } = exchange;
    const status = response.status;
    const described = describeErrorBody(
      text,
      response.headers.get("content-type"),
      response.statusText,
    );
    const serverMessage = redact(described.message);
    const correlationId = response.headers.get("x-correlation-id") ?? described.correlationId;
    const prefix = status === 401 ? "Invalid API key" : "API request failed";
    const message = `${prefix}: ${method} ${path} answered ${status} ${serverMessage}` +
      (correlationId ? ` (correlation id ${correlationId})` : "") +
      (attempt > 1 ? ` after ${attempt} attempts` : "");
    const details = { method, path, status, serverMessage, correlationId, attempt };
    if (!isTransientStatus(status)) return new PermanentError(message, details);
    const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"), now());
    if (retryAfterMs !== undefined && retryAfterMs > maxRetryAfterMs) {
      return new PermanentError(
        `${message}: the server asks to wait ${duration(retryAfterMs)} (Retry-After), more ` +
          `than the ${duration(maxRetryAfterMs)} stacksync waits`,
        details,
      );
    }
    return new TransientError(message, { ...details, retryAfterMs });
  }

  /** Maps a thrown fetch or body-read error to an {@linkcode ApiError}, or rethrows aborts. */
  function transportError(
    exchange: Exchange,
    error: unknown,
    timedOut: TimedOut | undefined,
    attempt: number,
  ): ApiError {
    if (error instanceof ApiError) return error;
    // A shutdown abort is the caller's decision, not a failure to retry or to report.
    if (options.signal?.aborted && timedOut === undefined) throw options.signal.reason;
    const { method, path } = exchange;
    const url = `${shownBaseUrl}${path}`;
    const after = attempt > 1 ? ` after ${attempt} attempts` : "";
    if (timedOut !== undefined) {
      const serverMessage = timedOut === "no answer"
        ? `no answer within ${duration(timeoutMs)}`
        : `answer stalled for ${duration(timeoutMs)}`;
      const what = timedOut === "no answer"
        ? `got no answer within ${duration(timeoutMs)}`
        : `sent no part of its answer for ${duration(timeoutMs)}`;
      return new TransientError(
        `API request timed out: ${method} ${url} ${what} (REQUEST_TIMEOUT)${after}`,
        { method, path, serverMessage, attempt, cause: error },
      );
    }
    const chain = causeChain(error);
    const known = NETWORK_CAUSES.find((cause) => cause.pattern.test(chain));
    const serverMessage = known === undefined
      ? redact(firstLine(chain))
      : known.describe(known.pattern.exec(chain)!, new URL(`${baseUrl}${path}`));
    const details = { method, path, serverMessage, attempt, cause: error };
    if (known?.retry === false) {
      return new PermanentError(`Failed to connect to API: ${method} ${url}: ${serverMessage}`, {
        ...details,
        attempt: 1,
      });
    }
    return new TransientError(
      `Failed to connect to API: ${method} ${url}: ${serverMessage}${after}`,
      details,
    );
  }

  function logExchange(
    exchange: Exchange,
    response: Response,
    started: number,
    responseBody: () => string,
  ) {
    const properties = {
      method: exchange.method,
      path: exchange.path,
      status: response.status,
      durationMs: now() - started,
      correlationID: response.headers.get("x-correlation-id") ?? undefined,
    };
    if (logger.isEnabledFor("trace")) {
      logger.trace("{method} {path} answered {status} in {durationMs} ms", {
        ...properties,
        requestBody: exchange.requestText === undefined ? undefined : redact(exchange.requestText),
        responseBody: redact(responseBody()),
      });
    } else {
      logger.debug("{method} {path} answered {status} in {durationMs} ms", properties);
    }
  }

  /**
   * Sends the request, following redirects that stay on API_URL's origin with the same method,
   * headers and body; any other redirect fails before anything is sent there.
   */
  async function fetchWithinOrigin(
    exchange: Exchange,
    init: RequestInit & { client: Deno.HttpClient },
    attempt: number,
  ): Promise<Response> {
    let url = new URL(`${baseUrl}${exchange.path}`);
    for (let hops = 0;; hops++) {
      const response = await fetch(url, { ...init, redirect: "manual" });
      const location = response.headers.get("location");
      if (response.status < 300 || response.status > 399 || location === null) return response;
      await response.body?.cancel();
      const target = new URL(location, url);
      const { method, path } = exchange;
      const details = { method, path, status: response.status, attempt };
      if (target.origin !== url.origin) {
        throw new PermanentError(
          `Cannot follow the redirect of ${method} ${path} to ${shownUrl(target)} as it leaves ` +
            "the origin of API_URL, and the API key goes nowhere else: set API_URL to the " +
            "address that answers without redirecting",
          { ...details, serverMessage: `redirect to ${shownUrl(target)}` },
        );
      }
      if (hops === MAX_REDIRECTS) {
        throw new PermanentError(
          `Cannot follow the redirects of ${method} ${path}: more than ${MAX_REDIRECTS} in a ` +
            `row, the last to ${shownUrl(target)}`,
          { ...details, serverMessage: "too many redirects" },
        );
      }
      target.username = url.username;
      target.password = url.password;
      url = target;
    }
  }

  async function attemptOnce<T>(
    exchange: Exchange,
    attempt: number,
    read: (
      response: Response,
      body: AnswerBody,
      attempt: number,
    ) => Promise<{ value: T; text: string }>,
  ): Promise<T> {
    if (options.signal?.aborted) throw options.signal.reason;
    const controller = new AbortController();
    const watch = watchIdle(controller, timeoutMs);
    // A read stops at once; a write already sent gets a moment for its answer, so that a change
    // the server made is known as made rather than left in doubt.
    let grace: ReturnType<typeof setTimeout> | undefined;
    const onShutdown = () => {
      const abort = () => controller.abort(options.signal?.reason);
      if (exchange.method === "GET") abort();
      else grace = setTimeout(abort, WRITE_GRACE_MS);
    };
    options.signal?.addEventListener("abort", onShutdown, { once: true });
    const headers: Record<string, string> = {
      "x-api-key": options.apiKey,
      "Accept": "application/json",
    };
    if (exchange.requestText !== undefined) headers["Content-Type"] = "application/json";
    const started = now();
    try {
      const response = await fetchWithinOrigin(exchange, {
        method: exchange.method,
        headers,
        body: exchange.requestText,
        client,
        signal: controller.signal,
      }, attempt);
      watch.answered();
      options.observer?.answered?.(response);
      // The server has acted on a write whose answer has started: read it even at shutdown.
      if (exchange.method !== "GET") options.signal?.removeEventListener("abort", onShutdown);
      const body = answerBody(response, watch);
      if (!response.ok) {
        const text = await body.text();
        logExchange(exchange, response, started, () => text);
        throw statusError(exchange, response, text, attempt);
      }
      const { value, text } = await read(response, body, attempt);
      logExchange(exchange, response, started, () => text);
      return value;
    } catch (error) {
      const failure = transportError(exchange, error, watch.timedOut, attempt);
      // Releases the connection of an answer left unread.
      controller.abort(failure);
      throw failure;
    } finally {
      watch.stop();
      clearTimeout(grace);
      options.signal?.removeEventListener("abort", onShutdown);
    }
  }

  async function send<T>(
    exchange: Exchange,
    read: (
      response: Response,
      body: AnswerBody,
      attempt: number,
    ) => Promise<{ value: T; text: string }>,
  ): Promise<T> {
    for (let attempt = 1;; attempt++) {
      try {
        return await attemptOnce(exchange, attempt, read);
      } catch (error) {
        if (error instanceof TransientError) options.observer?.failed?.(error);
        if (!(error instanceof TransientError) || attempt > retries) throw error;
        const backoff = baseDelayMs * 2 ** (attempt - 1);
        const delayMs = Math.round(error.retryAfterMs ?? backoff + random() * backoff / 2);
        logger.warn("Retry {attempt}/{max} after {delay}", {
          attempt,
          max: retries,
          delay: `${delayMs}ms`,
          method: exchange.method,
          path: exchange.path,
          status: error.status,
          reason: error.serverMessage,
          correlationID: error.correlationId,
        });
        await sleep(delayMs, options.signal);
      }
    }
  }

  function invalidResponse(
    exchange: Exchange,
    response: Response,
    attempt: number,
    serverMessage: string,
  ) {
    return (message: string) =>
      new InvalidResponseError(message, {
        method: exchange.method,
        path: exchange.path,
        status: response.status,
        serverMessage,
        correlationId: response.headers.get("x-correlation-id") ?? undefined,
        attempt,
      });
  }

  function htmlError(exchange: Exchange, response: Response, attempt: number) {
    return invalidResponse(exchange, response, attempt, "HTML page")(
      `Cannot use the answer of ${exchange.method} ${exchange.path} as it is an HTML page, ` +
        `not JSON (API_URL probably lacks /api): current value is ${shownBaseUrl}`,
    );
  }

  return {
    request<T>(method: HttpMethod, path: string, requestOptions: RequestOptions<T>) {
      const exchange: Exchange = {
        method,
        path,
        requestText: requestOptions.body === undefined
          ? undefined
          : JSON.stringify(requestOptions.body),
      };
      return send(exchange, async (response, body, attempt) => {
        const text = await body.text();
        const contentType = response.headers.get("content-type");
        let parsed: unknown = undefined;
        if (text.trim() !== "") {
          if (looksLikeHtml(text, contentType)) throw htmlError(exchange, response, attempt);
          try {
            parsed = JSON.parse(text);
          } catch (error) {
            const detail = redact(firstLine((error as Error).message));
            throw invalidResponse(exchange, response, attempt, detail)(
              `Cannot parse the answer of ${method} ${path} as JSON: ${detail}`,
            );
          }
        }
        const result = requestOptions.schema.safeParse(parsed);
        if (!result.success) {
          const issue = result.error.issues[0];
          const detail = `${issue?.path.join(".") || "(root)"}: ${issue?.message}`;
          throw invalidResponse(exchange, response, attempt, detail)(
            `Cannot use the answer of ${method} ${path} as it does not have the expected ` +
              `shape: ${detail}`,
          );
        }
        return { value: result.data, text };
      });
    },
    stream<T>(method: HttpMethod, path: string, streamOptions: StreamOptions<T>) {
      const exchange: Exchange = {
        method,
        path,
        requestText: streamOptions.body === undefined
          ? undefined
          : JSON.stringify(streamOptions.body),
      };
      return send(exchange, async (response, body, attempt) => {
        if (looksLikeHtml("", response.headers.get("content-type"))) {
          throw htmlError(exchange, response, attempt);
        }
        const chunks = body.stream();
        if (chunks === null) {
          throw invalidResponse(exchange, response, attempt, "empty answer")(
            `Cannot use the answer of ${method} ${path} as it is empty`,
          );
        }
        const value = await streamOptions.read(
          chunks,
          invalidResponse(exchange, response, attempt, "malformed body"),
        );
        // Streamed answers can be hundreds of megabytes: trace names them instead of copying.
        return { value, text: "(streamed body)" };
      });
    },
    close() {
      client.close();
    },
  };
}
