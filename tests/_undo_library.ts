/**
 * Random libraries with random existing stacks for the undo tests, and the CLI as a function
 * (`main()` of main.ts) with its output captured: the same code path as the binary (arguments,
 * settings, subcommands, state folder, journal), without a process per case.
 *
 * @module
 */
import { main } from "../main.ts";
import { RESET_CONFIRMATION } from "../src/config.ts";
import type { ImmichServer, RecordedRequest, TestStack } from "./immich_server.ts";
import { type Random, seededRandom, shuffled } from "./_random.ts";

/** One user of a random library on the test server. */
export interface RandomLibrary {
  readonly userId: string;
  readonly key: string;
  /** File name by asset id. */
  readonly names: ReadonlyMap<string, string>;
  /** The kinds of stacks made before the run. */
  readonly kinds: readonly string[];
}

/** Stacks as `primary: sorted members`, sorted: equal for the same stacks whatever their ids. */
export function describeStacks(
  stacks: readonly TestStack[],
  names: ReadonlyMap<string, string> = new Map(),
): string[] {
  const name = (id: string) => names.get(id) ?? id;
  return stacks.map((stack) =>
    `${name(stack.primaryAssetId)}: ${stack.assetIds.map(name).sort().join(", ")}`
  ).sort();
}

const EXTENSIONS = [".jpg", ".dng", "~2.jpg", ".heic", "_edited.jpg"];

/**
 * Adds a user with a random library: groups of files that the default CRITERIA stack (same
 * name before `~` or `.`, same second), singles, and existing stacks of every kind a run meets:
 * correct, wrong cover, missing a member, made by hand, spanning two stacks, single-asset.
 *
 * @param server The test server.
 * @param seed The case's seed.
 * @returns The user, the key and the names.
 */
export function addRandomLibrary(server: ImmichServer, seed: number): RandomLibrary {
  const random = seededRandom(seed);
  const int = (n: number) => Math.floor(random() * n);
  const user = server.addUser({ name: `Case ${seed}`, email: `case-${seed}@example.test` });
  const key = server.addKey(user.id);
  const names = new Map<string, string>();
  const start = Date.parse("2024-05-01T10:00:00.000Z");
  const groups: string[][] = [];
  const add = (name: string, time: number) => {
    const id = server.addAsset(user.id, {
      originalFileName: name,
      localDateTime: new Date(time).toISOString(),
    }).id;
    names.set(id, name);
    return id;
  };
  const groupCount = 2 + int(6);
  for (let g = 0; g < groupCount; g++) {
    const base = `IMG_${String(1000 + g)}`;
    const size = 1 + int(4);
    const extensions = shuffled(EXTENSIONS, random).slice(0, size);
    groups.push(extensions.map((ext) => add(`${base}${ext}`, start + g * 60_000)));
  }
  for (let i = int(5); i > 0; i--) groups.push([add(`DSC_${9000 + i}.jpg`, start - i * 60_000)]);

  const used = new Set<string>();
  const free = (ids: readonly string[]) => ids.filter((id) => !used.has(id));
  const stack = (ids: readonly string[], kind: string, kinds: string[]) => {
    if (ids.length === 0 || ids.some((id) => used.has(id))) return;
    for (const id of ids) used.add(id);
    server.addStack(user.id, ids.length === 1 ? [ids[0], ids[0]] : ids);
    kinds.push(kind);
  };
  const kinds: string[] = [];
  for (const group of shuffled(groups, random)) {
    const choice = int(8);
    if (group.length >= 2 && choice === 0) stack(group, "as grouped", kinds);
    else if (group.length >= 2 && choice === 1) stack([...group].reverse(), "wrong cover", kinds);
    else if (group.length >= 3 && choice === 2) stack(group.slice(0, 2), "missing member", kinds);
    else if (group.length >= 2 && choice === 3) {
      stack([group[0]], "single-asset", kinds);
      stack(group.slice(1), "spanning two stacks", kinds);
    } else if (choice === 4) stack([group[0]], "single-asset", kinds);
  }
  // By hand: a few assets of different groups together.
  for (let i = int(3); i > 0; i--) {
    const pool = shuffled(free(groups.flat()), random).slice(0, 2 + int(2));
    if (pool.length >= 2) stack(pool, "made by hand", kinds);
  }
  return { userId: user.id, key, names, kinds };
}

/** What one call of the CLI gave. */
export interface MainResult {
  readonly code: number;
  /** The JSON log lines (and any other stdout line, as `{ msg }`). */
  readonly lines: readonly Record<string, unknown>[];
  readonly stdout: string;
  readonly stderr: string;
}

/** Options of {@linkcode runMain}. */
export interface RunMainOptions {
  /** Waits between request attempts; the default does not wait. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** This computer's clock; the default is the real one. */
  readonly now?: () => Date;
}

/**
 * Runs the CLI in this process, with the journal in `stateDir` and JSON logs captured.
 *
 * @param args The command line.
 * @param env The settings (API_URL, API_KEY, …).
 * @param stateDir STATE_DIR.
 * @param options How retries wait.
 * @returns Exit status and output.
 */
export async function runMain(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  stateDir: string,
  options: RunMainOptions = {},
): Promise<MainResult> {
  let stdout = "";
  let stderr = "";
  const code = await main(args, {
    env: {
      LOG_FORMAT: "json",
      STATE_DIR: stateDir,
      // No .env of the working folder applies.
      ENV_FILE: "/dev/null",
      ...env,
    },
    stdout: (text) => stdout += text,
    stderr: (text) => stderr += text,
    sleep: options.sleep ?? (() => Promise.resolve()),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const lines = stdout.split("\n").filter((line) => line !== "").map((line) => {
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      return { msg: line };
    }
  });
  return { code, lines, stdout, stderr };
}

/** Requests that change stacks. */
export function stackWrites(requests: readonly RecordedRequest[]): RecordedRequest[] {
  return requests.filter((r) => r.path.startsWith("/stacks") && r.method !== "GET");
}

/** Random run settings: REPLACE_STACKS, REMOVE_SINGLE_ASSET_STACKS, sometimes RESET_STACKS. */
export function randomRunSettings(random: Random): Record<string, string> {
  const settings: Record<string, string> = {
    REPLACE_STACKS: String(random() < 0.5),
    REMOVE_SINGLE_ASSET_STACKS: String(random() < 0.4),
  };
  if (random() < 0.15) {
    settings.RESET_STACKS = "true";
    settings.CONFIRM_RESET_STACK = RESET_CONFIRMATION;
  }
  return settings;
}
