/**
 * Whether a pass reads the whole library or only what changed since the last one, and why, in
 * the words of the one line each pass logs. Pure: the shell (`src/reading/choose.ts`) gathers
 * what is known (the cache's header, the server's version and clock, the settings) and logs the
 * answer.
 *
 * @module
 */

/**
 * How far before the last pass's watermark a pass looks for changes (ms of the server's data
 * clock): the search for changes reads again what changed in this margin, so that a change the
 * database dated before the watermark but committed after the last pass read (a transaction in
 * flight) is not missed. Changes it reads again cost nothing but a place on a search page.
 */
export const OVERLAP_MS = 300_000;

/** What the cache says about the last pass. */
export interface CacheState {
  /** The settings that shape reading and grouping, as text by variable name. */
  readonly settings: Readonly<Record<string, string>>;
  /** The Immich version the cache was read from, `major.minor.patch`. */
  readonly immich: string;
  /** The watermark of the last full pass (server data time, ms since the epoch). */
  readonly fullPassAt: number;
  /**
   * This computer's clock when the last full pass started (ms since the epoch): it can only
   * bring a full pass forward, never hold one back.
   */
  readonly fullPassClock: number;
  /**
   * The server's data time the last pass's search began at, at the latest (ms since the epoch):
   * the largest `updatedAt` it found, less the search's own duration.
   */
  readonly watermark: number;
  /** Why the last pass did not finish cleanly; absent when it did. */
  readonly unfinished?: string;
  /**
   * Why the cache's stacks may differ from the server's though no asset's `updatedAt` moved:
   * covers changed since by a command or a pass that keeps no record in this cache.
   */
  readonly stale?: string;
  /** How many assets the last pass's writes moved. */
  readonly written: number;
}

/** Everything the choice depends on. */
export interface DecisionInput {
  /** The cache for this server, user and settings, if there is one. */
  readonly cache?: CacheState;
  /**
   * With no cache for these settings: the settings of the newest cache of the same server and
   * user, so the reason can name what changed.
   */
  readonly earlier?: Readonly<Record<string, string>>;
  /** Why the cache could not be read, if it could not. */
  readonly unreadable?: string;
  /** The settings of this pass, as {@linkcode CacheState.settings}. */
  readonly settings: Readonly<Record<string, string>>;
  /** The Immich version now. */
  readonly immich: string;
  /** This computer's clock now, ms since the epoch. */
  readonly now: number;
  /** FULL_PASS_INTERVAL, in seconds. */
  readonly fullPassInterval: number;
  /** INCREMENTAL_MAX_CHANGES. */
  readonly maxChanges: number;
  /** Why this pass must be full whatever the cache says (`--full`, RESET_STACKS, …). */
  readonly forced?: string;
}

/** The kind of pass, and why or since when. */
export type Decision =
  | { readonly kind: "full"; readonly reason: string }
  | {
    readonly kind: "incremental";
    /** Search for changes at or after this server time (ms since the epoch). */
    readonly since: number;
  };

/**
 * Decides between a full and an incremental pass.
 *
 * @param input What is known before reading.
 * @returns A full pass with its reason, or an incremental one with the time to look from.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { decidePass, OVERLAP_MS } from "./decide.ts";
 *
 * const settings = { CRITERIA: "[]" };
 * const cache = {
 *   settings,
 *   immich: "3.1.0",
 *   fullPassAt: 0,
 *   fullPassClock: 0,
 *   watermark: 3_600_000,
 *   written: 0,
 * };
 * const limits = { fullPassInterval: 86400, maxChanges: 5000 };
 * assert.deepEqual(
 *   decidePass({ cache, settings, immich: "3.1.0", now: 7_200_000, ...limits }),
 *   { kind: "incremental", since: 3_600_000 - OVERLAP_MS },
 * );
 * assert.deepEqual(
 *   decidePass({ cache, settings: { CRITERIA: "[1]" }, immich: "3.1.0", now: 7_200_000, ...limits }),
 *   { kind: "full", reason: "CRITERIA changed since the last pass" },
 * );
 * ```
 */
export function decidePass(input: DecisionInput): Decision {
  const full = (reason: string): Decision => ({ kind: "full", reason });
  if (input.forced !== undefined) return full(input.forced);
  if (input.unreadable !== undefined) return full(`the cache cannot be read: ${input.unreadable}`);
  const { cache } = input;
  if (cache === undefined) {
    if (input.earlier === undefined) return full("no cache yet for this server, user and settings");
    return full(`${changedSettings(input.earlier, input.settings)} changed since the last pass`);
  }
  const changed = changedSettings(cache.settings, input.settings);
  if (changed !== "") return full(`${changed} changed since the last pass`);
  if (cache.immich !== input.immich) {
    return full(`Immich changed from ${cache.immich} to ${input.immich} since the last pass`);
  }
  if (cache.unfinished !== undefined) {
    return full(`the last pass did not finish cleanly: ${cache.unfinished}`);
  }
  if (cache.stale !== undefined) return full(cache.stale);
  const due = fullPassDue(cache, input.now, input.fullPassInterval);
  if (due !== undefined) return full(due);
  // A pass that wrote a great deal (a first run) left the cache more to replay, and the server
  // more changes to find, than a full read costs.
  const wrote = tooManyChanges(
    cache.written,
    input.maxChanges,
    "were moved by the last pass's writes",
  );
  if (wrote !== undefined) return full(wrote);
  return { kind: "incremental", since: cache.watermark - OVERLAP_MS };
}

