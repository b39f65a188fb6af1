/**
 * The state folder's user locks (src/state/lock.ts): one holder per user, a second process
 * refused with the holder's words or waiting for it, and journals of a held user left alone by
 * the folder's recovery (docs/state.md, "One process at a time").
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { openStateFolder } from "../src/state/folder.ts";
import { LockedError, type LockOptions, UserLocks } from "../src/state/lock.ts";

const SINCE = new Date("2026-11-23T10:15:00.000Z");

function locks(dir: string, options: Partial<LockOptions> = {}): UserLocks {
  return new UserLocks(dir, {
    command: "stacksync run",
    wait: false,
    sleep: () => Promise.resolve(),
    now: () => SINCE,
    ...options,
  });
}

Deno.test("UserLocks refuses a held user with the holder's pid, command and time, and lets other users go on", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const held = await locks(dir).take("u1");
    await assert.rejects(
      locks(dir, { command: "stacksync undo" }).take("u1"),
      (error: unknown) => {
        assert.ok(error instanceof LockedError);
        assert.equal(
          error.message,
          "Cannot process this user while another stacksync process does: pid " +
            `${Deno.pid} (stacksync run, since 2026-11-23T10:15:00.000Z) holds ` +
            join(dir, "locks", "u1.lock"),
        );
        return true;
      },
    );
    (await locks(dir).take("u2")).release();
    held.release();
    (await locks(dir).take("u1")).release();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("UserLocks waits for the holder, says so once, and stops waiting on the signal", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const held = await locks(dir).take("u1");
    const said: string[] = [];
    let sleeps = 0;
    const waiting = locks(dir, {
      wait: true,
      sleep: () => {
        if (++sleeps === 3) held.release();
        return Promise.resolve();
      },
    });
    const taken = await waiting.take("u1", { waiting: (holder) => said.push(holder) });
    assert.equal(sleeps, 3);
    assert.deepEqual(said, [
      `pid ${Deno.pid} (stacksync run, since 2026-11-23T10:15:00.000Z)`,
    ]);

    const stop = new AbortController();
    const stopped = locks(dir, {
      wait: true,
      sleep: (_ms, signal) => {
        stop.abort(new Error("SIGTERM"));
        return Promise.reject(signal?.reason);
      },
    });
    await assert.rejects(stopped.take("u1", { signal: stop.signal }), /SIGTERM/);
    taken.release();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openStateFolder() leaves the journal of a user another process holds, and finishes it once free", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await openStateFolder(dir, { write: true });
    // A journal just created, before its first record: a killed run's, unless its user is held.
    const journal = join(dir, "runs", "20261123-101500-000", "u1.jsonl");
    await Deno.mkdir(join(dir, "runs", "20261123-101500-000"));
    await Deno.writeTextFile(journal, "");
    const held = await locks(dir).take("u1");
    await openStateFolder(dir, { write: true });
    assert.ok((await Deno.stat(journal)).isFile);
    held.release();
    await openStateFolder(dir, { write: true });
    await assert.rejects(Deno.stat(journal), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openStateFolder() makes a new folder when several processes open it at once", async () => {
  for (let round = 0; round < 10; round++) {
    const dir = await Deno.makeTempDir();
    try {
      // Opened together, as by processes started together: each writes the marker its own way.
      const opened = Array.from(
        { length: 8 },
        () => openStateFolder(join(dir, "state"), { write: true }),
      );
      assert.equal((await Promise.all(opened)).length, 8);
      assert.deepEqual(
        (await Array.fromAsync(Deno.readDir(join(dir, "state")))).map((e) => e.name).sort(),
        ["runs", "stacksync-state.json"],
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
});

Deno.test("StateFolder.prune() keeps the newest runs with a journal, whatever the folders of runs that have written nothing", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const state = await openStateFolder(dir, { write: true });
    const run = (id: string) => join(dir, "runs", id);
    for (const id of ["20261123-101500-001", "20261123-101500-002", "20261123-101500-003"]) {
      await Deno.mkdir(run(id));
      await Deno.writeTextFile(join(run(id), "u1.jsonl.gz"), "");
    }
    // Folders made at a run's start: one older (killed before its first write), and the newest
    // (another process's run, which has not written yet).
    await Deno.mkdir(run("20261123-101500-000"));
    await Deno.mkdir(run("20261123-101500-004"));
    await state.prune({ keep: 2, days: 0 }, new Date("2026-11-24T00:00:00Z"));
    assert.deepEqual(
      (await Array.fromAsync(Deno.readDir(join(dir, "runs")))).map((e) => e.name).sort(),
      ["20261123-101500-002", "20261123-101500-003", "20261123-101500-004"],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
