/**
 * Turns assets into groups by validated criteria. Pure: no I/O, no clock, no logger; assets
 * that cannot be placed come back as data for the caller to log and count.
 *
 * How it works, in three linear passes:
 * 1. Each asset's times are parsed once; then the criteria tree yields the asset's *tokens*:
 *    the tuples of leaf values it can be matched on. A leaf gives one token, AND combines its
 *    children's tokens, OR collects them, NOT and boolean filters only admit or reject.
 * 2. Assets with the same token (same leaves, same text values) fall into one bucket. Within a
 *    bucket each time leaf refines in turn by gap chaining: sorted by that time, a new chain
 *    starts where the gap to the previous asset exceeds the leaf's delta.
 * 3. Union-find joins every chain of 2+ assets; an asset in several chains (OR) links them,
 *    so OR forms connected components without ever comparing assets pairwise.
 *
 * @module
 */

import type { Asset, Group, SkippedAsset } from "../model.ts";
import { type CriteriaNode, type GroupingRules, leaves, type TimeKey } from "./criteria.ts";
import { groupByDevices } from "./devices/rules.ts";
import { immichStackTime, parseTime, textValue, type ValueFailure } from "./_extract.ts";
import { Forest } from "./_forest.ts";
import { bucketHash } from "./_hash.ts";
import { compare } from "./compare.ts";

export { bucketHash } from "./_hash.ts";
export { compare } from "./compare.ts";

/** Groups and the assets left out, both in a deterministic order. */
export interface GroupingResult {
  /** Groups of 2+ assets, ordered by key, then by first member id; members ordered by id. */
  readonly groups: Group[];
  /** Assets no criterion could place, ordered by id. */
  readonly skipped: SkippedAsset[];
  /**
   * With {@linkcode GroupingOptions.buckets}: each asset's buckets (in the order of the input),
   * none for a skipped one. Assets that share no bucket, directly or through other assets,
   * never share a group, so the groups of a set of assets closed under shared buckets are the
   * groups the whole library gives them: an incremental pass regroups only those. Each bucket
   * is its {@linkcode bucketHash}: an asset in one bucket has the number, in several a list.
   */
  readonly buckets?: readonly BucketHashes[];
}

/** The hashes of an asset's buckets: one number, or a list of none or several. */
export type BucketHashes = number | readonly number[];

/** An asset's bucket hashes as a list. */
export function bucketList(buckets: BucketHashes): readonly number[] {
  return typeof buckets === "number" ? [buckets] : buckets;
}

/** Options of {@linkcode groupAssets}. */
export interface GroupingOptions {
  /** Also return each asset's buckets ({@linkcode GroupingResult.buckets}). */
  readonly buckets?: boolean;
  /**
   * With the default rules: only the files of one shot and the versions of a photo, no bursts
   * or brackets (what fix-trash follows).
   */
  readonly sameShot?: boolean;
}

const NO_BUCKETS: readonly number[] = [];

/** One leaf's contribution to a token: a text value, or null for a time leaf (chained later). */
interface Part {
  readonly leaf: number;
  readonly value: string | null;
}
type Token = readonly Part[];

const NO_TOKENS: readonly Token[] = [];
const EMPTY_TOKEN: readonly Token[] = [[]];

// Reached only when every matching branch was a filter (e.g. `OR(isFavorite, …)` for a favorite).
const NOTHING_TO_GROUP_BY = {
  reason: "excluded",
  key: "expression",
  detail: "only filters matched, so there is no value to group by",
} as const;

interface Evaluation {
  /** The first reason an asset failed, kept for the skip report. */
  failure: (ValueFailure & { key: string }) | undefined;
  /** Inside NOT, a failing child is success, so its failures are not reported. */
  quiet: number;
  readonly timeTokens: readonly (readonly Token[])[];
}

/**
 * Groups assets by criteria, or by the default rules (src/grouping/devices/rules.ts).
 *
 * The group key is the group's criteria values joined with `|` (a time leaf contributes the
 * earliest time of its chain; an OR component takes its smallest key). Only groups of 2 or
 * more are returned, and nothing in the result depends on the order of `assets`.
 *
 * An asset whose time (of any time criterion) does not parse is skipped. An asset for which
 * the criteria yield no token is skipped with the first reason met: a regex miss, a split index
 * out of range, an empty value, or an expression filter. An OR branch that misses is not a skip
 * as long as another branch matches.
 *
 * @param assets the user's assets, in any order
 * @param criteria validated criteria or the default rules (see {@link parseRules})
 * @returns the groups and the skipped assets
 *
 * @example RAW+JPEG pair, its edited copy and a lone photo
 * ```ts
 * import assert from "node:assert/strict";
 * import { groupAssets } from "./group.ts";
 * import { DEFAULT_CRITERIA } from "./criteria.ts";
 * import type { Asset } from "../model.ts";
 *
 * const at = (id: string, originalFileName: string, localDateTime: string) =>
 *   ({ id, originalFileName, localDateTime }) as Asset;
 * const { groups, skipped } = groupAssets([
 *   at("c", "IMG_1234~2.JPG", "2024-05-01T10:00:00.400Z"),
 *   at("a", "IMG_1234.JPG", "2024-05-01T10:00:00.000Z"),
 *   at("b", "IMG_1234.CR3", "2024-05-01T10:00:00.000Z"),
 *   at("d", "IMG_9999.JPG", "2024-05-01T10:00:00.000Z"),
 * ], DEFAULT_CRITERIA);
 * assert.deepEqual(groups.map((g) => [g.key, g.assets.map((a) => a.id)]), [
 *   ["IMG_1234|2024-05-01T10:00:00.000Z", ["a", "b", "c"]],
 * ]);
 * assert.deepEqual(skipped, []);
 * ```
 */
