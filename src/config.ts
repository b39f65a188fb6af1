/**
 * Every setting of stacksync, declared once.
 *
 * Each declaration names its environment variable, its command-line flag, its default and its
 * help text, and carries the zod schema that turns the raw text into a typed value. Parsing,
 * validation, `--help` and the README's settings table are all derived from {@linkcode SETTINGS}.
 *
 * Precedence, highest first: command-line flag, environment variable, env file, default.
 * An empty value counts as unset.
 *
 * The declarations live in `src/config/`, one group of settings per file (`settings_*.ts`);
 * this module is what the rest of stacksync imports.
 *
 * @module
 */
export { type CommandDeclaration, type CommandName, COMMANDS } from "./config/commands.ts";
export type { SettingDeclaration } from "./config/declaration.ts";
export { ConfigError } from "./config/error.ts";
export { helpText } from "./config/help.ts";
export { type Command, loadSettings, type LoadSettingsOptions } from "./config/load.ts";
export { commandLineProblem } from "./config/arguments.ts";
export { describeSettings, secretsOf } from "./config/logged_settings.ts";
export {
  type CommandOptions,
  type OptionDeclaration,
  OPTIONS,
  type ReportFormat,
} from "./config/options.ts";
export { planSettings, settingsOfPlan } from "./config/plan_settings.ts";
export { type RawSettings, SETTINGS, type Settings } from "./config/settings.ts";
export { DEFAULT_CRITERIA, IMMICH_STACK_CRITERIA } from "./config/settings_grouping.ts";
export { SELF_REKT_PAUSE_MS } from "./config/settings_pace.ts";
export { RESET_CONFIRMATION } from "./config/settings_stacks.ts";
export { settingsTable } from "./config/settings_table.ts";
export { UNSUPPORTED_SETTINGS, type UnsupportedSetting } from "./config/unsupported.ts";
