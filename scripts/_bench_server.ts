/**
 * The Immich test server in a process of its own, loaded with a generated library, for
 * `deno task bench`: the CLI under measurement then shares no CPU time or heap with the server's
 * bookkeeping beyond the machine itself.
 *
 * Usage: `deno run --allow-net=127.0.0.1 scripts/_bench_server.ts --assets N --seed S [--stacks]
 * [--partners] [--stacked-trash <share>] [--without-archive]`, or `… --scenes N --edits E --seed S`
 * for the small library of {@linkcode generateScenes}. The stacks with a trashed member of
 * `--stacked-trash` are loaded with or without `--stacks`.
 *
 * It prints one JSON line `{"url", "users": [{id, name, key}], "assets", "stacks"}` on stdout once
 * the library is loaded, then answers commands read line by line from stdin, one JSON line each:
 * - `requests`: request counts by endpoint (`"POST /stacks"`, `"DELETE /stacks/{id}"`) since the
 *   last `requests`, and clears the log;
 * - `stacks`: how many stacks each user has now;
 * - `unstack`: deletes every stack of the first user (one `DELETE /stacks` with every id, not
 *   counted by `requests`), then answers like `stacks`;
 * - `advance <ms>`: moves the server's clock forward, as the time between two cron passes;
 * - `change <n>`: changes n assets of the first user the way people do between two passes: a
 *   half uploaded as RAW+JPEG pairs, a quarter moved to the trash, a quarter given another
 *   capture time; answers `{"changed": n}`;
 * - `fail-stacks <n>` / `fail-stacks off`: `GET /stacks` answers 500 above n stacks, as Immich
 *   does for very large libraries, or works again;
 * - `latency <ms>`: holds back the answer of every write route by that much (0: none), answers
 *   `{"latency": <ms>}`;
 * - `save`: keeps the library as it is now; `reset`: puts back what `save` kept (stacks, trash,
 *   clock), answering like `stacks`;
 * - `digest`: a SHA-256 of the first user's stacks as `primary: sorted members` lines, sorted, so
 *   that two runs can be told to end with the same stacks whatever their ids; `stack-hashes`:
 *   `{"hashes"}`, a 32-bit hash of each of those lines, to count the stacks two servers differ in;
 * - `quit` (or end of input): closes the server and exits.
 *
 * @module
 */
import { parseArgs } from "node:util";
import {
  type ImmichServer,
  type RecordedRequest,
  type ServerSnapshot,
  startImmichServer,
  writeLatency,
} from "../tests/immich_server.ts";
import { seededRandom } from "../tests/_random.ts";
import { generateLibrary, generateScenes, loadLibrary } from "./gen_library.ts";

const UUID_SEGMENT = /\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?=\/|$)/gi;

/**
 * Request counts by endpoint, with ids in paths replaced by `{id}`.
 *
 * @param requests The server's request log.
 * @returns Counts keyed `"METHOD /path"`.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { countByEndpoint } from "./_bench_server.ts";
 *
 * const id = "c328d6e8-5867-45d6-af44-8141dfbc39a6";
 * const request = { method: "DELETE", path: `/stacks/${id}`, query: {}, body: undefined, status: 204 };
 * assert.deepEqual(countByEndpoint([request, request]), { "DELETE /stacks/{id}": 2 });
 * ```
 */
