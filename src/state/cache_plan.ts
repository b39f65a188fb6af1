/**
 * The stored plan of the cache (`<key>.<generation>.plan`): the entries of a pass's plan that
 * are no action, each with its group's place in grouping's order, which the next pass keeps
 * where nothing changed, or reuses whole when nothing changed at all.
 *
 * @module
 */
import type { InSyncStack, NeedsReplace } from "../model.ts";
import type { Placed, PlanEntries } from "../incremental/entries.ts";
import { FOLDER_MODE, openPrivate } from "../private_files.ts";
import { type FileSum, Summer } from "./_checksum.ts";
import { ChunkedText, exists } from "./_files.ts";
import { CACHE_FORMAT, CACHE_VERSION, cacheFilePath, type CacheFiles } from "./cache.ts";
import { decoder, scanSections, type Sectioned } from "./_cache_text.ts";

/** What a pass planned that is no action, for the next pass to keep where nothing changed. */
export interface StoredPlan {
  readonly entries: PlanEntries;
  readonly skippedAssets: Readonly<Record<string, number>>;
}

const PLAN_SECTIONS = ["#plan", "#needs-replace", "#in-sync", "#end"] as const;
/** The most entries on a line of the plan file. */
const PLAN_LINE = 100;
const PLAN: Sectioned<typeof PLAN_SECTIONS[number]> = {
  magic: `${CACHE_FORMAT}-plan ${CACHE_VERSION}`,
  sections: PLAN_SECTIONS,
  kind: "plan",
};

/**
 * Writes the plan file of a generation, in pieces of about 64 KB: `#plan` then one JSON line of
 * the skipped counts and volatile stacks, `#needs-replace` then the entries, `#in-sync` then the
 * entries as arrays (stack id, group key, smallest asset id, and the place's key only where it
 * is not the group key), `#end`. Each line of entries is a JSON array of up to
 * {@linkcode PLAN_LINE} of them: one `JSON.parse` per entry made reading the file three times
 * slower.
 *
 * @param files The cache.
 * @param generation The generation.
 * @param plan The plan's entries.
 * @returns What the file adds up to, for the header.
 */
export async function writeStoredPlan(
  files: CacheFiles,
  generation: string,
  plan: StoredPlan,
): Promise<FileSum> {
  await Deno.mkdir(files.dir, { recursive: true, mode: FOLDER_MODE });
  const path = cacheFilePath(files, generation, "plan");
  const file = await openPrivate(`${path}.tmp`);
  const sum = new Summer();
  try {
    const text = new ChunkedText(() => file, sum);
    const put = (line: string) => text.put(`${line}\n`);
    const lines = <T>(entries: readonly T[], form: (entry: T) => unknown) => {
      for (let at = 0; at < entries.length; at += PLAN_LINE) {
        put(JSON.stringify(entries.slice(at, at + PLAN_LINE).map(form)));
      }
    };
    const { inSync, needsReplace, volatile } = plan.entries;
    put(PLAN.magic);
    put("#plan");
    put(JSON.stringify({ skippedAssets: plan.skippedAssets, volatile }));
    put("#needs-replace");
    lines(needsReplace, (entry) => entry);
    put("#in-sync");
    lines(
      inSync,
      ({ stackId, groupKey, key, first }) =>
        key === groupKey ? [stackId, groupKey, first] : [stackId, groupKey, first, key],
    );
    put("#end");
    text.flush();
  } finally {
    file.close();
  }
  await Deno.rename(`${path}.tmp`, path);
  return sum.sum;
}

/**
 * Reads the plan file of a generation, a line of up to {@linkcode PLAN_LINE} entries at a time:
 * 50 000 in-sync entries never make one string of megabytes, and an entry's place shares its
 * group key's string.
 *
 * @param files The cache.
 * @param generation The generation.
 * @param written What the file added up to when written; unchecked without it.
 * @returns The plan, or undefined when there is none.
 * @throws {SyntaxError} When the file is damaged; the caller then runs a full pass.
 */
export async function readStoredPlan(
  files: CacheFiles,
  generation: string,
  written?: FileSum,
): Promise<StoredPlan | undefined> {
  const path = cacheFilePath(files, generation, "plan");
  if (!(await exists(path))) return undefined;
  let head: Pick<StoredPlan, "skippedAssets"> & Pick<PlanEntries, "volatile"> | undefined;
  const inSync: (InSyncStack & Placed)[] = [];
  const needsReplace: (NeedsReplace & Placed)[] = [];
  await scanSections(path, PLAN, written, (section, _index, bytes) => {
    switch (section) {
      case "#plan":
        head = JSON.parse(decoder.decode(bytes));
        return;
      case "#needs-replace":
        needsReplace.push(...JSON.parse(decoder.decode(bytes)));
        return;
      case "#in-sync": {
        const entries: string[][] = JSON.parse(decoder.decode(bytes));
        for (const [stackId, groupKey, first, key] of entries) {
          inSync.push({ stackId, groupKey, key: key ?? groupKey, first });
        }
        return;
      }
    }
  });
  if (head === undefined) throw new SyntaxError(`Cannot read the cache ${path}: it has no #plan`);
  return {
    entries: { inSync, needsReplace, volatile: head.volatile },
    skippedAssets: head.skippedAssets,
  };
}
