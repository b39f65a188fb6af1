/**
 * The Immich test server at the bench's scale: 200 000 assets and 50 000 stacks, paged through as
 * stacksync pages. Seconds of work, so only `deno task test:full` runs it; the server's contract
 * is in tests/immich_server_test.ts.
 */
import assert from "node:assert/strict";
import { startImmichServer } from "../immich_server.ts";

interface Page {
  readonly assets: { items: { id: string }[]; nextPage: string | null; total: number };
}

Deno.test("startImmichServer() holds 200 000 assets and 50 000 stacks and pages through them", async () => {
  await using server = await startImmichServer();
  const user = server.addUser({ name: "Big" });
  const key = server.addKey(user.id);
  const search = async (page: number) => {
    const response = await fetch(`${server.url}/search/metadata`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ page, size: 1000 }),
    });
    return ((await response.json()) as Page).assets;
  };
  const base = Date.parse("2020-01-01T00:00:00.000Z");
  const added = server.addAssets(
    user.id,
    Array.from({ length: 200_000 }, (_, i) => ({
      originalFileName: `IMG_${String(i).padStart(6, "0")}.jpg`,
      fileCreatedAt: new Date(base + i * 1000).toISOString(),
    })),
  );
  for (let i = 0; i < 50_000; i++) server.addStack(user.id, [added[i * 4].id, added[i * 4 + 1].id]);
  assert.equal(server.stacks(user.id).length, 50_000);

  const last = await search(200);
  assert.deepEqual([last.total, last.nextPage, last.items[999].id], [1000, null, added[0].id]);
  assert.equal((await search(1)).items[0].id, added[199_999].id);

  const one = await fetch(`${server.url}/stacks?primaryAssetId=${added[4].id}`, {
    headers: { "x-api-key": key },
  });
  const [stack] = await one.json() as { assets: { id: string }[] }[];
  assert.deepEqual(stack.assets.map((a) => a.id), [added[4].id, added[5].id]);
  const response = await fetch(`${server.url}/stacks`, { headers: { "x-api-key": key } });
  assert.equal(response.headers.get("transfer-encoding"), "chunked");
  const all = await response.json() as { id: string; assets: unknown[] }[];
  assert.equal(all.length, 50_000);
  assert.equal(all[49_999].assets.length, 2);
});
