/**
 * What the end-to-end tests share: a test library on the Immich test server, the real CLI run
 * against it, and readers of its JSON log lines and the server's recorded requests.
 *
 * @module
 */
import assert from "node:assert/strict";
import { type CliResult, runCli } from "./_cli.ts";
import {
  type ImmichServer,
  type RecordedRequest,
  startImmichServer,
  type TestAssetInput,
  type TestStack,
} from "./immich_server.ts";
/** The default criteria, plus `_edited` copies and `_BURST` frames, within 1 s. */
export const CRITERIA = JSON.stringify([
  {
    key: "originalFileName",
    split: { delimiters: ["~", ".", "_edited", "_BURST"], index: 0 },
  },
  { key: "localDateTime", delta: { milliseconds: 1000 } },
]);

/** One asset of a test library; `label` is unique where file names repeat. */
export interface LibraryAsset {
  readonly label: string;
  readonly name: string;
  readonly time: string;
  /** Anything else the asset is, e.g. `{ isTrashed: true }` or `{ visibility: "archive" }`. */
  readonly more?: Omit<TestAssetInput, "originalFileName" | "localDateTime">;
}

/**
 * One library asset.
 *
 * @param name Its file name.
 * @param time Its `localDateTime`.
 * @param label How tests name it, when the file name repeats.
 * @param more Other fields of the asset.
 * @returns The asset.
 */
export function asset(
  name: string,
  time: string,
  label = name,
  more?: LibraryAsset["more"],
): LibraryAsset {
  return { label, name, time, ...(more === undefined ? {} : { more }) };
}

/**
 * A realistic unstacked library: RAW+JPEG pairs, a `~2` copy, an `_edited` copy, a burst of four
 * frames within 1 s, a camera counter that wrapped (same names two days apart), and singles.
 */
export const LIBRARY: readonly LibraryAsset[] = [
  asset("IMG_0001.dng", "2024-05-01T10:00:00.000Z"),
  asset("IMG_0001.jpg", "2024-05-01T10:00:00.200Z"),
  asset("IMG_0002.dng", "2024-05-01T10:05:00.000Z"),
  asset("IMG_0002.jpg", "2024-05-01T10:05:00.000Z"),
  asset("IMG_0003.jpg", "2024-05-01T10:10:00.000Z"),
  asset("IMG_0003~2.jpg", "2024-05-01T10:10:00.000Z"),
  asset("IMG_0004.dng", "2024-05-01T10:15:00.000Z"),
  asset("IMG_0004.jpg", "2024-05-01T10:15:00.000Z"),
  asset("IMG_0004_edited.jpg", "2024-05-01T10:15:00.000Z"),
  asset("IMG_20240501_102000_BURST001.jpg", "2024-05-01T10:20:00.000Z"),
  asset("IMG_20240501_102000_BURST002.jpg", "2024-05-01T10:20:00.300Z"),
  asset("IMG_20240501_102000_BURST003_COVER.jpg", "2024-05-01T10:20:00.600Z"),
  asset("IMG_20240501_102000_BURST004.jpg", "2024-05-01T10:20:00.900Z"),
  asset("IMG_0005.dng", "2024-05-01T10:30:00.000Z", "IMG_0005.dng (May 1)"),
  asset("IMG_0005.jpg", "2024-05-01T10:30:00.000Z", "IMG_0005.jpg (May 1)"),
  asset("IMG_0005.dng", "2024-05-03T09:00:00.000Z", "IMG_0005.dng (May 3)"),
  asset("IMG_0005.jpg", "2024-05-03T09:00:00.000Z", "IMG_0005.jpg (May 3)"),
  asset("IMG_0100.jpg", "2024-05-01T11:00:00.000Z"),
  asset("IMG_0101.jpg", "2024-05-01T11:30:00.000Z"),
  asset("Screenshot_2024-06-10.png", "2024-06-10T12:00:00.000Z"),
];

/** The stacks of {@linkcode LIBRARY} as `parent <- other members` (sorted), sorted. */
export const EXPECTED = [
  "IMG_0001.jpg <- IMG_0001.dng",
  "IMG_0002.jpg <- IMG_0002.dng",
  "IMG_0003~2.jpg <- IMG_0003.jpg",
  "IMG_0004_edited.jpg <- IMG_0004.dng, IMG_0004.jpg",
  "IMG_0005.jpg (May 1) <- IMG_0005.dng (May 1)",
  "IMG_0005.jpg (May 3) <- IMG_0005.dng (May 3)",
  "IMG_20240501_102000_BURST003_COVER.jpg <- IMG_20240501_102000_BURST001.jpg, " +
  "IMG_20240501_102000_BURST002.jpg, IMG_20240501_102000_BURST004.jpg",
].sort();

/** A test server with one user and a key, and the user's library. */
export interface Library {
  readonly server: ImmichServer;
  readonly userId: string;
  readonly key: string;
  /** Asset id by label. */
  readonly ids: Readonly<Record<string, string>>;
  /** Label by asset id. */
  readonly labels: ReadonlyMap<string, string>;
}

/**
 * Starts a test server with user Ada, her key and her library.
 *
 * @param assets The library.
 * @param version The Immich version to imitate.
 * @returns The server, user, key and asset ids by label.
 */
