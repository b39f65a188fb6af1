import assert from "node:assert/strict";
import { reset } from "@logtape/logtape";
import { recordLogs } from "./_logs.ts";
import { parseJsonObjectArray } from "../src/api/_json_array.ts";
import { PermanentError } from "../src/api/errors.ts";
import { createImmichClient, type ImmichClient } from "../src/api/immich.ts";
import { MissingPermissionsError, REQUIRED_PERMISSIONS } from "../src/api/permissions.ts";
import { type AssetPage, type InvalidAsset, type SearchFilter } from "../src/api/search.ts";
import type { Asset } from "../src/model.ts";
import { type ImmichServer, startImmichServer, type TestUser } from "./immich_server.ts";

const VERSIONS = ["1.118.2", "1.132.3", "2.4.1", "3.1.0", "3.2.2"];
const IMAGES_ONLY: SearchFilter = { withArchived: false, withDeleted: false, includeVideos: false };

/** Injected time, so retries in these tests never wait. */
const instant = { sleep: () => Promise.resolve(), random: () => 0, now: () => 0 };

function clientFor(url: string, apiKey: string): ImmichClient {
  return createImmichClient({ baseUrl: url, apiKey, ...instant });
}

async function collect(
  pages: AsyncIterable<AssetPage>,
): Promise<Pick<AssetPage, "assets" | "invalid" | "trashedIds">> {
  const all = { assets: [] as Asset[], invalid: [] as InvalidAsset[], trashedIds: [] as string[] };
  for await (const page of pages) {
    all.assets.push(...page.assets);
    all.invalid.push(...page.invalid);
    all.trashedIds.push(...page.trashedIds);
  }
  return all;
}

function names(assets: readonly Asset[]): string[] {
  return assets.map((asset) => asset.originalFileName).sort();
}

interface Library {
  readonly server: ImmichServer;
  readonly user: TestUser;
  readonly key: string;
  readonly immich: ImmichClient;
  [Symbol.asyncDispose](): Promise<void>;
}

/** A server with one user (and a key) whose library is built by `fill`. */
async function library(
  version: string,
  fill: (server: ImmichServer, user: TestUser) => void = () => {},
  permissions?: readonly string[],
): Promise<Library> {
  const server = await startImmichServer({ version });
  const user = server.addUser({ name: "Ann" });
  const key = server.addKey(user.id, { permissions });
  fill(server, user);
  const immich = clientFor(server.url, key);
  return {
    server,
    user,
    key,
    immich,
    async [Symbol.asyncDispose]() {
      immich.close();
      await server.close();
    },
  };
}

/**
 * The library of the visibility tests: timeline, archived, trashed and video assets, a live
 * photo whose motion part is hidden, a locked asset, and a partner's asset.
 */
function mixedLibrary(server: ImmichServer, user: TestUser) {
  const partner = server.addUser({ name: "Bob" });
  server.addPartner(partner.id, user.id);
  server.addAsset(partner.id, { originalFileName: "PARTNER.jpg" });
  const motion = server.addAsset(user.id, {
    originalFileName: "LIVE.mov",
    type: "VIDEO",
    visibility: "hidden",
  });
  server.addAsset(user.id, { originalFileName: "LIVE.heic", livePhotoVideoId: motion.id });
  server.addAsset(user.id, { originalFileName: "TIMELINE.jpg" });
  server.addAsset(user.id, { originalFileName: "ARCHIVED.jpg", visibility: "archive" });
  server.addAsset(user.id, { originalFileName: "TRASHED.jpg", isTrashed: true });
  server.addAsset(user.id, { originalFileName: "CLIP.mp4", type: "VIDEO" });
  server.addAsset(user.id, { originalFileName: "LOCKED.jpg", visibility: "locked" });
}

const VISIBILITY_CASES: { filter: SearchFilter; expected: string[] }[] = [
  { filter: IMAGES_ONLY, expected: ["LIVE.heic", "TIMELINE.jpg"] },
  {
    filter: { ...IMAGES_ONLY, withArchived: true },
    expected: ["ARCHIVED.jpg", "LIVE.heic", "TIMELINE.jpg"],
  },
  {
    filter: { ...IMAGES_ONLY, withDeleted: true },
    expected: ["LIVE.heic", "TIMELINE.jpg", "TRASHED.jpg"],
  },
  {
    filter: { ...IMAGES_ONLY, includeVideos: true },
    expected: ["CLIP.mp4", "LIVE.heic", "TIMELINE.jpg"],
  },
  {
    filter: { withArchived: true, withDeleted: true, includeVideos: true },
    expected: ["ARCHIVED.jpg", "CLIP.mp4", "LIVE.heic", "TIMELINE.jpg", "TRASHED.jpg"],
  },
];

