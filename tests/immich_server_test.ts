import assert from "node:assert/strict";
import {
  type FixtureLibrary,
  type ImmichServer,
  seedFixtureLibrary,
  startImmichServer,
  type TestAssetInput,
  writeLatency,
} from "./immich_server.ts";

// ---------------------------------------------------------------------------------------------
// Contract: replay the recorded Immich v3.1.0 exchanges in order against one seeded server.
// ---------------------------------------------------------------------------------------------

const FIXTURE_DIR = new URL("./testdata/immich-fixtures/", import.meta.url);

interface Exchange {
  readonly name: string;
  readonly description: string;
  readonly request: {
    readonly method: string;
    readonly url: string;
    readonly headers: Readonly<Record<string, string>>;
    readonly query?: Readonly<Record<string, string>>;
    readonly body?: unknown;
  };
  readonly response: {
    readonly status: number;
    readonly headers: Readonly<Record<string, string>>;
    readonly body: unknown;
  };
}

/**
 * Every fixture the replay leaves out, with the reason. The test fails when a fixture is neither
 * replayed nor listed here, so new recordings cannot slip by unnoticed.
 */
const NOT_REPLAYED: Readonly<Record<string, string>> = {
  "002": "admin sign-up: the server creates users with addUser(), there is no password auth",
  "003": "admin sign-up refused: no sign-up route",
  "004": "password login: the tool authenticates with API keys only",
  "005": "API key creation: keys are made with addKey()",
  "006": "API key creation: keys are made with addKey()",
  "007": "admin creates user2: users are made with addUser()",
  "008": "password login: the tool authenticates with API keys only",
  "009": "API key creation: keys are made with addKey()",
  "014": "upload: assets are made with addAsset(); the tool never uploads",
  "015": "upload: assets are made with addAsset(); the tool never uploads",
  "016": "upload: assets are made with addAsset(); the tool never uploads",
  "017": "duplicate upload: the tool never uploads",
  "018": "upload validation: the tool never uploads",
  "019": "not an exchange: the id table seedFixtureLibrary() uses",
};

/** Values that depend on when and how the live server stored things; only their type counts. */
const VOLATILE_KEYS = new Set([
  "createdAt",
  "updatedAt",
  "profileChangedAt",
  "originalPath",
  "thumbhash",
  "checksum",
  "fileSizeInByte",
]);

async function loadExchanges(): Promise<{ file: string; exchange: Exchange }[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(FIXTURE_DIR)) {
    if (entry.isFile && /^\d{3}-.*\.json$/.test(entry.name)) files.push(entry.name);
  }
  files.sort();
  return await Promise.all(files.map(async (file) => ({
    file,
    exchange: JSON.parse(await Deno.readTextFile(new URL(file, FIXTURE_DIR))) as Exchange,
  })));
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/**
 * Compares an actual body with a recorded one: same types everywhere, same keys in the same
 * order, same array lengths, and equal values except volatile ones; recorded ids are translated
 * to this server's ids first. Returns every difference as `path: detail`.
 */
function diffBodies(
  actual: unknown,
  recorded: unknown,
  ids: ReadonlyMap<string, string>,
  path = "$",
): string[] {
  const expectedType = jsonType(recorded);
  if (jsonType(actual) !== expectedType) {
    return [`${path}: type ${jsonType(actual)} instead of ${expectedType}`];
  }
  if (Array.isArray(recorded)) {
    const list = actual as unknown[];
    if (list.length !== recorded.length) {
      return [`${path}: ${list.length} items instead of ${recorded.length}`];
    }
    return recorded.flatMap((item, i) => diffBodies(list[i], item, ids, `${path}[${i}]`));
  }
  if (expectedType === "object") {
    const record = recorded as Record<string, unknown>;
    const object = actual as Record<string, unknown>;
    const keys = Object.keys(object).join(",");
    if (keys !== Object.keys(record).join(",")) {
      return [`${path}: keys ${keys} instead of ${Object.keys(record).join(",")}`];
    }
    return Object.keys(record).flatMap((key) =>
      VOLATILE_KEYS.has(key) ? [] : diffBodies(object[key], record[key], ids, `${path}.${key}`)
    );
  }
  const expected = typeof recorded === "string" ? ids.get(recorded) ?? recorded : recorded;
  return actual === expected
    ? []
    : [`${path}: ${JSON.stringify(actual)} instead of ${JSON.stringify(expected)}`];
}

function translate(text: string, ids: ReadonlyMap<string, string>): string {
  let out = text;
  for (const [recorded, actual] of ids) out = out.replaceAll(recorded, actual);
  return out;
}

/** Learns the ids this server gave where the live server gave others (stacks, API keys). */
function learnIds(exchange: Exchange, actual: unknown, ids: Map<string, string>): void {
  const recorded = exchange.response.body;
  if (jsonType(recorded) !== "object" || jsonType(actual) !== "object") return;
  const recordedId = (recorded as { id?: unknown }).id;
  const actualId = (actual as { id?: unknown }).id;
  const isNewStack = exchange.request.method === "POST" && exchange.request.url === "/api/stacks";
  const isKey = exchange.request.url === "/api/api-keys/me";
  if ((isNewStack || isKey) && typeof recordedId === "string" && typeof actualId === "string") {
    ids.set(recordedId, actualId);
  }
}

