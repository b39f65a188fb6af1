/**
 * A cache that cannot be trusted is not used, and one that cannot be written stops nothing,
 * through the real CLI against the Immich test server: a dropped line or a block of NULs in the
 * middle of any file of the cache (header, body, delta, plan) makes the next pass full and says
 * why; a disk that refuses the cache's files (EFBIG under `ulimit -f`, which needs no
 * privileges) costs one warning, and the pass goes on (docs/state.md, "The cache").
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "./_cli.ts";
import { adaWithState, addPairs, cli, lines, passOf } from "./_state_cli.ts";
import { propertyCases } from "./_property_cases.ts";

/** The file of the cache whose name ends so (one cache, one generation). */
async function cacheFile(state: string, suffix: string): Promise<string> {
  const dir = join(state, "cache");
  const names = (await Array.fromAsync(Deno.readDir(dir))).map((entry) => entry.name);
  const found = names.filter((name) => name.endsWith(suffix));
  assert.equal(found.length, 1, names.join(", "));
  return join(dir, found[0]);
}

/** Damages the middle of a file: drops its middle line, or writes NULs over its middle. */
async function damage(path: string, how: "drop" | "nul"): Promise<void> {
  const bytes = await Deno.readFile(path);
  const text = new TextDecoder().decode(bytes);
  if (how === "drop") {
    const all = text.split("\n");
    const middle = Math.floor((all.length - 1) / 2);
    await Deno.writeTextFile(path, [...all.slice(0, middle), ...all.slice(middle + 1)].join("\n"));
    return;
  }
  // A block of NULs, as a power cut leaves where a page was not written; past the first line
  // of a file of many.
  const middle = Math.floor(bytes.length / 2) - 8;
  const first = text.indexOf("\n") + 1;
  const from = first < bytes.length ? Math.max(first, middle) : middle;
  bytes.fill(0, from, Math.min(from + 16, bytes.length - 1));
  await Deno.writeFile(path, bytes);
}

/**
 * Each file of the cache with each damage; by default every other one, so that each file and each
 * damage is met, every one in `deno task test:full`.
 */
const EVERY_DAMAGE = [
  [".body", "drop"],
  [".body", "nul"],
  [".plan", "nul"],
  [".plan", "drop"],
  [".delta", "drop"],
  [".delta", "nul"],
  [".json", "nul"],
  [".json", "drop"],
] as const;
const DAMAGES = propertyCases(EVERY_DAMAGE.length, { sample: 4 }).seeds
  .map((seed) => EVERY_DAMAGE[seed - 1]);

Deno.test("main.ts runs a full pass when a file of the cache has a dropped line or a block of NULs in its middle, and says why", async () => {
  await using test = await adaWithState(40);
  const { server, user, env, state } = test;
  assert.equal((await cli(env)).code, 0);
  let pairs = 40;
  for (const [suffix, how] of DAMAGES) {
    // A pass that writes three stacks: a delta of three lines, a new body and plan.
    addPairs(server, user.id, pairs, 3);
    pairs += 3;
    const written = await cli(env);
    assert.equal(passOf(written), "incremental", written.stdout);
    await damage(await cacheFile(state, suffix), how);
    const next = await cli(env);
    assert.equal(next.code, 0, next.stdout + next.stderr);
    assert.match(
      passOf(next),
      /^full: the cache cannot be read: .*(is damaged|is not JSON)/,
      `${suffix} ${how}`,
    );
  }
  assert.equal(server.stacks(user.id).length, pairs);
  assert.equal(passOf(await cli(env)), "incremental");
});

Deno.test("main.ts goes on with one warning when the disk refuses the cache during an incremental pass, and the next pass is full", async () => {
  await using test = await adaWithState(5);
  const { server, user, env } = test;
  // Many photos that group with nothing: a body of some 40 KB beside a journal of six stacks.
  const start = Date.parse("2024-06-01T10:00:00.000Z");
  server.addAssets(
    user.id,
    Array.from({ length: 400 }, (_, i) => ({
      originalFileName: `SOLO_${String(i).padStart(4, "0")}.jpg`,
      localDateTime: new Date(start + i * 3_600_000).toISOString(),
    })),
  );
  assert.equal((await cli(env)).code, 0);
  addPairs(server, user.id, 5, 1);

  const limited = await runCli({ env: { LOG_FORMAT: "json", ...env }, fileSizeLimitKiB: 16 });
  await Deno.remove(limited.cwd, { recursive: true });
  assert.equal(limited.code, 0, limited.stdout + limited.stderr);
  assert.equal(passOf(limited), "incremental");
  const warnings = lines(limited.stdout).filter((line) => line.level === "warn");
  assert.deepEqual(warnings.map((line) => line.msg.replace(/: .*; /, ": …; ")), [
    "Cannot write the cache of incremental passes: …; the next pass reads everything",
  ]);
  assert.match(warnings[0].msg, /File too large/);
  assert.equal(server.stacks(user.id).length, 6);

  const next = await cli(env);
  assert.equal(next.code, 0, next.stdout + next.stderr);
  assert.equal(
    passOf(next),
    "full: the last pass did not finish cleanly: its cache could not be written",
  );
  assert.equal(passOf(await cli(env)), "incremental");
});