Deno.test("searchAssets() returns the same assets from every server version", async (t) => {
  for (const version of VERSIONS) {
    for (const { filter, expected } of VISIBILITY_CASES) {
      const settings = Object.entries(filter).filter(([, on]) => on).map(([name]) => name);
      await t.step(`v${version} ${settings.join(", ") || "defaults"}`, async () => {
        await using lib = await library(version, mixedLibrary);
        const found = await collect(lib.immich.searchAssets(filter));
        assert.deepEqual(names(found.assets), expected);
        assert.deepEqual(found.invalid, []);
        assert.ok(found.assets.every((asset) => asset.ownerId === lib.user.id));
      });
    }
  }
});

Deno.test("searchAssets() sends one body shape and a second pass only for archived assets", async () => {
  await using lib = await library("3.1.0", mixedLibrary);
  await collect(lib.immich.searchAssets({
    withArchived: true,
    withDeleted: false,
    includeVideos: false,
    takenAfter: "2020-01-01T00:00:00.000Z",
    takenBefore: "2030-01-01T00:00:00.000Z",
  }));
  const searches = lib.server.requests.filter((request) => request.path === "/search/metadata");
  const common = {
    page: 1,
    size: 1000,
    isVisible: true,
    withDeleted: false,
    type: "IMAGE",
    takenAfter: "2020-01-01T00:00:00.000Z",
    takenBefore: "2030-01-01T00:00:00.000Z",
  };
  assert.deepEqual(searches.map((request) => request.body), [
    { ...common, visibility: "timeline", isArchived: false },
    { ...common, visibility: "archive", isArchived: true },
  ]);
});

Deno.test("searchAssets() pages through 2 501 assets in exactly 3 requests", async () => {
  await using lib = await library("3.1.0", (server, user) => {
    server.addAssets(
      user.id,
      Array.from({ length: 2501 }, (_, i) => ({
        originalFileName: `IMG_${String(i).padStart(5, "0")}.jpg`,
      })),
    );
  });
  const pages: number[] = [];
  const ids = new Set<string>();
  for await (const page of lib.immich.searchAssets(IMAGES_ONLY)) {
    pages.push(page.assets.length);
    for (const asset of page.assets) ids.add(asset.id);
  }
  assert.deepEqual(pages, [1000, 1000, 501]);
  assert.equal(ids.size, 2501);
  const searches = lib.server.requests.filter((request) => request.path === "/search/metadata");
  assert.deepEqual(searches.map((request) => (request.body as { page: number }).page), [1, 2, 3]);
});

Deno.test("searchAssets() stops with one error when the server breaks its paging", async (t) => {
  const thousand = (server: ImmichServer, user: TestUser) => {
    server.addAssets(
      user.id,
      Array.from({ length: 1001 }, (_, i) => ({ originalFileName: `IMG_${i}.jpg` })),
    );
  };
  const cases = [
    {
      name: "a page sent twice",
      faults: { searchPaging: { repeatFirstPage: true } },
      message: "answered a page it had already sent: current page is 2",
    },
    {
      name: "a next page that is not the following one",
      faults: { searchPaging: { nextPage: "7" } },
      message: 'answered nextPage "7" after page 1: current page is 1',
    },
  ];
  for (const { name, faults, message } of cases) {
    await t.step(name, async () => {
      await using lib = await library("3.1.0", thousand);
      lib.server.setFaults(faults);
      await assert.rejects(collect(lib.immich.searchAssets(IMAGES_ONLY)), (error) => {
        assert.ok(error instanceof PermanentError);
        assert.equal(error.message, `Cannot follow the search pages as the server ${message}`);
        return true;
      });
      assert.ok(lib.server.requests.length <= 4);
    });
  }
});

Deno.test("searchAssets() reports the trashed assets of a page, with WITH_DELETED", async () => {
  await using lib = await library("3.1.0", mixedLibrary);
  const page = await collect(lib.immich.searchAssets({ ...IMAGES_ONLY, withDeleted: true }));
  const trashed = page.assets.filter((asset) => page.trashedIds.includes(asset.id));
  assert.deepEqual(names(trashed), ["TRASHED.jpg"]);
});

Deno.test("searchAssets() filters by capture time", async () => {
  await using lib = await library("3.1.0", (server, user) => {
    server.addAsset(user.id, {
      originalFileName: "EARLY.jpg",
      localDateTime: "2024-01-01T00:00:00.000Z",
    });
    server.addAsset(user.id, {
      originalFileName: "MIDDLE.jpg",
      localDateTime: "2024-06-01T00:00:00.000Z",
    });
    server.addAsset(user.id, {
      originalFileName: "LATE.jpg",
      localDateTime: "2025-01-01T00:00:00.000Z",
    });
  });
  const found = await collect(lib.immich.searchAssets({
    ...IMAGES_ONLY,
    takenAfter: "2024-03-01T00:00:00.000Z",
    takenBefore: "2024-09-01T00:00:00.000Z",
  }));
  assert.deepEqual(names(found.assets), ["MIDDLE.jpg"]);
});