function secretFor(placeholder: string, library: FixtureLibrary): string {
  const secrets: Record<string, string> = {
    "<ADMIN_API_KEY>": library.admin.key,
    "<USER2_API_KEY>": library.user2.key,
    "<ASSET_READ_ONLY_API_KEY>": library.admin.readOnlyKey,
  };
  return secrets[placeholder] ?? placeholder;
}

async function replay(
  server: ImmichServer,
  library: FixtureLibrary,
  exchange: Exchange,
  ids: Map<string, string>,
): Promise<void> {
  const { request, response } = exchange;
  const url = new URL(server.origin + translate(request.url, ids));
  for (const [name, value] of Object.entries(request.query ?? {})) {
    url.searchParams.set(name, translate(value, ids));
  }
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    headers.set(name, name.toLowerCase() === "x-api-key" ? secretFor(value, library) : value);
  }
  let body: string | undefined;
  if (request.body !== undefined) {
    body = translate(JSON.stringify(request.body), ids);
    headers.set("content-type", "application/json");
  }
  const answer = await fetch(url, { method: request.method, headers, body });
  const text = await answer.text();

  assert.equal(answer.status, response.status, `status of ${exchange.name}: ${text.slice(0, 300)}`);
  assert.equal(answer.headers.get("content-type"), response.headers["content-type"] ?? null);
  assert.match(answer.headers.get("x-correlation-id") ?? "", /^[a-z0-9]{8}$/);
  if (response.body === null) {
    assert.equal(text, "");
    return;
  }
  const parsed: unknown = JSON.parse(text);
  learnIds(exchange, parsed, ids);
  // Assets with the same time come in the database's order, which nothing promises.
  const columnar = new URL(url).pathname === "/api/timeline/bucket";
  const actual = columnar ? rowsById(parsed, (id) => id) : parsed;
  const recorded = columnar ? rowsById(response.body, (id) => ids.get(id) ?? id) : response.body;
  assert.deepEqual(diffBodies(actual, recorded, ids), [], `body of ${exchange.name}`);
}

