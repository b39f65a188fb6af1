/**
 * The search for stack members `GET /stacks` leaves out (trashed, hidden), against the Immich
 * test server over real HTTP: every such member looked up, however many, a few at a time; the
 * answers of an earlier search used again for the assets that did not move; an asset gone
 * meanwhile, or whose lookup fails, costing only its own stack. The cache's file of those
 * answers is read back as written, and refused when damaged.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createImmichClient, type ImmichClient } from "../src/api/immich.ts";
import { keptLookups, type UnlistedLookups } from "../src/api/unlisted_members.ts";
import { cacheFilePath, cacheFilesOf } from "../src/state/cache.ts";
import { UnlistedFile } from "../src/state/cache_unlisted.ts";
import { type ImmichServer, startImmichServer, type TestUser } from "./immich_server.ts";

/** Injected time, so retries never wait. */
const instant = { sleep: () => Promise.resolve(), random: () => 0, now: () => 0 };

/** Ann on a test server, with a library `fill` makes, and her client. */
async function ann(fill: (server: ImmichServer, user: TestUser) => void) {
  const server = await startImmichServer();
  const user = server.addUser({ name: "Ann" });
  const key = server.addKey(user.id);
  fill(server, user);
  const immich: ImmichClient = createImmichClient({ baseUrl: server.url, apiKey: key, ...instant });
  return {
    server,
    user,
    immich,
    lookups: () => server.requests.filter((r) => r.path.startsWith("/assets/")).length,
    async [Symbol.asyncDispose]() {
      immich.close();
      await server.close();
    },
  };
}

/** `count` stacks of three photos each, the last one moved to the trash. */
function stacksWithTrash(server: ImmichServer, userId: string, count: number): string[] {
  const assets = server.addAssets(
    userId,
    Array.from({ length: count * 3 }, (_, i) => ({ originalFileName: `IMG_${i}.jpg` })),
  );
  const stackIds: string[] = [];
  for (let i = 0; i < assets.length; i += 3) {
    stackIds.push(server.addStack(userId, [assets[i].id, assets[i + 1].id, assets[i + 2].id]).id);
    server.updateAsset(assets[i + 2].id, { isTrashed: true });
  }
  return stackIds;
}

Deno.test("findUnlistedMembers() looks up every trashed member of a stack, however many, four at a time", async () => {
  let most = 0;
  await using lib = await ann((server, user) => stacksWithTrash(server, user.id, 1001));
  lib.server.setFaults({
    routeLatencyMs: { "GET /assets/{id}": 2 },
    beforeAnswer: ({ path }) => {
      if (path.startsWith("/assets/")) most = Math.max(most, lib.server.inFlight);
    },
  });
  const stacks = await lib.immich.listStacks();
  const found = await lib.immich.findUnlistedMembers(stacks);
  assert.equal(found.members.length, 1001);
  assert.equal(found.lookedUp, 1001);
  assert.equal(lib.lookups(), 1001);
  assert.ok(most > 1 && most <= 4, `${most} lookups in flight at most`);
  assert.equal(found.lookups.assets.length, 1001);
});

Deno.test("findUnlistedMembers() looks up again only the assets that moved since the answers it is given", async () => {
  const made: Record<string, string> = {};
  await using lib = await ann((server, user) => {
    const assets = server.addAssets(
      user.id,
      ["a", "b", "t", "u", "lone", "arch", "gone", "x", "y"].map((name) => ({
        originalFileName: `${name}.jpg`,
      })),
    );
    for (const asset of assets) made[asset.originalFileName.slice(0, -4)] = asset.id;
    made.named = server.addStack(user.id, [made.a, made.b, made.t, made.u]).id;
    made.unnamed = server.addStack(user.id, [made.lone, made.arch, made.gone]).id;
    made.plain = server.addStack(user.id, [made.x, made.y]).id;
    for (const name of ["t", "u", "gone"]) server.updateAsset(made[name], { isTrashed: true });
    server.updateAsset(made.arch, { visibility: "archive" });
  });
  /** A search with the answers of the one before, and the assets it looked up. */
  const search = async (known?: UnlistedLookups) => {
    lib.server.clearRequests();
    const found = await lib.immich.findUnlistedMembers(await lib.immich.listStacks(), {
      ...known === undefined ? {} : { known },
    });
    const asked = lib.server.requests.filter((r) => r.path.startsWith("/assets/"))
      .map((r) => r.path.slice("/assets/".length));
    return { found, asked };
  };
  const first = await search();
  assert.deepEqual(first.asked.sort(), [made.t, made.u, made.gone].sort());
  // gone.jpg's stack has nothing but its primary on the timeline (arch.jpg is archived):
  // Immich names none.
  assert.deepEqual(first.found.unseenStackIds, [made.unnamed]);
  assert.deepEqual(first.found.lookups.unseenStackIds, [made.unnamed]);

  // Nothing moved: no lookup, the same members and stacks that may hide one.
  const again = await search(first.found.lookups);
  assert.deepEqual(again.asked, []);
  assert.deepEqual(again.found.members, first.found.members);
  assert.deepEqual(again.found.unseenStackIds, first.found.unseenStackIds);

  // u.jpg restored and trashed again moved: looked up again, alone.
  lib.server.updateAsset(made.u, { isTrashed: false });
  lib.server.advanceClock(1000);
  lib.server.updateAsset(made.u, { isTrashed: true });
  const moved = await search(again.found.lookups);
  assert.deepEqual(moved.asked, [made.u]);
  assert.equal(moved.found.members.length, 2);

  // arch.jpg back on the timeline: Immich names gone.jpg's stack now, so the answer naming none
  // is stale.
  lib.server.updateAsset(made.arch, { visibility: "timeline" });
  const named = await search(moved.found.lookups);
  assert.deepEqual(named.asked, [made.gone]);
  assert.ok(
    named.found.members.some((member) =>
      member.id === made.gone && member.stackId === made.unnamed
    ),
  );
  assert.deepEqual(named.found.unseenStackIds, []);

  // b.jpg archived: Immich names t.jpg's and u.jpg's stack no more, so the answers naming it are
  // stale too, and the stack may hide members, as a search without those answers finds.
  lib.server.updateAsset(made.b, { visibility: "archive" });
  const unnamed = await search(named.found.lookups);
  assert.deepEqual(unnamed.asked.sort(), [made.t, made.u].sort());
  assert.deepEqual(unnamed.found.unseenStackIds, [made.named]);
  const fresh = await search();
  assert.deepEqual(unnamed.found.members, fresh.found.members);
  assert.deepEqual(unnamed.found.unseenStackIds, fresh.found.unseenStackIds);
});