export function countByEndpoint(requests: readonly RecordedRequest[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const request of requests) {
    const key = `${request.method} ${request.path.replace(UUID_SEGMENT, "/{id}")}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      assets: { type: "string" },
      seed: { type: "string", default: "1" },
      stacks: { type: "boolean", default: false },
      partners: { type: "boolean", default: false },
      "stacked-trash": { type: "string", default: "0" },
      "without-archive": { type: "boolean", default: false },
      scenes: { type: "string" },
      edits: { type: "string", default: "0" },
    },
  });
  const seed = Number(values.seed);
  const library = values.scenes === undefined
    ? generateLibrary({
      seed,
      assets: Number(values.assets),
      partners: values.partners,
      stackedTrash: Number(values["stacked-trash"]),
      archive: !values["without-archive"],
    })
    : generateScenes({ seed, scenes: Number(values.scenes), edits: Number(values.edits) });
  const assets = library.users[0].assets.length;
  const users = values.stacks
    ? library.users
    : library.users.map((user) => ({ ...user, stacks: [] }));
  await using server = await startImmichServer();
  const loaded = loadLibrary(server, { users });
  const stackCount = () => loaded.users.map((user) => server.stacks(user.id).length);
  const write = (value: unknown) => console.log(JSON.stringify(value));
  write({ url: server.url, users: loaded.users, assets, stacks: stackCount() });

  let changes = 0;
  let saved: ServerSnapshot | undefined;
  const lines = Deno.stdin.readable.pipeThrough(new TextDecoderStream());
  let pending = "";
  for await (const chunk of lines) {
    pending += chunk;
    let newline: number;
    while ((newline = pending.indexOf("\n")) >= 0) {
      const command = pending.slice(0, newline).trim();
      pending = pending.slice(newline + 1);
      const [name, argument] = command.split(" ");
      if (command === "quit") return;
      if (name === "advance") {
        server.advanceClock(Number(argument));
        write({ now: server.now });
        continue;
      }
      if (name === "change") {
        write({ changed: changeAssets(server, loaded.users[0].id, Number(argument), ++changes) });
        continue;
      }
      if (name === "fail-stacks") {
        server.setFaults(argument === "off" ? {} : { maxListedStacks: Number(argument) });
        write({ failStacks: argument });
        continue;
      }
      if (command === "requests") {
        write(countByEndpoint(server.requests));
        server.clearRequests();
      } else if (command === "stacks") {
        write(stackCount());
      } else if (command === "save") {
        saved = server.snapshot();
        write(stackCount());
      } else if (command === "reset" && saved !== undefined) {
        server.restore(saved);
        write(stackCount());
      } else if (command === "unstack") {
        const [first] = loaded.users;
        const ids = server.stacks(first.id).map((stack) => stack.id);
        // Immich answers an empty list with a 500.
        if (ids.length > 0) {
          const response = await fetch(`${server.url}/stacks`, {
            method: "DELETE",
            headers: { "x-api-key": first.key, "content-type": "application/json" },
            body: JSON.stringify({ ids }),
          });
          await response.body?.cancel();
        }
        server.clearRequests();
        write(stackCount());
      } else if (command.startsWith("latency ")) {
        const ms = Number(command.slice("latency ".length));
        server.setFaults(ms > 0 ? { routeLatencyMs: writeLatency(ms) } : {});
        write({ latency: ms });
      } else if (command === "stack-hashes") {
        write({ hashes: stackLines(server, loaded.users[0].id).map(fnv1a) });
      } else if (command === "digest") {
        const lines = stackLines(server, loaded.users[0].id);
        const hash = await crypto.subtle.digest(
          "SHA-256",
          new TextEncoder().encode(lines.join("\n")),
        );
        write({
          digest: [...new Uint8Array(hash)].map((b) => b.toString(16).padStart(2, "0")).join(""),
        });
      } else {
        write({ error: `Unknown command: ${command}` });
      }
    }
  }
}

/** A user's stacks as `primary: sorted members` lines, sorted. */
function stackLines(server: ImmichServer, userId: string): string[] {
  return server.stacks(userId).map((stack) =>
    `${stack.primaryAssetId}: ${[...stack.assetIds].sort().join(",")}`
  ).sort();
}

/** FNV-1a, 32 bits, as 8 hex digits: short enough to send 50 000 of. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/**
 * Changes `count` assets of a user as people do between two passes: a half uploaded as new
 * RAW+JPEG pairs, a quarter trashed, a quarter given another capture time.
 *
 * @param server The server.
 * @param userId The user.
 * @param count How many assets to change.
 * @param round Which call this is: each changes other assets.
 * @returns How many assets changed.
 */
function changeAssets(
  server: ImmichServer,
  userId: string,
  count: number,
  round: number,
): number {
  const random = seededRandom(round);
  const pairs = Math.floor(count / 4);
  const taken = Date.parse("2030-01-01T00:00:00.000Z") + round * 86_400_000;
  const inputs = Array.from({ length: pairs }, (_, i) => {
    const localDateTime = new Date(taken + i * 60_000).toISOString();
    return [
      { originalFileName: `NEW_${round}_${i}.jpg`, localDateTime },
      { originalFileName: `NEW_${round}_${i}.dng`, localDateTime },
    ];
  }).flat();
  server.addAssets(userId, inputs);
  const existing = server.assetIds(userId);
  const others = count - inputs.length;
  for (let i = 0; i < others; i++) {
    const id = existing[Math.floor(random() * existing.length)];
    if (i % 2 === 0) server.updateAsset(id, { isTrashed: true });
    else {
      server.updateAsset(id, {
        dateTimeOriginal: new Date(taken - 86_400_000 + i * 3_600_000).toISOString(),
      });
    }
  }
  return inputs.length + others;
}

if (import.meta.main) await main();
