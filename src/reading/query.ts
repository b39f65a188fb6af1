/**
 * What the reading side takes from the settings, once per command: the searches, grouping and
 * promotion, the settings a cache depends on, and when a pass must be full. Each way of reading
 * gets these values, never the whole settings.
 *
 * @module
 */
import type { SearchFilter } from "../api/search.ts";
import { SETTINGS, type Settings } from "../config.ts";
import { criterionFields, type GroupingRules, promotionInputs } from "../grouping/criteria.ts";
import { needsFileSize, type PromotionOptions } from "../promotion/parent.ts";
import { serverKey } from "../shown_url.ts";

/** What reading needs of the settings. */
export interface LibraryQuery {
  /**
   * The cache's server: API_URL as it may be shown, with `/api` added where it lacks it, so a
   * fixed address keeps its cache.
   */
  readonly server: string;
  /** The searches, but the albums (FILTER_ALBUM_IDS names are resolved per user). */
  readonly search: Omit<SearchFilter, "albumIds">;
  /** FILTER_ALBUM_IDS as given: ids or names. */
  readonly albums?: readonly string[];
  readonly criteria: GroupingRules;
  readonly promotion: PromotionOptions;
  /**
   * The settings the cache's content and plan depend on (reading, grouping, planning), as text
   * by variable name, but FILTER_ALBUM_IDS, which counts once resolved to ids.
   */
  readonly shaping: Readonly<Record<string, string>>;
  /** RESET_STACKS: every pass reads everything. */
  readonly resetStacks: boolean;
  /** FULL_PASS_INTERVAL, in seconds. */
  readonly fullPassInterval: number;
  /** INCREMENTAL_MAX_CHANGES. */
  readonly maxChanges: number;
}

/** The settings {@linkcode libraryQueryOf} reads. */
export type QuerySettings = Pick<
  Settings,
  | "apiUrl"
  | "criteria"
  | "parentFilenamePromote"
  | "parentExtPromote"
  | "withArchived"
  | "withDeleted"
  | "includeVideos"
  | "filterAlbumIds"
  | "filterTakenAfter"
  | "filterTakenBefore"
  | "replaceStacks"
  | "removeSingleAssetStacks"
  | "resetStacks"
  | "fullPassInterval"
  | "incrementalMaxChanges"
>;

/**
 * What reading needs of the settings.
 *
 * @param settings The command's settings.
 * @param criteria CRITERIA, parsed.
 * @returns The values.
 */
export function libraryQueryOf(settings: QuerySettings, criteria: GroupingRules): LibraryQuery {
  const promotion = promotionOptions(settings, criteria);
  const text = (value: unknown) => value === undefined ? "" : JSON.stringify(value);
  return {
    server: serverKey(settings.apiUrl),
    search: {
      withArchived: settings.withArchived,
      withDeleted: settings.withDeleted,
      includeVideos: settings.includeVideos,
      takenAfter: settings.filterTakenAfter,
      takenBefore: settings.filterTakenBefore,
      withFileSize: needsFileSize(promotion),
      withCamera: criteria.form === "devices",
      fields: criterionFields(criteria),
    },
    ...(settings.filterAlbumIds === undefined ? {} : { albums: settings.filterAlbumIds }),
    criteria,
    promotion,
    shaping: {
      [SETTINGS.criteria.env]: text(settings.criteria),
      [SETTINGS.parentFilenamePromote.env]: text(settings.parentFilenamePromote),
      [SETTINGS.parentExtPromote.env]: text(settings.parentExtPromote),
      [SETTINGS.withArchived.env]: text(settings.withArchived),
      [SETTINGS.withDeleted.env]: text(settings.withDeleted),
      [SETTINGS.includeVideos.env]: text(settings.includeVideos),
      [SETTINGS.filterTakenAfter.env]: text(settings.filterTakenAfter),
      [SETTINGS.filterTakenBefore.env]: text(settings.filterTakenBefore),
      [SETTINGS.replaceStacks.env]: text(settings.replaceStacks),
      [SETTINGS.removeSingleAssetStacks.env]: text(settings.removeSingleAssetStacks),
    },
    resetStacks: settings.resetStacks,
    fullPassInterval: settings.fullPassInterval,
    maxChanges: settings.incrementalMaxChanges,
  };
}

/**
 * The settings a cache depends on, FILTER_ALBUM_IDS included once resolved to ids.
 *
 * @param query What reading needs of the settings.
 * @param albumIds The albums' ids.
 * @returns The values by variable name.
 */
export function shapingWith(
  query: LibraryQuery,
  albumIds: readonly string[] | undefined,
): Record<string, string> {
  const albums = albumIds === undefined ? "" : JSON.stringify(albumIds);
  return { ...query.shaping, [SETTINGS.filterAlbumIds.env]: albums };
}

/**
 * The promotion options of the settings and criteria: the promote lists, the regex promotions
 * and the delimiters `biggestNumber` reads after.
 *
 * @param settings PARENT_FILENAME_PROMOTE and PARENT_EXT_PROMOTE.
 * @param criteria The parsed CRITERIA.
 * @returns The options for `createParentOrder`.
 */
export function promotionOptions(
  settings: Pick<Settings, "parentFilenamePromote" | "parentExtPromote">,
  criteria: GroupingRules,
): PromotionOptions {
  const { regexPromotions, delimiters } = promotionInputs(criteria);
  return {
    filenamePromote: settings.parentFilenamePromote,
    extPromote: settings.parentExtPromote,
    regexPromotions,
    // Without an originalFileName split, biggestNumber reads after the default delimiters.
    ...(delimiters.length > 0 ? { delimiters } : {}),
  };
}
