/**
 * What the tests of the state folder through the real CLI share: a user with RAW+JPEG pairs on
 * the Immich test server, a STATE_DIR that goes away, a run of the CLI with JSON logs, and the
 * one line that says which kind of pass it was.
 *
 * @module
 */
import assert from "node:assert/strict";
import { type CliResult, runCli, spawnCli } from "./_cli.ts";
import { type ImmichServer, startImmichServer } from "./immich_server.ts";

/** A JSON log line. */
export type Line = Record<string, unknown> & { readonly msg: string };

export function lines(stdout: string): Line[] {
  return stdout.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
}

/** The "… pass" line of a run: `full: <why>` or `incremental`. */
export function passOf(result: CliResult): string {
  return passIn(lines(result.stdout), result.stdout + result.stderr);
}

/** The one "… pass" line among a run's JSON log lines, as {@linkcode passOf} gives it. */
export function passIn(logged: readonly Record<string, unknown>[], output: string): string {
  const found = logged.filter((line) => line.pass !== undefined);
  assert.equal(found.length, 1, output);
  const [line] = found;
  return line.pass === "full" ? `full: ${line.why}` : String(line.pass);
}

/** Ada on the server with `pairs` RAW+JPEG pairs, and the settings that reach her. */
export function ada(server: ImmichServer, pairs: number) {
  const user = server.addUser({ name: "Ada" });
  addPairs(server, user.id, 0, pairs);
  return { user, env: { API_URL: server.url, API_KEY: server.addKey(user.id) } };
}

/**
 * A test server with Ada and `pairs` RAW+JPEG pairs, a STATE_DIR, and the settings that reach
 * both; disposed together.
 */
export async function adaWithState(pairs: number) {
  const server = await startImmichServer();
  const state = await tempState();
  const { user, env } = ada(server, pairs);
  return {
    server,
    user,
    state: state.path,
    env: { ...env, STATE_DIR: state.path },
    async [Symbol.asyncDispose]() {
      await server.close();
      await state[Symbol.asyncDispose]();
    },
  };
}

/** A folder for STATE_DIR that the test removes. */
export async function tempState(): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.makeTempDir({ prefix: "stacksync_incremental_test_" });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

/** Adds `count` RAW+JPEG pairs taken a minute apart from `first`. */
export function addPairs(server: ImmichServer, userId: string, first: number, count: number): void {
  const start = Date.parse("2024-05-01T10:00:00.000Z");
  for (let g = first; g < first + count; g++) {
    const localDateTime = new Date(start + g * 60_000).toISOString();
    for (const ext of [".jpg", ".dng"]) {
      server.addAsset(userId, { originalFileName: `IMG_${1000 + g}${ext}`, localDateTime });
    }
  }
}

/** Runs the CLI once with JSON logs and removes its working folder. */
export async function cli(env: Readonly<Record<string, string>>): Promise<CliResult> {
  const result = await runCli({ env: { LOG_FORMAT: "json", ...env } });
  await Deno.remove(result.cwd, { recursive: true });
  return result;
}

/**
 * Starts the CLI and kills it with SIGKILL once its first stack is created: slow the server's
 * writes first (`routeLatencyMs`), so that the kill comes before its pass ends.
 *
 * @param env The CLI's environment (JSON logs are added).
 * @returns Every stdout line before the kill.
 */
export async function killAfterFirstCreate(
  env: Readonly<Record<string, string>>,
): Promise<readonly string[]> {
  const killed = await spawnCli({ env: { LOG_FORMAT: "json", ...env } });
  for (let line = await killed.nextLine(); line !== undefined; line = await killed.nextLine()) {
    if ((JSON.parse(line) as Line).msg.startsWith("Success! Stack created")) break;
  }
  killed.process.kill("SIGKILL");
  const status = await killed.process.status;
  await killed.process.stdout.cancel().catch(() => {});
  await killed.process.stderr.cancel();
  await Deno.remove(killed.cwd, { recursive: true });
  assert.equal(status.signal, "SIGKILL", "the pass ended before the kill");
  return killed.lines;
}
