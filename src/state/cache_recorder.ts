/**
 * Records one user's pass in the cache of incremental passes: a full pass's body once the plan
 * shows the next pass can use it, each write's answer in the delta, the plan's entries, and at
 * the end the header that makes them count (docs/state.md, "The cache").
 *
 * @module
 */
import type { Logger } from "@logtape/logtape";
import type { AnsweredStack } from "../api/stacks.ts";
import type { UnlistedLookups } from "../api/unlisted_members.ts";
import type { PlanEntries } from "../incremental/entries.ts";
import type { Action, Outcome, Plan, Stack } from "../model.ts";
import type { AnsweringStackWriter } from "./journal.ts";
import type { CacheWrite } from "../incremental/library.ts";
import {
  type CacheFiles,
  type CacheHeader,
  markCaches,
  markCacheUnfinished,
  pruneCache,
  writeCacheHeader,
} from "./cache.ts";
import type { BodyRows } from "./cache_full_body.ts";
import { DeltaWriter } from "./cache_delta.ts";
import { writeStoredPlan } from "./cache_plan.ts";
import { UnlistedFile } from "./cache_unlisted.ts";

/** The end of a pass, as the cache records it. */
export interface PassEnd {
  readonly plan: Plan;
  readonly outcomes: readonly Outcome[];
  /** Why the pass did not finish cleanly (failed actions, errors from the server, a signal). */
  readonly unfinished?: string;
}

/** Records a pass's plan, writes and end in the cache. */
export interface PassCache {
  /** Wraps the writer so that each write's answer is recorded. */
  writes(writer: AnsweringWriter): AnsweringStackWriter;
  /**
   * Records a stack read again just before a write (docs/safety.md, "Fresh ground") as the
   * stack now, undefined when it is gone: a cover chosen by hand since the cache last read it is
   * then known to the next pass, which plans the stack again.
   */
  reread(stackId: string, stack: Stack | undefined): Promise<void>;
  /**
   * Keeps the plan's entries (where nothing changes, the next pass plans the same) and the
   * stacks of trashed and hidden members as looked up (the next pass looks up only those that
   * moved), and writes a full pass's library if the next pass can use it.
   */
  planned(entries: PlanEntries, plan: Plan, lookups?: UnlistedLookups): Promise<void>;
  /** Records how the pass ended; the next pass reads from here. */
  finish(end: PassEnd): Promise<void>;
}

/**
 * A cache recorder whose pass counts as unfinished whatever its end: for a pass that leaves
 * planned actions undone on purpose (apply carries out only its file's). The next incremental
 * pass keeps the last plan outside what changed, trusting that all of it was carried out, so it
 * must be full instead.
 *
 * @param cache The pass's recorder.
 * @param why What the next pass's `Full pass: …` line says.
 * @returns The recorder.
 */
export function leavingUndone(cache: PassCache, why: string): PassCache {
  return {
    writes: (writer) => cache.writes(writer),
    reread: (stackId, stack) => cache.reread(stackId, stack),
    planned: (entries, plan, lookups) => cache.planned(entries, plan, lookups),
    finish: (end) => cache.finish({ ...end, unfinished: end.unfinished ?? why }),
  };
}

/**
 * A cache recorder for a command that keeps no cache of its own but changes stacks (undo,
 * restore): before its first cover change, which moves no asset's `updatedAt`, every cache of
 * the server and user is marked so that its next pass is full (`markCaches`). Its other writes
 * move their members' `updatedAt`, which the next incremental pass finds.
 *
 * @param files Where the caches of the server and user are (`cacheFilesOf`); its key is none.
 * @param command The command, for the next pass's `Full pass: …` line.
 * @returns The recorder.
 */
export function coverMarker(files: CacheFiles, command: string): PassCache {
  const why = `stacksync ${command} changed covers since the last pass, which no search for ` +
    "changes finds";
  return {
    writes: (writer) => markingCovers(writer, () => markCaches(files, why)),
    reread: () => Promise.resolve(),
    planned: () => Promise.resolve(),
    finish: () => Promise.resolve(),
  };
}

/**
 * The writer with `mark` awaited once, before its first cover change is sent: a cover change
 * that its process dies sending is marked all the same.
 */
function markingCovers(writer: AnsweringWriter, mark: () => Promise<void>): AnsweringWriter {
  let marked: Promise<void> | undefined;
  return {
    createStack: (assetIds) => writer.createStack(assetIds),
    updateStackPrimary: async (stackId, primaryAssetId) => {
      await (marked ??= mark());
      return await writer.updateStackPrimary(stackId, primaryAssetId);
    },
    deleteStack: (stackId) => writer.deleteStack(stackId),
    stackWithPrimary: (assetId) => writer.stackWithPrimary(assetId),
    trashAssets: (assetIds) => writer.trashAssets(assetIds),
    restoreAssets: (assetIds) => writer.restoreAssets(assetIds),
  };
}

