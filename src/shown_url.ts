/**
 * URLs as stacksync prints and stores them: in the start-up line, in errors and warnings, and as
 * the server a journal or backup belongs to.
 *
 * @module
 */

/** The URL without query and fragment (proxies and login pages put tokens there). */
function printable(url: string | URL, credentials: "mask" | "drop"): string {
  const parsed = URL.parse(url);
  if (parsed === null) return "(invalid URL)";
  const mark = credentials === "mask" ? "***" : "";
  if (parsed.username !== "") parsed.username = mark;
  if (parsed.password !== "") parsed.password = mark;
  parsed.search = "";
  parsed.hash = "";
  return parsed.href.replace(/\/+$/, "");
}

/**
 * A URL as it may be printed: user name and password replaced by `***`, query and fragment left
 * out, no trailing slash.
 *
 * @param url An absolute URL.
 * @returns The printable form, or `(invalid URL)`.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { shownUrl } from "./shown_url.ts";
 *
 * assert.equal(shownUrl("https://me:s3cret@example.com/api/"), "https://***:***@example.com/api");
 * assert.equal(shownUrl("http://example.com/login?token=abc#x"), "http://example.com/login");
 * ```
 */
export function shownUrl(url: string | URL): string {
  return printable(url, "mask");
}

/**
 * A URL as the name of a server, the same whatever credentials reach it: user name, password,
 * query and fragment left out, no trailing slash. Journals and backups record it.
 *
 * @param url An absolute URL (API_URL).
 * @returns The URL without credentials, or `(invalid URL)`.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { displayUrl } from "./shown_url.ts";
 *
 * assert.equal(displayUrl("https://me:pw@example.com/api/?t=1"), "https://example.com/api");
 * ```
 */
export function displayUrl(url: string | URL): string {
  return printable(url, "drop");
}

/**
 * The key by which journals, backups, plans and caches are matched to API_URL: the server's
 * name ({@linkcode displayUrl}) with `/api` added when its path does not end in it. An API_URL
 * without `/api` reaches the same Immich through the client's fallback (docs/architecture.md,
 * "Immich versions"), so a run recorded before `/api` was added is still this server's.
 *
 * @param url An absolute URL (API_URL), or a server name as a journal or backup records it.
 * @returns The key; equal keys name the same server.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { serverKey } from "./shown_url.ts";
 *
 * assert.equal(serverKey("http://immich:2283"), "http://immich:2283/api");
 * assert.equal(serverKey("http://me:pw@immich:2283/api/"), "http://immich:2283/api");
 * assert.equal(serverKey("https://example.com/photos"), "https://example.com/photos/api");
 * ```
 */
export function serverKey(url: string | URL): string {
  const name = displayUrl(url);
  if (name === "(invalid URL)" || /\/api$/.test(name)) return name;
  return `${name}/api`;
}