export function groupAssets(
  assets: readonly Asset[],
  criteria: GroupingRules,
  options: GroupingOptions = {},
): GroupingResult {
  if (criteria.form === "devices") return groupByDevices(assets, options);
  const n = assets.length;
  const bucketsOf: BucketHashes[] | undefined = options.buckets
    ? new Array(n).fill(NO_BUCKETS)
    : undefined;
  const leafNodes = leaves(criteria.root);
  const deltaOf: number[] = [];
  const timesOf: Float64Array[] = [];
  const timeKeys: TimeKey[] = [];
  const timeArrays: Float64Array[] = [];
  const timeTokens: Token[][] = [];
  for (const node of leafNodes) {
    const c = node.criterion;
    if (c.kind !== "time") continue;
    let k = timeKeys.indexOf(c.key);
    if (k === -1) k = timeKeys.push(c.key) - 1, timeArrays.push(new Float64Array(n));
    timesOf[node.id] = timeArrays[k];
    deltaOf[node.id] = c.deltaMs;
    timeTokens[node.id] = [[{ leaf: node.id, value: null }]];
  }

  const skipped: SkippedAsset[] = [];
  const buckets = new Map<string, { token: Token; members: number[] }>();
  const ev: Evaluation = { failure: undefined, quiet: 0, timeTokens };
  const fixedShape = !hasOr(criteria.root);
  assets: for (let i = 0; i < n; i++) {
    const asset = assets[i];
    for (let k = 0; k < timeKeys.length; k++) {
      const key = timeKeys[k];
      const time = parseTime(asset[key] ?? "");
      if (Number.isNaN(time)) {
        const detail = `cannot parse ${JSON.stringify(asset[key])} as an ISO 8601 time`;
        skipped.push({ asset, reason: "invalid-time", key, detail });
        continue assets;
      }
      timeArrays[k][i] = time;
    }
    ev.failure = undefined;
    let placed = false;
    for (const token of evaluate(criteria.root, asset, ev)) {
      if (token.length === 0) continue;
      placed = true;
      const signature = signatureOf(token, fixedShape);
      const bucket = buckets.get(signature);
      if (!bucket) buckets.set(signature, { token, members: [i] });
      else bucket.members.push(i);
      if (bucketsOf !== undefined) {
        const known = bucketsOf[i];
        const hash = bucketHash(signature);
        bucketsOf[i] = known === NO_BUCKETS ? hash : [...bucketList(known), hash];
      }
    }
    if (!placed) {
      // One literal shape for every skip keeps the final sort's property reads fast.
      const { reason, key, detail } = ev.failure ?? NOTHING_TO_GROUP_BY;
      skipped.push({ asset, reason, key, detail });
    }
  }

  const forest = new Forest(n);
  const cells: { first: number; key: string }[] = [];
  for (const { token, members } of buckets.values()) {
    if (members.length < 2) continue;
    let chains = [members];
    for (const part of token) {
      if (part.value === null) chains = chainByGaps(chains, timesOf[part.leaf], deltaOf[part.leaf]);
    }
    for (const chain of chains) {
      for (let j = 1; j < chain.length; j++) forest.union(chain[0], chain[j]);
      cells.push({ first: chain[0], key: cellKey(token, chain, timesOf) });
    }
  }
  return {
    groups: collectGroups(assets, forest, cells),
    skipped: skipped.sort((a, b) => compare(a.asset.id, b.asset.id)),
    ...(bucketsOf === undefined ? {} : { buckets: bucketsOf }),
  };
}

