/**
 * The process's memory between the phases of a pass.
 *
 * @module
 */

/**
 * The heap below which a phase's garbage is left to V8: a full collection costs tens of
 * milliseconds even on a heap of a few megabytes (most of a small library's pass), and what it
 * would free there barely moves the peak. Not higher: at 64 MB a full pass at 20 000 assets
 * peaked 25 MB higher (137 MB instead of 114), its garbage piling up below the floor.
 */
const RELEASE_FLOOR_BYTES = 32 * 1024 * 1024;

/**
 * Runs a full garbage collection when the runtime exposes one (`--v8-flags=--expose-gc`, as
 * `deno task start` and the binaries run) and the heap holds at least `RELEASE_FLOOR_BYTES`. A
 * pass parses a stack list of 150 MB and 200 search pages to keep a few tens of megabytes, and
 * grouping and promotion build scratch data as large as what they keep; left to itself V8 lets
 * that garbage pile up in the old generation between collections, which at 200 000 assets adds
 * over 100 MB to the peak on a small NAS. Collecting where a phase's garbage has just died costs
 * a few hundred milliseconds.
 */
export function releaseMemory(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc !== undefined && Deno.memoryUsage().heapUsed >= RELEASE_FLOOR_BYTES) gc();
}
