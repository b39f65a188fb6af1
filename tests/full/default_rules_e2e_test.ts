/**
 * The default rules through the real CLI and the Immich test server: every case of the corpus
 * (tests/_default_rules_corpus.ts) in a user's library, its EXIF answered by the server as Immich
 * answers `withExif` searches, stacked by one run without CRITERIA. Cases share a user when a
 * month or more lies between them, so that they share no bucket (docs/default-rules.md) and a
 * run serves a few users, not one per case. Seconds of work, so only `deno task test:full` runs
 * it; tests/default_rules_test.ts runs every case through the rules in process.
 */
import assert from "node:assert/strict";
import { runCli } from "../_cli.ts";
import { type ImmichServer, startImmichServer } from "../immich_server.ts";
import { CORPUS, type CorpusCase } from "../_default_rules_corpus.ts";

interface Loaded {
  readonly userId: string;
  /** Label by asset id. */
  readonly labels: ReadonlyMap<string, string>;
}

interface User {
  readonly id: string;
  readonly key: string;
  /** The times the user's cases take, each widened by a month either way. */
  readonly spans: [number, number][];
}

const MONTH = 30 * 86_400_000;

/** Adds a case to a user whose other cases lie a month away or more, or to a new user. */
function load(server: ImmichServer, c: CorpusCase, users: User[]): Loaded {
  const times = c.files.map((file) => Date.parse(file.at));
  const span: [number, number] = [Math.min(...times) - MONTH, Math.max(...times) + MONTH];
  let user = users.find((u) => u.spans.every(([from, to]) => span[1] < from || span[0] > to));
  if (user === undefined) {
    const added = server.addUser({
      name: `User ${users.length}`,
      email: `user${users.length}@example.test`,
    });
    user = { id: added.id, key: server.addKey(added.id), spans: [] };
    users.push(user);
  }
  user.spans.push(span);
  const labels = new Map<string, string>();
  for (const file of c.files) {
    const { exif } = file;
    const { id } = server.addAsset(user.id, {
      originalFileName: file.name,
      localDateTime: file.at,
      make: exif.make ?? null,
      model: exif.model ?? null,
      lensModel: exif.lensModel ?? null,
      exposureTime: exif.exposureTime ?? null,
      fNumber: exif.fNumber ?? null,
      iso: exif.iso ?? null,
      dateTimeOriginal: exif.dateTimeOriginal === null ? null : file.at,
    });
    labels.set(id, file.label);
  }
  return { userId: user.id, labels };
}

/** Stacks as `cover | the others, sorted`, sorted. */
function normal(stacks: readonly (readonly string[])[]): string[] {
  return stacks.map(([cover, ...rest]) => `${cover} | ${[...rest].sort().join(", ")}`).sort();
}

Deno.test("main.ts without CRITERIA stacks every case of the corpus as expected, saying which rule made each stack", async () => {
  await using server = await startImmichServer();
  const users: User[] = [];
  const loaded = CORPUS.map((c) => load(server, c, users));
  assert.ok(users.length < 20, `${users.length} users`);
  const env = {
    API_URL: server.url,
    API_KEY: users.map((user) => user.key).join(","),
    LOG_FORMAT: "json",
  };

  const dry = await runCli({ env: { ...env, DRY_RUN: "true" } });
  assert.equal(dry.code, 0, dry.stderr);
  const lines = dry.stdout.split("\n").filter((line) => line !== "").map((line) =>
    JSON.parse(line)
  );
  const creates = lines.filter((line) => line.msg.startsWith("[DRY RUN] Would create stack"));
  assert.equal(creates.length, CORPUS.reduce((n, c) => n + c.stacks.length, 0));
  for (const line of creates) {
    assert.equal(typeof line.rule, "string", JSON.stringify(line));
    assert.ok(line.msg.endsWith(` (${line.rule})`), line.msg);
  }
  assert.ok(creates.some((line) => line.rule === "Huawei burst, 5 frames"));
  assert.ok(creates.some((line) => line.rule === "HDR bracket, 5 exposures"));
  const searches = server.requests.filter((r) => r.path === "/search/metadata");
  assert.ok(searches.length > 0);
  for (const search of searches) {
    assert.equal((search.body as { withExif?: unknown }).withExif, true);
  }

  const real = await runCli({ env });
  assert.equal(real.code, 0, real.stderr);
  for (const [i, c] of CORPUS.entries()) {
    const { userId, labels } = loaded[i];
    const stacks = server.stacks(userId).filter((stack) => labels.has(stack.primaryAssetId))
      .map((stack) => [
        labels.get(stack.primaryAssetId)!,
        ...stack.assetIds.filter((id) => id !== stack.primaryAssetId).map((id) => labels.get(id)!),
      ]);
    assert.deepEqual(normal(stacks), normal(c.stacks), `${c.kind}: ${c.name}`);
  }

  // A second run finds nothing to change.
  server.clearRequests();
  const again = await runCli({ env });
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(
    server.requests.filter((r) => r.method !== "GET" && r.path.startsWith("/stacks")),
    [],
  );
});