function evaluate(node: CriteriaNode, asset: Asset, ev: Evaluation): readonly Token[] {
  switch (node.kind) {
    case "leaf": {
      const c = node.criterion;
      if (c.kind === "time") {
        if (c.filter !== undefined) {
          const time = immichStackTime(asset[c.key] ?? "", c.deltaMs);
          if (!c.filter.test(time)) {
            return fail(ev, c.key, "excluded", `${c.filter} does not match ${time}`);
          }
        }
        return ev.timeTokens[node.id];
      }
      if (c.kind === "boolean") {
        const value = asset[c.key];
        if (value === undefined) return fail(ev, c.key, "missing-value", `${c.key} is missing`);
        if (!node.filterOnly) return [[{ leaf: node.id, value: String(value) }]];
        return value ? EMPTY_TOKEN : fail(ev, c.key, "excluded", `${c.key} is false`);
      }
      // Before v3 Immich sends the device fields; without them the criterion is left out.
      if (c.key.startsWith("device") && asset[c.key] === undefined) return EMPTY_TOKEN;
      const value = textValue(asset, c);
      if (typeof value === "string") return [[{ leaf: node.id, value }]];
      return fail(ev, c.key, value.reason, value.detail);
    }
    case "and": {
      let tokens: readonly Token[] = EMPTY_TOKEN;
      for (const child of node.children) {
        const more = evaluate(child, asset, ev);
        if (more.length === 0) return NO_TOKENS;
        tokens = combine(tokens, more);
      }
      return tokens;
    }
    case "or": {
      const tokens: Token[] = [];
      for (const child of node.children) {
        for (const token of evaluate(child, asset, ev)) tokens.push(token);
      }
      return tokens;
    }
    case "not": {
      ev.quiet++;
      const matched = evaluate(node.child, asset, ev).length > 0;
      ev.quiet--;
      if (!matched) return EMPTY_TOKEN;
      const key = leaves(node.child)[0].criterion.key;
      return fail(ev, key, "excluded", `NOT excludes assets matching ${key}`);
    }
  }
}

function fail(ev: Evaluation, key: string, reason: ValueFailure["reason"], detail: string) {
  if (ev.quiet === 0 && ev.failure === undefined) ev.failure = { key, reason, detail };
  return NO_TOKENS;
}

/** AND of two token lists: every token of one with every token of the other. */
function combine(left: readonly Token[], right: readonly Token[]): readonly Token[] {
  if (left.length === 1 && left[0].length === 0) return right;
  if (right.length === 1 && right[0].length === 0) return left;
  const out: Token[] = [];
  for (const l of left) for (const r of right) out.push(l.concat(r));
  return out;
}

/**
 * The bucket of a token. Without OR every token has the same leaves, so the values alone tell
 * tokens apart, and a single text value (the common case) is its own signature. Otherwise leaf
 * ids come first. Values are length-prefixed, so no file name can fake a separator.
 */
function signatureOf(token: Token, fixedShape: boolean): string {
  if (fixedShape) {
    let text: string | undefined;
    let texts = 0;
    for (const { value } of token) if (value !== null) text = value, texts++;
    if (texts === 1) return text as string;
  }
  let signature = "";
  for (const { leaf, value } of token) {
    signature += value === null ? `${leaf}t;` : `${leaf}:${value.length}:${value};`;
  }
  return signature;
}

function hasOr(node: CriteriaNode): boolean {
  if (node.kind === "leaf") return false;
  if (node.kind === "not") return hasOr(node.child);
  return node.kind === "or" || node.children.some(hasOr);
}

/** Splits each chain (assets agreeing so far) where the gap in `times` exceeds `delta`. */
function chainByGaps(chains: number[][], times: Float64Array, delta: number): number[][] {
  const out: number[][] = [];
  for (const chain of chains) {
    chain.sort((a, b) => times[a] - times[b]);
    let start = 0;
    for (let j = 1; j <= chain.length; j++) {
      if (j < chain.length && times[chain[j]] - times[chain[j - 1]] <= delta) continue;
      if (j - start >= 2) out.push(chain.slice(start, j));
      start = j;
    }
  }
  return out;
}

function cellKey(token: Token, chain: readonly number[], timesOf: readonly Float64Array[]) {
  let key = "";
  for (let p = 0; p < token.length; p++) {
    const { leaf, value } = token[p];
    if (p > 0) key += "|";
    if (value !== null) {
      key += value;
      continue;
    }
    const times = timesOf[leaf];
    let earliest = Infinity;
    for (const i of chain) earliest = Math.min(earliest, times[i]);
    key += new Date(earliest).toISOString();
  }
  return key;
}

function collectGroups(
  assets: readonly Asset[],
  forest: Forest,
  cells: readonly { first: number; key: string }[],
): Group[] {
  // Indexed by union-find root: the component's smallest cell key and its members.
  const keyOf: string[] = [];
  const membersOf: Asset[][] = [];
  const roots: number[] = [];
  for (const { first, key } of cells) {
    const root = forest.find(first);
    const known = keyOf[root];
    if (known === undefined || key < known) keyOf[root] = key;
  }
  for (let i = 0; i < assets.length; i++) {
    if (!forest.joined(i)) continue;
    const root = forest.find(i);
    if (membersOf[root] === undefined) membersOf[root] = [], roots.push(root);
    membersOf[root].push(assets[i]);
  }
  const groups: Group[] = roots.map((root) => ({
    key: keyOf[root],
    assets: membersOf[root].sort((a, b) => compare(a.id, b.id)),
  }));
  return groups.sort((a, b) => compare(a.key, b.key) || compare(a.assets[0].id, b.assets[0].id));
}
