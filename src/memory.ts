/**
 * The process's memory between the phases of a pass.
 *
 * @module
 */

/**
 * Runs a full garbage collection when the runtime exposes one (`--v8-flags=--expose-gc`, as
 * `deno task start` and the binaries run). A pass parses a stack list of 150 MB and 200 search
 * pages to keep a few tens of megabytes, and grouping and promotion build scratch data as large
 * as what they keep; left to itself V8 lets that garbage pile up in the old generation between
 * collections, which at 200 000 assets adds over 100 MB to the peak on a small NAS. Collecting
 * where a phase's garbage has just died costs a few hundred milliseconds.
 */
export function releaseMemory(): void {
  (globalThis as { gc?: () => void }).gc?.();
}