/** What the caches of other settings say once a pass changed covers they do not record. */
const OTHER_SETTINGS_COVERS = "a pass with other settings changed covers since the last pass, " +
  "which no search for changes finds";

/** A writer whose creates and updates answer with the members' `updatedAt` (the Immich client). */
export interface AnsweringWriter extends AnsweringStackWriter {
  createStack(assetIds: readonly string[]): Promise<AnsweredStack>;
  updateStackPrimary(stackId: string, primaryAssetId: string): Promise<AnsweredStack>;
}

/**
 * Says that the cache cannot be written: that costs the next pass its speed, never this pass.
 *
 * @param log The user's logger.
 * @param error Why.
 */
export function warnCacheUnwritten(log: Logger, error: unknown): void {
  log.warn(
    "Cannot write the cache of incremental passes: {error}; the next pass reads everything",
    { error: error instanceof Error ? error.message : String(error) },
  );
}

/** What the header of the pass's cache will say, known when the pass has read. */
export type Planned =
  & Pick<
    CacheHeader,
    | "generation"
    | "watermark"
    | "fullPassAt"
    | "fullPassClock"
    | "offsets"
    | "counts"
    | "recent"
    | "sizes"
    | "sums"
  >
  & {
    /** For the plan file: what the pass left out of grouping. */
    readonly skippedAssets: Readonly<Record<string, number>>;
    /** The pass reuses the plan file of its generation. */
    readonly reuse?: boolean;
  };

/**
 * How many assets some actions move: what the header's `written` counts of the actions that
 * succeeded.
 */
function movedAssets(actions: readonly Action[]): number {
  let moved = 0;
  for (const action of actions) moved += action.assetIds.length;
  return moved;
}

/** Why the next pass is full when this pass's cache could not be written. */
const LOST = "its cache could not be written";

/**
 * A pass's cache that cannot be written (a full disk, a read-only folder, a permission): the
 * pass warns once, marks the cache so that the next pass is full, writes no more of it, and
 * goes on. A cache that cannot be written costs the next pass its speed, never this pass.
 */
export class CacheLoss {
  readonly #files: CacheFiles;
  readonly #log: Logger;
  #lost = false;

  /**
   * @param files The cache.
   * @param log The user's logger.
   */
  constructor(files: CacheFiles, log: Logger) {
    this.#files = files;
    this.#log = log;
  }

  /** Whether the cache was given up. */
  get lost(): boolean {
    return this.#lost;
  }

