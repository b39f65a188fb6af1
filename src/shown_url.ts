/**
 * URLs as stacksync prints them: in the start-up line, in errors and in warnings.
 *
 * @module
 */

/**
 * A URL as it may be printed: user name and password replaced by `***`, query and fragment left
 * out (reverse proxies and login pages put tokens there), no trailing slash.
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
  const parsed = URL.parse(url);
  if (parsed === null) return "(invalid URL)";
  if (parsed.username !== "") parsed.username = "***";
  if (parsed.password !== "") parsed.password = "***";
  parsed.search = "";
  parsed.hash = "";
  return parsed.href.replace(/\/+$/, "");
}
