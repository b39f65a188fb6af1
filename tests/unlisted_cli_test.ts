/**
 * Trashed members of stacks through the real CLI, as a subprocess against the Immich test
 * server: a library whose trash holds more stacked members than the 1 000 lookups an earlier
 * stacksync allowed itself is processed whole (every stack the rules make is made, no hand-made
 * stack loses a member, a second pass writes nothing), and passes in a row that find nothing
 * changed cost the 7 requests of a quiet pass, trash or not: the stacks of trashed members are
 * kept with the cache and looked up again only when they move. A lookup the server fails leaves
 * as they are only the stacks that could hold its member (in process, so that retries do not wait).
 */
import assert from "node:assert/strict";
import type { ImmichServer, RecordedRequest } from "./immich_server.ts";
import { adaWithState, cli, type Line, lines, passIn, passOf } from "./_state_cli.ts";
import { runMain } from "./_undo_library.ts";

/** A photo of a shot: `IMG_<shot><ext>`, the shot's own minute. */
function shot(server: ImmichServer, userId: string, number: number, ext: string): string {
  const localDateTime = new Date(Date.UTC(2024, 5, 1, 8, number % 60, 0) + number * 3_600_000)
    .toISOString();
  return server.addAsset(userId, { originalFileName: `IMG_${number}${ext}`, localDateTime }).id;
}

/**
 * Hand-made stacks a new photo of the same shot would grow: one holding a trashed member
 * Immich names a stack for, one whose only other member is trashed (Immich names none), and one
 * without trash that does grow.
 *
 * @returns The stacks' members, primary first, and the photo the third one grows by.
 */
function handMadeShots(server: ImmichServer, userId: string) {
  const named = [".jpg", ".dng", ".tif"].map((ext) => shot(server, userId, 2000, ext));
  const unnamed = [".jpg", ".dng"].map((ext) => shot(server, userId, 3000, ext));
  const clean = [".jpg", ".dng"].map((ext) => shot(server, userId, 4000, ext));
  for (const members of [named, unnamed, clean]) server.addStack(userId, members);
  server.updateAsset(named[2], { isTrashed: true });
  server.updateAsset(unnamed[1], { isTrashed: true });
  // The new photos of the three shots, a minute later: a pass takes the newest photo it reads
  // for its time, and would read what changed after that again.
  server.advanceClock(60_000);
  for (const number of [2000, 3000]) shot(server, userId, number, ".heic");
  return { named, unnamed, clean, grownBy: shot(server, userId, 4000, ".heic") };
}

/** Whether some stack of the user holds every one of `members`. */
function kept(server: ImmichServer, userId: string, members: readonly string[]): boolean {
  return server.stacks(userId).some((stack) => members.every((id) => stack.assetIds.includes(id)));
}

const WRITES = new Set(["POST /stacks", "PUT", "DELETE", "PATCH"]);

function writes(requests: readonly RecordedRequest[]): RecordedRequest[] {
  return requests.filter((r) =>
    WRITES.has(r.method) || (r.method === "POST" && WRITES.has(`POST ${r.path}`))
  );
}