  /**
   * Gives the cache up, warning the first time.
   *
   * @param error Why it cannot be written.
   */
  async note(error: unknown): Promise<void> {
    if (this.#lost) return;
    this.#lost = true;
    warnCacheUnwritten(this.#log, error);
    await markCacheUnfinished(this.#files, LOST);
  }
}

/** Who and what the cache of a pass is, and what the recorder may do. */
export interface CacheRecording {
  readonly files: CacheFiles;
  /** Write the cache (a real run); a dry run records nothing. */
  readonly record: boolean;
  /** What the pass does when the cache cannot be written. */
  readonly loss: CacheLoss;
  /** The user's logger. */
  readonly log: Logger;
  /** What every header of this cache says about the server, user, versions and settings. */
  readonly identity: Pick<CacheHeader, "server" | "user" | "stacksync" | "settings" | "immich">;
  /** INCREMENTAL_MAX_CHANGES. */
  readonly maxChanges: number;
}

/** Records one user's pass in the cache: its writes as they are answered, and its end. */
export class CacheRecorder implements PassCache {
  readonly #recording: CacheRecording;
  #planned: Planned;
  /** A full pass's body, until the plan shows whether the next pass can use it. */
  #body: BodyRows | undefined;
  /** The cache keeps the library: no body was left unwritten. */
  #kept: boolean;
  #delta: DeltaWriter | undefined;
  #entries: PlanEntries | undefined;
  #lookups: UnlistedLookups | undefined;

  /**
   * @param recording The cache and who it is for.
   * @param planned What the header will say.
   * @param body For a full pass: what its body is written from, once planned.
   */
  constructor(recording: CacheRecording, planned: Planned, body?: BodyRows) {
    this.#recording = recording;
    this.#planned = planned;
    this.#body = body;
    this.#kept = body === undefined;
    this.#delta = body === undefined ? this.#newDelta() : undefined;
  }

  #newDelta(): DeltaWriter | undefined {
    return this.#planned.reuse
      ? undefined
      : new DeltaWriter(this.#recording.files, this.#planned.generation);
  }

  /** Records a write's answer; a delta that cannot be written gives the cache up. */
  async #record(write: CacheWrite): Promise<void> {
    const { loss } = this.#recording;
    if (this.#delta === undefined || loss.lost) return;
    try {
      this.#delta.record(write);
    } catch (error) {
      await loss.note(error);
    }
  }

  writes(answering: AnsweringWriter): AnsweringStackWriter {
    // The caches of other settings of this server and user do not see this pass's covers.
    const { files, log } = this.#recording;
    const writer = markingCovers(
      answering,
      () =>
        markCaches(files, OTHER_SETTINGS_COVERS).catch((error) => warnCacheUnwritten(log, error)),
    );
    if (this.#delta === undefined) return writer;
    return {
      createStack: async (assetIds) => {
        const stack = await writer.createStack(assetIds);
        await this.#record({ op: "create", stack, updatedAt: stack.updatedAt() });
        return stack;
      },
      updateStackPrimary: async (stackId, primaryAssetId) => {
        const stack = await writer.updateStackPrimary(stackId, primaryAssetId);
        await this.#record({ op: "update", stack });
        return stack;
      },
      deleteStack: async (stackId) => {
        await writer.deleteStack(stackId);
        await this.#record({ op: "delete", stackId });
      },
      stackWithPrimary: (assetId) => writer.stackWithPrimary(assetId),
      trashAssets: (assetIds) => writer.trashAssets(assetIds),
      restoreAssets: (assetIds) => writer.restoreAssets(assetIds),
    };
  }

  async reread(stackId: string, stack: Stack | undefined): Promise<void> {
    if (!this.#recording.record) return;
    await this.#record(stack === undefined ? { op: "delete", stackId } : { op: "update", stack });
  }

  async planned(entries: PlanEntries, plan: Plan, lookups?: UnlistedLookups): Promise<void> {
    this.#entries = entries;
    this.#lookups = lookups;
    if (this.#body === undefined) return;
    // Writes that move more assets than INCREMENTAL_MAX_CHANGES make the next pass full
    // (decidePass): a body it would not read costs a first run time for nothing.
    const moving = movedAssets(plan.actions);
    if (moving > this.#recording.maxChanges) {
      this.#body = undefined;
      this.#recording.log.debug("The cache keeps no library: the plan moves {moving} assets", {
        moving,
      });
      return;
    }
    await this.writeBody();
  }

  /**
   * Writes a full pass's body now, before the plan is known: for a pass whose stacks already
   * hold about as many assets as its groups, which writes little. A body that cannot be written
   * gives the cache up (see {@linkcode CacheLoss}).
   */
  async writeBody(): Promise<void> {
    const body = this.#body;
    const { files, loss } = this.#recording;
    this.#body = undefined;
    if (body === undefined || loss.lost) return;
    const planned = this.#planned;
    try {
      // Loaded by a full pass only: a pass that reuses or merges the cache loads no body writer.
      const { writeFullBody } = await import("./cache_full_body.ts");
      const written = await writeFullBody(files, planned.generation, body, planned.recent.since);
      this.#planned = { ...planned, ...written, sums: { body: written.sum } };
    } catch (error) {
      await loss.note(error);
      return;
    }
    this.#kept = true;
    this.#delta = this.#newDelta();
  }

  async finish(end: PassEnd): Promise<void> {
    const { files, record, loss } = this.#recording;
    if (!record) return;
    let sums = this.#planned.sums;
    try {
      this.#delta?.close();
      if (this.#delta !== undefined) sums = { ...sums, delta: this.#delta.sum };
      const unfinished = end.unfinished ?? (loss.lost ? LOST : undefined);
      if (
        unfinished === undefined && this.#kept && !this.#planned.reuse &&
        this.#entries !== undefined
      ) {
        const plan = await writeStoredPlan(files, this.#planned.generation, {
          entries: this.#entries,
          skippedAssets: this.#planned.skippedAssets,
        });
        sums = { ...sums, plan };
      }
      // Answers hold whatever the pass's end: kept even when the next pass is full.
      if (this.#lookups !== undefined && !loss.lost) {
        const file = new UnlistedFile(files, this.#planned.generation);
        sums = { ...sums, unlisted: await file.write(this.#lookups) };
      }
      await writeCacheHeader(files, this.#header(end, { sums, unfinished }));
      if (!loss.lost) await pruneCache(files, this.#planned.generation);
    } catch (error) {
      await loss.note(error);
      // Said why, if it can: a header that cannot be written is gone already.
      await writeCacheHeader(files, this.#header(end, { sums, unfinished: LOST }))
        .catch(() => {});
    }
  }

  /** The header of the pass's end. */
  #header(
    end: PassEnd,
    at: { readonly sums: CacheHeader["sums"]; readonly unfinished: string | undefined },
  ): CacheHeader {
    const planned = this.#planned;
    const clean = at.unfinished === undefined;
    return {
      ...this.#recording.identity,
      fullPassAt: planned.fullPassAt,
      fullPassClock: planned.fullPassClock,
      watermark: planned.watermark,
      ...(clean ? {} : { unfinished: at.unfinished }),
      generation: planned.generation,
      deltaLines: this.#delta?.lines ?? 0,
      offsets: planned.offsets,
      counts: planned.counts,
      recent: planned.recent,
      written: movedAssets(
        end.outcomes.flatMap((outcome) => outcome.status === "ok" ? [outcome.action] : []),
      ),
      steady: clean && end.plan.actions.length === 0,
      sizes: planned.sizes,
      sums: at.sums,
    };
  }
}
