/**
 * The review page's benchmark: a plan of many actions (`_synthetic_plan.ts`) with its pictures in
 * a folder beside the page, opened from disk in Chromium; how long until the first card shows,
 * and how long the End key then takes to show the last one.
 *
 * @module
 */
import { join } from "node:path";
import { renderPage } from "../src/review/page.ts";
import { picturesOf } from "../src/review/thumbnails.ts";
import { launchChromium } from "./_chromium.ts";
import { syntheticPlan } from "./_synthetic_plan.ts";

/** Options of {@linkcode benchPage}. */
export interface PageBenchOptions {
  /** Actions in the plan. */
  readonly actions: number;
  /** Pictures on the page (covers first), as PLAN_THUMBNAILS would allow. */
  readonly pictures: number;
}

/** What {@linkcode benchPage} measured. */
export interface PageBench {
  readonly actions: number;
  readonly pictures: number;
  /** The page's size in bytes. */
  readonly bytes: number;
  /** `renderPage()` in this process. */
  readonly renderMs: number;
  /** From navigating to the file until the first card is in the document. */
  readonly openMs: number;
  /** From pressing End until the last card is in the document. */
  readonly scrollMs: number;
  /** Cards in the document after the scroll: only those near the screen are. */
  readonly cardsInDocument: number;
}

/**
 * Measures the review page of a plan of `actions` actions in Chromium.
 *
 * @param options How many actions and pictures.
 * @returns The figures.
 * @throws {Error} When the last card never shows.
 */
export async function benchPage(options: PageBenchOptions): Promise<PageBench> {
  const plan = syntheticPlan(options.actions);
  const folder = await Deno.makeTempDir({ prefix: "stacksync_page_bench_" });
  try {
    const pictures = new URL("../tests/testdata/thumbnails/", import.meta.url);
    const files = [...Deno.readDirSync(pictures)].map((entry) => entry.name).sort();
    await Deno.mkdir(join(folder, "plan_files"));
    const images = new Map<string, string>();
    for (const [i, id] of picturesOf(plan.users[0], options.pictures).entries()) {
      await Deno.copyFile(
        new URL(files[i % files.length], pictures),
        join(folder, "plan_files", `${id}.webp`),
      );
      images.set(id, `plan_files/${id}.webp`);
    }
    const started = performance.now();
    const html = renderPage(plan, { images });
    const renderMs = performance.now() - started;
    const path = join(folder, "plan.html");
    await Deno.writeTextFile(path, html);

    await using browser = await launchChromium();
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    const opened = performance.now();
    await page.goto(`file://${path}`, { waitUntil: "domcontentloaded" });
    await page.waitForSelector(".card");
    const openMs = performance.now() - opened;
    const last = plan.users[0].actions.at(-1)!.id;
    const scrolled = performance.now();
    await page.keyboard.press("End");
    await page.waitForSelector(`.card[data-id="${last}"]`, { timeout: 30_000 });
    const scrollMs = performance.now() - scrolled;
    const cardsInDocument = await page.$$eval(".card", (cards) => cards.length);
    return {
      actions: options.actions,
      pictures: images.size,
      bytes: new TextEncoder().encode(html).length,
      renderMs,
      openMs,
      scrollMs,
      cardsInDocument,
    };
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
}
