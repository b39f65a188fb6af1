/**
 * The cache's recorder when its files cannot be written (src/state/cache_recorder.ts): the
 * writes it wraps still answer as the server did, it warns once, and the header it leaves makes
 * the next pass full and says why.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { getLogger, reset } from "@logtape/logtape";
import type { AnsweredStack } from "../src/api/stacks.ts";
import { cacheFilesOf, readCacheHeader, writeCacheHeader } from "../src/state/cache.ts";
import { CacheLoss, CacheRecorder } from "../src/state/cache_recorder.ts";
import { recordLogs } from "./_logs.ts";

const IDENTITY = {
  server: "http://immich/api",
  user: { id: "u1", name: "Ada" },
  stacksync: "0.1.0",
  settings: {},
  immich: "3.1.0",
};

const PLANNED = {
  generation: "g2",
  watermark: 1000,
  fullPassAt: 0,
  fullPassClock: 0,
  offsets: [0],
  counts: [2],
  recent: { count: 0, digest: "", since: 0 },
  sizes: { assets: 2, stacks: 0, groups: 1 },
  sums: {},
  skippedAssets: {},
};

Deno.test("CacheRecorder passes on every write's answer when its delta cannot be written, warns once, and marks the cache", async () => {
  const dir = await Deno.makeTempDir();
  const logs = await recordLogs();
  try {
    const files = cacheFilesOf(dir, IDENTITY.server, "u1", {});
    await writeCacheHeader(files, {
      ...IDENTITY,
      ...PLANNED,
      generation: "g1",
      deltaLines: 0,
      written: 0,
      steady: true,
    });
    // Where the delta belongs, a folder: no line of it can be written.
    await Deno.mkdir(join(files.dir, `${files.key}.g2.delta`));
    const log = getLogger(["stacksync", "test"]);
    const recorder = new CacheRecorder({
      files,
      record: true,
      loss: new CacheLoss(files, log),
      log,
      identity: IDENTITY,
      maxChanges: 5000,
    }, PLANNED);
    let created = 0;
    const answer = (ids: readonly string[]): AnsweredStack => ({
      id: `s${++created}`,
      primaryAssetId: ids[0],
      assetIds: [...ids],
      updatedAt: () => ids.map(() => 2000),
    });
    const writer = recorder.writes({
      createStack: (ids) => Promise.resolve(answer(ids)),
      updateStackPrimary: (id, primary) => Promise.resolve({ ...answer([primary]), id }),
      deleteStack: () => Promise.resolve(),
      stackWithPrimary: () => Promise.resolve(undefined),
      trashAssets: () => Promise.resolve(),
      restoreAssets: () => Promise.resolve(),
    });
    // 64 KB of answers, so that the delta tries to write more than once.
    for (let i = 0; i < 400; i++) {
      const stack = await writer.createStack([`a${i}-${"x".repeat(100)}`, `b${i}`]);
      assert.equal(stack.id, `s${i + 1}`);
    }
    await recorder.finish({ plan: { actions: [], inSync: [], needsReplace: [] }, outcomes: [] });

    const warnings = logs.filter((record) => record.level === "warning");
    assert.equal(warnings.length, 1);
    assert.match(String(warnings[0].message.join("")), /^Cannot write the cache/);
    const read = await readCacheHeader(files);
    assert.ok("header" in read);
    assert.equal(read.header.unfinished, "its cache could not be written");
  } finally {
    await reset();
    await Deno.remove(dir, { recursive: true });
  }
});
