/**
 * The repository stands alone: its code points only into its own docs, the architecture notes
 * it points to exist, and it carries a licence.
 */
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

async function* codeFiles(folder: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(folder)) {
    const path = join(folder, entry.name);
    if (entry.isDirectory && entry.name !== "testdata") yield* codeFiles(path);
    else if (entry.isFile && entry.name.endsWith(".ts")) yield path;
  }
}

Deno.test("the code points to no document outside the repository", async () => {
  // Written in pieces so that this line does not match itself.
  const outside = new RegExp(
    ["DES" + "IGN", "SP" + "EC", "\\.\\./" + "shared", "issue" + " [0-9]"].join("|"),
  );
  const found: string[] = [];
  const files = [join(ROOT, "main.ts")];
  for (const folder of ["src", "tests", "scripts"]) {
    for await (const path of codeFiles(join(ROOT, folder))) files.push(path);
  }
  for (const path of files) {
    const lines = (await Deno.readTextFile(path)).split("\n");
    for (const [index, line] of lines.entries()) {
      if (outside.test(line)) found.push(`${relative(ROOT, path)}:${index + 1}: ${line.trim()}`);
    }
  }
  assert.deepEqual(found, []);
  assert.ok(files.length > 40, `scanned ${files.length} files`);
});

Deno.test("every docs/ file the code or README points to exists", async () => {
  const readme = await Deno.readTextFile(join(ROOT, "README.md"));
  const texts = [readme];
  for (const folder of ["src", "tests", "scripts"]) {
    for await (const path of codeFiles(join(ROOT, folder))) {
      texts.push(await Deno.readTextFile(path));
    }
  }
  const pointed = new Set(texts.flatMap((text) => text.match(/\bdocs\/[\w./-]+\.md\b/g) ?? []));
  assert.ok(pointed.has("docs/architecture.md"));
  for (const path of pointed) {
    assert.ok((await Deno.stat(join(ROOT, path))).isFile, path);
  }
  const architecture = await Deno.readTextFile(join(ROOT, "docs/architecture.md"));
  for (
    const topic of [
      "## Modules",
      "## Data flow",
      "## Reconcile rules",
      "merge rule",
      "## Retries and time limits",
      "## Exit statuses",
      "## The Immich test server",
    ]
  ) {
    assert.ok(architecture.includes(topic), topic);
  }
});

Deno.test("the repository has an MIT licence", async () => {
  const license = await Deno.readTextFile(join(ROOT, "LICENSE"));
  assert.match(license, /^MIT License\n\nCopyright \(c\) 2026 stacksync contributors\n/);
  assert.match(license, /THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND/);
});