Deno.test("searchAssets() keeps assets of any listed album once", async () => {
  let albumIds: string[] = [];
  await using lib = await library("3.1.0", (server, user) => {
    const [a, b, c] = ["A.jpg", "B.jpg", "C.jpg"].map((originalFileName) =>
      server.addAsset(user.id, { originalFileName })
    );
    server.addAsset(user.id, { originalFileName: "OUTSIDE.jpg" });
    albumIds = [
      server.addAlbum(user.id, "Holidays", [a.id, b.id]).id,
      server.addAlbum(user.id, "Family", [b.id, c.id]).id,
    ];
  });
  const resolved = await lib.immich.resolveAlbumIds(["Holidays", albumIds[1]]);
  assert.deepEqual(resolved, albumIds);
  const found = await collect(lib.immich.searchAssets({ ...IMAGES_ONLY, albumIds: resolved }));
  assert.deepEqual(names(found.assets), ["A.jpg", "B.jpg", "C.jpg"]);
});

Deno.test("resolveAlbumIds() names an unknown album in its error", async () => {
  await using lib = await library("3.1.0", (server, user) => {
    server.addAlbum(user.id, "Holidays", []);
  });
  await assert.rejects(lib.immich.resolveAlbumIds(["Holidays", "Nope"]), {
    name: "RangeError",
    message: 'Cannot find the album named in FILTER_ALBUM_IDS: current value is "Nope"',
  });
});

Deno.test("resolveAlbumIds() keeps ids without asking the server", async () => {
  await using lib = await library("3.1.0");
  const id = "0b5e3b1e-34f4-4c4c-9a53-3b1b0b0b0b0b";
  assert.deepEqual(await lib.immich.resolveAlbumIds([id, ""]), [id]);
  assert.equal(lib.server.requests.length, 0);
});

Deno.test("searchAssets() asks for EXIF only when file sizes are needed", async (t) => {
  for (const withFileSize of [false, true]) {
    await t.step(`withFileSize ${withFileSize}`, async () => {
      await using lib = await library("3.1.0", (server, user) => {
        server.addAsset(user.id, { originalFileName: "A.jpg", fileSizeInByte: 1234 });
      });
      const found = await collect(lib.immich.searchAssets({ ...IMAGES_ONLY, withFileSize }));
      assert.equal(found.assets[0].fileSizeInByte, withFileSize ? 1234 : undefined);
      const body = lib.server.requests.find((r) => r.path === "/search/metadata")?.body;
      assert.equal((body as Record<string, unknown>).withExif, withFileSize ? true : undefined);
    });
  }
});

/** Immich's ids are UUIDs: one per label, the same each time, for the stub's answers. */
function idOf(label: string): string {
  let hash = 0;
  for (const char of label) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  const hex = hash.toString(16).padStart(8, "0");
  return `${hex}-0000-4000-8000-${hex}0000`;
}

