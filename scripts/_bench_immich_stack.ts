/**
 * immich-stack, the Go tool people compare stacksync with, as `deno task bench` runs it beside
 * stacksync: the binary named by the environment variable `IMMICH_STACK_BIN`, run once per pass
 * (`RUN_MODE=once`, its only kind of pass) against the bench's Immich test server on 127.0.0.1.
 * Without the variable the bench measures stacksync alone and says so in one line.
 *
 * The bench never builds or downloads immich-stack. To build it from its public source
 * (github.com/Majorfi/immich-stack, which vendors its Go modules): install Go 1.23 or later
 * (on Debian bookworm, `golang-1.23-go` from bookworm-backports, in `/usr/lib/go-1.23/bin`),
 * check out the repository's newest commit outside this repository, and in it run
 * `go build -o <path>/immich-stack ./cmd` with `GOFLAGS=-mod=vendor`, `GOTOOLCHAIN=local` and
 * `GOPROXY=off`, so that only the vendored modules are used and nothing is fetched. Then run
 * the bench with `IMMICH_STACK_BIN=<path>/immich-stack`.
 *
 * What makes the comparison fair:
 * - both run with their defaults but for {@linkcode SHARED_SETTINGS}, as their users get them:
 *   stacksync's default rules read each photo's camera (`withExif`) and group bursts and edits
 *   that immich-stack's default CRITERIA leaves apart, so the two make different stacks of a
 *   library with such names; with immich-stack's CRITERIA set, stacksync makes the same;
 * - the libraries have no archived photos: immich-stack asks Immich to leave the archive out
 *   with `withArchived: false`, a field Immich 3 no longer reads, so it stacks archived photos,
 *   while stacksync by default leaves them out;
 * - two photos that tie on every promotion rule are ordered by name, case-sensitively in
 *   immich-stack and case-insensitively in stacksync, so a Pixel portrait
 *   (`….PORTRAIT.jpg`) and its original (`….PORTRAIT.ORIGINAL.jpg`) get different covers;
 *   `original` in PARENT_FILENAME_PROMOTE decides that tie the same way in both.
 *
 * One difference stays, by design, in the library with stacked members in the trash: a stack
 * that must grow while one of its members is in the trash is made again by immich-stack (Immich
 * then drops the trashed member), and left as it is by stacksync, which counts it as needing a
 * replace.
 *
 * @module
 */

/** The environment variable that names the immich-stack binary. */
export const IMMICH_STACK_BIN = "IMMICH_STACK_BIN";

/** Settings both tools run with in the side-by-side scenarios, beyond their defaults. */
export const SHARED_SETTINGS: Readonly<Record<string, string>> = {
  PARENT_FILENAME_PROMOTE: "cover,edit,crop,hdr,original,biggestNumber",
};

/** Where the immich-stack binary is, or why the bench goes without it. */
export type ImmichStackBinary = { readonly path: string } | { readonly skipped: string };

/**
 * Finds the immich-stack binary through {@linkcode IMMICH_STACK_BIN}.
 *
 * @param env The environment to read.
 * @returns Its path, or the line that says the comparison is skipped.
 * @throws {RangeError} When the variable names no file.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { findImmichStack } from "./_bench_immich_stack.ts";
 *
 * assert.match(
 *   (findImmichStack({}) as { skipped: string }).skipped,
 *   /^immich-stack: not measured, as IMMICH_STACK_BIN is not set/,
 * );
 * ```
 */
export function findImmichStack(
  env: Readonly<Record<string, string | undefined>>,
): ImmichStackBinary {
  const path = env[IMMICH_STACK_BIN];
  if (path === undefined || path === "") {
    return {
      skipped: `immich-stack: not measured, as ${IMMICH_STACK_BIN} is not set (build it as ` +
        "scripts/_bench_immich_stack.ts says and set the variable to the binary's path)",
    };
  }
  let isFile = false;
  try {
    isFile = Deno.statSync(path).isFile;
  } catch {
    // Missing or unreadable: said below.
  }
  if (!isFile) {
    throw new RangeError(
      `Cannot run immich-stack as ${IMMICH_STACK_BIN} names no file: current value is ${path}`,
    );
  }
  return { path };
}

/**
 * The environment immich-stack runs with: the server's address and key, one pass, and the
 * shared settings. Nothing else is passed on, so no setting of the outer shell changes it.
 *
 * @param server The server's API address and the user's key.
 * @param base What any process needs (PATH, HOME).
 * @returns The whole environment.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { immichStackEnv } from "./_bench_immich_stack.ts";
 *
 * const env = immichStackEnv({ url: "http://127.0.0.1:2283/api", key: "k" }, { PATH: "/bin" });
 * assert.equal(env.RUN_MODE, "once");
 * assert.equal(env.API_URL, "http://127.0.0.1:2283/api");
 * ```
 */
export function immichStackEnv(
  server: { readonly url: string; readonly key: string },
  base: Readonly<Record<string, string>>,
): Record<string, string> {
  return {
    ...base,
    API_URL: server.url,
    API_KEY: server.key,
    RUN_MODE: "once",
    LOG_LEVEL: "info",
    ...SHARED_SETTINGS,
  };
}
