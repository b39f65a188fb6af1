import assert from "node:assert/strict";
import { join } from "node:path";
import type { Stack } from "../src/model.ts";
import { parseBackup } from "../src/state/backup.ts";
import { openStateFolder, type RunStart, StateError } from "../src/state/folder.ts";
import { cacheFilesOf } from "../src/state/cache.ts";
import { readStoredPlan, writeStoredPlan } from "../src/state/cache_plan.ts";
import {
  JournalError,
  journalWrites,
  readJournal,
  type StacksAsRead,
  UserJournal,
} from "../src/state/journal.ts";

const USER = { id: "u1", name: "Ada" };
const NO_STACKS: StacksAsRead = { stacks: [], fileNames: new Map() };

function start(now: () => Date = () => new Date("2026-11-23T10:15:00.123Z")): RunStart {
  return { command: "run", server: "http://immich/api", stacksync: "1.0.0", now };
}

/** A writer that makes stacks s1, s2, … and records what it was asked. */
function fakeWriter(calls: string[] = []) {
  let n = 0;
  return {
    calls,
    createStack: (ids: readonly string[]): Promise<Stack> => {
      calls.push(`create ${ids}`);
      return Promise.resolve({ id: `s${++n}`, primaryAssetId: ids[0], assetIds: [...ids] });
    },
    updateStackPrimary: (id: string, primary: string): Promise<Stack> => {
      calls.push(`update ${id}`);
      return Promise.resolve({ id, primaryAssetId: primary, assetIds: [primary] });
    },
    deleteStack: (id: string): Promise<void> => {
      calls.push(`delete ${id}`);
      return Promise.resolve();
    },
    stackWithPrimary: (): Promise<Stack | undefined> => Promise.resolve(undefined),
    trashAssets: (ids: readonly string[]): Promise<void> => {
      calls.push(`trash ${ids}`);
      return Promise.resolve();
    },
    restoreAssets: (ids: readonly string[]): Promise<void> => {
      calls.push(`restore ${ids}`);
      return Promise.resolve();
    },
  };
}

