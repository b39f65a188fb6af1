/**
 * `deno task screenshot`: the README's picture of the review page (docs/review-page.png). It
 * starts the Immich test server with the library of tests/review_page_test.ts, runs the real
 * `stacksync plan --html` against it, and photographs the page in Chromium
 * (scripts/_chromium.ts) with the server's address and the time fixed, so that the picture only
 * changes when the page does. The file is rewritten only when the page looks different: Chromium
 * scales the same picture slightly differently from one paint to the next (a few dozen pixels of
 * the 1.4 million). The tests never write it (tests/review_page_test.ts takes the same picture
 * into a folder of its own).
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser } from "puppeteer-core";
import { parsePlanFile, type PlanFile } from "../src/plan_file/format.ts";
import { renderPage } from "../src/review/page.ts";
import { runCli } from "../tests/_cli.ts";
import { env, startLibrary } from "../tests/_e2e.ts";
import { EVERY_KIND, PLAN_LIBRARY, reviewStacks } from "../tests/_plan_library.ts";
import { launchChromium } from "./_chromium.ts";
import { runScript, scriptArgs } from "./_script_args.ts";

const README_PICTURE = fileURLToPath(new URL("../docs/review-page.png", import.meta.url));
/** Pixels that may differ before the picture counts as changed. */
const UNCHANGED_PIXELS = 1000;

const USAGE = `Usage: deno task screenshot [options]

Makes the README's picture of the review page from the plan of the test library, and writes it
only when the page looks different from the picture there.

Options:
  --out <file>   Where the picture goes (default: docs/review-page.png)
  --help         Show this help`;

/** Evaluated in the page: its cards are there and every picture has loaded (or failed). */
export const PICTURES_LOADED = "document.querySelectorAll('.card').length > 0 && " +
  "[...document.images].every((image) => image.complete)";

/**
 * Evaluated in a page: how many pixels of two PNG pictures (base64) differ, or Infinity when
 * their sizes do.
 */
const CHANGED_PIXELS = `async ([a, b]) => {
  const pixels = async (png) => {
    const image = new Image();
    image.src = "data:image/png;base64," + png;
    await image.decode();
    const canvas = document.createElement("canvas");
    canvas.width = image.width;
    canvas.height = image.height;
    const context = canvas.getContext("2d");
    context.drawImage(image, 0, 0);
    return context.getImageData(0, 0, image.width, image.height);
  };
  const [x, y] = [await pixels(a), await pixels(b)];
  if (x.width !== y.width || x.height !== y.height) return Infinity;
  let changed = 0;
  for (let i = 0; i < x.data.length; i += 4) {
    if (x.data[i] !== y.data[i] || x.data[i + 1] !== y.data[i + 1] || x.data[i + 2] !== y.data[i + 2]) changed++;
  }
  return changed;
}`;

/**
 * Photographs the review page of a plan's first user as the README shows it: planned on
 * 2026-11-23 at 06:00 UTC for `http://immich.local:2283/api`, 1100 × 1280 pixels.
 *
 * @param browser A running Chromium.
 * @param plan The plan `stacksync plan --html` wrote.
 * @param html The page it wrote; its pictures are taken from the folder beside it.
 * @returns The PNG.
 */
export async function reviewScreenshot(
  browser: Browser,
  plan: PlanFile,
  html: string,
): Promise<Uint8Array> {
  const shown: PlanFile = {
    ...plan,
    createdAt: "2026-11-23T06:00:00.000Z",
    server: "http://immich.local:2283/api",
    users: [plan.users[0]],
  };
  const images = JSON.parse(
    /id="image-data">(.*?)<\/script>/.exec(await Deno.readTextFile(html))![1],
  ) as Record<string, string>;
  const path = join(dirname(html), "screenshot.html");
  await Deno.writeTextFile(path, renderPage(shown, { images: new Map(Object.entries(images)) }));
  const page = await browser.newPage();
  try {
    await page.setViewport({ width: 1100, height: 1280 });
    await page.goto(`file://${path}`, { waitUntil: "load" });
    await page.waitForFunction(PICTURES_LOADED);
    return await page.screenshot();
  } finally {
    await page.close();
  }
}

/** How many pixels of two PNG pictures differ, measured in the browser. */
async function changedPixels(browser: Browser, a: Uint8Array, b: Uint8Array): Promise<number> {
  const page = await browser.newPage();
  try {
    const pngs = [a, b].map((bytes) => Buffer.from(bytes).toString("base64"));
    return await page.evaluate(`(${CHANGED_PIXELS})(${JSON.stringify(pngs)})`) as number;
  } finally {
    await page.close();
  }
}

/** The plan of the test library, as `stacksync plan --html` writes it into a folder. */
async function planOfTestLibrary(folder: string): Promise<{ plan: PlanFile; html: string }> {
  const library = await startLibrary(PLAN_LIBRARY);
  try {
    reviewStacks(library);
    const out = join(folder, "plan.json");
    const html = join(folder, "plan.html");
    const result = await runCli({
      args: ["plan", "--out", out, "--html", html],
      env: env(library, EVERY_KIND),
    });
    await Deno.remove(result.cwd, { recursive: true });
    if (result.code !== 0) {
      throw new Error(`Cannot plan the test library: stacksync plan exited ${result.code}`);
    }
    return { plan: parsePlanFile(await Deno.readTextFile(out), out), html };
  } finally {
    await library.server.close();
  }
}

async function screenshot({ out }: { readonly out: string }): Promise<number> {
  const folder = await Deno.makeTempDir({ prefix: "stacksync_screenshot_" });
  try {
    const { plan, html } = await planOfTestLibrary(folder);
    await using browser = await launchChromium();
    const png = await reviewScreenshot(browser, plan, html);
    const old = await Deno.readFile(out).catch(() => undefined);
    const changed = old === undefined ? Infinity : await changedPixels(browser, old, png);
    if (changed <= UNCHANGED_PIXELS) {
      console.log(`${out} is unchanged (${changed} pixels differ)`);
      return 0;
    }
    await Deno.writeFile(out, png);
    const why = old === undefined
      ? "new"
      : changed === Infinity
      ? "the size differs"
      : `${changed} pixels differ`;
    console.log(`Wrote ${out} (${why})`);
    return 0;
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
}

function screenshotCommand(args: readonly string[]): { readonly out: string } | "help" {
  const values = scriptArgs("screenshot", args, {
    out: { type: "string", default: README_PICTURE },
    help: { type: "boolean" },
  });
  return values.help ? "help" : { out: values.out };
}

if (import.meta.main) {
  Deno.exit(
    await runScript(Deno.args, { usage: USAGE, parse: screenshotCommand, run: screenshot }),
  );
}
