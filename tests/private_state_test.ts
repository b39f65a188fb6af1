/**
 * Private state, through the real CLI against the Immich test server: after run (with its cache
 * and LOG_FILE), plan (its file and page with pictures written into STATE_DIR, as the Docker
 * recipe does), apply, backup, undo and fix-trash, no path under STATE_DIR is readable by group
 * or others (folders 0700, files 0600): journals, summaries, the cache, backups, the plan and
 * the page name every photo, the user and the server. And a STATE_DIR of an older stacksync has
 * its own folders made owner-only.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "./_cli.ts";
import { env, type Library, startLibrary } from "./_e2e.ts";

/** Every path under `folder` (itself included) whose mode lets group or others read. */
async function openToOthers(folder: string): Promise<string[]> {
  const open: string[] = [];
  const visit = async (path: string) => {
    const { mode, isDirectory } = await Deno.lstat(path);
    if ((mode! & 0o077) !== 0) open.push(`${path} ${(mode! & 0o777).toString(8)}`);
    if (!isDirectory) return;
    for await (const entry of Deno.readDir(path)) await visit(join(path, entry.name));
  };
  await visit(folder);
  return open;
}

async function withLibrary(work: (library: Library, state: string) => Promise<void>) {
  const library = await startLibrary();
  const parent = await Deno.makeTempDir({ prefix: "stacksync_private_" });
  try {
    await work(library, join(parent, "state"));
  } finally {
    await Deno.remove(parent, { recursive: true });
    await library.server.close();
  }
}

Deno.test({
  name:
    "main.ts leaves nothing in STATE_DIR readable by others after run, plan, apply, backup, undo and fix-trash",
  ignore: Deno.build.os === "windows",
  fn: () =>
    withLibrary(async (library, state) => {
      const settings = {
        ...env(library),
        STATE_DIR: state,
        LOG_FILE: join(state, "log", "stacksync.log"),
      };
      const cli = async (args: readonly string[], extra: Record<string, string> = {}) => {
        const result = await runCli({ args, env: { ...settings, ...extra } });
        await Deno.remove(result.cwd, { recursive: true });
        assert.equal(result.code, 0, `${args.join(" ")}: ${result.stdout}${result.stderr}`);
      };
      // The morning's photos first, so that the plan has the rest to make.
      await cli([], { FILTER_TAKEN_BEFORE: "2024-05-01T10:12:00Z" });
      const plan = join(state, "plan.json");
      await cli(["plan", "--out", plan, "--html", join(state, "plan.html")]);
      await cli(["apply", plan]);
      await cli(["backup"]);
      await cli(["undo"]);
      library.server.updateAsset(library.ids["IMG_0004.jpg"], { isTrashed: true });
      await cli(["fix-trash"], { FIX_TRASH_MAX_PERCENT: "100" });
      await cli([]);

      const names = new Set<string>();
      for await (const entry of Deno.readDir(state)) names.add(entry.name);
      for (const name of ["runs", "backups", "cache", "log", "plan_files", "plan.html"]) {
        assert.ok(names.has(name), `${name} in ${[...names].join(", ")}`);
      }
      assert.deepEqual(await openToOthers(state), []);
    }),
});

Deno.test({
  name: "main.ts makes the folders an older stacksync left open in STATE_DIR owner-only",
  ignore: Deno.build.os === "windows",
  fn: () =>
    withLibrary(async (library, state) => {
      for (const name of ["runs", "backups", "cache"]) {
        await Deno.mkdir(join(state, name), { recursive: true });
        await Deno.chmod(join(state, name), 0o755);
      }
      await Deno.writeTextFile(
        join(state, "stacksync-state.json"),
        '{"format":"stacksync-state","version":1}\n',
      );
      const result = await runCli({ env: { ...env(library), STATE_DIR: state } });
      await Deno.remove(result.cwd, { recursive: true });
      assert.equal(result.code, 0, result.stdout);
      for (const name of ["runs", "backups", "cache"]) {
        assert.equal((await Deno.stat(join(state, name))).mode! & 0o777, 0o700, name);
      }
    }),
});