/** A stub that answers `/users/me` and one search page with the given items. */
function searchStub(items: unknown[], userId = idOf("owner")) {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      if (new URL(request.url).pathname === "/api/users/me") {
        return Response.json({ id: userId, name: "Ann", email: "ann@example.test" });
      }
      return Response.json({
        albums: { total: 0, count: 0, items: [], facets: [] },
        assets: { total: items.length, count: items.length, items, facets: [], nextPage: null },
      });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}/api`,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

function rawAsset(label: string, changes: Record<string, unknown> = {}) {
  return {
    id: idOf(label),
    ownerId: idOf("owner"),
    type: "IMAGE",
    originalPath: `/data/${label}.jpg`,
    originalFileName: `${label}.jpg`,
    fileCreatedAt: "2024-05-01T10:00:00.000Z",
    fileModifiedAt: "2024-05-01T10:00:00+00:00",
    localDateTime: "2024-05-01T10:00:00.000Z",
    updatedAt: "2026-11-22T09:27:20.52471+00:00",
    isFavorite: false,
    isArchived: false,
    isTrashed: false,
    visibility: "timeline",
    duration: null,
    checksum: "NSajZMTByFYoMog4qR02/qYKJm8=",
    isOffline: false,
    hasMetadata: true,
    libraryId: null,
    people: [],
    ...changes,
  };
}

Deno.test("searchAssets() skips, reports and logs an invalid asset and keeps the rest", async () => {
  const records = await recordLogs("warning");
  try {
    await using stub = searchStub([
      rawAsset("good"),
      rawAsset("bad-time", { localDateTime: "yesterday" }),
      rawAsset("bad-type", { isFavorite: "no" }),
      rawAsset("partner", { ownerId: idOf("someone-else"), localDateTime: null }),
    ]);
    const immich = clientFor(stub.url, "key");
    try {
      const found = await collect(immich.searchAssets(IMAGES_ONLY));
      assert.deepEqual(found.assets.map((asset) => asset.id), [idOf("good")]);
      assert.deepEqual(found.assets[0], {
        id: idOf("good"),
        ownerId: idOf("owner"),
        type: "IMAGE",
        originalPath: "/data/good.jpg",
        originalFileName: "good.jpg",
        fileCreatedAt: "2024-05-01T10:00:00.000Z",
        fileModifiedAt: "2024-05-01T10:00:00+00:00",
        localDateTime: "2024-05-01T10:00:00.000Z",
        updatedAt: "2026-11-22T09:27:20.52471+00:00",
        isFavorite: false,
        isArchived: false,
        isTrashed: false,
        duration: null,
        checksum: "NSajZMTByFYoMog4qR02/qYKJm8=",
        isOffline: false,
        hasMetadata: true,
      });
      assert.deepEqual(found.invalid.map(({ id, field }) => ({ id, field })), [
        { id: idOf("bad-time"), field: "localDateTime" },
        { id: idOf("bad-type"), field: "isFavorite" },
      ]);
      const warnings = records.filter((record) => record.rawMessage === "Invalid asset data");
      assert.deepEqual(
        warnings.map((record) => [record.properties.assetID, record.properties.field]),
        [[idOf("bad-time"), "localDateTime"], [idOf("bad-type"), "isFavorite"]],
      );
    } finally {
      immich.close();
    }
  } finally {
    await reset();
  }
});

Deno.test("searchAssets() keeps and checks only the criterion fields it is asked for", async () => {
  await using stub = searchStub([
    rawAsset("plain"),
    rawAsset("odd-checksum", { checksum: 42, originalPath: "/trip/b.jpg" }),
  ]);
  const immich = clientFor(stub.url, "key");
  try {
    const core = await collect(immich.searchAssets({ ...IMAGES_ONLY, fields: [] }));
    assert.deepEqual(core.invalid, []);
    assert.deepEqual(core.assets, [
      {
        id: idOf("plain"),
        originalFileName: "plain.jpg",
        localDateTime: "2024-05-01T10:00:00.000Z",
      },
      {
        id: idOf("odd-checksum"),
        originalFileName: "odd-checksum.jpg",
        localDateTime: "2024-05-01T10:00:00.000Z",
      },
    ]);

    const paths = await collect(immich.searchAssets({
      ...IMAGES_ONLY,
      fields: ["originalPath", "fileCreatedAt"],
    }));
    assert.deepEqual(paths.assets.map((asset) => Object.keys(asset)), [
      ["id", "originalFileName", "localDateTime", "originalPath", "fileCreatedAt"],
      ["id", "originalFileName", "localDateTime", "originalPath", "fileCreatedAt"],
    ]);
    assert.equal(paths.assets[1].originalPath, "/trip/b.jpg");

    const checksums = await collect(immich.searchAssets({ ...IMAGES_ONLY, fields: ["checksum"] }));
    assert.deepEqual(checksums.assets.map((asset) => asset.id), [idOf("plain")]);
    assert.deepEqual(checksums.invalid.map(({ id, field }) => ({ id, field })), [
      { id: idOf("odd-checksum"), field: "checksum" },
    ]);
  } finally {
    immich.close();
  }
});

Deno.test("searchAssets() reads duration as text up to v3.1 and as a number after", async () => {
  await using stub = searchStub([
    rawAsset("old", { type: "VIDEO", duration: "0:00:05.12300" }),
    rawAsset("new", { type: "VIDEO", duration: 5.123 }),
    rawAsset("photo"),
  ]);
  const immich = clientFor(stub.url, "key");
  try {
    const found = await collect(immich.searchAssets({
      ...IMAGES_ONLY,
      includeVideos: true,
      fields: ["duration"],
    }));
    assert.deepEqual(found.invalid, []);
    assert.deepEqual(found.assets.map((asset) => [asset.id, asset.duration]), [
      [idOf("old"), "0:00:05.12300"],
      [idOf("new"), "5.123"],
      [idOf("photo"), null],
    ]);
  } finally {
    immich.close();
  }
});

Deno.test("the client refuses an id that is not an Immich id, as a user's or an asset's", async (t) => {
  await t.step("an asset's id in the search", async () => {
    await using stub = searchStub([rawAsset("good"), { ...rawAsset("evil"), id: "../../x" }]);
    const immich = clientFor(stub.url, "key");
    try {
      await assert.rejects(collect(immich.searchAssets(IMAGES_ONLY)), {
        name: "InvalidResponseError",
        message: "Cannot use the answer of POST /search/metadata as an asset's id is not an " +
          'Immich id (a UUID): current value is "../../x"',
      });
    } finally {
      immich.close();
    }
  });
  await t.step("the user's id", async () => {
    await using stub = searchStub([], "../../outside");
    const immich = clientFor(stub.url, "key");
    try {
      await assert.rejects(immich.me(), (error) => {
        assert.equal((error as Error).name, "InvalidResponseError");
        assert.match((error as Error).message, /GET \/users\/me.*not an Immich id \(a UUID\)/);
        return true;
      });
    } finally {
      immich.close();
    }
  });
});

Deno.test("requirePermissions() lists every missing permission in one error", async (t) => {
  const cases = [
    {
      permissions: ["user.read", "asset.read", "stack.read", "stack.create", "stack.update"],
      missing: ["stack.delete"],
    },
    {
      permissions: ["asset.read"],
      missing: REQUIRED_PERMISSIONS.filter((p) => p !== "asset.read"),
    },
  ];
  for (const { permissions, missing } of cases) {
    await t.step(permissions.join(","), async () => {
      await using lib = await library("3.1.0", () => {}, permissions);
      await assert.rejects(lib.immich.requirePermissions(), (error) => {
        assert.ok(error instanceof MissingPermissionsError);
        assert.deepEqual(error.missing, missing);
        assert.equal(
          error.message,
          `Cannot use the API key as it lacks the permissions ${missing.join(", ")}: ` +
            `current permissions are ${permissions.join(", ")}`,
        );
        return true;
      });
      assert.ok(lib.server.requests.every((request) => request.method === "GET"));
    });
  }
});

Deno.test("requirePermissions() accepts all, and reads /api-keys/me from v1.139", async (t) => {
  await t.step("all on v3", async () => {
    await using lib = await library("3.1.0", () => {}, ["all"]);
    await lib.immich.requirePermissions();
  });
  await t.step("v1.139 lists the key's permissions", async () => {
    await using lib = await library("1.139.0", () => {}, ["stack.read"]);
    await assert.rejects(lib.immich.requirePermissions(), MissingPermissionsError);
    assert.deepEqual(lib.server.requests.map((r) => r.path), ["/server/version", "/api-keys/me"]);
  });
});

Deno.test("requirePermissions() probes each stack write before v1.139, changing nothing", async (t) => {
  const probes = [
    "GET /server/version",
    "POST /stacks",
    "PUT /stacks/00000000-0000-4000-8000-000000000000",
    "DELETE /stacks/00000000-0000-4000-8000-000000000000",
  ];
  for (const version of ["1.118.2", "1.132.3", "1.138.1"]) {
    await t.step(`${version}: a key with every permission passes`, async () => {
      await using lib = await library(version);
      await lib.immich.requirePermissions();
      assert.deepEqual(lib.server.requests.map((r) => `${r.method} ${r.path}`), probes);
      assert.deepEqual(lib.server.requests.slice(1).map((r) => r.status), [400, 400, 400]);
    });
  }
  await t.step("a key that may delete but not create is refused, naming stack.create", async () => {
    const reads = ["user.read", "asset.read", "stack.read"];
    await using lib = await library("1.132.3", (server, user) => {
      const [a, b] = server.addAssets(user.id, [
        { originalFileName: "a.jpg" },
        { originalFileName: "b.jpg" },
      ]);
      server.addStack(user.id, [a.id, b.id]);
    }, [...reads, "stack.update", "stack.delete"]);
    const before = lib.server.stacks(lib.user.id);
    await assert.rejects(lib.immich.requirePermissions(), (error) => {
      assert.ok(error instanceof MissingPermissionsError);
      assert.deepEqual(error.missing, ["stack.create"]);
      assert.equal(
        error.message,
        "Cannot use the API key as it lacks the permissions stack.create: Immich 1.132.3 " +
          "refused a harmless request needing each (it lists a key's permissions only from v1.139)",
      );
      return true;
    });
    assert.deepEqual(lib.server.stacks(lib.user.id), before);
  });
  await t.step("a dry run's read permissions need no probe", async () => {
    await using lib = await library("1.132.3", () => {}, ["user.read", "asset.read", "stack.read"]);
    await lib.immich.requirePermissions(["user.read", "asset.read", "stack.read"]);
    assert.deepEqual(lib.server.requests.map((r) => r.path), ["/server/version"]);
  });
});

Deno.test("me() and serverVersion() read the key's user and the server version", async () => {
  await using lib = await library("2.4.1");
  assert.deepEqual(await lib.immich.me(), {
    id: lib.user.id,
    name: "Ann",
    email: lib.user.email,
  });
  assert.deepEqual(await lib.immich.serverVersion(), { major: 2, minor: 4, patch: 1 });
});

Deno.test("me() fails with Invalid API key for an unknown key, which never shows", async () => {
  await using lib = await library("3.1.0");
  const secret = "not-a-key-but-secret-0123456789";
  const immich = clientFor(lib.server.url, secret);
  try {
    await assert.rejects(immich.me(), (error) => {
      assert.ok(error instanceof PermanentError);
      assert.equal(error.status, 401);
      assert.match(error.message, /^Invalid API key: GET \/users\/me answered 401 /);
      assert.ok(!error.message.includes(secret));
      return true;
    });
  } finally {
    immich.close();
  }
});

Deno.test("listStacks() returns every stack with every member, primary first", async () => {
  await using lib = await library("3.1.0", (server, user) => {
    const ids = Array.from(
      { length: 9 },
      (_, i) => server.addAsset(user.id, { originalFileName: `IMG_${i}.jpg` }).id,
    );
    server.addStack(user.id, ids.slice(0, 2));
    server.addStack(user.id, ids.slice(2, 7));
    server.addStack(user.id, [ids[8], ids[7]]);
  });
  const stacks = await lib.immich.listStacks();
  const expected = lib.server.stacks(lib.user.id).map((stack) => ({
    id: stack.id,
    primaryAssetId: stack.primaryAssetId,
    assetIds: [...stack.assetIds],
  }));
  assert.equal(expected.length, 3);
  assert.deepEqual(
    stacks.map((stack) => ({ ...stack, assetIds: [...stack.assetIds].sort() })),
    expected.map((stack) => ({ ...stack, assetIds: [...stack.assetIds].sort() })),
  );
  for (const stack of stacks) assert.equal(stack.assetIds[0], stack.primaryAssetId);
});

Deno.test("createStack(), updateStackPrimary() and deleteStack() change the server's stacks", async () => {
  let ids: string[] = [];
  await using lib = await library("3.1.0", (server, user) => {
    ids = ["A.jpg", "B.jpg", "C.jpg"].map((name) =>
      server.addAsset(user.id, { originalFileName: name }).id
    );
  });
  const created = await lib.immich.createStack(ids);
  assert.equal(created.primaryAssetId, ids[0]);
  assert.deepEqual([...created.assetIds].sort(), [...ids].sort());
  // Stacking moves every member's updatedAt: the answer gives them, read when asked.
  assert.deepEqual(
    created.updatedAt(),
    created.assetIds.map((id) => Date.parse(lib.server.updatedAt(id))),
  );
  const updated = await lib.immich.updateStackPrimary(created.id, ids[2]);
  assert.equal(updated.primaryAssetId, ids[2]);
  assert.equal(lib.server.stacks(lib.user.id)[0].primaryAssetId, ids[2]);
  await lib.immich.deleteStack(created.id);
  assert.deepEqual(lib.server.stacks(lib.user.id), []);
  await assert.rejects(lib.immich.deleteStack(created.id), (error) => {
    assert.ok(error instanceof PermanentError);
    assert.equal(error.status, 400);
    assert.match(error.serverMessage, /^Not found/);
    return true;
  });
});

Deno.test("createStack() takes a well-formed answer as it is and refuses a malformed one, naming the field", async (t) => {
  const [a, b] = ["c328d6e8-5867-45d6-af44-8141dfbc39a6", "78c276f5-27f2-4dd3-a6ca-1afb69861798"];
  const member = (id: string) => ({
    id,
    originalFileName: `${id.slice(0, 4)}.jpg`,
    isArchived: false,
    visibility: "timeline",
    updatedAt: "2026-11-22T09:28:29.210Z",
    exifInfo: { make: "Canon", model: "EOS R5" },
  });
  const good = { id: "7e8fe7ac-62b5-486c-a13c-3e667f7bbfc8", primaryAssetId: a, assets: [a, b] };
  let answer: unknown;
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => Response.json(answer, { status: 201 }),
  );
  const immich = clientFor(`http://127.0.0.1:${server.addr.port}/api`, "sk-test");
  answer = { ...good, assets: good.assets.map(member), tags: [] };
  const created = await immich.createStack([a, b]);
  assert.deepEqual(
    { id: created.id, primaryAssetId: created.primaryAssetId, assetIds: created.assetIds },
    { id: good.id, primaryAssetId: a, assetIds: [a, b] },
  );
  assert.deepEqual(created.updatedAt(), [a, b].map(() => Date.parse("2026-11-22T09:28:29.210Z")));
  const cases: [string, unknown, RegExp][] = [
    ["a member id that is no Immich id", {
      ...good,
      assets: [member(a), { ...member(b), id: "b" }],
    }, /shape: assets\.1\.id: is not an Immich id/],
    ["isArchived as text", {
      ...good,
      assets: [{ ...member(a), isArchived: "no" }, member(b)],
    }, /shape: assets\.0\.isArchived: /],
    ["updatedAt as null", {
      ...good,
      assets: [member(a), { ...member(b), updatedAt: null }],
    }, /shape: assets\.1\.updatedAt: /],
    [
      "no primaryAssetId",
      { id: good.id, assets: good.assets.map(member) },
      /shape: primaryAssetId: /,
    ],
    ["a member that is no object", { ...good, assets: [member(a), [b]] }, /shape: assets\.1: /],
    ["an array", [good], /shape: \(root\): /],
  ];
  for (const [name, malformed, message] of cases) {
    await t.step(name, async () => {
      answer = malformed;
      await assert.rejects(immich.createStack([a, b]), message);
    });
  }
});

