/**
 * The settings of the pace of writes: STACK_CONCURRENCY and PREVENT_SELF_REKT.
 *
 * @module
 */
import { WRITING_COMMANDS } from "./commands.ts";
import { declare } from "./declaration.ts";
import { bool, concurrency, MAX_CONCURRENCY } from "./values.ts";

/** PREVENT_SELF_REKT's pause before each write, as immich-stack's. */
export const SELF_REKT_PAUSE_MS = 50;

/**
 * Writes in flight at once by default: the client's work on one answer overlaps the server's on
 * the next (BENCHMARKS.md); STACK_CONCURRENCY=1 writes one at a time, as immich-stack does.
 */
const DEFAULT_CONCURRENCY = 4;

/** How many writes are in flight at once, and a pause before each. */
export const PACE_SETTINGS = {
  stackConcurrency: declare({
    env: "STACK_CONCURRENCY",
    flag: "stack-concurrency",
    commands: WRITING_COMMANDS,
    default: String(DEFAULT_CONCURRENCY),
    schema: concurrency,
    help: `Writes in flight at once, at most ${MAX_CONCURRENCY}; 1 writes one at a time, as ` +
      "immich-stack does (0 counts as 1, as there); every deletion still comes before the " +
      "writes that depend on it, and no two writes touch the same photo or stack at once",
  }),
  preventSelfRekt: declare({
    env: "PREVENT_SELF_REKT",
    flag: "prevent-self-rekt",
    commands: WRITING_COMMANDS,
    default: "false",
    schema: bool,
    switch: true,
    help: `Pause ${SELF_REKT_PAUSE_MS} ms before each write, to spare a small server`,
  }),
} as const;
