/**
 * The review page in a real browser: Chromium (scripts/_chromium.ts), driven by puppeteer-core,
 * opens the page that `stacksync plan --html` (the real CLI, as a subprocess) wrote for the test
 * library, from disk and offline. One Chromium serves every step. The last step takes the
 * README's screenshot as `deno task screenshot` does, into the test's own folder: a test run
 * writes no tracked file.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Page } from "puppeteer-core";
import { launchChromium } from "../scripts/_chromium.ts";
import { PICTURES_LOADED, reviewScreenshot } from "../scripts/screenshot.ts";
import { syntheticPlan } from "../scripts/_synthetic_plan.ts";
import { parsePlanFile, type PlanFile } from "../src/plan_file/format.ts";
import { renderPage } from "../src/review/page.ts";
import { runCli } from "./_cli.ts";
import { env, startLibrary } from "./_e2e.ts";
import { EVERY_KIND, PLAN_LIBRARY, reviewStacks } from "./_plan_library.ts";

/** Eve's photos, named to break out of the page if any name reached it as markup. */
const HOSTILE = '<img src=x onerror=alert(1)></script><b id="injected">bold';

/** The kinds of a plan's cards, counted, with `needs-replace` for the conflicts left alone. */
function kinds(plan: PlanFile, user?: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const [u, entry] of plan.users.entries()) {
    if (user !== undefined && u !== user) continue;
    for (const action of entry.actions) counts[action.kind] = (counts[action.kind] ?? 0) + 1;
    if (entry.needsReplace.length > 0) counts["needs-replace"] = entry.needsReplace.length;
  }
  return counts;
}

/** The kinds of the cards in the document, counted. */
async function shownKinds(page: Page): Promise<Record<string, number>> {
  const shown = await page.$$eval(".card", (cards) => cards.map((card) => card.dataset.kind));
  const counts: Record<string, number> = {};
  for (const kind of shown) counts[kind!] = (counts[kind!] ?? 0) + 1;
  return counts;
}

async function ticked(page: Page): Promise<string> {
  return await page.$eval("#ticked", (node) => node.textContent ?? "");
}