Deno.test("deleteStack() counts Not found on a retry as done", async () => {
  let calls = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    calls++;
    // The first attempt deleted the stack, but its answer was lost.
    return calls === 1
      ? Response.json({ message: "Internal server error" }, { status: 500 })
      : Response.json({ message: "Not found or no stack.delete access" }, { status: 400 });
  });
  const immich = clientFor(`http://127.0.0.1:${server.addr.port}/api`, "key");
  try {
    await immich.deleteStack("88a1171d-cbe9-4f15-9a84-a1b504fb9a22");
    assert.equal(calls, 2);
  } finally {
    immich.close();
    await server.shutdown();
  }
});

Deno.test("findUnlistedMembers() finds trashed and hidden stack members and the stacks that may hide more", async (t) => {
  for (const version of VERSIONS) {
    await t.step(version, async () => {
      const made: Record<string, string> = {};
      await using lib = await library(version, (server, user) => {
        const assets = server.addAssets(
          user.id,
          ["a", "b", "t", "h", "x", "y", "lone", "gone", "free"].map((name) => ({
            originalFileName: `${name}.jpg`,
          })),
        );
        for (const asset of assets) made[asset.originalFileName] = asset.id;
        const id = (name: string) => made[`${name}.jpg`];
        made.named = server.addStack(user.id, [id("a"), id("b"), id("t"), id("h")]).id;
        made.unnamed = server.addStack(user.id, [id("lone"), id("gone")]).id;
        made.plain = server.addStack(user.id, [id("x"), id("y")]).id;
        server.updateAsset(id("t"), { isTrashed: true });
        server.updateAsset(id("h"), { visibility: "hidden" });
        server.updateAsset(id("gone"), { isTrashed: true });
        server.updateAsset(id("free"), { isTrashed: true });
      });
      const stacks = await lib.immich.listStacks();
      const found = await lib.immich.findUnlistedMembers(stacks);
      assert.deepEqual(
        [...found.members].sort((p, q) => p.originalFileName.localeCompare(q.originalFileName)),
        [
          { id: made["h.jpg"], originalFileName: "h.jpg", stackId: made.named, trashed: false },
          { id: made["t.jpg"], originalFileName: "t.jpg", stackId: made.named, trashed: true },
        ],
      );
      // gone.jpg's stack has no timeline member besides its primary: Immich names none.
      assert.deepEqual(found.unseenStackIds, [made.unnamed]);
      assert.ok(
        lib.server.requests.every((r) => r.method === "GET" || r.path === "/search/metadata"),
      );
    });
  }
});

