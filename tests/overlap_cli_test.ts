/**
 * The overlap before the watermark, through the real CLI against the Immich test server: after
 * a pass whose writes dated many assets just before its end, a pass with nothing changed counts
 * the overlap instead of reading it again; a photo of the overlap changed again, or an upload,
 * is found by searching only after the overlap; and a change committed late, dated inside the
 * overlap after the last pass read it, makes the counts differ, so the overlap is read whole and
 * the change planned (docs/incremental.md, "Server time").
 */
import assert from "node:assert/strict";
import type { RecordedRequest } from "./immich_server.ts";
import { adaWithState, addPairs, cli, lines, passOf } from "./_state_cli.ts";

/** The `updatedAfter` of each search for changes of a pass (not those of unstacked assets). */
function searchedFrom(requests: readonly RecordedRequest[]): number[] {
  return requests.filter((request) =>
    request.path === "/search/metadata" &&
    (request.body as { withStacked?: boolean }).withStacked !== false
  ).map((request) => Date.parse((request.body as { updatedAfter: string }).updatedAfter));
}

/**
 * Ada with 150 RAW+JPEG pairs and two lone photos, an hour older than the first run: that run
 * dates the 300 assets of its 150 stacks last, within the overlap, and the pass after it
 * reads them again. Fewer than a search page: a small library's overlap is counted too.
 */
async function afterFirstRun() {
  const ada = await adaWithState(150);
  const { server, user, env } = ada;
  const lone = (name: string, localDateTime: string) =>
    server.addAsset(user.id, { originalFileName: name, localDateTime });
  const photos = {
    lone: lone("DSC_0001.JPG", "2024-06-01T12:00:00Z"),
    raw: lone("IMG_5000.dng", "2024-06-01T12:00:00Z"),
    other: lone("DSC_0002.JPG", "2024-07-01T12:00:00Z"),
  };
  server.advanceClock(3_600_000);
  const run = async () => {
    server.advanceClock(3_600_000);
    server.clearRequests();
    const result = await cli(env);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    return { result, requests: server.requests, said: passLine(result) };
  };
  await run();
  assert.equal(server.stacks(user.id).length, 150);
  assert.equal(passOf((await run()).result), "incremental");
  const newest = () =>
    Math.max(...server.assetIds(user.id).map((id) => Date.parse(server.updatedAt(id))));
  return { ada, photos, run, newest };
}

function passLine(result: { stdout: string }): string {
  return lines(result.stdout).find((line) => line.pass !== undefined)!.msg;
}

Deno.test("main.ts counts the overlap before the watermark and searches only after it", async () => {
  const { ada, run, newest } = await afterFirstRun();
  await using _ = ada;
  const { server, user } = ada;

  // Nothing changed: no search starts before the newest change, and the overlap is counted.
  const quiet = await run();
  assert.match(quiet.said, /^Incremental pass: nothing changed since /);
  assert.ok(searchedFrom(quiet.requests).every((after) => after > newest()));
  assert.ok(
    quiet.requests.some((request) =>
      request.path === "/search/statistics" &&
      (request.body as { updatedBefore?: string }).updatedBefore !== undefined
    ),
  );

  // A photo of the overlap changed again: each search counts one less there, which the cache
  // tells, so only what changed after the overlap is searched for.
  const [inOverlap] = server.assets(user.id);
  const last = newest();
  server.updateAsset(inOverlap.id, { originalFileName: inOverlap.originalFileName });
  const again = await run();
  assert.match(again.said, /^Incremental pass: 1 asset changed since /);
  assert.ok(searchedFrom(again.requests).every((after) => after > last));

  // An upload is found and stacked.
  addPairs(server, user.id, 150, 1);
  assert.equal(passOf((await run()).result), "incremental");
  assert.equal(server.stacks(user.id).length, 151);
});

for (const after of [false, true]) {
  Deno.test(
    `main.ts reads the overlap again when a change committed late moved its counts${
      after ? ", with a change after it" : ""
    }`,
    async () => {
      const { ada, photos, run, newest } = await afterFirstRun();
      await using _ = ada;
      const { server, user } = ada;
      assert.match((await run()).said, /^Incremental pass: nothing changed since /);

      // A rename whose transaction began before the newest change the last pass found and
      // committed after it read (the clock put back for it), alone or with a change after it.
      const back = server.now - newest() + 1;
      server.advanceClock(-back);
      server.updateAsset(photos.lone.id, { originalFileName: "IMG_5000.jpg" });
      server.advanceClock(back);
      if (after) server.updateAsset(photos.other.id, { originalFileName: "DSC_0003.JPG" });
      const late = await run();
      assert.match(
        late.said,
        after ? /^Incremental pass: 2 assets changed since / : /^Incremental pass: 1 asset changed/,
      );
      assert.ok(
        server.stacks(user.id).some((stack) =>
          stack.assetIds.includes(photos.lone.id) && stack.assetIds.includes(photos.raw.id)
        ),
      );
    },
  );
}
