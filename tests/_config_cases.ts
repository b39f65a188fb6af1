/**
 * Invalid configurations with their exact error text, shared by the pure tests of loadSettings()
 * (tests/config_test.ts) and the subprocess tests of the real CLI (tests/cli_test.ts).
 *
 * @module
 */
import assert from "node:assert/strict";
import { RESET_CONFIRMATION } from "../src/config.ts";
import { parseCriteria } from "../src/grouping/criteria.ts";

/** One invalid configuration. */
export interface InvalidCase {
  /** What is wrong, for the test step name. */
  readonly name: string;
  /** Environment variables; merged over {@linkcode VALID_ENV} unless `bare` is set. */
  readonly env?: Readonly<Record<string, string>>;
  /** Command-line arguments. */
  readonly args?: readonly string[];
  /** Files by relative path, written into the working folder of the run. */
  readonly files?: Readonly<Record<string, string>>;
  /** Start from an empty environment instead of {@linkcode VALID_ENV}. */
  readonly bare?: boolean;
  /** The exact message; the CLI prints it as `error: <message>`. */
  readonly message: string;
}

/** The grouping module's own message for invalid criteria; the CLI must pass it on as is. */
function criteriaError(criteria: unknown): string {
  try {
    parseCriteria(criteria);
  } catch (error) {
    assert.ok((error as Error).message.startsWith("Invalid grouping criteria: "));
    return (error as Error).message;
  }
  throw new Error(`Cannot build the CRITERIA case: ${JSON.stringify(criteria)} is valid`);
}

/** A minimal valid environment. */
export const VALID_ENV: Readonly<Record<string, string>> = {
  API_URL: "http://immich:2283/api",
  API_KEY: "key-a",
};

const BOOLEANS = [
  ["DRY_RUN", "dry-run"],
  ["WITH_ARCHIVED", "with-archived"],
  ["WITH_DELETED", "with-deleted"],
  ["INCLUDE_VIDEOS", "include-videos"],
  ["REPLACE_STACKS", "replace-stacks"],
  ["REMOVE_SINGLE_ASSET_STACKS", "remove-single-asset-stacks"],
  ["RESET_STACKS", "reset-stacks"],
  ["PREVENT_SELF_REKT", "prevent-self-rekt"],
  ["FIX_TRASH_AFTER_STACKING", "fix-trash-after-stacking"],
  ["TRASH_ORPHANED_RAWS", "trash-orphaned-raws"],
] as const;

const CRON_PROBLEM = "must be a whole number of seconds from 1 to 31536000 (365 days)";
const TIMEOUT_PROBLEM = "must be a whole number of seconds from 1 to 3600 (an hour)";
const URL_PROBLEM = "must be an http(s) URL such as http://immich:2283/api";
const DATE_PROBLEM =
  "must be an ISO 8601 date or date-time such as 2024-01-31 or 2024-01-31T12:00:00Z";
const EMPTY_KEY = "the list of API keys has an empty entry";

/** The error for a word where the command goes that names none and is near none. */
function noSuchCommand(word: string): string {
  return "Cannot run the command as stacksync has no such command, choose one of run, undo, " +
    `runs, backup, restore, fix-trash, duplicates, plan, apply: current value is "${word}"`;
}