/**
 * Why a full pass is due by FULL_PASS_INTERVAL, or undefined. The age since the last full pass
 * is measured on the server's data (how far its watermark moved since) and on this computer's
 * clock; either one past the interval makes the pass full, and a clock that went back makes it
 * full too. The computer's clock can only bring a full pass forward: a wrong one costs a read,
 * never a change missed (docs/incremental.md, "Server time").
 *
 * @param cache The watermarks and clock of the last pass and the last full pass.
 * @param now This computer's clock now, ms since the epoch.
 * @param interval FULL_PASS_INTERVAL, in seconds.
 * @returns The reason, or undefined.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { fullPassDue } from "./decide.ts";
 *
 * const cache = { fullPassAt: 0, fullPassClock: 0, watermark: 60_000 };
 * assert.equal(fullPassDue(cache, 60_000, 3600), undefined);
 * assert.equal(
 *   fullPassDue({ ...cache, watermark: 7_200_000 }, 60_000, 3600),
 *   "the server's data moved 2 h since the last full pass, more than FULL_PASS_INTERVAL (3600 s)",
 * );
 * assert.match(fullPassDue(cache, -1000, 3600) ?? "", /^this computer's clock went back/);
 * ```
 */
export function fullPassDue(
  cache: Pick<CacheState, "fullPassAt" | "fullPassClock" | "watermark">,
  now: number,
  interval: number,
): string | undefined {
  const limit = `more than FULL_PASS_INTERVAL (${interval} s)`;
  const moved = cache.watermark - cache.fullPassAt;
  if (moved > interval * 1000) {
    return `the server's data moved ${duration(moved)} since the last full pass, ${limit}`;
  }
  const age = now - cache.fullPassClock;
  if (age < 0) {
    return `this computer's clock went back ${duration(-age)} since the last full pass`;
  }
  if (age > interval * 1000) return `the last full pass was ${duration(age)} ago, ${limit}`;
  return undefined;
}

/** The names of the settings whose values differ, joined with commas; empty when none. */
function changedSettings(
  before: Readonly<Record<string, string>>,
  now: Readonly<Record<string, string>>,
): string {
  const names = [...new Set([...Object.keys(before), ...Object.keys(now)])];
  return names.filter((name) => before[name] !== now[name]).sort().join(", ");
}

/**
 * A duration for people: `45 s`, `12 min`, `26 h`, `3 days`.
 *
 * @param ms The duration in ms.
 * @returns The text.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { duration } from "./decide.ts";
 *
 * assert.equal(duration(93_600_000), "26 h");
 * ```
 */
export function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86400)} days`;
}

/**
 * The reason a pass that began incremental turns full when the server counts other numbers of
 * assets than the cache: assets left unseen.
 *
 * @param server The server's counts, one per search.
 * @param cached The cache's counts.
 * @returns The reason, or undefined when they agree.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { countMismatch } from "./decide.ts";
 *
 * assert.equal(countMismatch([10], [10]), undefined);
 * assert.match(countMismatch([9], [10]) ?? "", /^the server counts 9 assets and the cache 10: /);
 * ```
 */
export function countMismatch(
  server: readonly number[],
  cached: readonly number[],
): string | undefined {
  if (server.length === cached.length && server.every((count, i) => count === cached[i])) {
    return undefined;
  }
  const sum = (counts: readonly number[]) => counts.reduce((a, b) => a + b, 0);
  return `the server counts ${sum(server)} assets and the cache ${sum(cached)}: assets were ` +
    "deleted for good, moved to the locked folder or into or out of an album since the last pass";
}

/**
 * The reason a pass turns full when too many assets changed: reading everything is then cheaper.
 *
 * @param changed How many of the user's assets changed.
 * @param max INCREMENTAL_MAX_CHANGES.
 * @param how How they changed, for the reason.
 * @returns The reason, or undefined when there are not too many.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { tooManyChanges } from "./decide.ts";
 *
 * assert.equal(tooManyChanges(5000, 5000), undefined);
 * assert.equal(
 *   tooManyChanges(5001, 5000),
 *   "5001 assets changed since the last pass, more than INCREMENTAL_MAX_CHANGES (5000)",
 * );
 * ```
 */
export function tooManyChanges(
  changed: number,
  max: number,
  how = "changed since the last pass",
): string | undefined {
  return changed > max
    ? `${changed} assets ${how}, more than INCREMENTAL_MAX_CHANGES (${max})`
    : undefined;
}

/**
 * The reason a pass turns full when an asset the last pass saw change is not found again as
 * it was (`datedBack` of `src/incremental/changes.ts`).
 *
 * @param back The asset, its `updatedAt` in the cache and now.
 * @returns The reason.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { datedBackReason } from "./decide.ts";
 *
 * assert.equal(
 *   datedBackReason({ id: "a1", was: 60_000, now: 0 }),
 *   "the server's clock went back: asset a1, changed at 1970-01-01T00:01:00.000Z, is now dated " +
 *     "1970-01-01T00:00:00.000Z",
 * );
 * ```
 */
export function datedBackReason(
  back: { readonly id: string; readonly was: number; readonly now?: number },
): string {
  const was = new Date(back.was).toISOString();
  return back.now === undefined
    ? `asset ${back.id}, changed at ${was}, is no longer found by the search for changes: it ` +
      "was deleted for good or locked, or the server's clock went back"
    : `the server's clock went back: asset ${back.id}, changed at ${was}, is now dated ` +
      new Date(back.now).toISOString();
}