Deno.test("findUnlistedMembers() leaves out an asset deleted meanwhile, and counts those whose lookup fails without trying more", async () => {
  let stackIds: string[] = [];
  await using lib = await ann((server, user) => stackIds = stacksWithTrash(server, user.id, 6));
  const stacks = await lib.immich.listStacks();
  const trashed = lib.server.stacks(lib.user.id).map((stack) => stack.assetIds[2]);
  // The trash is emptied of one between the search and its lookup.
  let deleted = false;
  lib.server.setFaults({
    beforeAnswer: ({ path }) => {
      if (path.startsWith("/assets/") && !deleted) {
        deleted = true;
        lib.server.deleteAsset(trashed[0]);
      }
    },
  });
  const found = await lib.immich.findUnlistedMembers(stacks);
  assert.equal(found.unknown, undefined);
  assert.deepEqual(
    found.members.map((member) => member.stackId).sort(),
    stackIds.slice(1).sort(),
  );

  // A server that fails every lookup: the first one fails after its retries, no other is sent.
  lib.server.setFaults({ routes: { "GET /assets/{id}": { status: 500 } } });
  lib.server.clearRequests();
  const failed = await lib.immich.findUnlistedMembers(await lib.immich.listStacks());
  assert.equal(failed.unknown?.count, 5);
  assert.match(failed.unknown?.error ?? "", /GET \/assets\//);
  assert.deepEqual(failed.members, []);
  assert.deepEqual(failed.lookups.assets, []);
  const asked = new Set(
    lib.server.requests.filter((r) => r.path.startsWith("/assets/")).map((r) => r.path),
  );
  assert.ok(asked.size <= 4, `${asked.size} assets asked for`);
});

Deno.test("keptLookups() keeps the answers for stacks known by their cover, and drops those of stacks gone", () => {
  const known: UnlistedLookups = {
    assets: [
      { id: "t", updatedAt: 5, stackId: "s" },
      { id: "g", updatedAt: 5, stackId: "gone" },
      { id: "u", updatedAt: 5 },
    ],
    unseenStackIds: ["lone", "quiet"],
  };
  const region = [{ id: "lone", primaryAssetId: "c", assetIds: ["c"] }];
  const others = [
    { id: "s", primaryAssetId: "a", assetIds: ["a"] },
    { id: "quiet", primaryAssetId: "q", assetIds: ["q"] },
    { id: "busy", primaryAssetId: "b", assetIds: ["b"] },
  ];
  assert.deepEqual(keptLookups(known, region, others), {
    assets: [{ id: "t", updatedAt: 5, stackId: "s" }, { id: "u", updatedAt: 5 }],
    unseenStackIds: ["lone", "quiet"],
  });
  // Without what an earlier search knew of the others, no answer naming no stack is kept.
  assert.deepEqual(keptLookups({ assets: known.assets }, region, others), {
    assets: [{ id: "t", updatedAt: 5, stackId: "s" }],
  });
});

Deno.test("UnlistedFile keeps the lookups as they were, and a damaged file is refused", async () => {
  const dir = await Deno.makeTempDir({ prefix: "stacksync_unlisted_" });
  try {
    const files = cacheFilesOf(
      dir,
      "http://immich.test/api",
      "3f0b6a52-1c7e-4d0a-9b8e-2f6d1c0a7e41",
      {},
    );
    const assets = Array.from({ length: 250 }, (_, i) => ({
      id: `a${i}`,
      updatedAt: 1_700_000_000_000 + i,
      ...(i % 3 === 0 ? {} : { stackId: `s${i % 7}` }),
    }));
    const file = new UnlistedFile(files, "g1");
    const kinds = [{ assets, unseenStackIds: [] }, { assets, unseenStackIds: ["s1"] }, { assets }];
    for (const lookups of [...kinds, { assets: [] }]) {
      assert.deepEqual(await file.read(await file.write(lookups)), lookups);
    }
    assert.equal(await new UnlistedFile(files, "g2").read({ size: 0, crc: 0 }), undefined);
    const sum = await file.write({ assets, unseenStackIds: ["s1"] });
    const path = cacheFilePath(files, "g1", "unlisted");
    assert.ok(path.startsWith(join(dir, "cache")));
    const text = await Deno.readTextFile(path);
    await Deno.writeTextFile(path, text.replace("a17", "a71"));
    await assert.rejects(file.read(sum), /is damaged/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
