/**
 * The Immich test server's model of change: which operation moves which asset's `updatedAt`
 * (the table "What moves an asset's updatedAt" recorded live on Immich v3.1.0), `updatedAfter`
 * search, `POST /search/statistics`, the `Date` header, the timeline fallback's routes, a
 * `GET /stacks` that fails above a stack count, and snapshots.
 */
import assert from "node:assert/strict";
import { type ImmichServer, startImmichServer } from "./immich_server.ts";

interface Library {
  readonly server: ImmichServer;
  readonly userId: string;
  readonly key: string;
  readonly ids: Readonly<Record<string, string>>;
}

/** Six photos, two of them stacked ({a (primary), b}), times a second apart. */
async function library(): Promise<Library> {
  const server = await startImmichServer();
  const user = server.addUser({ name: "Changes" });
  const key = server.addKey(user.id);
  const names = ["a", "b", "c", "d", "e", "f"];
  const added = server.addAssets(
    user.id,
    names.map((name, i) => ({
      originalFileName: `${name}.jpg`,
      fileCreatedAt: `2024-05-0${i + 1}T10:00:00.000Z`,
    })),
  );
  const ids = Object.fromEntries(names.map((name, i) => [name, added[i].id]));
  server.addStack(user.id, [ids.a, ids.b]);
  return { server, userId: user.id, key, ids };
}