Deno.test("the review page of stacksync plan --html works offline in Chromium", async (t) => {
  // The browser first: a Chromium that cannot start leaves no folder or server behind.
  await using browser = await launchChromium();
  const folder = await Deno.makeTempDir({ prefix: "stacksync_review_test_" });
  const library = await startLibrary(PLAN_LIBRARY);
  try {
    reviewStacks(library);
    const eve = library.server.addUser({ name: "<b>Eve</b>" });
    const evesKey = library.server.addKey(eve.id);
    for (const ext of [".jpg", ".dng"]) {
      library.server.addAsset(eve.id, {
        originalFileName: `${HOSTILE}${ext}`,
        localDateTime: "2024-07-01T08:00:00.000Z",
      });
    }
    const planPath = join(folder, "plan.json");
    const html = join(folder, "plan.html");
    const result = await runCli({
      args: ["plan", "--out", planPath, "--html", html],
      env: env(library, { ...EVERY_KIND, API_KEY: `${library.key},${evesKey}` }),
    });
    await Deno.remove(result.cwd, { recursive: true });
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const plan = parsePlanFile(await Deno.readTextFile(planPath), planPath);
    const actions = plan.users.flatMap((user) => user.actions);
    assert.equal(actions.length, 9);

    const page = await browser.newPage();
    const requests: string[] = [];
    const dialogs: string[] = [];
    const errors: string[] = [];
    await page.setRequestInterception(true);
    page.on("request", (request) => {
      requests.push(request.url());
      // Only the page, its pictures and the saved file's blob: anything else is cut off.
      if (/^(file|data|blob):/.test(request.url())) request.continue();
      else request.abort();
    });
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      dialog.dismiss();
    });
    page.on("pageerror", (error) => errors.push(String(error)));
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });
    // Tall enough for every card of this plan to be in the document.
    await page.setViewport({ width: 1200, height: 2600 });
    await page.goto(`file://${html}`, { waitUntil: "load" });
    await page.waitForFunction(PICTURES_LOADED);

    await t.step("shows one card per action, as many of each kind as the plan has", async () => {
      assert.deepEqual(await shownKinds(page), kinds(plan));
      assert.deepEqual(
        (await page.$$eval(".card[data-id]", (cards) => cards.map((card) => card.dataset.id)))
          .sort(),
        actions.map((action) => action.id).sort(),
      );
      assert.equal(await ticked(page), "9 of 9 actions ticked");
    });

    await t.step("loads every picture of every card from the folder beside it", async () => {
      const pictures = await page.$$eval(
        ".card img",
        (images) => images.map((image) => ({ src: image.src, width: image.naturalWidth })),
      );
      // 17 photos of Ada's groups, IMG_0100 leaving the replaced stack, IMG_0101 deleted alone,
      // and Eve's two: every one has its picture.
      assert.ok(pictures.length >= 21, `${pictures.length} pictures`);
      for (const picture of pictures) {
        assert.ok(picture.width > 0, picture.src);
        assert.match(picture.src, /^file:\/\/.*\/plan_files\/[0-9a-f-]{36}\.webp$/);
      }
      assert.equal(await page.$$eval(".card .picture.none", (nodes) => nodes.length), 0);
    });

    await t.step(
      "the kind filter shows that kind only, the user filter that user only",
      async () => {
        for (const kind of ["create", "grow", "update-primary", "replace", "delete"]) {
          await page.select("#kind", kind);
          assert.deepEqual(await shownKinds(page), { [kind]: kinds(plan)[kind] }, kind);
        }
        await page.select("#kind", "all");
        await page.select("#user", "1");
        assert.deepEqual(await shownKinds(page), kinds(plan, 1));
        await page.select("#user", "all");
        assert.deepEqual(await shownKinds(page), kinds(plan));
      },
    );

    await t.step("shows file and user names as text, never as markup", async () => {
      const names = await page.$$eval(".card .name", (nodes) => nodes.map((n) => n.textContent));
      assert.ok(names.includes(`${HOSTILE}.jpg`) && names.includes(`${HOSTILE}.dng`));
      assert.equal(await page.$$eval("#injected, img[src='x'], th b", (nodes) => nodes.length), 0);
      const heads = await page.$$eval(".summary th", (nodes) => nodes.map((n) => n.textContent));
      assert.ok(heads.includes("<b>Eve</b>"), heads.join());
      assert.deepEqual(dialogs, []);
    });

    await t.step("keys move between cards and tick or untick them", async () => {
      await page.keyboard.press("j");
      await page.keyboard.press("ArrowDown");
      const third = await page.$eval(".card.current", (card) => card.dataset.id);
      assert.equal(third, plan.users[0].actions[2].id);
      await page.keyboard.press(" ");
      assert.equal(await ticked(page), "8 of 9 actions ticked");
      assert.equal(
        await page.$eval(".card.current", (c) => c.classList.contains("unticked")),
        true,
      );
      await page.keyboard.press("k");
      await page.keyboard.press("ArrowDown");
      await page.keyboard.press(" ");
      assert.equal(await ticked(page), "9 of 9 actions ticked");
      await page.keyboard.press("End");
      assert.equal(
        await page.$eval(".card.current", (card) => card.dataset.id),
        plan.users[1].actions[0].id,
      );
      await page.keyboard.press("Home");
      // A tick clicked makes its card the current one; Space on it ticks it once, not twice.
      const fourth = plan.users[0].actions[3].id;
      await page.click(`.card[data-id="${fourth}"] input.tick`);
      assert.equal(await page.$eval(".card.current", (card) => card.dataset.id), fourth);
      assert.equal(await ticked(page), "8 of 9 actions ticked");
      await page.keyboard.press(" ");
      assert.equal(await ticked(page), "9 of 9 actions ticked");
    });

    await t.step("untick all of a kind, then tick them again", async () => {
      await page.click('button[data-kind="create"][data-tick="false"]');
      assert.equal(await ticked(page), `${9 - kinds(plan).create} of 9 actions ticked`);
      await page.click('button[data-kind="create"][data-tick="true"]');
      assert.equal(await ticked(page), "9 of 9 actions ticked");
    });

    await t.step("saving after unticking two cards gives the plan without those two", async () => {
      const unticked = [plan.users[0].actions[1].id, plan.users[0].actions[4].id];
      for (const id of unticked) await page.click(`.card[data-id="${id}"] input.tick`);
      assert.equal(await ticked(page), "7 of 9 actions ticked");
      const downloads = join(folder, "downloads");
      const session = await browser.target().createCDPSession();
      await session.send("Browser.setDownloadBehavior", {
        behavior: "allow",
        downloadPath: downloads,
        eventsEnabled: true,
      });
      const done = new Promise<void>((resolve, reject) => {
        session.on("Browser.downloadProgress", (event) => {
          if (event.state === "completed") resolve();
          if (event.state === "canceled") reject(new Error("The download was canceled"));
        });
      });
      await page.click("#save");
      await done;
      const saved = join(downloads, "plan-approved.json");
      const approved = parsePlanFile(await Deno.readTextFile(saved), saved);
      assert.deepEqual(approved, {
        ...plan,
        users: plan.users.map((user) => ({
          ...user,
          actions: user.actions.filter((action) => !unticked.includes(action.id)),
        })),
      });
      // The same layout as the plan command writes: one action per line.
      assert.equal(
        await Deno.readTextFile(saved),
        (await Deno.readTextFile(planPath)).split("\n")
          .filter((line) => !unticked.some((id) => line.includes(`{"id":"${id}"`)))
          .join("\n").replace(/,\n( {6}\])/g, "\n$1"),
      );
    });

    await t.step("renders only the cards near the screen, and End reaches the last", async () => {
      const big = syntheticPlan(3000);
      const path = join(folder, "big.html");
      await Deno.writeTextFile(path, renderPage(big, { images: new Map() }));
      const lazy = await browser.newPage();
      await lazy.setViewport({ width: 1200, height: 900 });
      await lazy.goto(`file://${path}`, { waitUntil: "load" });
      await lazy.waitForSelector(".card");
      assert.ok((await lazy.$$eval(".card", (cards) => cards.length)) < 20);
      await lazy.keyboard.press("End");
      const last = big.users[0].actions.at(-1)!.id;
      await lazy.waitForSelector(`.card[data-id="${last}"]`);
      assert.ok((await lazy.$$eval(".card", (cards) => cards.length)) < 20);
      await lazy.close();
    });

    await t.step("sends no request off the page and logs no error", () => {
      assert.ok(requests.length > 10);
      assert.deepEqual(requests.filter((url) => !/^(file|data|blob):/.test(url)), []);
      assert.deepEqual(errors, []);
    });

    await t.step("takes the README's screenshot (deno task screenshot) of the page", async () => {
      const png = await reviewScreenshot(browser, plan, html);
      assert.deepEqual([...png.slice(1, 4)], [..."PNG"].map((c) => c.charCodeAt(0)));
      assert.ok(png.length > 10_000, `${png.length} bytes`);
    });
  } finally {
    await library.server.close();
    await Deno.remove(folder, { recursive: true });
  }
});
