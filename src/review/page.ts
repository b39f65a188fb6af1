/**
 * The review page of `stacksync plan --html`: one self-contained HTML file made from a plan
 * file's value and the sources of its pictures. It loads nothing (no font, script or style from
 * elsewhere; its Content-Security-Policy forbids it and any script but its own), so it works
 * offline and from `file://`. A summary by kind and user comes first, then one card per action
 * and per conflict left alone, with filters by kind and user, keys, a tick per action and a
 * button that saves the ticked actions as `plan-approved.json` in the plan file's format.
 * Only the cards on screen are in the document, so 50 000 cards scroll as easily as 50.
 *
 * Every text of the plan (file names, user names, reasons) reaches the document as text
 * (`textContent`) or HTML-escaped; the plan's JSON is escaped so that no file name can end its
 * data block. Pure: no I/O.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { type PlanFile, planFileChunks } from "../plan_file/format.ts";
import { togetherGroups } from "../plan_file/match.ts";
import { PAGE_FUNCTIONS, pageScript } from "./_page_script.ts";

/** Options of {@linkcode renderPage}. */
export interface PageOptions {
  /**
   * The pictures, by asset id: a URL relative to the page (its folder of pictures) or a
   * `data:` URL. A photo without one shows its file name.
   */
  readonly images: ReadonlyMap<string, string>;
}

/** The height of a card in pixels, gap included: the list places cards by it. */
const CARD_HEIGHT = 236;

/** The kinds in the order the summary and the filter list them, with their labels. */
const KINDS: readonly (readonly [string, string])[] = [
  ["create", "create"],
  ["grow", "grow"],
  ["update-primary", "new cover"],
  ["replace", "replace"],
  ["delete", "delete"],
  ["needs-replace", "needs replace"],
];

const STYLE = `
:root { font: 14px/1.4 system-ui, sans-serif; color: #1d1d1f; background: #f4f4f6; }
body { margin: 0; }
header.page { padding: 16px 24px 0; }
h1 { font-size: 20px; margin: 0 0 4px; }
.meta, .help { color: #555; margin: 4px 0; }
table.summary { border-collapse: collapse; margin: 12px 0; background: #fff; }
.summary th, .summary td { border: 1px solid #ddd; padding: 4px 10px; text-align: right; }
.summary th:first-child, .summary td:first-child { text-align: left; }
.summary button { font-size: 12px; }
#toolbar { position: sticky; top: 0; z-index: 2; display: flex; gap: 16px; align-items: center;
  padding: 8px 24px; background: #fff; border-bottom: 1px solid #ddd; }
#toolbar .grow { flex: 1; }
#save { font-weight: 600; padding: 6px 12px; }
#cards { position: relative; margin: 12px 24px 48px; }
.card { position: absolute; left: 0; right: 0; top: 0; height: ${CARD_HEIGHT - 12}px;
  box-sizing: border-box; overflow: hidden; background: #fff; border: 1px solid #d8d8de;
  border-radius: 8px; padding: 8px 12px; }
.card.current { outline: 3px solid #3b6fd8; }
.card.unticked { opacity: 0.45; }
.card > header { display: flex; gap: 8px; align-items: center; white-space: nowrap;
  overflow: hidden; }
.tick { width: 18px; height: 18px; margin: 0; }
.badge { font-size: 12px; font-weight: 600; text-transform: uppercase; padding: 1px 8px;
  border-radius: 10px; color: #fff; background: #666; }
.kind-create .badge { background: #2e7d32; }
.kind-grow .badge { background: #1565c0; }
.kind-update-primary .badge { background: #6a1b9a; }
.kind-replace .badge { background: #e65100; }
.kind-delete .badge { background: #c62828; }
.kind-needs-replace .badge { background: #757575; }
.user { font-weight: 600; }
.reason { overflow: hidden; text-overflow: ellipsis; }
.rule { font-size: 12px; color: #1d1d1f; background: #e8eaf6; border-radius: 10px;
  padding: 1px 8px; white-space: nowrap; }
.together { color: #555; font-size: 12px; }
.body { display: flex; gap: 24px; margin-top: 8px; }
.side { flex: 1; min-width: 0; }
.side h3 { font-size: 12px; text-transform: uppercase; color: #555; margin: 0 0 4px; }
.row { display: flex; gap: 12px; }
.picture { display: block; object-fit: cover; background: #e4e4ea; flex: none; }
.picture.cover { width: 200px; height: 150px; border-radius: 4px; }
.picture.small { width: 40px; height: 30px; border-radius: 2px; }
.picture.none { font-size: 10px; overflow: hidden; color: #555; word-break: break-all;
  padding: 2px; box-sizing: border-box; }
.picture.small.none { font-size: 0; }
.members { list-style: none; margin: 0; padding: 0; min-width: 0; flex: 1; }
.members li { display: flex; gap: 8px; align-items: center; height: 36px; white-space: nowrap; }
.members + .members { margin-top: 4px; border-top: 1px dashed #ddd; padding-top: 4px; }
.text { display: flex; flex-direction: column; min-width: 0; line-height: 1.25; }
.name { overflow: hidden; text-overflow: ellipsis; }
.line { color: #666; font-size: 12px; font-variant-numeric: tabular-nums; }
.note { font-size: 11px; color: #fff; background: #888; border-radius: 8px; padding: 0 6px;
  margin-left: 6px; }
.more, .outcome { color: #555; font-size: 12px; }
`;

/** Text for HTML: the five characters that could start markup escaped. */
function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;").replaceAll("'", "&#39;");
}

/**
 * A data block of JSON, in pieces: `<` escaped, so no text in it can close the block or open
 * markup.
 */
