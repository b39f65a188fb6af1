/**
 * The plain data that the functional core (grouping, promotion, reconcile) works on.
 *
 * The API layer validates Immich's answers into these lean values and keeps only what
 * grouping, promotion and planning read, so that 200 000 assets fit in little memory.
 * Nothing in this module performs I/O.
 *
 * @module
 */

/** Immich's asset types. */
export type AssetType = "IMAGE" | "VIDEO" | "AUDIO" | "OTHER";

/**
 * One asset of the user, as grouping and promotion see it.
 *
 * Time fields keep the server's ISO 8601 text (`…Z` from search, `…+00:00` from stacks);
 * grouping parses only the ones its criteria use, so a malformed time costs one skipped
 * asset and never a failed run.
 */
export interface Asset {
  readonly id: string;
  readonly originalFileName: string;
  readonly originalPath: string;
  readonly localDateTime: string;
  readonly fileCreatedAt: string;
  readonly fileModifiedAt: string;
  readonly updatedAt: string;
  readonly type: AssetType;
  readonly checksum: string;
  readonly ownerId: string;
  readonly isFavorite: boolean;
  readonly isArchived: boolean;
  readonly isTrashed: boolean;
  readonly isOffline: boolean;
  readonly hasMetadata: boolean;
  /** Video duration as Immich reports it (`"0:00:00.00000"`), or null. */
  readonly duration: string | null;
  /** File size in bytes from EXIF; present only when a size promotion asked for EXIF. */
  readonly fileSizeInByte?: number;
}

/** An existing stack on the server. `assetIds` holds every member, the primary included. */
export interface Stack {
  readonly id: string;
  readonly primaryAssetId: string;
  readonly assetIds: readonly string[];
}

/**
 * A computed group: the desired state of one stack.
 *
 * `key` is the criteria values joined with `|`. Before promotion `assets` is in grouping's
 * deterministic order; after promotion the first asset is the desired parent.
 */
export interface Group {
  readonly key: string;
  readonly assets: readonly Asset[];
}

/** Why an asset was left out of grouping, for the caller to log and count. */
export type SkipReason =
  | "invalid-time"
  | "missing-value"
  | "regex-miss"
  | "split-out-of-range";

/** An asset that grouping could not place, with the reason and the criterion's key. */
export interface SkippedAsset {
  readonly asset: Asset;
  readonly reason: SkipReason;
  /** The criterion key (e.g. `localDateTime`) whose value could not be computed. */
  readonly key: string;
  /** Human detail such as the offending value. */
  readonly detail: string;
}

/**
 * A regex criterion that also promotes: the text captured by group `promoteIndex` of `pattern`
 * (applied to `field`) ranks the asset by its position in `promoteKeys`; earlier is stronger.
 * Grouping derives these from CRITERIA; promotion applies them.
 */
export interface RegexPromotion {
  readonly field: "originalFileName" | "originalPath";
  readonly pattern: RegExp;
  readonly promoteIndex: number;
  readonly promoteKeys: readonly string[];
}

/** The user an API key belongs to (`GET /users/me`), as the run logs it. */
export interface User {
  readonly id: string;
  readonly name: string;
  readonly email: string;
}

/** The Immich server's version (`GET /server/version`); it decides which checks apply. */
export interface ServerVersion {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
}
