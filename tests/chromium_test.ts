/**
 * The Chromium that the browser tests fall back to where Debian's is not installed: the one the
 * npm package @sparticuz/chromium carries (scripts/_chromium.ts). It is started here even where
 * Debian's is, so that every machine checks what a machine with nothing but Deno runs.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import denoJson from "../deno.json" with { type: "json" };
import { launchChromium } from "../scripts/_chromium.ts";

Deno.test("the Chromium of @sparticuz/chromium shows a page with text and a WebP picture", async () => {
  const picture = await Deno.readFile(new URL("testdata/thumbnails/1-hills.webp", import.meta.url));
  const [browser, again] = await Promise.all([
    launchChromium({ bundled: true }),
    // A second start at the same moment, as two test files do: both find a whole browser.
    launchChromium({ bundled: true }),
  ]);
  await using _browser = browser;
  await using _again = again;
  const major = denoJson.imports["@sparticuz/chromium"].split("@").at(-1)!.split(".")[0];
  assert.match(await browser.version(), new RegExp(`^HeadlessChrome/${major}\\.`));
  const page = await browser.newPage();
  const src = `data:image/webp;base64,${Buffer.from(picture).toString("base64")}`;
  await page.setContent(`<p id="text">Stacks</p><img id="picture" src="${src}">`, {
    waitUntil: "load",
  });
  assert.equal(await page.$eval("#text", (node) => node.textContent), "Stacks");
  assert.ok(await page.$eval("img#picture", (image) => image.naturalWidth) > 0);
  assert.equal((await again.pages()).length, 1);
});