Deno.test("findUnlistedMembers() of cached stacks reads again a stack whose trashed cover is one no longer", async () => {
  const made: Record<string, string> = {};
  await using lib = await library("3.1.0", (server, user) => {
    const [a, b] = server.addAssets(user.id, [
      { originalFileName: "a.jpg" },
      { originalFileName: "b.jpg" },
    ]);
    made.a = a.id;
    made.b = b.id;
    made.stack = server.addStack(user.id, [a.id, b.id]).id;
    // In Immich's web page: b becomes the cover, then a goes to the trash.
    server.setStackPrimary(user.id, made.stack, b.id);
    server.updateAsset(a.id, { isTrashed: true });
  });
  // The cache still has a as the cover.
  const cached = [{ id: made.stack, primaryAssetId: made.a, assetIds: [made.a, made.b] }];
  const trusted = await lib.immich.findUnlistedMembers(cached);
  assert.deepEqual(trusted.unseenStackIds, []);
  assert.equal(trusted.members[0]?.stackId, made.stack);
  const checked = await lib.immich.findUnlistedMembers(cached, { cachedCovers: true });
  // As a full pass: Immich names no stack for a (b, the cover, is its only other member), so
  // the stack, read again, may hide it.
  assert.deepEqual(checked.members, []);
  assert.deepEqual(checked.unseenStackIds, [made.stack]);
  assert.deepEqual(checked.refreshed, [
    { id: made.stack, primaryAssetId: made.b, assetIds: [made.b] },
  ]);
});