/** A `GET /timeline/bucket` answer (one array per column) with its rows ordered by asset id. */
function rowsById(body: unknown, idOf: (id: string) => string): unknown {
  const columns = body as Record<string, unknown[]>;
  const order = columns.id.map((id, row) => ({ id: idOf(String(id)), row }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return Object.fromEntries(
    Object.entries(columns).map(([name, values]) => [name, order.map(({ row }) => values[row])]),
  );
}

Deno.test("startImmichServer() replays every recorded stack, search, user, version, key and auth exchange", async (t) => {
  const exchanges = await loadExchanges();
  await using server = await startImmichServer({ version: "3.1.0" });
  const library = seedFixtureLibrary(server);
  const ids = new Map<string, string>();
  const replayed: string[] = [];
  for (const { file, exchange } of exchanges) {
    const number = file.slice(0, 3);
    if (NOT_REPLAYED[number] !== undefined) continue;
    replayed.push(number);
    await t.step(file, () => replay(server, library, exchange, ids));
  }
  await t.step("every fixture is replayed or listed with a reason", () => {
    const all = exchanges.map(({ file }) => file.slice(0, 3)).concat("019");
    assert.deepEqual(
      [...new Set(all)].sort(),
      [...replayed, ...Object.keys(NOT_REPLAYED)].sort(),
    );
    assert.equal(replayed.length, 84);
  });
});

// ---------------------------------------------------------------------------------------------
// Behaviour the fixtures do not show directly.
// ---------------------------------------------------------------------------------------------

interface Client {
  call(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: unknown; headers: Headers }>;
}

function clientFor(server: ImmichServer, key: string | undefined): Client {
  return {
    async call(method, path, body) {
      const headers: Record<string, string> = {};
      if (key !== undefined) headers["x-api-key"] = key;
      if (body !== undefined) headers["content-type"] = "application/json";
      const response = await fetch(server.url + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return {
        status: response.status,
        body: text === "" ? undefined : JSON.parse(text),
        headers: response.headers,
      };
    },
  };
}

interface SearchPage {
  assets: {
    items: { id: string; ownerId: string; exifInfo?: unknown }[];
    nextPage: string | null;
    total: number;
  };
}

async function searchIds(client: Client, body: Record<string, unknown>): Promise<string[]> {
  const ids: string[] = [];
  for (let page: string | null = "1"; page !== null;) {
    const answer = await client.call("POST", "/search/metadata", {
      ...body,
      page: Number(page),
      size: 1000,
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const result = answer.body as SearchPage;
    ids.push(...result.assets.items.map((item) => item.id));
    page = result.assets.nextPage;
  }
  return ids;
}

/** One asset of each visibility kind plus a trashed one and an archived favourite. */
async function visibilityLibrary(version: string) {
  const server = await startImmichServer({ version });
  const user = server.addUser({ name: "Vis" });
  const key = server.addKey(user.id);
  const make = (originalFileName: string, extra: Partial<TestAssetInput> = {}) =>
    server.addAsset(user.id, {
      originalFileName,
      fileCreatedAt: "2024-01-02T00:00:00.000Z",
      ...extra,
    }).id;
  const ids = {
    timeline: make("timeline.jpg"),
    archived: make("archived.jpg", { visibility: "archive" }),
    motion: make("motion.mov", { visibility: "hidden" }),
    locked: make("locked.jpg", { visibility: "locked" }),
    trashed: make("trashed.jpg", { isTrashed: true }),
  };
  return { server, client: clientFor(server, key), ids };
}

const VERSIONS = ["1.118.2", "1.132.3", "2.4.1", "3.1.0", "3.2.2"];

Deno.test("startImmichServer() returns the same asset set for the design's request shapes on every version", async (t) => {
  for (const version of VERSIONS) {
    await t.step(version, async () => {
      const { server, client, ids } = await visibilityLibrary(version);
      await using _ = server;
      const timeline = { visibility: "timeline", isArchived: false, isVisible: true };
      const archive = { visibility: "archive", isArchived: true, isVisible: true };
      assert.deepEqual(await searchIds(client, timeline), [ids.timeline]);
      assert.deepEqual(await searchIds(client, archive), [ids.archived]);
      assert.deepEqual(
        (await searchIds(client, { ...timeline, withDeleted: true })).sort(),
        [ids.timeline, ids.trashed].sort(),
      );
    });
  }
});

Deno.test("startImmichServer() applies each version's default visibility to a bare search", async (t) => {
  const expected: Record<string, (ids: Record<string, string>) => string[]> = {
    "1.118.2": (ids) => [ids.timeline, ids.archived, ids.motion, ids.locked],
    "2.4.1": (ids) => [ids.timeline],
    "3.1.0": (ids) => [ids.timeline, ids.archived, ids.motion],
    "3.2.2": (ids) => [ids.timeline, ids.archived, ids.motion],
  };
  for (const [version, want] of Object.entries(expected)) {
    await t.step(version, async () => {
      const { server, client, ids } = await visibilityLibrary(version);
      await using _ = server;
      assert.deepEqual((await searchIds(client, {})).sort(), want(ids).sort());
    });
  }
});

Deno.test("startImmichServer() pages 2 501 assets in exactly 3 requests of 1000", async () => {
  await using server = await startImmichServer();
  const user = server.addUser({ name: "Pager" });
  const client = clientFor(server, server.addKey(user.id));
  const base = Date.parse("2024-01-01T00:00:00.000Z");
  server.addAssets(
    user.id,
    Array.from({ length: 2501 }, (_, i) => ({
      originalFileName: `IMG_${i}.jpg`,
      fileCreatedAt: new Date(base + i * 1000).toISOString(),
    })),
  );
  const ids = await searchIds(client, {});
  assert.equal(ids.length, 2501);
  assert.equal(new Set(ids).size, 2501);
  const searches = server.requests.filter((r) => r.path === "/search/metadata");
  assert.equal(searches.length, 3);
  assert.deepEqual(searches.map((r) => (r.body as { page: number }).page), [1, 2, 3]);
});

Deno.test("startImmichServer() includes partner assets in search but never lets a partner stack them", async () => {
  await using server = await startImmichServer();
  const me = server.addUser({ name: "Me" });
  const partner = server.addUser({ name: "Partner" });
  server.addPartner(partner.id, me.id);
  const mine = server.addAsset(me.id, { originalFileName: "a.jpg" });
  const theirs = server.addAsset(partner.id, { originalFileName: "b.jpg" });
  const client = clientFor(server, server.addKey(me.id));
  const answer = await client.call("POST", "/search/metadata", {});
  const owners = (answer.body as SearchPage).assets.items.map((item) => [item.id, item.ownerId]);
  assert.deepEqual(owners.sort(), [[mine.id, me.id], [theirs.id, partner.id]].sort());
  const create = await client.call("POST", "/stacks", { assetIds: [mine.id, theirs.id] });
  assert.equal(create.status, 400);
  assert.deepEqual(create.body, { message: "Not found or no asset.update access" });
  const partnerClient = clientFor(server, server.addKey(partner.id));
  assert.equal((await partnerClient.call("POST", "/search/metadata", {})).body !== undefined, true);
  assert.deepEqual(await searchIds(partnerClient, {}), [theirs.id]);
});

Deno.test("startImmichServer() filters search by albumIds, type, takenAfter and withExif", async () => {
  await using server = await startImmichServer();
  const user = server.addUser({ name: "Filter" });
  const client = clientFor(server, server.addKey(user.id));
  const [a, b, c] = server.addAssets(user.id, [
    { originalFileName: "a.jpg", fileCreatedAt: "2024-01-01T00:00:00.000Z" },
    { originalFileName: "b.mp4", fileCreatedAt: "2024-02-01T00:00:00.000Z" },
    { originalFileName: "c.jpg", fileCreatedAt: "2024-03-01T00:00:00.000Z" },
  ]);
  const album = server.addAlbum(user.id, "Trip", [a.id, b.id]);
  assert.deepEqual((await searchIds(client, { albumIds: [album.id] })).sort(), [a.id, b.id].sort());
  assert.deepEqual(await searchIds(client, { type: "IMAGE", order: "asc" }), [a.id, c.id]);
  assert.deepEqual(await searchIds(client, { takenAfter: "2024-01-15T00:00:00.000Z" }), [
    c.id,
    b.id,
  ]);
  const albums = await client.call("GET", "/albums");
  assert.deepEqual(
    (albums.body as { id: string; albumName: string }[]).map((x) => [x.id, x.albumName]),
    [
      [album.id, "Trip"],
    ],
  );
  const other = server.addUser({ name: "Other" });
  const otherAlbum = server.addAlbum(other.id, "Theirs", []);
  const denied = await client.call("POST", "/search/metadata", { albumIds: [otherAlbum.id] });
  assert.deepEqual([denied.status, denied.body], [400, {
    message: "Not found or no album.read access",
  }]);
  const exif = await client.call("POST", "/search/metadata", { withExif: true, size: 1 });
  assert.equal(typeof (exif.body as SearchPage).assets.items[0].exifInfo, "object");
});

Deno.test("startImmichServer() answers errors in the v1/v2 shape on older versions", async (t) => {
  for (const version of ["1.118.2", "2.4.1"]) {
    await t.step(version, async () => {
      await using server = await startImmichServer({ version });
      const user = server.addUser({ name: "Old" });
      const client = clientFor(server, server.addKey(user.id));
      const bad = await clientFor(server, "nope").call("GET", "/users/me");
      const id = bad.headers.get("x-correlation-id");
      assert.deepEqual(bad.body, {
        message: "Invalid API key",
        error: "Unauthorized",
        statusCode: 401,
        correlationId: id,
      });
      const invalid = await client.call("POST", "/stacks", { assetIds: ["x"] });
      assert.equal(invalid.status, 400);
      assert.deepEqual((invalid.body as { message: string[] }).message, [
        "each value in assetIds must be a UUID",
        "assetIds must contain at least 2 elements",
      ]);
      // class-transformer coerced numeric strings before v3.
      assert.equal((await client.call("POST", "/search/metadata", { size: "5" })).status, 200);
      const version_ = await client.call("GET", "/server/version");
      assert.deepEqual(Object.keys(version_.body as object), ["major", "minor", "patch"]);
    });
  }
});

Deno.test("startImmichServer() answers api-keys/me from v1.139, and before as /api-keys/{id}", async () => {
  await using v3 = await startImmichServer();
  const user = v3.addUser({ name: "Keys" });
  const key = v3.addKey(user.id, { permissions: ["asset.read", "stack.read"] });
  const mine = await clientFor(v3, key).call("GET", "/api-keys/me");
  assert.deepEqual((mine.body as { permissions: string[] }).permissions, [
    "asset.read",
    "stack.read",
  ]);
  const denied = await clientFor(v3, key).call("DELETE", `/stacks/${crypto.randomUUID()}`);
  assert.deepEqual([denied.status, denied.body], [403, {
    message: "Missing required permission: stack.delete",
  }]);

  await using v1139 = await startImmichServer({ version: "1.139.0" });
  const recent = v1139.addUser({ name: "Keys" });
  assert.equal(
    (await clientFor(v1139, v1139.addKey(recent.id)).call("GET", "/api-keys/me")).status,
    200,
  );

  // Before: the guard of GET /api-keys/{id} wants apiKey.read, then "me" is not an id.
  await using v1 = await startImmichServer({ version: "1.118.2" });
  const old = v1.addUser({ name: "Keys" });
  const answer = await clientFor(v1, v1.addKey(old.id)).call("GET", "/api-keys/me");
  assert.equal(answer.status, 400);
  assert.deepEqual((answer.body as { message: string[] }).message, ["id must be a UUID"]);
  const narrow = v1.addKey(old.id, { permissions: ["stack.read"] });
  const refused = await clientFor(v1, narrow).call("GET", "/api-keys/me");
  assert.equal(refused.status, 403);
});

Deno.test("startImmichServer() answers the permission probes like Immich: 400 with, 403 without", async () => {
  await using server = await startImmichServer({ version: "1.132.3" });
  const user = server.addUser({ name: "Probe" });
  const probes: [string, string, unknown][] = [
    ["POST", "/stacks", {}],
    ["PUT", "/stacks/00000000-0000-4000-8000-000000000000", {}],
    ["DELETE", "/stacks/00000000-0000-4000-8000-000000000000", undefined],
  ];
  const all = clientFor(server, server.addKey(user.id));
  const none = clientFor(server, server.addKey(user.id, { permissions: ["stack.read"] }));
  for (const [method, path, body] of probes) {
    assert.equal((await all.call(method, path, body)).status, 400, `${method} ${path}`);
    assert.equal((await none.call(method, path, body)).status, 403, `${method} ${path}`);
  }
  assert.deepEqual(server.stacks(user.id), []);
});

Deno.test("startImmichServer() hides trashed members as recorded, and names a stack on an asset only with a timeline member", async () => {
  await using server = await startImmichServer();
  const user = server.addUser({ name: "Trash" });
  const client = clientFor(server, server.addKey(user.id));
  const [edited, jpg, dng, other, trashedChild] = server.addAssets(user.id, [
    { originalFileName: "IMG_0003_edited.jpg" },
    { originalFileName: "IMG_0003.jpg" },
    { originalFileName: "IMG_0003.dng" },
    { originalFileName: "IMG_0009.jpg" },
    { originalFileName: "IMG_0009.dng" },
  ]);
  const stack = server.addStack(user.id, [edited.id, jpg.id, dng.id]);
  const lonely = server.addStack(user.id, [other.id, trashedChild.id]);
  server.updateAsset(dng.id, { isTrashed: true });
  server.updateAsset(trashedChild.id, { isTrashed: true });

  const one = await client.call("GET", `/stacks/${stack.id}`);
  assert.deepEqual((one.body as { assets: { id: string }[] }).assets.map((a) => a.id), [
    edited.id,
    jpg.id,
  ]);
  const trashedView = await client.call("GET", `/assets/${dng.id}`);
  assert.deepEqual((trashedView.body as { stack: unknown }).stack, {
    id: stack.id,
    primaryAssetId: edited.id,
    assetCount: 2,
  });
  // No member besides the primary is on the timeline: Immich names no stack.
  for (const id of [other.id, trashedChild.id]) {
    const view = await client.call("GET", `/assets/${id}`);
    assert.equal((view.body as { stack: unknown }).stack, null, id);
  }
  assert.deepEqual(server.stacks(user.id).find((s) => s.id === lonely.id)?.assetIds, [
    other.id,
    trashedChild.id,
  ]);

  // A grow through the primary drops the trashed member for good.
  const [newer] = server.addAssets(user.id, [{ originalFileName: "IMG_0004.jpg" }]);
  const grown = await client.call("POST", "/stacks", { assetIds: [edited.id, jpg.id, newer.id] });
  assert.equal(grown.status, 201);
  server.updateAsset(dng.id, { isTrashed: false });
  const restored = await client.call("GET", `/assets/${dng.id}`);
  assert.equal((restored.body as { stack: unknown }).stack, null);
});

Deno.test("startImmichServer() searches the trash with trashedAfter and leaves stacked assets out with withStacked false", async () => {
  await using server = await startImmichServer();
  const { user, client, assets: [a, b, c, d] } = fourAssetUser(server);
  server.addStack(user.id, [a.id, b.id]);
  server.updateAsset(b.id, { isTrashed: true });
  server.updateAsset(c.id, { isTrashed: true });
  const names = async (body: Record<string, unknown>) =>
    ((await client.call("POST", "/search/metadata", body)).body as SearchPage).assets.items
      .map((item) => (item as { originalFileName?: string }).originalFileName).sort();
  const epoch = "1970-01-01T00:00:00.000Z";
  assert.deepEqual(await names({ trashedAfter: epoch }), ["b.jpg", "c.jpg"]);
  assert.deepEqual(await names({ trashedAfter: epoch, withStacked: false }), ["c.jpg"]);
  assert.deepEqual(await names({ trashedBefore: epoch }), []);
  assert.deepEqual(await names({}), ["a.jpg", "d.jpg"]);
  assert.equal(d.isTrashed, false);
});

Deno.test("startImmichServer() records requests without the key and with the user", async () => {
  await using server = await startImmichServer();
  const user = server.addUser({ name: "Rec" });
  const key = server.addKey(user.id, { secret: "super-secret-key-value" });
  await clientFor(server, key).call("POST", "/search/metadata", { size: 2 });
  await clientFor(server, "wrong-key-value").call("GET", "/stacks?primaryAssetId=abc");
  assert.deepEqual(server.requests, [
    {
      method: "POST",
      path: "/search/metadata",
      query: {},
      body: { size: 2 },
      status: 200,
      userId: user.id,
    },
    {
      method: "GET",
      path: "/stacks",
      query: { primaryAssetId: "abc" },
      body: undefined,
      status: 401,
    },
  ]);
  assert.equal(JSON.stringify(server.requests).includes("super-secret"), false);
  server.clearRequests();
  assert.deepEqual(server.requests, []);
});

Deno.test("startImmichServer() answers HTML outside /api and 404 for unknown API routes", async () => {
  await using server = await startImmichServer();
  const page = await fetch(`${server.origin}/photos`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
  assert.match(await page.text(), /<!doctype html>/);
  const missing = await fetch(`${server.url}/nope`);
  assert.deepEqual([missing.status, await missing.json()], [404, {
    message: "Cannot GET /api/nope",
  }]);
});

Deno.test("startImmichServer() serves WebP thumbnails with asset.view, as recorded without it", async () => {
  await using server = await startImmichServer();
  const user = server.addUser({ name: "Viewer" });
  const other = server.addUser({ name: "Other" });
  const [jpg, dng] = server.addAssets(user.id, [
    { originalFileName: "IMG_0001.jpg" },
    { originalFileName: "IMG_0001.dng" },
  ]);
  const elsewhere = server.addAsset(other.id, { originalFileName: "IMG_0002.jpg" });
  const get = (key: string, id: string, size = "thumbnail") =>
    fetch(`${server.url}/assets/${id}/thumbnail?size=${size}`, { headers: { "x-api-key": key } });
  const all = server.addKey(user.id);
  const answer = await get(all, jpg.id);
  assert.equal(answer.status, 200);
  assert.equal(answer.headers.get("content-type"), "image/webp");
  const bytes = new Uint8Array(await answer.arrayBuffer());
  assert.equal(new TextDecoder().decode(bytes.slice(0, 4)), "RIFF");
  assert.equal(new TextDecoder().decode(bytes.slice(8, 12)), "WEBP");
  // The RAW file of the same shot shows the same picture.
  assert.deepEqual(new Uint8Array(await (await get(all, dng.id)).arrayBuffer()), bytes);
  const refused = await get(server.addKey(user.id, { permissions: ["asset.read"] }), jpg.id);
  assert.deepEqual([refused.status, await refused.json()], [403, {
    message: "Missing required permission: asset.view",
  }]);
  const foreign = await get(all, elsewhere.id);
  assert.deepEqual([foreign.status, await foreign.json()], [400, {
    message: "Not found or no asset.view access",
  }]);
  const original = await get(all, jpg.id, "original");
  assert.equal(original.status, 400);
  await original.body?.cancel();
});

/** A user with a key and the images a.jpg to d.jpg. */
function fourAssetUser(server: ImmichServer) {
  const user = server.addUser({ name: "Four" });
  const client = clientFor(server, server.addKey(user.id));
  const assets = server.addAssets(
    user.id,
    ["a", "b", "c", "d"].map((name) => ({ originalFileName: `${name}.jpg` })),
  );
  return { user, client, assets };
}

Deno.test("startImmichServer() leaves trashed, hidden and locked members out of GET /stacks", async () => {
  await using server = await startImmichServer();
  const { user, client, assets: [a, b, c, d] } = fourAssetUser(server);
  const stack = server.addStack(user.id, [a.id, b.id, c.id, d.id]);
  server.updateAsset(b.id, { isTrashed: true });
  server.updateAsset(c.id, { visibility: "hidden" });
  server.updateAsset(d.id, { visibility: "locked" });
  const list = await client.call("GET", "/stacks");
  assert.deepEqual(
    (list.body as { id: string; assets: { id: string }[] }[]).map((
      s,
    ) => [s.id, s.assets.map((x) => x.id)]),
    [[stack.id, [a.id]]],
  );
  assert.deepEqual(server.stacks(user.id), [{
    id: stack.id,
    primaryAssetId: a.id,
    assetIds: [a.id, b.id, c.id, d.id],
  }]);
});

Deno.test("startImmichServer() takes a hidden asset a create lists into the stack, and lists it nowhere", async () => {
  // Immich v3.1.0's source: StackRepository.create sets the new stack on every listed id, and
  // the access check of StackService.create (asset.update, AccessRepository.asset
  // .checkOwnerAccess) refuses only locked assets; its answer, as GET /stacks, shows members of
  // timeline or archive visibility alone (withDefaultVisibility).
  await using server = await startImmichServer();
  const { user, client, assets: [a, b, c] } = fourAssetUser(server);
  server.updateAsset(c.id, { visibility: "hidden" });
  const before = server.updatedAt(c.id);
  const created = await client.call("POST", "/stacks", { assetIds: [a.id, b.id, c.id] });
  assert.equal(created.status, 201);
  const listed = (body: unknown) => (body as { assets: { id: string }[] }).assets.map((x) => x.id);
  assert.deepEqual(listed(created.body), [a.id, b.id]);
  const [stack] = server.stacks(user.id);
  assert.deepEqual(stack.assetIds, [a.id, b.id, c.id]);
  assert.notEqual(server.updatedAt(c.id), before);
  assert.deepEqual(listed((await client.call("GET", `/stacks/${stack.id}`)).body), [a.id, b.id]);
  // A cover changed in Immich's web page moves no asset's updatedAt.
  const times = [a, b, c].map((asset) => server.updatedAt(asset.id));
  const moved = await client.call("PUT", `/stacks/${stack.id}`, { primaryAssetId: b.id });
  assert.equal(moved.status, 200);
  assert.deepEqual([a, b, c].map((asset) => server.updatedAt(asset.id)), times);
});

// ---------------------------------------------------------------------------------------------
// Faults.
// ---------------------------------------------------------------------------------------------

function twoAssetUser(server: ImmichServer) {
  const user = server.addUser({ name: "Faulty" });
  const client = clientFor(server, server.addKey(user.id));
  const [a, b] = server.addAssets(user.id, [{ originalFileName: "a.jpg" }, {
    originalFileName: "b.jpg",
  }]);
  return { user, client, assetIds: [a.id, b.id] };
}

Deno.test("setFaults() forces a route's status a given number of times", async () => {
  await using server = await startImmichServer();
  const { user, client, assetIds } = twoAssetUser(server);
  server.setFaults({
    routes: { "POST /stacks": { status: 502, times: 2, message: "Bad gateway" } },
  });
  const first = await client.call("POST", "/stacks", { assetIds });
  assert.deepEqual([first.status, first.body], [502, { message: "Bad gateway" }]);
  assert.equal((await client.call("POST", "/stacks", { assetIds })).status, 502);
  assert.equal(server.stacks(user.id).length, 0);
  assert.equal((await client.call("POST", "/stacks", { assetIds })).status, 201);
  assert.equal((await client.call("GET", "/users/me")).status, 200);
});

Deno.test("setFaults() matches route templates such as DELETE /stacks/{id}", async () => {
  await using server = await startImmichServer();
  const { client } = twoAssetUser(server);
  server.setFaults({ routes: { "DELETE /stacks/{id}": { status: 503 } } });
  assert.equal((await client.call("DELETE", `/stacks/${crypto.randomUUID()}`)).status, 503);
  assert.equal((await client.call("DELETE", `/stacks/${crypto.randomUUID()}`)).status, 503);
});

Deno.test("setFaults() answers 429 with Retry-After", async () => {
  await using server = await startImmichServer();
  const { client } = twoAssetUser(server);
  server.setFaults({ rate429: 1, retryAfterSeconds: 2 });
  const answer = await client.call("GET", "/users/me");
  assert.equal(answer.status, 429);
  assert.equal(answer.headers.get("retry-after"), "2");
});

Deno.test("setFaults() can do the work and still answer 500", async () => {
  await using server = await startImmichServer();
  const { user, client, assetIds } = twoAssetUser(server);
  server.setFaults({ error5xxAfterWorkRate: 1 });
  const answer = await client.call("POST", "/stacks", { assetIds });
  assert.deepEqual([answer.status, answer.body], [500, { message: "Internal server error" }]);
  assert.deepEqual(server.stacks(user.id).map((s) => s.assetIds), [assetIds]);
});

Deno.test("setFaults() can let requests through first, and fail a route after its work", async () => {
  await using server = await startImmichServer();
  const { user, client, assetIds } = twoAssetUser(server);
  server.setFaults({
    routes: { "POST /stacks": { status: 503, afterWork: true, skip: 1, times: 1 } },
  });
  assert.equal((await client.call("POST", "/stacks", { assetIds })).status, 201);
  assert.equal((await client.call("POST", "/stacks", { assetIds })).status, 503);
  assert.equal(server.stacks(user.id).length, 1);
  const [first] = server.stacks(user.id);
  assert.equal((await client.call("POST", "/stacks", { assetIds })).status, 201);
  assert.notEqual(server.stacks(user.id)[0].id, first.id);
  // Work that fails answers its own error, not the forced one.
  server.setFaults({ routes: { "DELETE /stacks/{id}": { status: 500, afterWork: true } } });
  const gone = await client.call("DELETE", `/stacks/${crypto.randomUUID()}`);
  assert.equal(gone.status, 400);
});

Deno.test("setFaults() breaks search paging and runs a hook before each answer", async () => {
  await using server = await startImmichServer();
  const { client } = twoAssetUser(server);
  const seen: string[] = [];
  server.setFaults({
    searchPaging: { nextPage: "2", times: 2 },
    beforeAnswer: ({ method, path }) => seen.push(`${method} ${path}`),
  });
  const page = async (n: number) =>
    ((await client.call("POST", "/search/metadata", { page: n, size: 1 })).body as SearchPage)
      .assets;
  assert.equal((await page(1)).nextPage, "2");
  assert.equal((await page(2)).nextPage, "2");
  assert.equal((await page(2)).nextPage, null);
  assert.deepEqual(seen, Array(3).fill("POST /search/metadata"));
  server.setFaults({ searchPaging: { repeatFirstPage: true } });
  const [first, second] = [await page(1), await page(2)];
  assert.deepEqual(second.items.map((i) => i.id), first.items.map((i) => i.id));
  assert.equal(second.nextPage, "3");
});

Deno.test("setFaults() drops the connection without an answer", async () => {
  await using server = await startImmichServer();
  const { client } = twoAssetUser(server);
  server.setFaults({ dropRate: 1 });
  await assert.rejects(() => client.call("GET", "/users/me"), TypeError);
  assert.ok(server.requests.length >= 1);
  assert.ok(server.requests.every((r) => r.status === 0));
  server.setFaults({});
  assert.equal((await client.call("GET", "/users/me")).status, 200);
});

Deno.test("setFaults() drops one route's connection a given number of times", async () => {
  await using server = await startImmichServer();
  const { user } = twoAssetUser(server);
  const key = server.addKey(user.id);
  // A fresh client per request: fetch silently resends a request dropped on a reused connection.
  const get = async () => {
    using client = Deno.createHttpClient({});
    const response = await fetch(`${server.url}/users/me`, {
      headers: { "x-api-key": key },
      client,
    });
    await response.body?.cancel();
    return response.status;
  };
  server.setFaults({ routes: { "GET /users/me": { drop: true, times: 1 } } });
  await assert.rejects(get, TypeError);
  assert.equal(await get(), 200);
  assert.deepEqual(server.requests.map((r) => r.status), [0, 200]);
});

Deno.test("setFaults() draws the same faults for the same seed", async () => {
  const statuses = async (seed: number) => {
    await using server = await startImmichServer();
    const { client } = twoAssetUser(server);
    server.setFaults({ seed, error5xxRate: 0.5 });
    const out: number[] = [];
    for (let i = 0; i < 24; i++) out.push((await client.call("GET", "/users/me")).status);
    return out;
  };
  const first = await statuses(7);
  assert.deepEqual(await statuses(7), first);
  assert.ok(first.includes(500) && first.includes(200));
  assert.notDeepEqual(await statuses(8), first);
});

Deno.test("setFaults() holds answers back by latencyMs and close() releases them", async () => {
  const server = await startImmichServer();
  const { client } = twoAssetUser(server);
  server.setFaults({ latencyMs: 3_600_000 });
  const pending = client.call("GET", "/users/me").catch((error: unknown) => error);
  // Yield to the event loop (no real waiting) until the server holds the request.
  for (let i = 0; i < 10_000 && server.inFlight === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  assert.equal(server.inFlight, 1);
  assert.deepEqual(server.requests, []);
  await server.close();
  assert.ok((await pending) instanceof TypeError);
});

// ---------------------------------------------------------------------------------------------
// The trash, slow writes and writes in flight.
// ---------------------------------------------------------------------------------------------

Deno.test("startImmichServer() moves assets to the trash and back as Immich does, moving updatedAt", async () => {
  await using server = await startImmichServer();
  const { user, client, assets: [a, b, c] } = fourAssetUser(server);
  const stranger = server.addUser({ name: "Other" });
  const [theirs] = server.addAssets(stranger.id, [{ originalFileName: "x.jpg" }]);
  const stack = server.addStack(user.id, [a.id, b.id, c.id]);
  const updatedAt = async (id: string) =>
    ((await client.call("GET", `/assets/${id}`)).body as { updatedAt: string }).updatedAt;
  const before = await updatedAt(b.id);

  assert.equal((await client.call("DELETE", "/assets", { ids: [b.id], force: false })).status, 204);
  assert.ok((await updatedAt(b.id)) > before);
  assert.deepEqual(server.assets(user.id).filter((x) => x.isTrashed).map((x) => x.id), [b.id]);
  // As recorded: the stack keeps its member in the trash, and GET /stacks hides it.
  assert.deepEqual(server.stacks(user.id)[0].assetIds, stack.assetIds);
  const listed = (await client.call("GET", "/stacks")).body as { assets: { id: string }[] }[];
  assert.deepEqual(listed[0].assets.map((x) => x.id), [a.id, c.id]);
  // Another user's asset, or deleting for good, is refused and changes nothing.
  assert.equal((await client.call("DELETE", "/assets", { ids: [c.id, theirs.id] })).status, 400);
  assert.equal((await client.call("DELETE", "/assets", { ids: [c.id], force: true })).status, 400);
  assert.equal(server.assets(user.id).filter((x) => x.isTrashed).length, 1);

  const trashed = await updatedAt(b.id);
  const restore = await client.call("POST", "/trash/restore/assets", { ids: [b.id, a.id] });
  assert.deepEqual([restore.status, restore.body], [200, { count: 2 }]);
  assert.ok((await updatedAt(b.id)) > trashed);
  assert.deepEqual(server.assets(user.id).filter((x) => x.isTrashed), []);
  assert.deepEqual((await client.call("POST", "/trash/restore/assets", { ids: [] })).body, {
    count: 0,
  });
});

Deno.test("startImmichServer() sends deviceId and deviceAssetId before v3 only", async () => {
  for (const [version, sent] of [["2.4.1", true], ["3.1.0", false]] as const) {
    await using server = await startImmichServer({ version });
    const user = server.addUser({ name: "Dev" });
    server.addAsset(user.id, { originalFileName: "a.jpg", deviceId: "phone" });
    const page =
      (await clientFor(server, server.addKey(user.id)).call("POST", "/search/metadata", {}))
        .body as { assets: { items: Record<string, unknown>[] } };
    const [item] = page.assets.items;
    assert.deepEqual(
      [item.deviceId, item.deviceAssetId],
      sent ? ["phone", "a.jpg-2200"] : [undefined, undefined],
      version,
    );
  }
});

Deno.test("setFaults() holds back the write routes of routeLatencyMs, and the server records writes in flight that touch one asset", async () => {
  await using server = await startImmichServer();
  const { user, client, assets: [a, b, c, d] } = fourAssetUser(server);
  const stack = server.addStack(user.id, [a.id, b.id]);
  server.setFaults({ routeLatencyMs: writeLatency(30) });
  server.resetWriteTracking();
  // Two writes on different assets, at once: no overlap.
  await Promise.all([
    client.call("POST", "/stacks", { assetIds: [c.id, d.id] }),
    client.call("DELETE", "/assets", { ids: [a.id] }),
  ]);
  assert.equal(server.maxWritesInFlight, 2);
  assert.equal(server.writeOverlaps.length, 0);
  // Deleting a stack while a create lists one of its members: both touch it.
  const [created] = server.stacks(user.id).filter((s) => s.id !== stack.id);
  await Promise.all([
    client.call("DELETE", `/stacks/${created.id}`),
    client.call("POST", "/stacks", { assetIds: [b.id, d.id] }),
  ]);
  assert.ok(server.writeOverlaps.some((overlap) => overlap.key === `asset:${d.id}`));
  server.resetWriteTracking();
  assert.deepEqual([server.writeOverlaps, server.maxWritesInFlight], [[], 0]);
});

Deno.test("startImmichServer() imitates 3.2: the flat search works, with nextCursor, and excludes the structured shape", async () => {
  // Immich 3.2 (server/src/dtos/search.dto.ts): filter, orderBy and cursor are the new search,
  // the flat fields are deprecated but still answered, and the two shapes do not mix.
  const { server, client, ids } = await visibilityLibrary("3.2.2");
  await using _ = server;
  const flat = await client.call("POST", "/search/metadata", { visibility: "timeline", page: 1 });
  assert.equal(flat.status, 200);
  const page = (flat.body as { assets: Record<string, unknown> }).assets;
  assert.deepEqual([page.nextPage, page.nextCursor], [null, null]);
  assert.deepEqual(await searchIds(client, { visibility: "timeline" }), [ids.timeline]);
  const mixed = await client.call("POST", "/search/metadata", {
    filter: { visibility: { eq: "timeline" } },
    page: 1,
    withExif: true,
  });
  assert.equal(mixed.status, 400);
  assert.deepEqual(
    (mixed.body as { errors: { message: string }[] }).errors.map((error) => error.message),
    ["Deprecated field page cannot be combined with filter"],
  );
  const counted = await client.call("POST", "/search/statistics", {
    cursor: "x",
    visibility: "archive",
  });
  assert.equal(counted.status, 400);
  const me = await client.call("GET", "/users/me");
  assert.match(String((me.body as { clusterGroupId: unknown }).clusterGroupId), /^[0-9a-f-]{36}$/);
  // 3.1 knows none of it.
  const { server: older, client: olderClient } = await visibilityLibrary("3.1.0");
  await using _older = older;
  const old = await olderClient.call("POST", "/search/metadata", { page: 1 });
  assert.equal("nextCursor" in (old.body as { assets: object }).assets, false);
  assert.equal(
    "clusterGroupId" in ((await olderClient.call("GET", "/users/me")).body as object),
    false,
  );
});
