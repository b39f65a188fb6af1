/**
 * MAX_STACK_DELETIONS as a property, through `main()` (the CLI's own code path) against the
 * Immich test server: seeded libraries of 20 to 140 shots, stacked by a first run, then a
 * CRITERIA change (time alone, a day, the name alone, the folder, edits joined) with random
 * REPLACE_STACKS, REMOVE_SINGLE_ASSET_STACKS and limits. From the same server state each time:
 * the pass without consent deletes no more stacks than the limit allows (it deletes none and
 * writes nothing when it stops); `--force` carries out the whole plan, as a run without the limit
 * did (a dry run's plan, to the stack), and ends where the pass without consent ends whenever
 * that pass was not stopped; a second pass then has nothing left to do.
 */
import assert from "node:assert/strict";
import { describeStacks, runMain } from "./_undo_library.ts";
import { type ImmichServer, startImmichServer, type TestAssetInput } from "./immich_server.ts";
import { type Random, seededRandom } from "./_random.ts";
import { fewest, propertyCases } from "./_property_cases.ts";

const CASES = 24;
/** A sample of the cases by default, every one in `deno task test:full`. */
const RUN = propertyCases(CASES, { sample: 8 });
const START = Date.parse("2024-05-01T10:00:00.000Z");

/** The CRITERIA a user may move to after the first run stacked with the default. */
const CRITERIA_CHANGES = [
  // Bursts by time: shots less than a second apart join.
  [{ key: "localDateTime", delta: { milliseconds: 1000 } }],
  // Everything within a day: one group.
  [{ key: "localDateTime", delta: { milliseconds: 86_400_000 } }],
  // The name alone, cut at `_`: every IMG_ photo in one group.
  [{ key: "originalFileName", split: { delimiters: ["_", "."], index: 0 } }],
  // By folder.
  [{ key: "originalPath", regex: { key: "^(.*)/", index: 1 } }],
  // Edits joined to their shot.
  [
    { key: "originalFileName", split: { delimiters: ["~", ".", "_edited"], index: 0 } },
    { key: "localDateTime", delta: { milliseconds: 1000 } },
  ],
].map((criteria) => JSON.stringify(criteria));

/** A limit in both forms, and whether it allows deleting `deleted` of `stacks`, said plainly. */
function randomLimit(random: Random): { text: string; allows: (d: number, n: number) => boolean } {
  if (random() < 0.5) {
    const count = [0, 5, 20, 40, 100][Math.floor(random() * 5)];
    return { text: String(count), allows: (deleted) => deleted <= count };
  }
  const percent = [1, 10, 25, 50][Math.floor(random() * 4)];
  return {
    text: `${percent}%`,
    allows: (deleted, stacks) => deleted <= 20 || deleted <= stacks * percent / 100,
  };
}

/** A user with shots of a JPEG and sometimes its RAW and edit, in folders of ten shots. */
function addLibrary(server: ImmichServer, random: Random, seed: number) {
  const user = server.addUser({ name: `Case ${seed}`, email: `case${seed}@example.test` });
  const key = server.addKey(user.id);
  const inputs: TestAssetInput[] = [];
  let time = START;
  const shots = 20 + Math.floor(random() * 120);
  for (let shot = 0; shot < shots; shot++) {
    // Some shots follow the last within a second (bursts), most a minute or more later.
    time += random() < 0.3 ? 200 + Math.floor(random() * 700) : 60_000 + random() * 3_600_000;
    const base = `IMG_${1000 + shot}`;
    const folder = `/photos/${Math.floor(shot / 10)}`;
    const names = [`${base}.jpg`, ...[".dng", "_edited.jpg"].filter(() => random() < 0.5)];
    for (const name of names.map((name) => name.startsWith(base) ? name : base + name)) {
      inputs.push({
        originalFileName: name,
        localDateTime: new Date(Math.round(time)).toISOString(),
        originalPath: `${folder}/${name}`,
      });
    }
  }
  const ids = server.addAssets(user.id, inputs).map((asset) => asset.id);
  return { userId: user.id, key, ids };
}

/** Stack deletions the server was asked for. */
function deletions(server: ImmichServer): number {
  return server.requests.filter((r) => r.method === "DELETE" && r.path.startsWith("/stacks/"))
    .length;
}

