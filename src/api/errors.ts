/**
 * The errors of the Immich transport, which callers tell apart: {@linkcode TransientError} is
 * retried, {@linkcode PermanentError} is not, {@linkcode InvalidResponseError} is an answer that is
 * not the expected JSON. Each names the exchange that failed on one line.
 *
 * @module
 */

/** The HTTP methods the Immich client uses. */
export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE";

/** What every {@linkcode ApiError} records about the failed exchange, and its cause. */
export type ApiErrorDetails =
  & Pick<ApiError, "method" | "path" | "status" | "serverMessage" | "correlationId" | "attempt">
  & {
    /** The underlying error, if any. */
    readonly cause?: unknown;
  };

/** Base class of every failed API request; the message is one line naming the exchange. */
export class ApiError extends Error {
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
 * import { isAccessDenied } from "./errors.ts";
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
