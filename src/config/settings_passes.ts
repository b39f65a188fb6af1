/**
 * The settings of a pass: run mode and interval, request timeout, incremental passes, dry run.
 *
 * @module
 */
import { RUN_ONLY, SERVER_COMMANDS, WRITING_COMMANDS } from "./commands.ts";
import { declare } from "./declaration.ts";
import { bool, oneOf, positiveWhole } from "./values.ts";

/** The longest CRON_INTERVAL, in seconds: a longer one is more likely a typo than a plan. */
const MAX_CRON_INTERVAL = 365 * 86400;

/** The longest REQUEST_TIMEOUT, in seconds. */
const MAX_REQUEST_TIMEOUT = 3600;

/** When passes run, how long a request may wait, how much a pass reads, and dry runs. */
export const PASS_SETTINGS = {
  runMode: declare({
    env: "RUN_MODE",
    commands: RUN_ONLY,
    flag: "run-mode",
    default: "once",
    schema: oneOf(["once", "cron"] as const),
    help: "once: one pass then exit; cron: a pass every CRON_INTERVAL seconds until a signal",
  }),
  cronInterval: declare({
    env: "CRON_INTERVAL",
    commands: RUN_ONLY,
    flag: "cron-interval",
    default: "86400",
    schema: positiveWhole(" of seconds", { max: MAX_CRON_INTERVAL, words: "365 days" }),
    errorTitle: `Invalid interval: CRON_INTERVAL (--cron-interval)`,
    help: `Seconds to wait between passes in cron mode, at most ${MAX_CRON_INTERVAL} (365 days)`,
  }),
  requestTimeout: declare({
    env: "REQUEST_TIMEOUT",
    commands: SERVER_COMMANDS,
    flag: "request-timeout",
    default: "120",
    schema: positiveWhole(" of seconds", { max: MAX_REQUEST_TIMEOUT, words: "an hour" }),
    help: "Seconds a request may wait for its answer to start, and for each pause while the " +
      "answer streams in, before it fails and is retried; at most 3600",
  }),
  fullPassInterval: declare({
    env: "FULL_PASS_INTERVAL",
    commands: RUN_ONLY,
    flag: "full-pass-interval",
    default: "86400",
    schema: positiveWhole(" of seconds"),
    help: "Seconds after which a pass reads the whole library again instead of only what " +
      "changed since the last pass (see Incremental passes)",
  }),
  incrementalMaxChanges: declare({
    env: "INCREMENTAL_MAX_CHANGES",
    commands: RUN_ONLY,
    flag: "incremental-max-changes",
    default: "5000",
    schema: positiveWhole(),
    help:
      "When more assets than this changed since the last pass, its own writes included, read the whole library",
  }),
  dryRun: declare({
    env: "DRY_RUN",
    commands: WRITING_COMMANDS,
    flag: "dry-run",
    default: "false",
    schema: bool,
    switch: true,
    help: "Read and plan, log what would change, send no write request",
  }),
} as const;
