/**
 * JSON over HTTP for one Immich user: pooled connections, and each request sent through the
 * retry policy (`retry.ts`); an attempt (`attempt.ts`) keeps the idle time limit
 * (`idle_watch.ts`) and redirects within API_URL's origin (`redirect.ts`), then reads the answer
 * (`answers.ts`) or names the failure (`failures.ts`, `errors.ts`) and logs it
 * (docs/architecture.md, "Retries and time limits").
 *
 * The API key is sent in `x-api-key` to API_URL's origin and nowhere else: redirects are followed
 * only within that origin, and the key never appears in a log line, an error message or a trace
 * body (any echo of it by a server is redacted).
 *
 * @module
 */
import type { z } from "zod";
import { type BodyReader, readJson, readStream } from "./answers.ts";
import { type AnswerReader, type AttemptContext, attemptOnce } from "./attempt.ts";
import { delay } from "./delay.ts";
import type { HttpMethod, TransientError } from "./errors.ts";
import type { Exchange } from "./failures.ts";
import { retrying } from "./retry.ts";

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
  /** A check without zod that may spare `schema` (`accepts` of `readJson`, `answers.ts`). */
  readonly accepts?: (value: unknown) => value is T;
}

/** Options of {@linkcode HttpClient.stream}. */
export interface StreamOptions<T> {
  /** JSON request body. */
  readonly body?: unknown;
  /**
   * Consumes the answer's body; runs inside the retry loop, so a connection lost mid-body is
   * retried. Throw {@linkcode InvalidResponseError} (via `invalid`) for malformed content.
   */
  readonly read: BodyReader<T>;
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
  const now = options.now ?? Date.now;
  const client = Deno.createHttpClient({ poolMaxIdlePerHost: 100, poolIdleTimeout: 90_000 });
  // A password in API_URL goes to the server as Basic auth, and nowhere else either.
  const secrets = [options.apiKey, new URL(baseUrl).password].filter((secret) => secret !== "");
  const redact = (text: string) =>
    secrets.reduce((result, secret) => result.replaceAll(secret, "[redacted]"), text);
  const context: AttemptContext = {
    baseUrl,
    apiKey: options.apiKey,
    client,
    answered: (response) => options.observer?.answered?.(response),
    timeoutMs: options.timeoutMs ?? 120_000,
    maxRetryAfterMs: options.maxRetryAfterMs ?? 300_000,
    redact,
    now,
    signal: options.signal,
  };

  function send<T>(
    method: HttpMethod,
    path: string,
    request: {
      readonly body?: unknown;
      readonly read: AnswerReader<T>;
    },
  ): Promise<T> {
    const exchange: Exchange = {
      method,
      path,
      requestText: request.body === undefined ? undefined : JSON.stringify(request.body),
    };
    const read = request.read;
    return retrying((number) => attemptOnce(exchange, { number, read, context }), {
      exchange,
      retries: options.retries ?? 3,
      baseDelayMs: options.baseDelayMs ?? 500,
      sleep: options.sleep ?? delay,
      random: options.random ?? Math.random,
      signal: options.signal,
      failed: (error: TransientError) => options.observer?.failed?.(error),
    });
  }

  return {
    request<T>(method: HttpMethod, path: string, requestOptions: RequestOptions<T>) {
      const { body, schema, accepts } = requestOptions;
      return send(method, path, { body, read: (answer) => readJson(answer, schema, { accepts }) });
    },
    stream<T>(method: HttpMethod, path: string, streamOptions: StreamOptions<T>) {
      const { body, read } = streamOptions;
      return send(method, path, { body, read: (answer) => readStream(answer, read) });
    },
    close() {
      client.close();
    },
  };
}