function stackWrites(server: ImmichServer): number {
  return server.requests.filter((r) =>
    r.path.startsWith("/stacks") && r.method !== "GET" && !r.path.startsWith("/search")
  ).length;
}

/**
 * The stacks a dry run's action lines say it would delete: each deletion's, and every stack a
 * replace names (a stack two replaces touch is deleted once). The summary counts the same.
 */
function plannedDeletions(lines: readonly Record<string, unknown>[]): number {
  const stacks = new Set<string>();
  for (const line of lines) {
    const match = /^\[DRY RUN\] Would (?:delete|replace) stack (.+)$/.exec(String(line.msg));
    for (const id of match?.[1].split(", ") ?? []) stacks.add(id);
  }
  const summary = lines.map((line) => String(line.msg)).find((msg) => msg.startsWith("Summary"));
  assert.match(summary ?? "", new RegExp(`, ${stacks.size} would be deleted, `));
  return stacks.size;
}

Deno.test(`main() never deletes more stacks than MAX_STACK_DELETIONS allows without consent, and --force does what the plan says, in ${RUN.seeds.length} of ${CASES} seeded cases`, async () => {
  const state = await Deno.makeTempDir({ prefix: "stacksync_deletion_property_" });
  let refusals = 0;
  let allowed = 0;
  try {
    for (const seed of RUN.seeds) {
      const random = seededRandom(seed);
      const server = await startImmichServer({ seed });
      try {
        const library = addLibrary(server, random, seed);
        // Stacks made by hand and single-asset stacks beside those the first run makes.
        for (let i = Math.floor(random() * 6); i > 0; i--) {
          const id = library.ids[Math.floor(random() * library.ids.length)];
          server.addStack(library.userId, [id, id]);
        }
        const base = { API_URL: server.url, API_KEY: library.key };
        const first = await runMain([], { ...base, MAX_STACK_DELETIONS: "100%" }, state);
        assert.equal(first.code, 0, first.stdout);

        const limit = randomLimit(random);
        const env = {
          ...base,
          CRITERIA: CRITERIA_CHANGES[Math.floor(random() * CRITERIA_CHANGES.length)],
          REPLACE_STACKS: String(random() < 0.7),
          REMOVE_SINGLE_ASSET_STACKS: String(random() < 0.3),
          MAX_STACK_DELETIONS: limit.text,
        };
        const context = `seed ${seed}: ${JSON.stringify(env)}`;
        const before = server.snapshot();
        const stacksBefore = server.stacks(library.userId).length;

        const dry = await runMain(["--force"], { ...env, DRY_RUN: "true" }, state);
        assert.equal(dry.code, 0, `${context}\n${dry.stdout}`);
        const planned = plannedDeletions(dry.lines);

        server.clearRequests();
        const unforced = await runMain([], env, state);
        const deletedUnforced = deletions(server);
        const afterUnforced = describeStacks(server.stacks(library.userId));
        const stopped = limit.allows(planned, stacksBefore) === false;
        if (stopped) {
          refusals++;
          assert.equal(unforced.code, 1, context);
          assert.equal(stackWrites(server), 0, context);
          assert.ok(
            unforced.lines.some((line) =>
              String(line.msg).includes(`Cannot delete ${planned} of the `)
            ),
            `${context}\n${unforced.stdout}`,
          );
        } else {
          allowed += planned > 0 ? 1 : 0;
          assert.equal(deletedUnforced, planned, context);
        }
        assert.ok(limit.allows(deletedUnforced, stacksBefore), context);

        server.restore(before);
        server.clearRequests();
        const forced = await runMain(["--force"], env, state);
        assert.equal(forced.code, 0, `${context}\n${forced.stdout}`);
        assert.equal(deletions(server), planned, context);
        const afterForced = describeStacks(server.stacks(library.userId));
        if (!stopped) assert.deepEqual(afterForced, afterUnforced, context);

        server.clearRequests();
        const again = await runMain(["--force"], env, state);
        assert.equal(again.code, 0, context);
        assert.equal(stackWrites(server), 0, `${context}\n${again.stdout}`);
      } finally {
        await server.close();
      }
    }
  } finally {
    await Deno.remove(state, { recursive: true });
  }
  // The cases are worth their name: some stopped, some deleted within the limit.
  assert.ok(
    refusals >= fewest(RUN, 3) && allowed >= fewest(RUN, 3),
    `${refusals} stopped, ${allowed} allowed`,
  );
});
