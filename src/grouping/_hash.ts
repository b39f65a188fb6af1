/**
 * The short hash of a grouping bucket (30-bit FNV-1a), of a signature given whole or in parts.
 *
 * @module
 */

const FNV_OFFSET = 0x811c9dc5;

/** FNV-1a `hash` continued over the code units of `text`. */
function continued(hash: number, text: string): number {
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash;
}

/** The 30 bits kept, so that the hash stays a small integer. */
function kept(hash: number): number {
  return (hash >>> 2) & 0x3fffffff;
}

/**
 * A short hash of a grouping bucket, as results and the cache of incremental passes keep it:
 * 30-bit FNV-1a, so that it stays a small integer. Two buckets with one hash only make a regroup
 * take in more assets than needed.
 *
 * @param signature The bucket's signature.
 * @returns The hash.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { bucketHash } from "./_hash.ts";
 *
 * assert.equal(bucketHash("IMG_1234"), bucketHash("IMG_1234"));
 * assert.notEqual(bucketHash("IMG_1234"), bucketHash("IMG_1235"));
 * ```
 */
export function bucketHash(signature: string): number {
  return kept(continued(FNV_OFFSET, signature));
}

/**
 * {@linkcode bucketHash} of `head` followed by `tail`, without joining them: 200 000 buckets
 * are hashed a pass, each signature a few numbers and a name.
 *
 * @param head The start of the signature.
 * @param tail The rest of it.
 * @returns `bucketHash(head + tail)`.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { bucketHash, bucketHashOf } from "./_hash.ts";
 *
 * assert.equal(bucketHashOf("0:2900:0:", "img_1234"), bucketHash("0:2900:0:img_1234"));
 * ```
 */
export function bucketHashOf(head: string, tail: string): number {
  return kept(continued(continued(FNV_OFFSET, head), tail));
}
