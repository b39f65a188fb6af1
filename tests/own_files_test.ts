/**
 * Files stacksync did not write are never deleted or overwritten, through the real CLI against
 * the Immich test server: `plan --html DIR/page.html` beside a `DIR/page_files/` of the user's
 * pictures (a browser's "Save page as" makes such folders) stops before any request and leaves
 * them; so do a page, a plan file or a backup of the user's own where stacksync would write; its
 * own folder, marked as such, is emptied of its old pictures alone.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "./_cli.ts";
import { env, type Library, startLibrary } from "./_e2e.ts";

/** The user's files, as a browser saved them. */
const USER_FILES: Readonly<Record<string, string>> = {
  "family.png": "png of the family",
  "IMG-1234.jpeg": "a photo",
  "beach.webp": "the beach",
};

async function withLibrary(work: (library: Library, dir: string) => Promise<void>) {
  const library = await startLibrary();
  const dir = await Deno.makeTempDir({ prefix: "stacksync_own_files_" });
  try {
    await work(library, dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await library.server.close();
  }
}

async function cli(args: readonly string[], runEnv: Record<string, string>) {
  const result = await runCli({ args, env: runEnv });
  await Deno.remove(result.cwd, { recursive: true });
  return result;
}

async function filesIn(folder: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for await (const entry of Deno.readDir(folder)) {
    files[entry.name] = await Deno.readTextFile(join(folder, entry.name));
  }
  return files;
}

Deno.test("main.ts plan --html refuses a pictures folder it did not make, before any request, and leaves it", async () => {
  await withLibrary(async (library, dir) => {
    const folder = join(dir, "page_files");
    await Deno.mkdir(folder);
    for (const [name, text] of Object.entries(USER_FILES)) {
      await Deno.writeTextFile(join(folder, name), text);
    }
    const result = await cli(
      ["plan", "--out", join(dir, "plan.json"), "--html", join(dir, "page.html")],
      env(library),
    );
    assert.deepEqual({ code: result.code, stdout: result.stdout, stderr: result.stderr }, {
      code: 2,
      stdout: "",
      stderr: `error: Cannot put the review page's pictures in ${folder} as stacksync did not ` +
        "make that folder: move it away, name another page with --html, or give " +
        "--embed-thumbnails\n",
    });
    assert.deepEqual(library.server.requests, []);
    assert.deepEqual(await filesIn(folder), USER_FILES);
    await assert.rejects(Deno.stat(join(dir, "page.html")), Deno.errors.NotFound);
  });
});

Deno.test("main.ts plan and backup refuse to replace a file of the user's where they would write", async () => {
  await withLibrary(async (library, dir) => {
    const notes = join(dir, "notes.json");
    const page = join(dir, "page.html");
    await Deno.writeTextFile(notes, '{"my": "notes"}\n');
    await Deno.writeTextFile(page, "<!doctype html><title>My page</title>\n");
    const cases = [
      {
        args: ["plan", "--out", notes],
        message: `Cannot write the plan to ${notes} as it is a file stacksync did not write: ` +
          "move it away, or name another file with --out",
      },
      {
        args: ["plan", "--out", join(dir, "plan.json"), "--html", page, "--embed-thumbnails"],
        message: `Cannot write the review page to ${page} as it is a file stacksync did not ` +
          "write: move it away, or name another file with --html",
      },
      {
        args: ["backup", "--out", notes],
        message: `Cannot write the backup to ${notes} as it is a file stacksync did not write: ` +
          "move it away, or name another file with --out",
      },
    ];
    for (const { args, message } of cases) {
      const result = await cli(args, { ...env(library), STATE_DIR: join(dir, "state") });
      assert.deepEqual([result.code, result.stdout, result.stderr], [2, "", `error: ${message}\n`]);
    }
    assert.deepEqual(library.server.requests, []);
    assert.equal(await Deno.readTextFile(notes), '{"my": "notes"}\n');
    assert.equal(await Deno.readTextFile(page), "<!doctype html><title>My page</title>\n");
  });
});

Deno.test("main.ts plan --html replaces its own page, plan and pictures, and leaves what the user put beside them", async () => {
  await withLibrary(async (library, dir) => {
    const args = ["plan", "--out", join(dir, "plan.json"), "--html", join(dir, "page.html")];
    const first = await cli(args, env(library));
    assert.equal(first.code, 0, first.stdout + first.stderr);
    const folder = join(dir, "page_files");
    const before = Object.keys(await filesIn(folder)).sort();
    assert.ok(before.includes("stacksync-pictures.json"), before.join(", "));
    assert.ok(before.filter((name) => name.endsWith(".webp")).length >= 10, before.join(", "));
    // A picture of a photo no longer planned, and a note of the user's in stacksync's folder.
    const stale = "00000000-0000-4000-8000-000000000000.webp";
    await Deno.writeTextFile(join(folder, stale), "old");
    await Deno.writeTextFile(join(folder, "notes.txt"), "mine");
    const second = await cli(args, env(library));
    assert.equal(second.code, 0, second.stdout + second.stderr);
    assert.deepEqual(Object.keys(await filesIn(folder)).sort(), [...before, "notes.txt"].sort());
  });
});
