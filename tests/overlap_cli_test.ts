/**
 * The overlap before the watermark, through the real CLI against the Immich test server: after
 * a pass whose writes dated many assets just before its end, a pass with nothing changed counts
 * the overlap instead of reading it again; an upload after it is found and stacked; and a change
 * committed late, dated inside the overlap after the last pass read it, makes the count differ,
 * so the overlap is read whole and the change planned (docs/incremental.md, "Server time").
 */
import assert from "node:assert/strict";
import type { RecordedRequest } from "./immich_server.ts";
import { adaWithState, addPairs, cli, lines, passOf } from "./_state_cli.ts";

/** The `updatedAfter` of each search of a pass, in ms. */
function searchedFrom(requests: readonly RecordedRequest[]): number[] {
  return requests.filter((request) => request.path === "/search/metadata")
    .map((request) => Date.parse((request.body as { updatedAfter: string }).updatedAfter));
}

Deno.test("main.ts counts the overlap before the watermark when nothing changed, and reads it when the count moved", async () => {
  await using ada = await adaWithState(600);
  const { server, user, env } = ada;
  // Two lone photos uploaded an hour before the first run: outside the overlap.
  const lone = server.addAsset(user.id, {
    originalFileName: "DSC_0001.JPG",
    localDateTime: "2024-06-01T12:00:00.000Z",
  });
  server.addAsset(user.id, {
    originalFileName: "IMG_5000.dng",
    localDateTime: "2024-06-01T12:00:00.000Z",
  });
  const other = server.addAsset(user.id, {
    originalFileName: "DSC_0002.JPG",
    localDateTime: "2024-07-01T12:00:00.000Z",
  });
  server.advanceClock(3_600_000);
  const run = async () => {
    server.advanceClock(3_600_000);
    server.clearRequests();
    const result = await cli(env);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    return { result, requests: server.requests };
  };
  const newest = () =>
    Math.max(...server.assetIds(user.id).map((id) => Date.parse(server.updatedAt(id))));
  const said = (result: { stdout: string }) =>
    lines(result.stdout).find((line) => line.pass !== undefined)!.msg;

  // The first run dates the 1200 assets of its 600 stacks last; the next pass reads them again.
  await run();
  assert.equal(server.stacks(user.id).length, 600);
  assert.equal(passOf((await run()).result), "incremental");

  // Nothing changed: no search starts before the newest change, and the overlap is counted.
  const quiet = await run();
  assert.match(said(quiet.result), /^Incremental pass: nothing changed since /);
  assert.ok(searchedFrom(quiet.requests).every((after) => after > newest()));
  assert.ok(
    quiet.requests.some((request) =>
      request.path === "/search/statistics" &&
      (request.body as { updatedBefore?: string }).updatedBefore !== undefined
    ),
  );

  // An upload after it is found and stacked, and the pass after is quiet again.
  addPairs(server, user.id, 600, 1);
  assert.equal(passOf((await run()).result), "incremental");
  assert.equal(server.stacks(user.id).length, 601);
  await run();
  assert.match(said((await run()).result), /^Incremental pass: nothing changed since /);

  // A rename committed late: dated before the newest change the last pass found, after that
  // pass read (the server put back to before that change, the rename, then the change again).
  const before = server.snapshot();
  server.advanceClock(3_600_000);
  const touched = () => server.updateAsset(other.id, { originalFileName: "DSC_0003.JPG" });
  touched();
  assert.match(said((await run()).result), /^Incremental pass: 1 asset changed since /);
  server.restore(before);
  server.advanceClock(3_600_000);
  server.updateAsset(lone.id, { originalFileName: "IMG_5000.jpg" });
  touched();
  const late = await run();
  assert.match(said(late.result), /^Incremental pass: 2 assets changed since /);
  assert.ok(server.stacks(user.id).some((stack) => stack.assetIds.includes(lone.id)));
});
