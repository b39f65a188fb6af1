/**
 * The README and the pages of docs/ hold together: every relative link reaches a file, and every
 * `#anchor` a heading of its page as GitHub names it; the README stays a few screens long.
 */
import assert from "node:assert/strict";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** A page's text outside fenced code blocks, line by line (code lines as empty lines). */
function proseLines(text: string): string[] {
  let fence: string | undefined;
  return text.split("\n").map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && marker !== undefined) {
      fence = marker;
      return "";
    }
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) {
        fence = undefined;
      }
      return "";
    }
    return line;
  });
}

/**
 * The anchor GitHub gives a heading: its text without inline markup, lower case, with every
 * character but letters, digits, spaces, `-` and `_` dropped and spaces turned into `-`.
 * (`Following the trash: \`stacksync fix-trash\`` is `following-the-trash-stacksync-fix-trash`).
 */
function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/[`*]/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors of a page's headings; a repeated heading gets `-1`, `-2`, … as on GitHub. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const line of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  return found;
}

/** The link targets of a page's prose: `[text](target)` and `![alt](target)`, code spans aside. */
function links(text: string): string[] {
  return proseLines(text).flatMap((line) =>
    [...line.replace(/`[^`]*`/g, "``").matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
      .map(([, target]) => target)
  );
}

async function pages(): Promise<string[]> {
  const found = ["README.md"];
  for await (const entry of Deno.readDir(join(ROOT, "docs"))) {
    if (entry.isFile && entry.name.endsWith(".md")) found.push(join("docs", entry.name));
  }
  return found.sort();
}

/** What is wrong with each relative link of a page: a missing file or an unknown anchor. */
async function brokenLinks(page: string, text: string): Promise<string[]> {
  const broken: string[] = [];
  for (const target of links(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
    const [path, anchor] = target.split("#", 2) as [string, string | undefined];
    const file = path === "" ? page : normalize(join(dirname(page), decodeURI(path)));
    const where = `${page}: ${target}`;
    if (relative(ROOT, join(ROOT, file)).startsWith("..")) {
      broken.push(`${where}: leaves the repository`);
      continue;
    }
    const stat = await Deno.stat(join(ROOT, file)).catch(() => undefined);
    if (stat === undefined) {
      broken.push(`${where}: no such file`);
      continue;
    }
    if (anchor === undefined) continue;
    if (!stat.isFile || !file.endsWith(".md")) {
      broken.push(`${where}: an anchor into what is not a page`);
      continue;
    }
    const targetText = path === "" ? text : await Deno.readTextFile(join(ROOT, file));
    if (!anchors(targetText).has(anchor)) broken.push(`${where}: no heading #${anchor}`);
  }
  return broken;
}

Deno.test("slug() names headings as GitHub does", () => {
  assert.equal(slug("RAW+JPEG pairs"), "rawjpeg-pairs");
  assert.equal(slug("Docker, next to Immich"), "docker-next-to-immich");
  assert.equal(slug("`deno run` with explicit permissions"), "deno-run-with-explicit-permissions");
  assert.equal(slug("immich-stack's default grouping"), "immich-stacks-default-grouping");
  assert.equal(slug("Where, and how long"), "where-and-how-long");
  assert.equal(slug("STATE_DIR and the cache"), "state_dir-and-the-cache");
  assert.equal(slug("Café: 3 → 4"), "café-3--4");
  assert.deepEqual(
    [...anchors("# A\n\n## Undo\n\n```sh\n# not a heading\n```\n\n### Undo\n")],
    ["a", "undo", "undo-1"],
  );
});

Deno.test("brokenLinks() finds a missing file, a missing anchor and a link out of the repository", async () => {
  const text = [
    "[ok](docs/README.md) [here](#top) [gone](gone/nothing.md)",
    "[no heading](docs/README.md#nowhere) [out](../../etc/passwd) `[code](nowhere.md)`",
    "[web](https://immich.app/#x)",
    "```md",
    "[in a block](nowhere.md)",
    "```",
    "# Top",
  ].join("\n");
  assert.deepEqual(await brokenLinks("README.md", text), [
    "README.md: gone/nothing.md: no such file",
    "README.md: docs/README.md#nowhere: no heading #nowhere",
    "README.md: ../../etc/passwd: leaves the repository",
  ]);
});

Deno.test("every relative link and anchor of README.md and docs/*.md resolves", async () => {
  const all = await pages();
  assert.ok(all.length >= 15, `read ${all.length} pages`);
  const broken: string[] = [];
  let count = 0;
  for (const page of all) {
    const text = await Deno.readTextFile(join(ROOT, page));
    count += links(text).length;
    broken.push(...await brokenLinks(page, text));
  }
  assert.deepEqual(broken, []);
  assert.ok(count > 100, `checked ${count} links`);
});

Deno.test("every page of docs/ is in its table of contents", async () => {
  const contents = await Deno.readTextFile(join(ROOT, "docs/README.md"));
  const listed = new Set(links(contents).map((target) => target.split("#")[0]));
  const missing = (await pages())
    .filter((page) => page.startsWith("docs/") && page !== "docs/README.md")
    .map((page) => page.slice("docs/".length))
    .filter((name) => !listed.has(name));
  assert.deepEqual(missing, []);
});

Deno.test("README.md fits on a few screens: at most 350 lines, 120 characters outside code", async () => {
  const text = await Deno.readTextFile(join(ROOT, "README.md"));
  const lines = text.trimEnd().split("\n");
  assert.ok(lines.length <= 350, `${lines.length} lines`);
  const wide = proseLines(text).flatMap((line, index) =>
    [...line].length > 120 ? [`line ${index + 1}: ${[...line].length} characters`] : []
  );
  assert.deepEqual(wide, []);
  assert.match(text, /\(docs\/README\.md\)/, "README points to the docs' table of contents");
});
