/**
 * What `stacksync plan` writes in the folder it runs in stays out of git: the repository's
 * .gitignore holds it.
 */
import assert from "node:assert/strict";
import { runCli } from "./_cli.ts";
import { startImmichServer } from "./immich_server.ts";

Deno.test("stacksync plan --html leaves nothing for git to add in a clone", async () => {
  await using server = await startImmichServer();
  const user = server.addUser({ name: "Ada" });
  const key = server.addKey(user.id);
  for (const name of ["IMG_0001.jpg", "IMG_0001.dng"]) {
    server.addAsset(user.id, { originalFileName: name, localDateTime: "2024-05-01T10:00:00.000Z" });
  }
  const gitignore = await Deno.readTextFile(new URL("../.gitignore", import.meta.url));
  const run = await runCli({
    args: ["plan", "--html", "plan.html"],
    env: { API_URL: server.url, API_KEY: key },
    files: { ".gitignore": gitignore },
  });
  try {
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const git = (...args: string[]) =>
      new Deno.Command("git", { args, cwd: run.cwd, stdout: "piped", stderr: "piped" }).output();
    assert.equal((await git("init", "--quiet")).code, 0);
    const written = [...Deno.readDirSync(run.cwd)].map((entry) => entry.name).sort();
    assert.deepEqual(written, [
      ".git",
      ".gitignore",
      "plan.html",
      "plan.json",
      "plan_files",
    ]);
    const status = new TextDecoder().decode(
      (await git("status", "--porcelain", "--untracked-files=all", "--ignored=no")).stdout,
    );
    assert.deepEqual(status.split("\n").filter((line) => line !== ""), ["?? .gitignore"]);
  } finally {
    await Deno.remove(run.cwd, { recursive: true });
  }
});
