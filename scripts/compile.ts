/**
 * Builds standalone stacksync binaries into `dist/` with `deno compile`, one per target, with the
 * same permissions as `deno task start`. Run it with `deno task compile`.
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
 *   "--allow-net",
 *   "--allow-env",
 *   "--allow-read",
 *   "--allow-write",
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
    ...PERMISSION_FLAGS,
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
