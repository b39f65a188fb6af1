/**
 * The settings of the review page that `stacksync plan` writes.
 *
 * @module
 */
import { PLAN_ONLY } from "./commands.ts";
import { declare } from "./declaration.ts";
import { wholeNumber } from "./values.ts";

/** The review page of `stacksync plan --html`. */
export const REVIEW_SETTINGS = {
  planThumbnails: declare({
    env: "PLAN_THUMBNAILS",
    flag: "plan-thumbnails",
    commands: PLAN_ONLY,
    default: "5000",
    schema: wholeNumber,
    help: "At most this many pictures on the review page (--html); the other photos show " +
      "their file names",
  }),
} as const;
