/**
 * Ids from the server are data, never paths, through the real CLI against the Immich test
 * server: a server that answers `GET /users/me` with an id of `../` steps (anyone who can answer
 * for a plain-http API_URL can) made stacksync write its journal and run summary outside
 * STATE_DIR. Now an id that is not an Immich id (a UUID) skips that user with one line, and the
 * other users are processed.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "./_cli.ts";
import { logLines, tempFolder } from "./_e2e.ts";
import { startImmichServer } from "./immich_server.ts";

Deno.test("main.ts skips a user whose id is not an Immich id, and writes nothing outside STATE_DIR", async () => {
  await using server = await startImmichServer();
  await using folder = await tempFolder("stacksync_server_ids_");
  const state = join(folder.path, "state");
  const evil = server.addUser({ id: "../../../escape", name: "Mallory" });
  const ada = server.addUser({ name: "Ada" });
  for (const user of [evil, ada]) {
    for (const name of ["IMG_1.jpg", "IMG_1.dng"]) {
      server.addAsset(user.id, { originalFileName: name, localDateTime: "2024-05-01T10:00:00Z" });
    }
  }
  const keys = [server.addKey(evil.id), server.addKey(ada.id)];
  const result = await runCli({
    env: { API_URL: server.url, API_KEY: keys.join(","), STATE_DIR: state, LOG_FORMAT: "json" },
  });
  await Deno.remove(result.cwd, { recursive: true });
  assert.equal(result.code, 1, result.stdout + result.stderr);
  const errors = logLines(result).filter((line) => line.level === "error");
  assert.equal(errors.length, 1, result.stdout);
  assert.equal(
    errors[0].msg,
    "Skipping user 1: Cannot use the answer of GET /users/me as it does not have the expected " +
      "shape: id: is not an Immich id (a UUID)",
  );
  // Nothing beside STATE_DIR, Mallory has no stack, Ada's pair is stacked.
  const beside = (await Array.fromAsync(Deno.readDir(folder.path))).map((entry) => entry.name);
  assert.deepEqual(beside, ["state"]);
  assert.equal(server.stacks(evil.id).length, 0);
  assert.equal(server.stacks(ada.id).length, 1);
});
