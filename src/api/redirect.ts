/**
 * Redirects followed only within API_URL's origin, so that the API key never leaves for another
 * host (docs/architecture.md, "Retries and time limits"): forward-auth proxies redirect to login
 * pages.
 *
 * @module
 */
import { shownUrl } from "../shown_url.ts";
import { PermanentError } from "./errors.ts";
import type { Exchange } from "./failures.ts";

/** Redirects followed within API_URL's origin before the request fails. */
const MAX_REDIRECTS = 5;

/** Options of {@linkcode fetchWithinOrigin}. */
export interface RedirectOptions {
  /** The request, for messages. */
  readonly exchange: Exchange;
  /** Which attempt this is, for messages. */
  readonly attempt: number;
}

/**
 * Sends the request, following redirects that stay on API_URL's origin with the same method,
 * headers and body, at most {@linkcode MAX_REDIRECTS} in a row; any other redirect fails before
 * anything is sent there. User name and password go along to each hop.
 *
 * @param url The request's address.
 * @param init The request, sent as it is to each hop, with its connection pool.
 * @param options The exchange and attempt, for messages.
 * @returns The first answer that is not a redirect.
 * @throws {PermanentError} For a redirect off the origin, or too many in a row.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { fetchWithinOrigin } from "./redirect.ts";
 *
 * const server = Deno.serve(
 *   { hostname: "127.0.0.1", port: 0, onListen() {} },
 *   (request) =>
 *     new URL(request.url).pathname === "/old"
 *       ? new Response(null, { status: 301, headers: { location: "/new" } })
 *       : new Response("here"),
 * );
 * const answer = await fetchWithinOrigin(
 *   new URL(`http://127.0.0.1:${server.addr.port}/old`),
 *   { method: "GET" },
 *   { exchange: { method: "GET", path: "/old" }, attempt: 1 },
 * );
 * assert.equal(await answer.text(), "here");
 * await server.shutdown();
 * ```
 */
export async function fetchWithinOrigin(
  url: URL,
  init: RequestInit & { readonly client?: Deno.HttpClient },
  options: RedirectOptions,
): Promise<Response> {
  const { exchange, attempt } = options;
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
