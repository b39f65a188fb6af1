/**
 * The settings of what is read and grouped: CRITERIA, the filters, and the parent promotion.
 *
 * @module
 */
import {
  ARCHIVE_AND_TRASH,
  GROUPING_COMMANDS,
  PLANNING_COMMANDS,
  SEARCHING_COMMANDS,
} from "./commands.ts";
import { declare } from "./declaration.ts";
import { bool, criteriaJson, isoDate, list, promoteList } from "./values.ts";

/** The default CRITERIA: the default rules for what cameras and phones write. */
export const DEFAULT_CRITERIA = '{"mode":"devices"}';

/**
 * immich-stack's default CRITERIA, one setting away for its users (README, "Migrating from
 * immich-stack").
 */
export const IMMICH_STACK_CRITERIA = '[{"key":"originalFileName","split":{"delimiters":["~",' +
  '"."],"index":0}},{"key":"localDateTime","delta":{"milliseconds":1000}}]';

/** Which photos are read and how they group, and which photo of a group is its cover. */
export const GROUPING_SETTINGS = {
  criteria: declare({
    env: "CRITERIA",
    commands: GROUPING_COMMANDS,
    flag: "criteria",
    default: DEFAULT_CRITERIA,
    schema: criteriaJson,
    help: "Grouping criteria as JSON (legacy array or advanced mode); the default, " +
      '{"mode":"devices"}, groups what cameras and phones write: RAW+JPEG pairs, bursts, ' +
      "edits and copies, brackets (see Default rules)",
  }),
  withArchived: declare({
    env: "WITH_ARCHIVED",
    commands: ARCHIVE_AND_TRASH,
    flag: "with-archived",
    default: "false",
    schema: bool,
    switch: true,
    help: "Include archived assets",
  }),
  withDeleted: declare({
    env: "WITH_DELETED",
    commands: ARCHIVE_AND_TRASH,
    flag: "with-deleted",
    default: "false",
    schema: bool,
    switch: true,
    help: "Include trashed assets",
  }),
  includeVideos: declare({
    env: "INCLUDE_VIDEOS",
    commands: SEARCHING_COMMANDS,
    flag: "include-videos",
    default: "false",
    schema: bool,
    switch: true,
    help: "Include videos (images only by default)",
  }),
  filterAlbumIds: declare({
    env: "FILTER_ALBUM_IDS",
    commands: PLANNING_COMMANDS,
    flag: "filter-album-ids",
    schema: list,
    help: "Only assets in these albums: comma-separated album ids or names",
  }),
  filterTakenAfter: declare({
    env: "FILTER_TAKEN_AFTER",
    commands: PLANNING_COMMANDS,
    flag: "filter-taken-after",
    schema: isoDate,
    help: "Only assets taken at or after this ISO 8601 date-time",
  }),
  filterTakenBefore: declare({
    env: "FILTER_TAKEN_BEFORE",
    commands: PLANNING_COMMANDS,
    flag: "filter-taken-before",
    schema: isoDate,
    help: "Only assets taken before this ISO 8601 date-time",
  }),
  parentFilenamePromote: declare({
    env: "PARENT_FILENAME_PROMOTE",
    commands: GROUPING_COMMANDS,
    flag: "parent-filename-promote",
    default: "cover,edit,crop,hdr,biggestNumber",
    schema: promoteList,
    emptyFlagClears: true,
    help: "File-name fragments that make an asset the parent, first = strongest; an empty " +
      '--parent-filename-promote="" promotes by none; ' +
      "accepts sequence, sequence:<digits>, sequence:<prefix>, biggestNumber, biggestSize, " +
      "smallestSize",
  }),
  parentExtPromote: declare({
    env: "PARENT_EXT_PROMOTE",
    commands: GROUPING_COMMANDS,
    flag: "parent-ext-promote",
    default: ".jpg,.png,.jpeg,.heic,.dng",
    schema: list,
    help: "Extensions that make an asset the parent, first = strongest",
  }),
} as const;
