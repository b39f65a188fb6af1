/**
 * The default rules through the real CLI and the Immich test server: fix-trash without CRITERIA.
 * tests/full/default_rules_e2e_test.ts stacks every case of the corpus through the CLI (seconds of
 * work); tests/default_rules_test.ts runs every case through the rules in process.
 */
import assert from "node:assert/strict";
import { runCli } from "./_cli.ts";
import { startImmichServer } from "./immich_server.ts";

Deno.test("main.ts fix-trash without CRITERIA follows a shot and its edits of its time, never a burst", async () => {
  await using server = await startImmichServer();
  const user = server.addUser({ name: "Ada" });
  const key = server.addKey(user.id);
  const add = (name: string, at: string, more: { isTrashed?: boolean } = {}) =>
    server.addAsset(user.id, { originalFileName: name, localDateTime: at, ...more }).id;
  add("IMG_0100.JPG", "2024-05-01T10:00:00.000Z", { isTrashed: true });
  const raw = add("IMG_0100.CR3", "2024-05-01T10:00:00.000Z");
  const edit = add("IMG_0100-Edit.jpg", "2024-05-01T10:00:00.000Z");
  // Grouped with the shot by the default rules, but not of its time: not the same shot.
  const later = add("IMG_0100-edited.jpg", "2024-05-03T18:00:00.000Z");
  const frames = ["IMG_0101", "IMG_0102", "IMG_0103"].map((name, i) =>
    add(`${name}.JPG`, `2024-05-01T10:00:00.${3 + i}00Z`, i === 0 ? { isTrashed: true } : {})
  );
  const state = await Deno.makeTempDir({ prefix: "stacksync_default_rules_" });
  try {
    const result = await runCli({
      args: ["fix-trash"],
      env: { API_URL: server.url, API_KEY: key, STATE_DIR: state, FIX_TRASH_MAX_PERCENT: "100" },
    });
    assert.equal(result.code, 0, result.stdout + result.stderr);
  } finally {
    await Deno.remove(state, { recursive: true });
  }
  const inTrash = new Set(
    server.assets(user.id).filter((asset) => asset.isTrashed).map((asset) => asset.id),
  );
  const trashed = (id: string) => inTrash.has(id);
  assert.deepEqual([raw, edit, later].map(trashed), [true, true, false]);
  assert.deepEqual(frames.map(trashed), [true, false, false]);
});