async function call(lib: Library, method: string, path: string, body?: unknown) {
  const response = await fetch(`${lib.server.url}${path}`, {
    method,
    headers: {
      "x-api-key": lib.key,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text && JSON.parse(text) };
}

/** Runs an operation and returns the names of the assets whose `updatedAt` it moved. */
async function moved(lib: Library, operation: () => unknown): Promise<string[]> {
  const updatedAt = (id: string) => {
    try {
      return lib.server.updatedAt(id);
    } catch {
      return "deleted";
    }
  };
  const before = Object.fromEntries(
    Object.entries(lib.ids).map(([name, id]) => [name, updatedAt(id)]),
  );
  await operation();
  return Object.entries(lib.ids)
    .filter(([name, id]) => before[name] !== "deleted" && updatedAt(id) !== before[name])
    .map(([name]) => name);
}

Deno.test("the test server moves updatedAt exactly as the recorded Immich operations do", async (t) => {
  const lib = await library();
  await using _server = lib.server;
  const { ids } = lib;
  const stackOf = (name: string) =>
    lib.server.stacks(lib.userId).find((stack) => stack.assetIds.includes(ids[name]))!;

  await t.step("POST /stacks: every member", async () => {
    assert.deepEqual(
      await moved(lib, () => call(lib, "POST", "/stacks", { assetIds: [ids.c, ids.d] })),
      ["c", "d"],
    );
  });
  await t.step("POST /stacks moving a member of another stack: the moved asset only", async () => {
    assert.deepEqual(
      await moved(lib, () => call(lib, "POST", "/stacks", { assetIds: [ids.e, ids.d] })),
      ["d", "e"],
    );
    assert.deepEqual(stackOf("c").assetIds, [ids.c]);
  });
  await t.step(
    "POST /stacks through another stack's primary: every member of the new one",
    async () => {
      assert.deepEqual(
        await moved(lib, () => call(lib, "POST", "/stacks", { assetIds: [ids.f, ids.a] })),
        ["a", "b", "f"],
      );
    },
  );
  await t.step("PUT /stacks/{id} with a new primary: none", async () => {
    const stack = stackOf("f");
    assert.deepEqual(
      await moved(lib, () => call(lib, "PUT", `/stacks/${stack.id}`, { primaryAssetId: ids.b })),
      [],
    );
    assert.deepEqual(
      await moved(lib, () => lib.server.setStackPrimary(lib.userId, stack.id, ids.a)),
      [],
    );
  });
  await t.step("DELETE /stacks/{id}/assets/{assetId}: the removed asset", async () => {
    const stack = stackOf("f");
    assert.deepEqual(
      await moved(lib, () => call(lib, "DELETE", `/stacks/${stack.id}/assets/${ids.b}`)),
      ["b"],
    );
  });
  await t.step("DELETE /stacks/{id}: every former member", async () => {
    const stack = stackOf("f");
    assert.deepEqual(await moved(lib, () => call(lib, "DELETE", `/stacks/${stack.id}`)), [
      "a",
      "f",
    ]);
  });
  await t.step("DELETE /stacks (bulk): every former member", async () => {
    const stacks = [stackOf("d").id, stackOf("c").id];
    assert.deepEqual(
      await moved(lib, () => call(lib, "DELETE", "/stacks", { ids: stacks })),
      ["c", "d", "e"],
    );
  });
  await t.step("trash, restore, archive, capture-time edit, rename: the asset", async () => {
    assert.deepEqual(await moved(lib, () => lib.server.updateAsset(ids.a, { isTrashed: true })), [
      "a",
    ]);
    assert.deepEqual(await moved(lib, () => lib.server.updateAsset(ids.a, { isTrashed: false })), [
      "a",
    ]);
    assert.deepEqual(
      await moved(lib, () => lib.server.updateAsset(ids.b, { visibility: "archive" })),
      ["b"],
    );
    assert.deepEqual(
      await moved(
        lib,
        () => lib.server.updateAsset(ids.c, { dateTimeOriginal: "2023-01-01T08:00:00.000Z" }),
      ),
      ["c"],
    );
    assert.deepEqual(
      await moved(lib, () => lib.server.updateAsset(ids.d, { originalFileName: "renamed.jpg" })),
      ["d"],
    );
    const asset = await call(lib, "GET", `/assets/${ids.c}`);
    assert.equal(asset.body.localDateTime, "2023-01-01T08:00:00.000Z");
    const renamed = await call(lib, "GET", `/assets/${ids.d}`);
    assert.equal(renamed.body.originalFileName, "renamed.jpg");
    assert.match(renamed.body.originalPath, /\/renamed\.jpg$/);
  });
  await t.step("a stack whose merge drops a trashed member: that member too", async () => {
    lib.server.addStack(lib.userId, [ids.e, ids.f]);
    lib.server.updateAsset(ids.f, { isTrashed: true });
    assert.deepEqual(
      await moved(lib, () => call(lib, "POST", "/stacks", { assetIds: [ids.e, ids.a] })),
      ["a", "e", "f"],
    );
    assert.equal(lib.server.stacks(lib.userId).some((s) => s.assetIds.includes(ids.f)), false);
  });
});

Deno.test("the test server deletes an asset for good the way Immich's deletion job does", async () => {
  const lib = await library();
  await using _server = lib.server;
  const { ids, server, userId } = lib;
  server.addStack(userId, [ids.c, ids.d, ids.e]);
  // The cover goes: the next member becomes the cover and no asset's updatedAt moves.
  assert.deepEqual(await moved(lib, () => server.deleteAsset(ids.c)), ["c"]);
  const stack = server.stacks(userId).find((s) => s.assetIds.includes(ids.d))!;
  assert.deepEqual(stack.assetIds, [ids.d, ids.e]);
  // A stack left with one member is dissolved: its members move.
  assert.deepEqual(await moved(lib, () => server.deleteAsset(ids.e)), ["d", "e"]);
  assert.equal(server.stacks(userId).length, 1);
  const search = await call(lib, "POST", "/search/metadata", {});
  assert.equal(search.body.assets.items.length, 4);
});

Deno.test("the test server searches by updatedAfter, counts with statistics and dates its answers", async () => {
  const lib = await library();
  await using _server = lib.server;
  const { ids, server } = lib;
  const dated = async () =>
    Date.parse((await call(lib, "GET", "/server/version")).headers.get("date") ?? "");
  assert.equal(await dated(), Math.floor(server.now / 1000) * 1000);
  // A proxy with a clock of its own stamps its Date; updatedAt keeps the database's clock.
  for (const offset of [600_000, -600_000]) {
    server.setFaults({ dateOffsetMs: offset });
    assert.equal(await dated(), Math.floor((server.now + offset) / 1000) * 1000);
  }
  server.setFaults({});

  server.advanceClock(3_600_000);
  const since = new Date(server.now).toISOString();
  server.advanceClock(1000);
  server.updateAsset(ids.c, { visibility: "archive" });
  server.updateAsset(ids.d, { isTrashed: true });
  const changed = await call(lib, "POST", "/search/metadata", {
    updatedAfter: since,
    withDeleted: true,
  });
  assert.deepEqual(
    changed.body.assets.items.map((item: { id: string }) => item.id).sort(),
    [ids.c, ids.d].sort(),
  );
  const before = await call(lib, "POST", "/search/metadata", { updatedBefore: since });
  assert.equal(before.body.assets.items.length, 4);

  // Statistics takes the search's filters but not withDeleted: only a trash date counts the trash.
  const stats = (body: unknown) => call(lib, "POST", "/search/statistics", body);
  assert.deepEqual((await stats({})).body, { total: 5 });
  assert.deepEqual((await stats({ withDeleted: true })).body, { total: 5 });
  assert.deepEqual((await stats({ visibility: "timeline" })).body, { total: 4 });
  assert.deepEqual((await stats({ trashedAfter: "1970-01-01T00:00:00.000Z" })).body, { total: 1 });

  const readOnly = server.addKey(lib.userId, { permissions: ["asset.read"] });
  const refused = await fetch(`${server.url}/search/statistics`, {
    method: "POST",
    headers: { "x-api-key": readOnly, "content-type": "application/json" },
    body: "{}",
  });
  assert.equal(refused.status, 403);
  assert.deepEqual(await refused.json(), {
    message: "Missing required permission: asset.statistics",
  });
});

Deno.test("the test server fails GET /stacks above maxListedStacks and serves the timeline instead", async () => {
  const lib = await library();
  await using _server = lib.server;
  const { ids, server, userId } = lib;
  server.addStack(userId, [ids.c, ids.d]);
  server.updateAsset(ids.d, { visibility: "archive" });
  server.setFaults({ maxListedStacks: 1 });
  assert.equal((await call(lib, "GET", "/stacks")).status, 500);
  assert.equal((await call(lib, "GET", `/stacks?primaryAssetId=${ids.c}`)).status, 200);
  server.setFaults({ maxListedStacks: 2 });
  assert.equal((await call(lib, "GET", "/stacks")).status, 200);

  const buckets = await call(lib, "GET", "/timeline/buckets?withStacked=true&visibility=timeline");
  assert.deepEqual(buckets.body, [{ timeBucket: "2024-05-01", count: 4 }]);
  const bucket = await call(
    lib,
    "GET",
    "/timeline/bucket?timeBucket=2024-05-01&withStacked=true&visibility=timeline",
  );
  const rows = (bucket.body.id as string[]).map((id, i) => [id, bucket.body.stack[i]]);
  const stackOf = (name: string) =>
    server.stacks(userId).find((stack) => stack.primaryAssetId === ids[name])!.id;
  // Newest first; the stack's count is its members on the timeline and not in the trash.
  assert.deepEqual(rows, [
    [ids.f, null],
    [ids.e, null],
    [ids.c, [stackOf("c"), "1"]],
    [ids.a, [stackOf("a"), "2"]],
  ]);
  const archive = await call(
    lib,
    "GET",
    "/timeline/bucket?timeBucket=2024-05-01&withStacked=true&visibility=archive",
  );
  assert.deepEqual(archive.body.id, []);
});

Deno.test("the test server puts back a snapshot: assets, stacks, clock", async () => {
  const lib = await library();
  await using _server = lib.server;
  const { ids, server, userId } = lib;
  const snapshot = server.snapshot();
  const stacks = server.stacks(userId);
  const clock = server.now;
  const updatedAt = server.updatedAt(ids.a);
  server.addStack(userId, [ids.c, ids.a]);
  server.updateAsset(ids.e, { originalFileName: "other.jpg" });
  server.deleteAsset(ids.f);
  server.restore(snapshot);
  assert.deepEqual(server.stacks(userId), stacks);
  assert.equal(server.now, clock);
  assert.equal(server.updatedAt(ids.a), updatedAt);
  const search = await call(lib, "POST", "/search/metadata", { order: "asc" });
  assert.deepEqual(
    search.body.assets.items.map((item: { originalFileName: string }) => item.originalFileName),
    ["a.jpg", "b.jpg", "c.jpg", "d.jpg", "e.jpg", "f.jpg"],
  );
  // The snapshot survives what came after it: it can be put back twice.
  server.deleteAsset(ids.a);
  server.restore(snapshot);
  assert.deepEqual(server.stacks(userId), stacks);
});
