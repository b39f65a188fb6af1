/**
 * `deno task demo` as a newcomer with every npm package already cached runs it: no line about a
 * download. It copies the npm cache into a fresh DENO_DIR and runs the whole demo again, so only
 * `deno task test:full` runs it; tests/demo_test.ts checks what the demo prints.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT } from "../_task.ts";

/** Copies a folder as hard links (a copy where links cannot be made), so caches cost no space. */
async function linkTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    const [source, target] = [join(from, entry.name), join(to, entry.name)];
    if (entry.isDirectory) await linkTree(source, target);
    else if (entry.isFile) {
      await Deno.link(source, target).catch(() => Deno.copyFile(source, target));
    }
  }
}

Deno.test("deno task demo prints no Download line when every npm package is cached", async () => {
  // A cache as a first demo leaves it: every package of deno.lock with its metadata, except the
  // metadata of the packages only main.ts loads, which the demo itself never resolves.
  const info = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output();
  const npmCache = join(
    JSON.parse(new TextDecoder().decode(info.stdout)).npmCache,
    "registry.npmjs.org",
  );
  const lock = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.lock")));
  const denoDir = await Deno.makeTempDir({ prefix: "stacksync_deno_dir_" });
  try {
    const names = new Set<string>();
    for (const key of Object.keys(lock.npm)) {
      const [, name, version] = /^(@?[^@]+)@([^_]+)/.exec(key)!;
      names.add(name);
      const target = join(denoDir, "npm", "registry.npmjs.org", name);
      await linkTree(join(npmCache, name, version), join(target, version));
    }
    for (const name of names) {
      if (["@logtape/logtape", "@immich/sdk", "@oazapfts/runtime"].includes(name)) continue;
      const metadata = join(npmCache, name, "registry.json");
      await Deno.copyFile(
        metadata,
        join(denoDir, "npm", "registry.npmjs.org", name, "registry.json"),
      )
        .catch(() => {});
    }
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["task", "demo"],
      cwd: ROOT,
      env: { NO_COLOR: "1", DENO_DIR: denoDir },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
    assert.equal(output.code, 0, text);
    assert.equal(text.match(/^ *Exit status 0$/gm)?.length, 4, text);
    assert.deepEqual(text.match(/^ *Download .*$/gm) ?? [], []);
  } finally {
    await Deno.remove(denoDir, { recursive: true });
  }
});