Deno.test("stackWithPrimary() and fileNames() read one stack and file names", async () => {
  const made: string[] = [];
  await using lib = await library("3.1.0", (server, user) => {
    const [a, b] = server.addAssets(user.id, [
      { originalFileName: "a.jpg" },
      { originalFileName: "b.jpg" },
    ]);
    made.push(server.addStack(user.id, [a.id, b.id]).id, a.id, b.id);
  });
  const [stackId, a, b] = made;
  assert.deepEqual(await lib.immich.stackWithPrimary(a), {
    id: stackId,
    primaryAssetId: a,
    assetIds: [a, b],
  });
  assert.equal(await lib.immich.stackWithPrimary(b), undefined);
  const missing = crypto.randomUUID();
  assert.deepEqual(await lib.immich.fileNames([b, missing]), new Map([[b, "b.jpg"]]));
});

Deno.test("parseJsonObjectArray() splits an array at any chunk boundary", async () => {
  const value = [
    { id: "a", text: 'quote " brace } bracket ] back\\slash', nested: { list: [1, { x: "}" }] } },
    {},
    { id: "é😀", escapes: '\\"\\\\\n\t\u0001', primaryAssetId: "b", assets: [] },
  ];
  const text = ` \n[ ${JSON.stringify(value[0])} ,\n${JSON.stringify(value[1])},${
    JSON.stringify(value[2])
  } ]\n`;
  const bytes = new TextEncoder().encode(text);
  for (let split = 0; split <= bytes.length; split++) {
    const chunks = [bytes.subarray(0, split), bytes.subarray(split)];
    assert.deepEqual(await Array.fromAsync(parseJsonObjectArray(chunks)), value, `split ${split}`);
  }
  const single = Array.from(bytes, (byte) => Uint8Array.of(byte));
  assert.deepEqual(await Array.fromAsync(parseJsonObjectArray(single)), value);
  assert.deepEqual(
    await Array.fromAsync(parseJsonObjectArray([new TextEncoder().encode("[]")])),
    [],
  );
});

