/**
 * What an incremental pass reads to find the stacks its changed assets left or joined, through
 * the real CLI against the Immich test server: after a pass of many writes, whose assets the
 * 5-minute overlap keeps re-reading until newer changes move the watermark, the search that
 * spares new uploads their `GET /assets/{id}` starts at the oldest change, not at the overlap,
 * and only the changed stacked asset is looked up.
 */
import assert from "node:assert/strict";
import { adaWithState, addPairs, cli, passOf } from "./_state_cli.ts";

Deno.test("an incremental pass looks up the stacks of its changes from the oldest change on, not from the overlap's start", async () => {
  await using ada = await adaWithState(30);
  const { server, user, env } = ada;
  assert.equal(passOf(await cli(env)), "full: no cache yet for this server, user and settings");
  assert.equal(server.stacks(user.id).length, 30);
  // An hour later: a member of a stack touched (its updatedAt moves, nothing else), two pairs
  // uploaded. The overlap before the watermark still holds every asset the first pass stacked.
  server.advanceClock(3_600_000);
  const [stack] = server.stacks(user.id);
  const touched = stack.assetIds.find((id) => id !== stack.primaryAssetId)!;
  server.updateAsset(touched, {});
  const oldestChange = Date.parse(server.updatedAt(touched));
  addPairs(server, user.id, 30, 2);
  server.clearRequests();

  assert.equal(passOf(await cli(env)), "incremental");

  const unstackedSearches = server.requests.filter((request) =>
    request.path === "/search/metadata" &&
    (request.body as Record<string, unknown>).withStacked === false
  );
  assert.ok(unstackedSearches.length > 0);
  for (const request of unstackedSearches) {
    const { updatedAfter } = request.body as { updatedAfter: string };
    assert.ok(
      Date.parse(updatedAfter) >= oldestChange,
      `searched from ${updatedAfter}, before the oldest change`,
    );
  }
  // The uploads are found unstacked by that search; only the touched member is looked up.
  const lookups = server.requests.filter((request) => request.path.startsWith("/assets/"));
  assert.deepEqual(lookups.map((request) => request.path), [`/assets/${touched}`]);
  assert.deepEqual(
    server.requests.filter((request) => request.path.startsWith("/stacks/"))
      .map((request) => `${request.method} ${request.path}`),
    [`GET /stacks/${stack.id}`],
  );
  assert.equal(server.stacks(user.id).length, 32);
});
