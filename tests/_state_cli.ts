/**
 * What the tests of the state folder through the real CLI share: a user with RAW+JPEG pairs on
 * the Immich test server, a STATE_DIR that goes away, a run of the CLI with JSON logs, and the
 * one line that says which kind of pass it was.
 *
 * @module
 */
import assert from "node:assert/strict";
import { type CliResult, runCli } from "./_cli.ts";
import type { ImmichServer } from "./immich_server.ts";

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