Deno.test("parseJsonObjectArray() reads values nested below nullBelow as null, at any chunk boundary", async () => {
  const member = (id: string) => ({
    id,
    name: 'a "}] name',
    exifInfo: { make: "}{", lens: { model: "]" } },
    people: [{ name: "[" }, []],
    tags: [],
    rating: null,
  });
  const value = [
    { id: "s1", primaryAssetId: "a", assets: [member("a"), member("b")], nested: { deep: [1] } },
    { id: "s2", assets: [] },
  ];
  const text = `[${JSON.stringify(value[0])},${JSON.stringify(value[1])}]`;
  const expected = [
    {
      ...value[0],
      assets: ["a", "b"].map((id) => ({
        ...member(id),
        exifInfo: null,
        people: null,
        tags: null,
      })),
    },
    value[1],
  ];
  const bytes = new TextEncoder().encode(text);
  for (let split = 0; split <= bytes.length; split++) {
    const chunks = [bytes.subarray(0, split), bytes.subarray(split)];
    assert.deepEqual(
      await Array.fromAsync(parseJsonObjectArray(chunks, { nullBelow: 3 })),
      expected,
      `split ${split}`,
    );
  }
  const single = Array.from(bytes, (byte) => Uint8Array.of(byte));
  assert.deepEqual(
    await Array.fromAsync(parseJsonObjectArray(single, { nullBelow: 3 })),
    expected,
  );
});

Deno.test("parseJsonObjectArray() rejects what is not an array of objects", async (t) => {
  for (
    const text of [
      "",
      "{}",
      "[1]",
      '[{"a":1},]',
      '[{"a":1}{"b":2}]',
      '[{"a":1}',
      '[{"a":"}]',
      "[] x",
      "<html>",
    ]
  ) {
    await t.step(JSON.stringify(text), async () => {
      await assert.rejects(
        Array.fromAsync(parseJsonObjectArray([new TextEncoder().encode(text)])),
        SyntaxError,
      );
    });
  }
});

Deno.test("me() and listStacks() explain an HTML answer when API_URL lacks /api", async () => {
  await using lib = await library("3.1.0");
  const immich = clientFor(lib.server.origin, lib.key);
  try {
    const expected = (path: string) =>
      `Cannot use the answer of GET ${path} as it is an HTML page, not JSON ` +
      `(API_URL probably lacks /api): current value is ${lib.server.origin}`;
    await assert.rejects(immich.me(), {
      name: "InvalidResponseError",
      message: expected("/users/me"),
    });
    await assert.rejects(immich.listStacks(), {
      name: "InvalidResponseError",
      message: expected("/stacks"),
    });
  } finally {
    immich.close();
  }
});
