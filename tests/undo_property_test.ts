/**
 * `stacksync undo` puts back what a run changed, over hundreds of random libraries: the CLI in
 * process (`main()`, the binary's code path) against the Immich test server over real HTTP,
 * with and without injected faults. tests/undo_e2e_test.ts runs the CLI as a subprocess.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startImmichServer } from "./immich_server.ts";
import {
  addRandomLibrary,
  describeStacks,
  randomRunSettings,
  runMain,
  stackWrites,
} from "./_undo_library.ts";
import { seededRandom } from "./_random.ts";
import { fewest, propertyCases } from "./_property_cases.ts";

const CASES = 300;
/** A sample of the cases by default, every one in `deno task test:full`. */
const RUN = propertyCases(CASES, { sample: 30 });

Deno.test("stacksync undo puts back every stack a random run changed, and a second undo writes nothing", async () => {
  await using server = await startImmichServer();
  const root = await Deno.makeTempDir({ prefix: "stacksync_undo_test_" });
  const reasons = new Set<string>();
  const kinds = new Set<string>();
  try {
    for (const seed of RUN.seeds) {
      const library = addRandomLibrary(server, seed);
      library.kinds.forEach((kind) => kinds.add(kind));
      const settings = randomRunSettings(seededRandom(seed * 7919));
      // One write at a time: a route failing its first four attempts fails one write for good.
      const env = { API_URL: server.url, API_KEY: library.key, STACK_CONCURRENCY: "1" };
      const stateDir = join(root, `case-${seed}`);
      const context = `seed ${seed}, ${JSON.stringify(settings)}`;
      const before = describeStacks(server.stacks(library.userId), library.names);

      const run = await runMain([], { ...env, ...settings }, stateDir);
      assert.equal(run.code, 0, `${context}: ${run.stdout}${run.stderr}`);
      for (const line of run.lines) if (typeof line.reason === "string") reasons.add(line.reason);

      const undo = await runMain(["undo"], env, stateDir);
      assert.equal(undo.code, 0, `${context}: ${undo.stdout}${undo.stderr}`);
      assert.deepEqual(
        describeStacks(server.stacks(library.userId), library.names),
        before,
        `${context}: ${undo.stdout}`,
      );

      server.clearRequests();
      const again = await runMain(["undo"], env, stateDir);
      assert.equal(again.code, 0, `${context}: ${again.stdout}`);
      assert.deepEqual(stackWrites(server.requests), [], `${context}: ${again.stdout}`);
      server.clearRequests();
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
  // The random cases reach every kind of stack and every kind of change a run makes.
  assert.deepEqual([...kinds].sort(), [
    "as grouped",
    "made by hand",
    "missing member",
    "single-asset",
    "spanning two stacks",
    "wrong cover",
  ]);
  assert.deepEqual([...reasons].sort(), [
    "group-grew",
    "group-spans-stacks",
    "member-outside-group",
    "new-group",
    "primary-changed",
    "reset",
    "single-asset-stack",
  ]);
});

Deno.test("stacksync undo puts the stacks back within two tries while 10 % of requests fail", async () => {
  await using server = await startImmichServer();
  const root = await Deno.makeTempDir({ prefix: "stacksync_undo_test_" });
  let failedRuns = 0;
  let repeated = 0;
  try {
    for (const seed of RUN.seeds) {
      const library = addRandomLibrary(server, 10_000 + seed);
      const settings = randomRunSettings(seededRandom(seed * 104729));
      // One write at a time: a route failing its first four attempts fails one write for good.
      const env = { API_URL: server.url, API_KEY: library.key, STACK_CONCURRENCY: "1" };
      const stateDir = join(root, `case-${seed}`);
      const before = describeStacks(server.stacks(library.userId), library.names);
      // Half of the 5xx answers come after the server did the work; 2 % get no answer at all.
      // Retries hide most of them, so every third run also meets a deletion that fails every
      // attempt, and every third undo a creation that does.
      const rates = { seed, error5xxRate: 0.04, error5xxAfterWorkRate: 0.04, dropRate: 0.02 };
      const failing = (route: string) => ({ routes: { [route]: { status: 503, times: 4 } } });
      server.setFaults({ ...rates, ...(seed % 3 === 0 ? failing("DELETE /stacks/{id}") : {}) });
      const context = `seed ${seed}, ${JSON.stringify(settings)}`;

      const run = await runMain([], { ...env, ...settings }, stateDir);
      assert.ok([0, 1].includes(run.code), `${context}: ${run.stdout}${run.stderr}`);
      if (run.code === 1) failedRuns++;
      server.setFaults({ ...rates, ...(seed % 3 === 1 ? failing("POST /stacks") : {}) });
      const tries = [];
      do {
        const undo = await runMain(["undo"], env, stateDir);
        tries.push(undo);
        assert.ok([0, 1].includes(undo.code), `${context}: ${undo.stdout}${undo.stderr}`);
      } while (
        tries.length < 2 &&
        !isSame(describeStacks(server.stacks(library.userId), library.names), before)
      );
      if (tries.length > 1) repeated++;
      server.setFaults({});
      assert.deepEqual(
        describeStacks(server.stacks(library.userId), library.names),
        before,
        `${context}: ${tries.map((t) => t.stdout).join("\n")}`,
      );
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
  // The faults did hit: answers were lost, some runs failed and some undos had to be repeated.
  const statuses = new Set(stackWrites(server.requests).map((request) => request.status));
  assert.ok(statuses.has(0) && statuses.has(500) && statuses.has(503), [...statuses].join());
  assert.ok(failedRuns >= fewest(RUN, CASES / 10 + 1), `${failedRuns} runs failed`);
  assert.ok(repeated >= fewest(RUN, CASES / 10 + 1), `${repeated} undos were repeated`);
});

function isSame(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((line, i) => line === b[i]);
}
