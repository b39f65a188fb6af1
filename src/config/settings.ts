/**
 * Every setting, assembled from the groups in the order `--help` and the README list them, and
 * the types of their values.
 *
 * @module
 */
import type { z } from "zod";
import type { CommandName } from "./commands.ts";
import { ACCESS_SETTINGS } from "./settings_access.ts";
import { FIX_TRASH_SETTINGS } from "./settings_fix_trash.ts";
import { GROUPING_SETTINGS } from "./settings_grouping.ts";
import { JOURNAL_SETTINGS } from "./settings_journal.ts";
import { LOGGING_SETTINGS } from "./settings_logging.ts";
import { PACE_SETTINGS } from "./settings_pace.ts";
import { PASS_SETTINGS } from "./settings_passes.ts";
import { REVIEW_SETTINGS } from "./settings_review.ts";
import { STACK_SETTINGS } from "./settings_stacks.ts";

/** The declarations, in the order `--help` and the README list them. */
export const SETTINGS = {
  ...ACCESS_SETTINGS,
  ...PASS_SETTINGS,
  ...GROUPING_SETTINGS,
  ...STACK_SETTINGS,
  ...LOGGING_SETTINGS,
  ...JOURNAL_SETTINGS,
  ...PACE_SETTINGS,
  ...FIX_TRASH_SETTINGS,
  ...REVIEW_SETTINGS,
} as const;

/** The type of every declaration, by key. */
export type Declarations = typeof SETTINGS;
type Parsed<K extends keyof Declarations> = z.output<Declarations[K]["schema"]>;
type WithDefault = {
  [K in keyof Declarations]: Declarations[K] extends { default: string } ? K : never;
}[keyof Declarations];

/** Raw settings as parsed from their declarations, before cross-field checks. */
export type RawSettings =
  & { [K in WithDefault]: Parsed<K> }
  & { [K in Exclude<keyof Declarations, WithDefault>]?: Parsed<K> };

/**
 * The validated settings a command works with. A command gets the values of the settings it
 * reads; the others keep their defaults. `apiUrl` and `apiKeys` are empty for a command that
 * talks to no server (`runs`).
 */
export type Settings =
  & Omit<RawSettings, "apiKey" | "apiKeyFile" | "envFile" | "confirmResetStack">
  & {
    /** Base address of the Immich API, without a trailing slash. */
    readonly apiUrl: string;
    /** One key per user, in the order given. */
    readonly apiKeys: readonly string[];
  };

/** The keys of {@linkcode SETTINGS}, in declaration order. */
export const KEYS = Object.keys(SETTINGS) as (keyof Declarations)[];

/** How messages name a setting: `API_URL (--api-url)`. */
export function describe(key: keyof Declarations): string {
  return `${SETTINGS[key].env} (--${SETTINGS[key].flag})`;
}

/** Every setting's environment variable, for "did you mean …?". */
export const SETTING_NAMES: readonly string[] = KEYS.map((key) => SETTINGS[key].env);

/** The settings a command reads, in declaration order. */
export function settingsOf(command: CommandName): (keyof Declarations)[] {
  return KEYS.filter((key) => SETTINGS[key].commands.includes(command));
}