Deno.test("main.ts processes a library whose trash holds more stacked members than any lookup limit, and keeps every hand-made stack whole", async () => {
  await using lib = await adaWithState(10);
  const { server, user } = lib;
  // 1 001 stacks of photos no group holds, each with a member in the trash.
  const hand = server.addAssets(
    user.id,
    Array.from({ length: 3003 }, (_, i) => ({
      originalFileName: `HAND_${Math.floor(i / 3)}_${i % 3}.jpg`,
      localDateTime: new Date(Date.UTC(2023, 0, 1) + Math.floor(i / 3) * 60_000).toISOString(),
    })),
  );
  const handStacks: string[][] = [];
  for (let i = 0; i < hand.length; i += 3) {
    const members = [hand[i].id, hand[i + 1].id, hand[i + 2].id];
    server.addStack(user.id, members);
    handStacks.push(members);
    server.updateAsset(members[2], { isTrashed: true });
  }
  const shots = handMadeShots(server, user.id);
  // The trash is older than the pass: what changed just before a pass is read again by the next.
  server.advanceClock(3_600_000);
  server.clearRequests();

  const first = await cli(lib.env);
  assert.equal(first.code, 0, first.stdout + first.stderr);
  const logged = lines(first.stdout);
  assert.ok(!logged.some((line) => line.msg.startsWith("Skipping")), first.stdout);
  const lookups = server.requests.filter((r) => r.path.startsWith("/assets/")).length;
  assert.ok(lookups > 1000, `${lookups} lookups`);
  // Every pair stacked, and the stack without trash grown by the new photo.
  assert.equal(server.stacks(user.id).length, 1001 + 3 + 10);
  assert.ok(kept(server, user.id, [...shots.clean, shots.grownBy]));
  // No hand-made stack lost a member: those that hold trash were left as they are.
  for (const members of [...handStacks, shots.named, shots.unnamed]) {
    assert.ok(kept(server, user.id, members), `a stack lost one of ${members}`);
  }
  // The stack Immich names no stack for its trashed member is named in one line.
  const unnamedStack = server.stacks(user.id).find((s) => s.primaryAssetId === shots.unnamed[0])!;
  const left = logged.filter((line) => line.msg.startsWith("Immich does not name the stack"));
  assert.equal(left.length, 1, first.stdout);
  assert.equal(
    left[0].msg,
    "Immich does not name the stack of some trashed or hidden assets; stacks left as they are " +
      `because they could hold one: ${unnamedStack.id}`,
  );

  server.advanceClock(900_000);
  server.clearRequests();
  const second = await cli(lib.env);
  assert.equal(second.code, 0, second.stdout + second.stderr);
  assert.deepEqual(writes(server.requests), []);
  // The stacks of the trashed members were kept with the cache: none is looked up again.
  const trashed = new Set([...handStacks.map((members) => members[2]), shots.named[2]]);
  const again = server.requests.filter((r) => trashed.has(r.path.slice("/assets/".length)));
  assert.deepEqual(again, []);
});

Deno.test("main.ts passes that find nothing changed cost the requests of a quiet pass with trashed stack members too", async () => {
  await using lib = await adaWithState(5);
  const { server, user } = lib;
  handMadeShots(server, user.id);
  const kinds: string[] = [];
  const counts: number[] = [];
  for (let pass = 1; pass <= 5; pass++) {
    server.clearRequests();
    const result = await cli(lib.env);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    kinds.push(passOf(result));
    counts.push(server.requests.length);
    if (pass > 2) {
      assert.deepEqual(writes(server.requests), []);
      assert.ok(
        lines(result.stdout).some((line: Line) => line.msg.startsWith("Incremental pass: nothing")),
        result.stdout,
      );
    }
    // Cron's interval.
    server.advanceClock(900_000);
  }
  assert.deepEqual(kinds.slice(1), ["incremental", "incremental", "incremental", "incremental"]);
  assert.deepEqual(counts.slice(2), [7, 7, 7], JSON.stringify(counts));
});

Deno.test("main() leaves as they are only the stacks that could hold a member whose lookup fails, and asks again in the next pass", async () => {
  await using lib = await adaWithState(3);
  const { server, user } = lib;
  const shots = handMadeShots(server, user.id);
  const stacksBefore = server.stacks(user.id);
  server.setFaults({ routes: { "GET /assets/{id}": { status: 500 } } });
  const failed = await runMain([], lib.env, lib.state);
  assert.equal(failed.code, 0, failed.stdout);
  // The pairs are stacked; no stack grew, as any could hold the members not looked up.
  assert.equal(server.stacks(user.id).length, stacksBefore.length + 3);
  for (const stack of stacksBefore) {
    assert.deepEqual(server.stacks(user.id).find((s) => s.id === stack.id), stack);
  }
  const warned = failed.lines.filter((line) => String(line.msg).startsWith("Cannot look up"));
  assert.equal(warned.length, 1, failed.stdout);
  assert.match(
    String(warned[0].msg),
    /^Cannot look up the stack of 2 trashed or hidden assets: .*GET \/assets\/.*; stacks left as they are because they could hold one: /,
  );
  assert.deepEqual(
    [...(warned[0].stackIds as string[])].sort(),
    stacksBefore.map((stack) => stack.id).sort(),
  );

  server.setFaults({});
  server.advanceClock(900_000);
  const again = await runMain([], lib.env, lib.state);
  assert.equal(again.code, 0, again.stdout);
  assert.equal(passIn(again.lines, again.stdout).split(":")[0], "full");
  assert.ok(kept(server, user.id, [...shots.clean, shots.grownBy]));
  assert.ok(kept(server, user.id, shots.named) && kept(server, user.id, shots.unnamed));
});
