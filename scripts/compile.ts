/**
 * Builds standalone stacksync binaries into `dist/` with `deno compile`, one per target, with the
 * same permissions and V8 settings as `deno task start`. Run it with `deno task compile`.
 *
 * @module
 */

/**
 * The permissions stacksync runs with, declared once: `deno task start` uses exactly these (a test
 * checks deno.json) and every compiled binary is built with them. Reads and writes stay open
 * because ENV_FILE, API_KEY_FILE and LOG_FILE may name any path; the network because API_URL may
 * name any host.
 */
export const PERMISSION_FLAGS = [
  "--allow-net",
  "--allow-env",
  "--allow-read",
  "--allow-write",
] as const;

/**
 * V8 settings for a lean pass, declared once beside the permissions: a small young generation,
 * and `gc()` exposed so that a pass collects the garbage of each finished phase (`releaseMemory`
 * in src/run.ts). At 200 000 assets they bring the peak memory from about 310 MB to about 210 MB
 * for a few hundred milliseconds of CPU (BENCHMARKS.md). Without them stacksync still works.
 */
export const V8_FLAGS = ["--v8-flags=--expose-gc,--max-semi-space-size=4"] as const;

/** Everything `deno run` and `deno compile` get besides the script: permissions, then V8. */
export const RUN_FLAGS = [...PERMISSION_FLAGS, ...V8_FLAGS] as const;

/** The targets `deno task compile` builds. */
export const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
] as const;

/** A target `deno compile` can build for. */
export type Target = typeof TARGETS[number];

/** Options of {@linkcode compileArgs}. */
export interface CompileArgsOptions {
  /**
   * The folder the binary is written to.
   * @default "dist"
   */
  readonly outDir?: string;
}

/**
 * The `deno` arguments that build the binary for one target.
 *
 * @param target The target triple.
 * @param options Where the binary goes.
 * @returns The arguments after `deno`, starting with `compile`.
 *
 * @example Usage
 * ```ts
 * import { compileArgs } from "./compile.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(compileArgs("x86_64-pc-windows-msvc"), [
 *   "compile",
 *   "--target",
 *   "x86_64-pc-windows-msvc",
 *   "--output",
 *   "dist/stacksync-x86_64-pc-windows-msvc.exe",
 *   "--exclude-unused-npm",
 *   "--allow-net",
 *   "--allow-env",
 *   "--allow-read",
 *   "--allow-write",
 *   "--v8-flags=--expose-gc,--max-semi-space-size=4",
 *   "main.ts",
 * ]);
 * ```
 */
export function compileArgs(target: Target, options: CompileArgsOptions = {}): string[] {
  const extension = target.includes("windows") ? ".exe" : "";
  return [
    "compile",
    "--target",
    target,
    "--output",
    `${options.outDir ?? "dist"}/stacksync-${target}${extension}`,
    // Only the npm packages main.ts imports: deno.lock also holds the test tools, among them a
    // Chromium of 60 MB (@sparticuz/chromium).
    "--exclude-unused-npm",
    ...RUN_FLAGS,
    "main.ts",
  ];
}

if (import.meta.main) {
  for (const target of TARGETS) {
    console.log(`Compiling ${target}`);
    const { code } = await new Deno.Command(Deno.execPath(), {
      args: compileArgs(target),
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    if (code !== 0) {
      console.error(`error: Cannot compile for ${target}: deno compile exited with status ${code}`);
      Deno.exit(code);
    }
  }
}