function* dataBlock(id: string, json: Iterable<string>): Generator<string> {
  yield `<script type="application/json" id="${id}">`;
  for (const piece of json) yield piece.replaceAll("<", "\\u003c");
  yield "</script>\n";
}

function digest(text: string): string {
  return `'sha256-${createHash("sha256").update(text).digest("base64")}'`;
}

function summaryTable(plan: PlanFile): string {
  const multi = plan.users.length > 1;
  const heads = [...multi ? plan.users.map((user) => escapeHtml(user.name)) : [], "actions"];
  const rows = KINDS.map(([kind, label]) => {
    const counts = plan.users.map((user) =>
      kind === "needs-replace"
        ? user.needsReplace.length
        : user.actions.filter((action) => action.kind === kind).length
    );
    const total = counts.reduce((sum, n) => sum + n, 0);
    const buttons = kind === "needs-replace" || total === 0 ? "" : [
      `<button type="button" data-kind="${kind}" data-tick="false">Untick all</button>`,
      `<button type="button" data-kind="${kind}" data-tick="true">Tick all</button>`,
    ].join(" ");
    return `<tr><td>${label}</td>${multi ? counts.map((n) => `<td>${n}</td>`).join("") : ""}` +
      `<td>${total}</td><td>${buttons}</td></tr>`;
  });
  const inSync = plan.users.map((user) => user.inSync);
  rows.push(
    `<tr><td>in sync (left as they are)</td>${
      multi ? inSync.map((n) => `<td>${n}</td>`).join("") : ""
    }<td>${inSync.reduce((sum, n) => sum + n, 0)}</td><td></td></tr>`,
  );
  return `<table class="summary"><thead><tr><th>kind</th>${
    heads.map((head) => `<th>${head}</th>`).join("")
  }<th></th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

/**
 * The review page of a plan, in pieces (the plan's JSON in pieces of about 64 KB), so that a
 * page of 50 000 actions is written without being held whole.
 *
 * @param plan The plan file's value (an approved one works too).
 * @param options Where each photo's picture is.
 * @returns The page's HTML, piece by piece.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { pageChunks } from "./page.ts";
 *
 * const html = [...pageChunks({
 *   format: "stacksync-plan", version: 1, createdAt: "2024-01-01T00:00:00.000Z",
 *   stacksync: "1.0.0", server: "http://immich/api",
 *   users: [{ id: "u1", name: "<Ada>", settings: {}, inSync: 2, actions: [], needsReplace: [] }],
 * }, { images: new Map() })].join("");
 * assert.ok(html.startsWith("<!doctype html>"));
 * assert.ok(!html.includes("<Ada>"));
 * ```
 */
export function* pageChunks(plan: PlanFile, options: PageOptions): Generator<string> {
  // One scope for the page's functions, which leave no name on the window.
  const script = [
    "(() => {",
    ...PAGE_FUNCTIONS.map(String),
    `(${pageScript.toString()})(${planFileChunks.toString()});`,
    "})();",
  ].join("\n");
  const policy = [
    "default-src 'none'",
    "img-src data: file: 'self'",
    `style-src ${digest(STYLE)}`,
    `script-src ${digest(script)}`,
  ].join("; ");
  const images: Record<string, string> = {};
  for (const [id, src] of options.images) images[id] = src;
  const together = plan.users.map((user) => togetherGroups(user.actions));
  const users = plan.users.map((user, i) =>
    `<option value="${i}">${escapeHtml(user.name)}</option>`
  ).join("");
  const kinds = KINDS.map(([kind, label]) => `<option value="${kind}">${label}</option>`).join("");
  const server = escapeHtml(plan.server);
  yield [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${policy}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>stacksync plan for ${server}</title>`,
    `<style>${STYLE}</style>`,
    "</head>",
    "<body>",
    '<header class="page">',
    "<h1>stacksync plan</h1>",
    `<p class="meta">Planned ${
      escapeHtml(plan.createdAt.replace("T", " ").slice(0, 16))
    } UTC by stacksync ` +
    `${escapeHtml(plan.stacksync)} for ${server}</p>`,
    '<p class="help">Untick what should not change, press <b>Save plan-approved.json</b>, then ' +
    "run <code>stacksync apply plan-approved.json</code>. Actions that share photos or stacks " +
    "are ticked and unticked together. Keys: <kbd>j</kbd> or <kbd>↓</kbd> next card, " +
    "<kbd>k</kbd> or <kbd>↑</kbd> previous card, <kbd>Space</kbd> tick or untick it, " +
    "<kbd>Home</kbd> and <kbd>End</kbd> first and last card.</p>",
    summaryTable(plan),
    "</header>",
    '<div id="toolbar">',
    `<label>Kind <select id="kind"><option value="all">all</option>${kinds}</select></label>`,
    `<label>User <select id="user"><option value="all">all</option>${users}</select></label>`,
    '<span id="ticked" class="grow"></span>',
    '<button type="button" id="save">Save plan-approved.json</button>',
    "</div>",
    `<main id="cards" data-card-height="${CARD_HEIGHT}"></main>`,
    "",
  ].join("\n");
  yield* dataBlock("plan-data", planFileChunks(plan));
  yield* dataBlock("image-data", [JSON.stringify(images)]);
  yield* dataBlock("together-data", [JSON.stringify(together)]);
  yield `<script>${script}</script>\n</body>\n</html>\n`;
}

/**
 * The review page of a plan, whole; see {@linkcode pageChunks}.
 *
 * @param plan The plan file's value.
 * @param options Where each photo's picture is.
 * @returns The page's HTML.
 */
export function renderPage(plan: PlanFile, options: PageOptions): string {
  return [...pageChunks(plan, options)].join("");
}
