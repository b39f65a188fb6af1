/**
 * A full pass's cache body, written from its reads, grouping and promotion: its rows are the
 * assets in search order, then the invalid ones; with it, what the next pass compares with the
 * server (docs/state.md, "The cache").
 *
 * @module
 */
import type { Asset, Group, SkippedAsset, Stack } from "../model.ts";
import { type BucketHashes, bucketList } from "../grouping/group.ts";
import { compactStack, DigestBuilder, flagsOf, type OtherAsset } from "../incremental/library.ts";
import type { FileSum } from "./_checksum.ts";
import type { CacheFiles, CacheHeader } from "./cache.ts";
import { BodyWriter } from "./cache_body.ts";

/** What the next pass compares with the server: known once a body is written. */
export type BodyTally = Pick<CacheHeader, "offsets" | "counts" | "recent">;

/** A body written: what the next pass compares with the server, and what it adds up to. */
export type WrittenBody = BodyTally & { readonly sum: FileSum };

/**
 * The tally of a header without a body. No pass reads it: such a cache has no plan, and an
 * incremental pass without one is full. Were it read, its empty counts would differ from the
 * server's, which makes a pass full too.
 *
 * @param since Where the next search for changes would start.
 */
export function uncounted(since: number): BodyTally {
  return { offsets: [], counts: [], recent: { count: 0, digest: "", since } };
}

/** An asset whose data grouping cannot read, as the body keeps it. */
export interface InvalidRow {
  readonly id: string;
  readonly field: string;
  readonly message: string;
  readonly updatedAt: number;
  /** Which searches found it: grows while the searches read. */
  bits: number;
}

/** What the searches of a full pass found. */
export interface SearchedRows {
  readonly assets: readonly Asset[];
  /** Per asset. */
  readonly updatedAt: readonly number[];
  /** Per asset: which searches found it. */
  readonly scopeBits: readonly number[];
  readonly trashed: ReadonlySet<string>;
  readonly invalid: readonly InvalidRow[];
  /** Other users' assets (partners'), by id. */
  readonly others: ReadonlyMap<string, OtherAsset>;
}

/** What a full pass's cache body is written from: the reads, grouping and promotion. */
export interface BodyRows extends SearchedRows {
  readonly stacks: readonly Stack[];
  readonly groups: readonly Group[];
  readonly skipped: readonly SkippedAsset[];
  /**
   * Per asset: its grouping buckets, asked for only when the body is written (a first run
   * groups without them, and keeps no body).
   */
  buckets(): readonly BucketHashes[];
  /** Per search: whether it reads the archive, and how many assets the server counts. */
  readonly archived: readonly boolean[];
  readonly serverCounts: readonly number[];
}

/**
 * Writes a full pass's cache body: its rows are the assets in search order, then the invalid
 * ones.
 *
 * @param files The cache.
 * @param generation The body's generation.
 * @param rows What it is written from.
 * @param since Where the next search for changes starts.
 * @returns What the next pass compares with the server.
 */
export async function writeFullBody(
  files: CacheFiles,
  generation: string,
  rows: BodyRows,
  since: number,
): Promise<WrittenBody> {
  const { assets, updatedAt, scopeBits, trashed } = rows;
  const buckets = rows.buckets();
  const counts = new Array<number>(rows.serverCounts.length).fill(0);
  const recent = new DigestBuilder(counts.length);
  const count = (id: string, time: number, bits: number) => {
    for (let i = 0; i < counts.length; i++) if (bits & 1 << i) counts[i]++;
    if (time >= since) recent.add(id, time, bits);
  };
  const body = await BodyWriter.create(files, generation);
  let sum: FileSum;
  try {
    const rowOf = new Map<string, number>();
    const skipOf = new Map(rows.skipped.map((skip) => [skip.asset, skip.reason]));
    // An index loop: this runs for each of 200 000 rows, and entries() makes a pair per row.
    for (let row = 0; row < assets.length; row++) {
      const asset = assets[row];
      rowOf.set(asset.id, row);
      const bits = scopeBits[row];
      count(asset.id, updatedAt[row], bits);
      body.row({
        id: asset.id,
        asset,
        updatedAt: updatedAt[row],
        flags: flagsOf(bits, {
          trashed: trashed.has(asset.id),
          archived: rows.archived[firstScope(bits)],
        }),
        buckets: bucketList(buckets[row]),
        skip: skipOf.get(asset),
      });
    }
    for (const item of rows.invalid) {
      rowOf.set(item.id, rowOf.size);
      count(item.id, item.updatedAt, item.bits);
      body.row({
        id: item.id,
        invalid: { field: item.field, message: item.message },
        updatedAt: item.updatedAt,
        flags: flagsOf(item.bits, { invalid: true }),
        buckets: [],
      });
    }
    for (const [id, other] of rows.others) {
      count(id, other.updatedAt, other.scopes);
      body.other(id, other);
    }
    const ref = (id: string) => rowOf.get(id) ?? id;
    for (const stack of rows.stacks) body.stack(compactStack(stack, ref));
    for (const group of rows.groups) {
      body.group(group.key, group.assets.map((asset) => rowOf.get(asset.id)!));
    }
    sum = await body.finish();
  } catch (error) {
    await body.abandon();
    throw error;
  }
  return {
    sum,
    offsets: rows.serverCounts.map((n, i) => n - counts[i]),
    counts,
    recent: { ...recent.build(), since },
  };
}

/** The index of the lowest bit set: the first search that found an asset. */
function firstScope(bits: number): number {
  return 31 - Math.clz32(bits & -bits);
}
