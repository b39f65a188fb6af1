/**
 * JSON over HTTP for one Immich user: pooled connections, a time-out per request, the retry
 * policy of DESIGN.md section 6, error classes callers can tell apart, and request logging.
 *
 * The API key is sent in `x-api-key` and nowhere else: it never appears in a log line, an error
 * message or a trace body (any echo of it by a server is redacted).
 *
 * @module
 */
import { getLogger } from "@logtape/logtape";
import type { z } from "zod";

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

/** A failure worth retrying: network error, time-out, 5xx or 429. */
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

/** A failure that retrying cannot fix: any 4xx except 429. 401 and 403 end the user's pass. */
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
   * Time-out per request, body included, in milliseconds.
   * @default {600_000}
   */
  readonly timeoutMs?: number;
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
  /** Aborts requests in flight and waits between retries. */
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

/**
 * Waits `ms` milliseconds; rejects with the signal's reason as soon as it aborts.
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
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
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

/**
 * The base URL as it may be shown or stored: without user info, query or fragment.
 *
 * @param baseUrl API_URL.
 * @returns The URL without credentials, or `(invalid URL)`.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { displayUrl } from "./http.ts";
 *
 * assert.equal(displayUrl("https://me:pw@photos.example.com/api/?t=1"), "https://photos.example.com/api");
 * ```
 */
export function displayUrl(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    url.username = "";
    url.password = "";
    url.search = "";
    url.hash = "";
    return url.href.replace(/\/+$/, "");
  } catch {
    return "(invalid URL)";
  }
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

/**
 * Creates the HTTP client of one user.
 *
 * Transient failures (network error, time-out, 5xx, 429) are retried `retries` times after the
 * first attempt, waiting `baseDelayMs · 2^(k-1)` plus jitter of up to half that, unless the
 * answer carries `Retry-After`, which wins. Each retry logs `Retry <k>/<retries> after <delay>`
 * at warn. Other 4xx answers are never retried.
 *
 * @param options Base URL, key, time-out, retry settings and injectable clock, sleep and jitter.
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
  const shownBaseUrl = displayUrl(baseUrl);
  const timeoutMs = options.timeoutMs ?? 600_000;
  const retries = options.retries ?? 3;
  const baseDelayMs = options.baseDelayMs ?? 500;
  const sleep = options.sleep ?? delay;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const client = Deno.createHttpClient({ poolMaxIdlePerHost: 100, poolIdleTimeout: 90_000 });
  const redact = (text: string) =>
    options.apiKey === "" ? text : text.replaceAll(options.apiKey, "[redacted]");

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
    return new TransientError(message, { ...details, retryAfterMs });
  }

  /** Maps a thrown fetch or body-read error to an {@linkcode ApiError}, or rethrows aborts. */
  function transportError(
    exchange: Exchange,
    error: unknown,
    timeout: AbortSignal,
    attempt: number,
  ): ApiError {
    if (error instanceof ApiError) return error;
    // A shutdown abort is the caller's decision, not a failure to retry or to report.
    if (options.signal?.aborted) throw options.signal.reason;
    const { method, path } = exchange;
    const after = attempt > 1 ? ` after ${attempt} attempts` : "";
    if (timeout.aborted) {
      const serverMessage = `no answer within ${timeoutMs} ms`;
      return new TransientError(
        `API request timed out: ${method} ${path} got ${serverMessage}${after}`,
        { method, path, serverMessage, attempt, cause: error },
      );
    }
    const serverMessage = redact(firstLine(error instanceof Error ? error.message : String(error)));
    return new TransientError(
      `Failed to connect to API: ${method} ${shownBaseUrl}${path}: ${serverMessage}${after}`,
      { method, path, serverMessage, attempt, cause: error },
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

  async function attemptOnce<T>(
    exchange: Exchange,
    attempt: number,
    read: (response: Response, attempt: number) => Promise<{ value: T; text: string }>,
  ): Promise<T> {
    // A timer cleared when the attempt ends, not AbortSignal.timeout: that one stays armed for
    // the full time-out, keeping each finished request reachable, and a first run sends tens of
    // thousands of them within the 600 s.
    const timeoutController = new AbortController();
    const timer = setTimeout(
      () => timeoutController.abort(new DOMException("Signal timed out", "TimeoutError")),
      timeoutMs,
    );
    const timeout = timeoutController.signal;
    const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
    const headers: Record<string, string> = {
      "x-api-key": options.apiKey,
      "Accept": "application/json",
    };
    if (exchange.requestText !== undefined) headers["Content-Type"] = "application/json";
    const started = now();
    let response: Response | undefined;
    try {
      response = await fetch(`${baseUrl}${exchange.path}`, {
        method: exchange.method,
        headers,
        body: exchange.requestText,
        client,
        signal,
      });
      options.observer?.answered?.(response);
      if (!response.ok) {
        const text = await response.text();
        logExchange(exchange, response, started, () => text);
        throw statusError(exchange, response, text, attempt);
      }
      const { value, text } = await read(response, attempt);
      logExchange(exchange, response, started, () => text);
      return value;
    } catch (error) {
      await response?.body?.cancel().catch(() => {});
      throw transportError(exchange, error, timeout, attempt);
    } finally {
      clearTimeout(timer);
    }
  }

  async function send<T>(
    exchange: Exchange,
    read: (response: Response, attempt: number) => Promise<{ value: T; text: string }>,
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
      return send(exchange, async (response, attempt) => {
        const text = await response.text();
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
      return send(exchange, async (response, attempt) => {
        if (looksLikeHtml("", response.headers.get("content-type"))) {
          throw htmlError(exchange, response, attempt);
        }
        if (response.body === null) {
          throw invalidResponse(exchange, response, attempt, "empty answer")(
            `Cannot use the answer of ${method} ${path} as it is empty`,
          );
        }
        const value = await streamOptions.read(
          response.body,
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
