/**
 * `undo` after a run killed with SIGKILL, through the real CLI as a subprocess against the Immich
 * test server: killed at the plan line or after a random number of writes, at 8 points, a few
 * hundred stacks each with every answer delayed. Long by design, so only `deno task test:full`
 * runs it; tests/incremental_cli_test.ts kills a pass in the quick suite, and
 * tests/undo_e2e_test.ts holds the other undo tests.
 */
import assert from "node:assert/strict";
import { type JsonLine, mapLimited, runCliJson as cli, spawnCli } from "../_cli.ts";
import { startImmichServer } from "../immich_server.ts";
import { addRandomLibrary, describeStacks, stackWrites } from "../_undo_library.ts";
import { seededRandom } from "../_random.ts";
import { tempState } from "../_state_cli.ts";

/** The messages of the actions a run logs as done. */
const WRITE_LINE = /^(Success! Stack created|Updated stack |Deleted stack )/;

Deno.test("main.ts undo restores every change a run killed with SIGKILL had made", async () => {
  const points = [...Array(8).keys()];
  const killed = await mapLimited(points, async (point) => {
    await using server = await startImmichServer();
    await using state = await tempState();
    const library = addRandomLibrary(server, 500 + point);
    // More stacks to change than the random library has: 120 pairs, and each answer delayed, so
    // that the kill lands while writes are in flight.
    const extra = new Map<string, string>();
    const start = Date.parse("2024-06-01T10:00:00.000Z");
    for (let g = 0; g < 120; g++) {
      for (const ext of [".jpg", ".dng"]) {
        const name = `PXL_${String(2000 + g)}${ext}`;
        const localDateTime = new Date(start + g * 60_000).toISOString();
        extra.set(
          server.addAsset(library.userId, { originalFileName: name, localDateTime }).id,
          name,
        );
      }
    }
    const names = new Map([...library.names, ...extra]);
    const before = describeStacks(server.stacks(library.userId), names);
    server.setFaults({ latencyMs: 3 });
    const env = {
      API_URL: server.url,
      API_KEY: library.key,
      LOG_FORMAT: "json",
      STATE_DIR: state.path,
      REPLACE_STACKS: "true",
      REMOVE_SINGLE_ASSET_STACKS: String(point % 2 === 0),
    };
    // Killed at the plan line (the journal may not exist yet), or after a random number of
    // writes (up to STACK_CONCURRENCY's default of 4 may be in flight), or at the last one.
    const after = point === 0 ? 0 : Math.floor(seededRandom(point)() * 110) + point;
    const run = await spawnCli({ env });
    let seen = 0;
    for (let line = await run.nextLine(); line !== undefined; line = await run.nextLine()) {
      const { msg } = JSON.parse(line) as JsonLine;
      if (point === 0 ? msg.startsWith("Plan: ") : WRITE_LINE.test(msg) && ++seen >= after) break;
    }
    run.process.kill("SIGKILL");
    const status = await run.process.status;
    await run.process.stdout.cancel().catch(() => {});
    await run.process.stderr.cancel();
    await Deno.remove(run.cwd, { recursive: true });
    assert.equal(status.signal, "SIGKILL", `point ${point}: the run ended before the kill`);
    server.setFaults({});
    const changed = stackWrites(server.requests).length;
    if (point > 0) assert.ok(changed >= after, `point ${point}: ${changed} writes`);

    const undo = await cli(["undo"], env);
    assert.equal(undo.code, 0, `point ${point}: ${undo.stdout}${undo.stderr}`);
    assert.deepEqual(
      describeStacks(server.stacks(library.userId), names),
      before,
      `point ${point}`,
    );
    const runs = await cli(["runs"], { STATE_DIR: state.path });
    const rows = runs.stdout.trim().split("\n").slice(1);
    // The killed run is listed as not finished and undone (when it got as far as a journal).
    if (point > 0) assert.match(rows[0], / no +yes, by \d{8}-\d{6}-\d{3} +until /, runs.stdout);
    return rows[0] ?? "";
  }, { limit: 2 });
  // Some kills caught writes in flight, at most the 4 lanes' worth: their outcome is unknown, and
  // the undo coped.
  const unknown = killed.map((row) => Number(/\((\d+) unknown\)/.exec(row)?.[1] ?? 0));
  assert.ok(unknown.some((count) => count > 0), killed.join("\n"));
  assert.ok(unknown.every((count) => count <= 4), killed.join("\n"));
});