/** Every invalid value the foundation issue lists, with its exact message. */
export const INVALID_CASES: readonly InvalidCase[] = [
  {
    name: "unknown RUN_MODE",
    env: { RUN_MODE: "daily" },
    message: 'Invalid RUN_MODE (--run-mode): must be one of once, cron: current value is "daily"',
  },
  {
    name: "unknown LOG_LEVEL",
    env: { LOG_LEVEL: "verbose" },
    message: "Invalid LOG_LEVEL (--log-level): must be one of trace, debug, info, warn, error, " +
      'fatal: current value is "verbose"',
  },
  {
    name: "unknown LOG_FORMAT",
    args: ["--log-format", "xml"],
    message: 'Invalid LOG_FORMAT (--log-format): must be one of text, json: current value is "xml"',
  },
  ...BOOLEANS.map(([env, flag]): InvalidCase => ({
    name: `${env} not a boolean`,
    env: { [env]: "maybe" },
    message: `Invalid ${env} (--${flag}): must be one of true, false, 1, 0, yes, no: ` +
      'current value is "maybe"',
  })),
  // "0" is immich-stack's "a day", read as 86400 with a warning.
  ...["-5", "1.5", "10s", "soon", "31536001", "86400000"].map((value): InvalidCase => ({
    name: `CRON_INTERVAL ${value}`,
    env: { CRON_INTERVAL: value },
    message: `Invalid interval: CRON_INTERVAL (--cron-interval): ${CRON_PROBLEM}: ` +
      `current value is "${value}"`,
  })),
  ...["0", "2m", "3601"].map((value): InvalidCase => ({
    name: `REQUEST_TIMEOUT ${value}`,
    env: { REQUEST_TIMEOUT: value },
    message: `Invalid REQUEST_TIMEOUT (--request-timeout): ${TIMEOUT_PROBLEM}: ` +
      `current value is "${value}"`,
  })),
  ...["immich:2283/api", "ftp://immich/api", "not a url"].map((value): InvalidCase => ({
    name: `API_URL ${value}`,
    env: { API_URL: value },
    message: `Invalid API_URL (--api-url): ${URL_PROBLEM}: current value is "${value}"`,
  })),
  {
    name: "no API_URL",
    bare: true,
    env: { API_KEY: "key-a" },
    message: "Missing API_URL (--api-url): set the address of the Immich API",
  },
  {
    name: "no API key",
    bare: true,
    env: { API_URL: "http://immich:2283/api" },
    message: "Missing API_KEY (--api-key): set an Immich API key, or API_KEY_FILE (--api-key-file)",
  },
  ...[" ", ",", " , "].map((value): InvalidCase => ({
    name: `API_KEY of empty entries only ${JSON.stringify(value)}`,
    env: { API_KEY: value },
    message: "Missing API_KEY (--api-key): set an Immich API key, or API_KEY_FILE (--api-key-file)",
  })),
  {
    name: "empty line in API_KEY_FILE",
    bare: true,
    env: { API_URL: "http://immich:2283/api", API_KEY_FILE: "keys.txt" },
    files: { "keys.txt": "key-a\n\nkey-b\n" },
    message: `Invalid API_KEY_FILE (--api-key-file): ${EMPTY_KEY}`,
  },
  ...["", " \n\n"].map((content): InvalidCase => ({
    name: `API_KEY_FILE holding ${JSON.stringify(content)}`,
    bare: true,
    env: { API_URL: "http://immich:2283/api", API_KEY_FILE: "keys.txt" },
    files: { "keys.txt": content },
    message: "Invalid API_KEY_FILE (--api-key-file): the key file is empty",
  })),
  ...["API_KEY=key-a\n", "export API_KEY='key-a'\n"].map((content): InvalidCase => ({
    name: `API_KEY_FILE holding ${JSON.stringify(content)}`,
    bare: true,
    env: { API_URL: "http://immich:2283/api", API_KEY_FILE: "keys.txt" },
    files: { "keys.txt": content },
    message: "Invalid API_KEY_FILE (--api-key-file): the key file holds API_KEY=: put the key " +
      "alone, one key per line",
  })),
  {
    name: "API_KEY and API_KEY_FILE together",
    env: { API_KEY_FILE: "keys.txt" },
    files: { "keys.txt": "key-b\n" },
    message: "Conflicting API_KEY (--api-key) and API_KEY_FILE (--api-key-file): " +
      "set only one of them",
  },
  {
    name: "unreadable API_KEY_FILE",
    bare: true,
    env: { API_URL: "http://immich:2283/api" },
    args: ["--api-key-file", "missing-keys.txt"],
    message: "Cannot read API_KEY_FILE missing-keys.txt: no such file",
  },
  {
    name: "PARENT_FILENAME_PROMOTE with sequence:0",
    env: { PARENT_FILENAME_PROMOTE: "cover,sequence:0" },
    message: "Invalid PARENT_FILENAME_PROMOTE (--parent-filename-promote): a sequence digit " +
      'count must be at least 1: current value is "cover,sequence:0"',
  },
  {
    name: "PARENT_FILENAME_PROMOTE with a prefix ending in a digit",
    env: { PARENT_FILENAME_PROMOTE: "sequence:IMG1" },
    message: "Invalid PARENT_FILENAME_PROMOTE (--parent-filename-promote): a sequence prefix " +
      'must not end in a digit: current value is "sequence:IMG1"',
  },
  {
    name: "unreadable ENV_FILE",
    env: { ENV_FILE: "missing.env" },
    message: "Cannot read env file missing.env: no such file",
  },
  {
    name: "unreadable --env-file",
    args: ["--env-file=missing.env"],
    message: "Cannot read env file missing.env: no such file",
  },
  {
    name: "RESET_STACKS with RUN_MODE=cron",
    env: { RESET_STACKS: "true", RUN_MODE: "cron", CONFIRM_RESET_STACK: RESET_CONFIRMATION },
    message: "Invalid RESET_STACKS (--reset-stacks): RESET_STACKS works only with RUN_MODE=once",
  },
  ...[undefined, RESET_CONFIRMATION.toUpperCase(), `${RESET_CONFIRMATION}.`].map(
    (confirmation): InvalidCase => ({
      name: `RESET_STACKS with confirmation ${JSON.stringify(confirmation)}`,
      env: confirmation === undefined
        ? { RESET_STACKS: "yes" }
        : { RESET_STACKS: "yes", CONFIRM_RESET_STACK: confirmation },
      message: "Invalid CONFIRM_RESET_STACK (--confirm-reset-stack): RESET_STACKS needs it to " +
        `be exactly "${RESET_CONFIRMATION}"`,
    }),
  ),
  {
    name: "unparseable CRITERIA",
    env: { CRITERIA: "{not json" },
    message: "Invalid grouping criteria: Expected property name or '}' in JSON at position 1 " +
      "(line 1 column 2)",
  },
  // Unknown CRITERIA fields are read as immich-stack reads them, with warnings: see
  // tests/immich_stack_config_test.ts.
  ...[[], { mode: "advanced", expression: { operator: "NOT", children: [] } }].map(
    (criteria): InvalidCase => ({
      name: `CRITERIA that is JSON but not criteria: ${JSON.stringify(criteria)}`,
      env: { CRITERIA: JSON.stringify(criteria) },
      message: criteriaError(criteria),
    }),
  ),
  ...["yesterday", "2024-02-30", "2024-13-01", "31/01/2024", "2024-01-31T25:00:00Z"].map(
    (value): InvalidCase => ({
      name: `FILTER_TAKEN_AFTER ${value}`,
      env: { FILTER_TAKEN_AFTER: value },
      message: `Invalid FILTER_TAKEN_AFTER (--filter-taken-after): ${DATE_PROBLEM}: ` +
        `current value is "${value}"`,
    }),
  ),
  {
    name: "FILTER_TAKEN_BEFORE not ISO 8601",
    args: ["--filter-taken-before", "Jan 31 2024"],
    message: `Invalid FILTER_TAKEN_BEFORE (--filter-taken-before): ${DATE_PROBLEM}: ` +
      'current value is "Jan 31 2024"',
  },
  ...[["2024-02-01", "2024-02-01"], ["2024-03-01", "2024-02-01T23:59:59Z"]].map(
    ([after, before]): InvalidCase => ({
      name: `FILTER_TAKEN_AFTER ${after} not before FILTER_TAKEN_BEFORE ${before}`,
      env: { FILTER_TAKEN_AFTER: after, FILTER_TAKEN_BEFORE: before },
      message: "Invalid FILTER_TAKEN_AFTER (--filter-taken-after): must be before " +
        `FILTER_TAKEN_BEFORE: current values are ${new Date(after).toISOString()} and ` +
        `${new Date(before).toISOString()}`,
    }),
  ),
  {
    name: "unknown flag",
    args: ["--bogus"],
    message: "Cannot parse the command line: Unknown option '--bogus'; see --help",
  },
  {
    name: "misspelt flag",
    args: ["--dryrun"],
    message: "Cannot parse the command line: Unknown option '--dryrun': did you mean --dry-run?",
  },
  ...([
    ["LOG_LEVEL debug", 'expected NAME=value, found no "=" after LOG_LEVEL'],
    [
      "LOG_LEVEL='debug",
      "the value of LOG_LEVEL opens a ' quote that is not closed on the " +
      "same line",
    ],
    [
      'LOG_LEVEL="debug" info',
      "text after the closing quote of LOG_LEVEL: only a # comment " +
      "may follow",
    ],
    [
      "LOG_LEVEL=de'bug",
      "a quote inside the unquoted value of LOG_LEVEL: put the whole value " +
      "in single quotes, LOG_LEVEL='…', which keep it as written",
    ],
    [
      // JSON in double quotes, as a newcomer writes it.
      'CRITERIA="[{"key":"originalFileName"}]"',
      'text after the closing quote of CRITERIA: a value holding " (such as JSON) goes in ' +
      "single quotes, CRITERIA='…'",
    ],
    [
      'LOG_LEVEL="\\\\debug\\q"',
      "unknown escape \\q in the double-quoted value of " +
      'LOG_LEVEL: use \\\\, \\", \\n, \\r or \\t, or single quotes for a literal backslash',
    ],
    [
      "LOG_LEVEL=$LEVEL",
      "the value of LOG_LEVEL holds $LEVEL, but stacksync does not " +
      "expand variables: write the value itself, or put it in single quotes to keep the $",
    ],
    [
      "2LOG=debug",
      "2LOG is not a valid name: names are letters, digits and _, and do not " +
      "start with a digit",
    ],
    ["LOGLEVEL=debug", "LOGLEVEL is not a setting: did you mean LOG_LEVEL?"],
    ["Log-Level=debug", "Log-Level is not a setting: did you mean LOG_LEVEL?"],
    ["LOG_LEVEL=debug\nLOG_LEVEL=info", "LOG_LEVEL is set again (first on line 2): keep one"],
  ] as const).map(([text, problem]): InvalidCase => ({
    name: `env file line ${JSON.stringify(text)}`,
    env: { ENV_FILE: "settings.env" },
    files: { "settings.env": `# settings\n${text}\n` },
    message: `Invalid env file settings.env at line ${text.includes("\n") ? 3 : 2}: ${problem}`,
  })),
  {
    name: "positional argument",
    args: ["--dry-run", "sk-9f8e7d6c5b4a"],
    message: "Cannot parse the command line: positional arguments are not accepted; see --help",
  },
  // Where the command goes: after options too, a mistyped one named, and help's own.
  ...([
    [
      "positional argument after the command",
      ["run", "--dry-run", "stray"],
      "Cannot parse the command line: positional arguments are not accepted; see stacksync run " +
      "--help",
    ],
    ["unknown command after an option", ["--dry-run", "stray"], noSuchCommand("stray")],
    [
      "misspelt command",
      ["fixtrash"],
      "Cannot run the command as stacksync has no such command (did you mean fix-trash?): " +
      'current value is "fixtrash"',
    ],
    [
      "help of a misspelt command",
      ["help", "undi"],
      "Cannot show the help as stacksync has no such command (did you mean undo?): current " +
      'value is "undi"',
    ],
    [
      "help of two commands",
      ["help", "undo", "runs"],
      "Cannot parse the command line: help takes one COMMAND at most, as in stacksync help " +
      "undo; see --help",
    ],
  ] as const).map(([name, args, message]): InvalidCase => ({ name, args, message })),
  {
    name: "unknown command",
    args: ["frobnicate", "--dry-run"],
    message: noSuchCommand("frobnicate"),
  },
  {
    name: "a first argument that is no word, never shown",
    args: ["sk-9f8e7d6c5b4a"],
    message: "Cannot parse the command line: the first argument must be a command (run, undo, " +
      "runs, backup, restore, fix-trash, duplicates, plan, apply) or an option; see --help",
  },
  {
    name: "a flag of another command",
    args: ["undo", "--criteria", "[]"],
    message: "Cannot parse the command line: Unknown option '--criteria'; see stacksync undo " +
      "--help",
  },
  {
    name: "a command flag without its command",
    args: ["--exact"],
    message: "Cannot parse the command line: Unknown option '--exact'; see --help",
  },
  {
    name: "two run ids",
    args: ["undo", "20261123-101500-123", "20261123-101501-000"],
    message: "Cannot parse the command line: undo takes one RUN_ID; see stacksync undo --help",
  },
  {
    name: "restore without its file",
    args: ["restore", "--exact"],
    message: "Missing FILE: stacksync restore needs it; see stacksync restore --help",
  },
  ...["101", "-1", "two", "1.5"].map((value): InvalidCase => ({
    name: `STACK_CONCURRENCY ${value}`,
    env: { STACK_CONCURRENCY: value },
    message: "Invalid STACK_CONCURRENCY (--stack-concurrency): must be a whole number from 1 " +
      `to 100: current value is "${value}"`,
  })),
  ...["101", "-5", "ten"].map((value): InvalidCase => ({
    name: `FIX_TRASH_MAX_PERCENT ${value}`,
    args: ["fix-trash"],
    env: { FIX_TRASH_MAX_PERCENT: value },
    message: "Invalid FIX_TRASH_MAX_PERCENT (--fix-trash-max-percent): must be a number from 0 " +
      `to 100: current value is "${value}"`,
  })),
  {
    name: "an unknown duplicates format",
    args: ["duplicates", "--format", "xml"],
    message: 'Invalid --format: must be one of table, json: current value is "xml"',
  },
  {
    name: "apply without its file",
    args: ["apply", "--dry-run"],
    message: "Missing FILE: stacksync apply needs it; see stacksync apply --help",
  },
  {
    name: "PLAN_THUMBNAILS not a number",
    args: ["plan"],
    env: { PLAN_THUMBNAILS: "many" },
    message: "Invalid PLAN_THUMBNAILS (--plan-thumbnails): must be a whole number of 0 or more: " +
      'current value is "many"',
  },
  ...["101%", "ten", "-1", "5 stacks"].map((value) => ({
    name: `MAX_STACK_DELETIONS ${value}`,
    env: { MAX_STACK_DELETIONS: value },
    message: "Invalid MAX_STACK_DELETIONS (--max-stack-deletions): must be a whole number of " +
      "stacks such as 50, or a share of the user's stacks from 0% to 100% such as 10%: current " +
      `value is "${value}"`,
  })),
  {
    name: "JOURNAL_KEEP zero",
    env: { JOURNAL_KEEP: "0" },
    message: "Invalid JOURNAL_KEEP (--journal-keep): must be a positive whole number: " +
      'current value is "0"',
  },
];

/**
 * The environment of one case.
 *
 * @param invalid The case.
 * @returns Its variables, over the valid base unless the case is bare.
 */
export function caseEnv(invalid: InvalidCase): Record<string, string> {
  return { ...(invalid.bare ? {} : VALID_ENV), ...invalid.env };
}