export async function startLibrary(
  assets: readonly LibraryAsset[] = LIBRARY,
  version?: string,
): Promise<Library> {
  const server = await startImmichServer(version === undefined ? {} : { version });
  const user = server.addUser({ name: "Ada" });
  const key = server.addKey(user.id, { secret: "sk-e2e-ada-4b1c" });
  const ids: Record<string, string> = {};
  const labels = new Map<string, string>();
  for (const { label, name, time, more } of assets) {
    const { id } = server.addAsset(user.id, {
      ...more,
      originalFileName: name,
      localDateTime: time,
    });
    ids[label] = id;
    labels.set(id, label);
  }
  return { server, userId: user.id, key, ids, labels };
}

/** A stack as `parent <- other members`, members by label, sorted. */
export function describeStack(stack: TestStack, labels: ReadonlyMap<string, string>): string {
  const label = (id: string) => labels.get(id) ?? id;
  const children = stack.assetIds.filter((id) => id !== stack.primaryAssetId).map(label).sort();
  return `${label(stack.primaryAssetId)} <- ${children.join(", ")}`;
}

export function stacksOf(library: Library): string[] {
  return library.server.stacks(library.userId).map((s) => describeStack(s, library.labels)).sort();
}

export function makeStack(library: Library, ...labels: string[]): TestStack {
  return library.server.addStack(library.userId, labels.map((label) => library.ids[label]));
}

/** A JSON log line. */
export interface LogLine {
  readonly level: string;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/** Parses every stdout line as JSON; a line that is not JSON (a stack trace) fails the test. */
export function logLines(run: CliResult): LogLine[] {
  return run.stdout.trimEnd().split("\n").filter((line) => line !== "").map((line) => {
    try {
      return JSON.parse(line);
    } catch {
      assert.fail(`Not a JSON log line: ${line}\n${run.stdout}${run.stderr}`);
    }
  });
}

export function messages(run: CliResult, level?: string): string[] {
  return logLines(run).filter((line) => level === undefined || line.level === level)
    .map((line) => line.msg);
}

/** The one summary line of the user. */
export function summaryOf(run: CliResult, user = "Ada"): string {
  const lines = messages(run).filter((msg) => msg.startsWith(`Summary for ${user}`));
  assert.equal(lines.length, 1, run.stdout);
  return lines[0];
}

/** Requests that change something: every non-GET but the search, which only reads. */
export function writes(requests: readonly RecordedRequest[]): string[] {
  return requests
    .filter((r) => r.method !== "GET" && !(r.method === "POST" && r.path.startsWith("/search/")))
    .map((r) => `${r.method} ${r.path}`);
}

export function env(library: Library, extra: Record<string, string> = {}): Record<string, string> {
  return {
    API_URL: library.server.url,
    API_KEY: library.key,
    LOG_FORMAT: "json",
    CRITERIA,
    ...extra,
  };
}

/** Runs the CLI, removes its working folder, and fails on anything written to stderr. */
export async function run(runEnv: Record<string, string>): Promise<CliResult> {
  const result = await runCli({ env: runEnv });
  await Deno.remove(result.cwd, { recursive: true });
  assert.equal(result.stderr, "", result.stdout);
  return result;
}

/**
 * What a run did or would do, one entry per action line, in words shared by dry and real runs:
 * `create <n> <parent>`, `update <stack>`, `replace <stacks>`, `delete <stack>`, with the reason.
 * A real replace's per-stack `Deleted stack <id> - replacing child stack with new one` lines are
 * progress, not actions.
 */
export function planOf(result: CliResult): string[] {
  const entries: string[] = [];
  for (const line of logLines(result)) {
    const dry =
      /^\[DRY RUN\] Would (create stack with (\d+) assets|(update|replace|delete) stack (.+))$/
        .exec(line.msg);
    const real =
      /^(Success! Stack created|(Updated|Deleted) stack (\S+)|Created stack \S+ replacing (.+))$/
        .exec(line.msg);
    if (dry === null && real === null) continue;
    const context = `${line.reason} parent=${line.assetID}`;
    if (dry?.[2] !== undefined) entries.push(`create ${dry[2]} ${context}`);
    else if (dry !== null) entries.push(`${dry[3]} ${dry[4]} ${context}`);
    else if (real![1] === "Success! Stack created") {
      entries.push(`create ${line.assets} ${context}`);
    } else if (real![4] !== undefined) entries.push(`replace ${real![4]} ${context}`);
    else entries.push(`${real![2] === "Updated" ? "update" : "delete"} ${real![3]} ${context}`);
  }
  return entries.sort();
}

/** A summary line with the dry-run wording taken out, so both runs' counts compare. */
export function countsOf(summary: string): string {
  return summary.replace(" (dry run)", "").replaceAll("would be ", "");
}

/**
 * A temporary folder, removed with all it holds when disposed (`await using`).
 *
 * @param prefix The start of its name.
 * @returns The folder.
 */
export async function tempFolder(
  prefix: string,
): Promise<{ readonly path: string } & AsyncDisposable> {
  const path = await Deno.makeTempDir({ prefix });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}
