/**
 * Debian's Chromium driven through `puppeteer-core`, for the review page's browser test and its
 * benchmark: headless, offline (no background networking, updates, sync or QUIC) and with a
 * fresh profile that is removed afterwards. `.ci/run` installs Chromium when it is missing.
 *
 * @module
 */
import puppeteer, { type Browser } from "puppeteer-core";

/** Where Debian's `chromium` package puts the browser. */
const CHROMIUM = "/usr/bin/chromium";

/** A running Chromium that closes itself and removes its profile when disposed. */
export type Chromium = Browser & AsyncDisposable;

/**
 * Starts Chromium.
 *
 * @returns The browser; dispose of it (or `close()` it) when done.
 * @throws {Error} When Chromium is not installed, saying how to install it.
 */
export async function launchChromium(): Promise<Chromium> {
  try {
    await Deno.stat(CHROMIUM);
  } catch {
    throw new Error(
      `Cannot start the browser as ${CHROMIUM} is missing: install it with ` +
        "apt-get install -y chromium (.ci/run does)",
    );
  }
  const profile = await Deno.makeTempDir({ prefix: "stacksync_chromium_" });
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    // Pipes, not a DevTools port: nothing listens on the network.
    pipe: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      `--user-data-dir=${profile}`,
    ],
  });
  return Object.assign(browser, {
    async [Symbol.asyncDispose]() {
      await browser.close();
      await Deno.remove(profile, { recursive: true }).catch(() => {});
    },
  });
}