async function withFolder(test: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "stacksync_state_unit_" });
  try {
    await test(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("journalWrites() records each write before it is sent and its outcome after", async () => {
  await withFolder(async (dir) => {
    const state = await openStateFolder(dir, { write: true });
    const run = await state.startRun(start());
    const stacks: StacksAsRead = {
      stacks: [{ id: "old", primaryAssetId: "a", assetIds: ["a", "b"] }],
      fileNames: new Map([["a", "A.jpg"]]),
    };
    const journal = run.forUser(USER, stacks);
    const path = join(dir, "runs", run.id, "u1.jsonl");
    const seen: string[] = [];
    const inner = fakeWriter();
    const writer = journalWrites({
      ...inner,
      createStack: async (ids) => {
        // The intent is in the file (the OS has it) while the write is on its way.
        const last = (await Deno.readTextFile(path)).trimEnd().split("\n").at(-1)!;
        seen.push(JSON.parse(last).type);
        return inner.createStack(ids);
      },
      deleteStack: () => Promise.reject(new Error("API request failed: 500")),
    }, journal);
    assert.equal(journal.opened, false);
    await writer.createStack(["a", "b", "c"]);
    await assert.rejects(writer.deleteStack("old"), /500/);
    await journal.close();
    assert.deepEqual(seen, ["intent"]);

    const contents = await readJournal(`${path}.gz`);
    assert.deepEqual(contents.stacks, [{
      id: "old",
      primaryAssetId: "a",
      assets: [{ id: "a", originalFileName: "A.jpg" }, { id: "b" }],
    }]);
    assert.ok(contents.stacksComplete);
    assert.deepEqual(contents.writes, [
      {
        seq: 1,
        intent: { op: "create", assetIds: ["a", "b", "c"] },
        outcome: {
          status: "done",
          stack: { id: "s1", primaryAssetId: "a", assetIds: ["a", "b", "c"] },
        },
      },
      {
        seq: 2,
        intent: { op: "delete", stackId: "old" },
        outcome: { status: "failed", error: "API request failed: 500" },
      },
    ]);
    const { found } = await state.journals();
    assert.deepEqual(found.map((journal) => journal.summary.counts), [
      {
        created: 1,
        updated: 0,
        deleted: 0,
        trashed: 0,
        restored: 0,
        failed: 1,
        unknown: 0,
        changedSince: 0,
        notDone: 0,
      },
    ]);
    assert.equal(found[0].summary.finishedAt, "2026-11-23T10:15:00.123Z");
  });
});

Deno.test("journalWrites() sends no write it cannot record, and says so once", async () => {
  await withFolder(async (dir) => {
    await Deno.writeTextFile(join(dir, "blocker"), "a file, not a folder");
    const journal = new UserJournal({
      path: join(dir, "blocker", "u1.jsonl"),
      summaryPath: join(dir, "blocker", "u1.json"),
      header: {
        run: "r",
        command: "run",
        startedAt: "t",
        server: "s",
        user: USER,
        stacksync: "1",
      },
      compress: () => Promise.resolve(),
      now: () => new Date(),
    }, NO_STACKS);
    const inner = fakeWriter();
    const failures: JournalError[] = [];
    const writer = journalWrites(inner, journal, { onFailure: (error) => failures.push(error) });
    await assert.rejects(writer.createStack(["a", "b"]), JournalError);
    await assert.rejects(writer.deleteStack("s"), JournalError);
    assert.deepEqual(inner.calls, []);
    assert.equal(failures.length, 1);
    assert.match(failures[0].message, /^Cannot write the journal .*blocker\/u1\.jsonl: /);
  });
});

Deno.test("readJournal() ignores a torn last line and reports a write without outcome as unknown", async () => {
  await withFolder(async (dir) => {
    const path = join(dir, "j.jsonl");
    const header = {
      type: "journal",
      format: "stacksync-journal",
      version: 1,
      run: "r1",
      command: "run",
      startedAt: "t",
      server: "s",
      user: USER,
      stacksync: "1",
    };
    const records = [
      header,
      { type: "stacks-end", count: 0 },
      { type: "intent", seq: 1, op: "update-primary", stackId: "s1", primaryAssetId: "b" },
    ];
    const text = records.map((r) => JSON.stringify(r)).join("\n");
    await Deno.writeTextFile(path, `${text}\n{"type":"done","se`);
    const contents = await readJournal(path);
    assert.deepEqual(contents.writes.map((w) => w.outcome), [{ status: "unknown" }]);
    assert.equal(contents.summary.finishedAt, undefined);
    assert.equal(contents.summary.counts.unknown, 1);

    await Deno.writeTextFile(path, `${text}\nnot json\n{"type":"stacks-end","count":0}\n`);
    await assert.rejects(readJournal(path), {
      name: "SyntaxError",
      message: `Cannot read the journal ${path}: line 4 is not JSON`,
    });
    await Deno.writeTextFile(path, JSON.stringify({ ...header, version: 2 }) + "\n");
    await assert.rejects(readJournal(path), {
      name: "RangeError",
      message: `Cannot read ${path} as a newer stacksync wrote it (format version 2, this one ` +
        "reads up to 1): upgrade stacksync",
    });
  });
});

Deno.test("openStateFolder() finishes the journal of a killed run but not one still being written", async () => {
  await withFolder(async (dir) => {
    const state = await openStateFolder(dir, { write: true });
    let clock = Date.parse("2026-11-23T10:15:00.000Z");
    const now = () => new Date(clock);
    const running = await state.startRun(start(now));
    const journal = running.forUser(USER, NO_STACKS);
    await journalWrites(fakeWriter(), journal).createStack(["a", "b"]);
    // A run killed after the same write left the same file, that nobody holds.
    const killed = "20261123-101400-000";
    const text = await Deno.readTextFile(join(dir, "runs", running.id, "u1.jsonl"));
    await Deno.mkdir(join(dir, "runs", killed));
    await Deno.writeTextFile(
      join(dir, "runs", killed, "u1.jsonl"),
      text.replaceAll(running.id, killed),
    );
    clock += 1000;

    await openStateFolder(dir, { write: true });
    const names = async (run: string) =>
      (await Array.fromAsync(Deno.readDir(join(dir, "runs", run)))).map((e) => e.name).sort();
    assert.deepEqual(await names(killed), ["u1.json", "u1.jsonl.gz"]);
    // The run still writing keeps its plain journal.
    assert.deepEqual(await names(running.id), ["u1.jsonl"]);
    const summaries = (await state.journals()).found.map((j) => j.summary);
    assert.deepEqual(summaries.map((s) => [s.run, s.finishedAt, s.counts.created]), [
      [killed, undefined, 1],
      [running.id, undefined, 1],
    ]);
    await journal.close();
    assert.deepEqual(await names(running.id), ["u1.json", "u1.jsonl.gz"]);
  });
});

Deno.test("StateFolder.startRun() gives ids in start order, even within one millisecond", async () => {
  await withFolder(async (dir) => {
    const state = await openStateFolder(dir, { write: true });
    const same = () => new Date("2026-11-23T10:15:00.123Z");
    const ids = [];
    for (let i = 0; i < 3; i++) {
      const run = await state.startRun(start(same));
      await journalWrites(fakeWriter(), run.forUser(USER, NO_STACKS)).deleteStack("s");
      ids.push(run.id);
    }
    assert.deepEqual(ids, ["20261123-101500-123", "20261123-101500-124", "20261123-101500-125"]);
  });
});

Deno.test("StateFolder.prune() keeps the newest runs, and those younger than the days", async () => {
  await withFolder(async (dir) => {
    const state = await openStateFolder(dir, { write: true });
    let clock = Date.parse("2026-11-23T10:00:00.000Z");
    for (let i = 0; i < 5; i++) {
      const run = await state.startRun(start(() => new Date(clock)));
      const journal = run.forUser(USER, NO_STACKS);
      await journalWrites(fakeWriter(), journal).deleteStack("s");
      await journal.close();
      clock += 60_000;
    }
    // A day and a moment before the third run started: one day of retention keeps three.
    const after = (minutes: number) => new Date(Date.parse("2026-11-24T10:00:00.000Z") + minutes);
    await state.prune({ keep: 1, days: 1 }, after(2 * 60_000 - 1));
    const runs = async () => (await state.journals()).found.map((j) => j.summary.run);
    assert.deepEqual(await runs(), [
      "20261123-100200-000",
      "20261123-100300-000",
      "20261123-100400-000",
    ]);
    await state.prune({ keep: 2, days: 1 }, after(60 * 60_000));
    assert.deepEqual(await runs(), ["20261123-100300-000", "20261123-100400-000"]);
  });
});

Deno.test("openStateFolder() refuses a marker of a newer or of no stacksync", async () => {
  await withFolder(async (dir) => {
    const marker = join(dir, "stacksync-state.json");
    await Deno.writeTextFile(marker, "{}");
    await assert.rejects(openStateFolder(dir, { write: false }), {
      name: "StateError",
      message: `Cannot use STATE_DIR ${dir} as its stacksync-state.json is not a stacksync state ` +
        "marker",
    });
    await Deno.writeTextFile(marker, '{"format":"stacksync-state","version":3}');
    await assert.rejects(openStateFolder(dir, { write: true }), StateError);
  });
});

Deno.test("parseBackup() refuses what is no stacksync backup, naming the problem", async (t) => {
  const valid = {
    format: "stacksync-backup",
    version: 1,
    createdAt: "t",
    server: "s",
    stacksync: "1",
    users: [{
      id: "u1",
      name: "Ada",
      stacks: [{ id: "s1", primaryAssetId: "a", assets: [{ id: "a" }, { id: "b" }] }],
    }],
  };
  const cases: [string, string, string | RegExp][] = [
    ["not JSON", "{", /^Cannot read the backup b\.json as it is not JSON: /],
    [
      "a newer version",
      JSON.stringify({ ...valid, version: 2 }),
      "Cannot read the backup b.json as a newer stacksync wrote it (format version 2, this one " +
      "reads up to 1): upgrade stacksync",
    ],
    [
      "another format",
      JSON.stringify({ ...valid, format: "restic" }),
      /^Cannot read the backup b\.json as it is not a stacksync backup: format: /,
    ],
    [
      "a primary not first",
      JSON.stringify({
        ...valid,
        users: [{
          ...valid.users[0],
          stacks: [{ ...valid.users[0].stacks[0], primaryAssetId: "b" }],
        }],
      }),
      "Cannot read the backup b.json as it is not a stacksync backup: users.0.stacks.0: the " +
      "first asset of a stack must be its primary",
    ],
  ];
  for (const [name, text, message] of cases) {
    await t.step(name, () => assert.throws(() => parseBackup(text, "b.json"), { message }));
  }
  assert.equal(parseBackup(JSON.stringify(valid), "b.json").users[0].stacks.length, 1);
});

Deno.test("openStateFolder() drops a journal killed before its first record was written", async () => {
  await withFolder(async (dir) => {
    const run = join(dir, "runs", "20261123-101500-000");
    await Deno.mkdir(run, { recursive: true });
    await Deno.writeTextFile(join(run, "u1.jsonl"), "");
    const reader = await openStateFolder(dir, { write: false });
    assert.deepEqual(await reader.journals(), { found: [], unreadable: [] });
    await openStateFolder(dir, { write: true });
    assert.deepEqual(await Array.fromAsync(Deno.readDir(run)), []);
  });
});

Deno.test("journalWrites() records moves to and from the trash, counted by photo", async () => {
  await withFolder(async (dir) => {
    const state = await openStateFolder(dir, { write: true });
    const run = await state.startRun({ ...start(), command: "fix-trash" });
    const journal = run.forUser(USER, NO_STACKS);
    const writer = journalWrites(fakeWriter(), journal);
    await writer.trashAssets(["a", "b"]);
    await writer.restoreAssets(["a"]);
    await journal.close();
    const [found] = (await state.journals()).found;
    assert.equal(found.summary.command, "fix-trash");
    assert.deepEqual([found.summary.counts.trashed, found.summary.counts.restored], [2, 1]);
    const { writes } = await state.read(found);
    assert.deepEqual(writes.map((write) => write.intent), [
      { op: "trash", assetIds: ["a", "b"] },
      { op: "restore", assetIds: ["a"] },
    ]);
  });
});

Deno.test("writeStoredPlan() writes a plan of many entries that readStoredPlan() reads back as it was", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const files = cacheFilesOf(dir, "http://immich/api", "u1", { CRITERIA: "[]" });
    const inSync = Array.from({ length: 5000 }, (_, i) => ({
      stackId: `s${i}`,
      groupKey: `IMG_${i}|"quoted"\t\\\n#`,
      key: `IMG_${i}|"quoted"\t\\\n#`,
      first: i === 7 ? "" : `a${i}`,
    }));
    // A place whose key is not the group key is kept as it is.
    inSync[3] = { ...inSync[3], key: "other" };
    const needsReplace = [{
      stackIds: ["s9", "s10"],
      assetIds: ["a1", "a2"],
      reason: "member-in-trash" as const,
      context: { groupKey: "IMG_9\t", assets: [{ id: "a1", originalFileName: "IMG_9.jpg" }] },
      key: "IMG_9\t",
      first: "a1",
    }];
    const plan = {
      entries: { inSync, needsReplace, volatile: ["s1", "s2"] },
      skippedAssets: { "invalid-time": 2 },
    };
    await writeStoredPlan(files, "g1", plan);
    assert.deepEqual(await readStoredPlan(files, "g1"), plan);
    assert.equal(await readStoredPlan(files, "g2"), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readStoredPlan() refuses a plan file cut short or of the JSON form of cache version 1", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const files = cacheFilesOf(dir, "http://immich/api", "u1", { CRITERIA: "[]" });
    const entries = {
      inSync: [{ stackId: "s1", groupKey: "k", key: "k", first: "a1" }],
      needsReplace: [],
      volatile: [],
    };
    await writeStoredPlan(files, "g1", { entries, skippedAssets: {} });
    const [name] = [...Deno.readDirSync(files.dir)].map((entry) => entry.name);
    const path = join(files.dir, name);
    const text = await Deno.readTextFile(path);
    await Deno.writeTextFile(path, text.slice(0, text.indexOf("#end")));
    await assert.rejects(() => readStoredPlan(files, "g1"), SyntaxError);
    await Deno.writeTextFile(path, JSON.stringify({ skippedAssets: {}, entries }));
    await assert.rejects(() => readStoredPlan(files, "g1"), SyntaxError);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
