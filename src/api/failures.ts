/**
 * Failed exchanges named as a user can act on them: a status answer with the server's message and
 * correlation id, a network failure with its cause, a time-out with the limit it passed; and which
 * of them are worth retrying (docs/architecture.md, "Retries and time limits").
 *
 * @module
 */
import { shownUrl } from "../shown_url.ts";
import { ApiError, type HttpMethod, PermanentError, TransientError } from "./errors.ts";
import type { TimedOut } from "./idle_watch.ts";

/** One request as the transport sends it, attempt after attempt. */
export interface Exchange {
  readonly method: HttpMethod;
  readonly path: string;
  /** The JSON body, as sent. */
  readonly requestText?: string;
}

/** What the failures of one client's requests are named with. */
export interface FailureContext {
  /** API_URL, without trailing slashes. */
  readonly baseUrl: string;
  /** REQUEST_TIMEOUT, in milliseconds. */
  readonly timeoutMs: number;
  /** The longest `Retry-After` waited out, in milliseconds. */
  readonly maxRetryAfterMs: number;
  /** Replaces every secret (the key, a password in API_URL) in a text from the server. */
  readonly redact: (text: string) => string;
  /** The clock, for `Retry-After` dates. */
  readonly now: () => number;
  /** The shutdown signal: an abort it caused is no failure. */
  readonly signal?: AbortSignal;
}

/** A non-2xx answer whose body has been read. */
export interface FailedAnswer {
  readonly exchange: Exchange;
  readonly response: Response;
  /** The answer's body. */
  readonly text: string;
  readonly attempt: number;
}

/** An attempt that threw: `fetch` failed, the body broke off, or the idle limit cut it. */
export interface FailedAttempt {
  readonly exchange: Exchange;
  readonly error: unknown;
  /** Set when the idle limit cut the attempt. */
  readonly timedOut: TimedOut | undefined;
  readonly attempt: number;
}

/** Turns a `Retry-After` value (seconds or an HTTP date) into milliseconds from now. */
function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The first line of a text, cut at 200 characters. */
export function firstLine(text: string): string {
  const line = text.trim().split(/\r?\n/, 1)[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** Whether an answer is an HTML page (Immich's web app) rather than JSON. */
export function looksLikeHtml(text: string, contentType: string | null): boolean {
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

/**
 * The error of a non-2xx answer: permanent for 4xx but 429, transient for 5xx and 429 unless its
 * `Retry-After` asks for longer than the client waits. A 401 is named `Invalid API key`.
 *
 * @param answer The exchange, the answer and its body.
 * @param context The client's limits, clock and secrets.
 * @returns The error to throw.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { statusError } from "./failures.ts";
 *
 * const error = statusError({
 *   exchange: { method: "GET", path: "/stacks" },
 *   response: new Response(null, { status: 401 }),
 *   text: '{"message":"Invalid API key"}',
 *   attempt: 1,
 * }, {
 *   baseUrl: "http://immich:2283/api",
 *   timeoutMs: 120_000,
 *   maxRetryAfterMs: 300_000,
 *   redact: (text) => text,
 *   now: Date.now,
 * });
 * assert.equal(error.name, "PermanentError");
 * assert.equal(error.message, "Invalid API key: GET /stacks answered 401 Invalid API key");
 * ```
 */
export function statusError(answer: FailedAnswer, context: FailureContext): ApiError {
  const { exchange, response, text, attempt } = answer;
  const { method, path } = exchange;
  const { maxRetryAfterMs } = context;
  const status = response.status;
  const described = describeErrorBody(
    text,
    response.headers.get("content-type"),
    response.statusText,
  );
  const serverMessage = context.redact(described.message);
  const correlationId = response.headers.get("x-correlation-id") ?? described.correlationId;
  const prefix = status === 401 ? "Invalid API key" : "API request failed";
  const message = `${prefix}: ${method} ${path} answered ${status} ${serverMessage}` +
    (correlationId ? ` (correlation id ${correlationId})` : "") +
    (attempt > 1 ? ` after ${attempt} attempts` : "");
  const details = { method, path, status, serverMessage, correlationId, attempt };
  if (!isTransientStatus(status)) return new PermanentError(message, details);
  const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"), context.now());
  if (retryAfterMs !== undefined && retryAfterMs > maxRetryAfterMs) {
    return new PermanentError(
      `${message}: the server asks to wait ${duration(retryAfterMs)} (Retry-After), more ` +
        `than the ${duration(maxRetryAfterMs)} stacksync waits`,
      details,
    );
  }
  return new TransientError(message, { ...details, retryAfterMs });
}

/**
 * The error of an attempt that threw: a time-out, or a network failure named by its cause and
 * retried only when another attempt may succeed. An {@linkcode ApiError} is kept as it is.
 *
 * @param failure The exchange, what was thrown, and whether the idle limit cut it.
 * @param context The client's address, limits and secrets.
 * @returns The error to throw.
 * @throws The shutdown signal's reason, when the signal aborted the attempt.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { transportError } from "./failures.ts";
 *
 * const error = transportError({
 *   exchange: { method: "GET", path: "/server/version" },
 *   error: new TypeError("error sending request: Connection refused (os error 111)"),
 *   timedOut: undefined,
 *   attempt: 4,
 * }, {
 *   baseUrl: "http://immich:2283/api",
 *   timeoutMs: 120_000,
 *   maxRetryAfterMs: 300_000,
 *   redact: (text) => text,
 *   now: Date.now,
 * });
 * assert.equal(error.name, "TransientError");
 * assert.equal(
 *   error.message,
 *   "Failed to connect to API: GET http://immich:2283/api/server/version: connection refused " +
 *     "after 4 attempts",
 * );
 * ```
 */
export function transportError(failure: FailedAttempt, context: FailureContext): ApiError {
  const { exchange, error, timedOut, attempt } = failure;
  const { baseUrl, timeoutMs, signal } = context;
  if (error instanceof ApiError) return error;
  // A shutdown abort is the caller's decision, not a failure to retry or to report.
  if (signal?.aborted && timedOut === undefined) throw signal.reason;
  const { method, path } = exchange;
  const url = `${shownUrl(baseUrl)}${path}`;
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
    ? context.redact(firstLine(chain))
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
