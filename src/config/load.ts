/**
 * Reads the command line, the environment and the env file into a command and its validated
 * settings.
 *
 * @module
 */
import { immichStackSpelling } from "../immich_stack.ts";
import { helpCommand, helpHint, parseCommandLine, splitCommand } from "./arguments.ts";
import { type CommandDeclaration, type CommandName, COMMANDS } from "./commands.ts";
import type { SettingDeclaration } from "./declaration.ts";
import {
  checkEnvironmentNames,
  readEnvFile,
  readTextFileIfPresent,
  unknownNameWarnings,
} from "./env_sources.ts";
import { ConfigError } from "./error.ts";
import { helpText } from "./help.ts";
import { type CommandOptions, OPTIONS, REPORT_FORMATS, type ReportFormat } from "./options.ts";
import {
  describe,
  KEYS,
  type RawSettings,
  SETTINGS,
  type Settings,
  settingsOf,
} from "./settings.ts";
import { givenKeys, type Shown, shownExcept } from "./shown.ts";
import { unsupportedWarnings } from "./unsupported.ts";
import { validate } from "./validate.ts";
import { CRITERIA_PREFIX } from "./values.ts";

/** What the command line asks for. */
export type Command =
  | { readonly kind: "help"; readonly text: string }
  | { readonly kind: "version"; readonly text: string }
  | {
    readonly kind: "run";
    /** The subcommand; `run` when none was given. */
    readonly command: CommandName;
    readonly settings: Settings;
    /** The positional argument (`RUN_ID`, `FILE`), when given. */
    readonly operand?: string;
    readonly options: CommandOptions;
    /**
     * One line per thing the user set that has no effect (an unknown name in the env file, an
     * immich-stack setting stacksync does not support), for `main.ts` to log once logging is up.
     */
    readonly warnings: readonly string[];
  };

/** Inputs of {@linkcode loadSettings}; the file reader is injectable for tests. */
export interface LoadSettingsOptions {
  /** Command-line arguments, without the program name. */
  readonly args: readonly string[];
  /** The process environment. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Program version printed by `--version`. */
  readonly version: string;
  /**
   * Reads a text file; returns undefined when the file does not exist.
   * @default Deno.readFileSync decoded as strict UTF-8, with NotFound mapped to undefined
   */
  readonly readTextFile?: (path: string) => string | undefined;
}

/**
 * Reads the command line, the environment and the env file into validated settings.
 *
 * The first argument may name a subcommand ({@linkcode COMMANDS}); without one the command is
 * `run`. A command reads only its own settings ({@linkcode SettingDeclaration.commands}): the
 * variables of the others are ignored, their flags refused.
 *
 * @param options The arguments, environment and file reader.
 * @returns The command to carry out: help, version, or a subcommand with its settings.
 * @throws {ConfigError} For an unknown command or an invalid setting, naming the variable and
 *   the allowed values.
 *
 * @example Usage
 * ```ts
 * import { loadSettings } from "../config.ts";
 * import assert from "node:assert/strict";
 *
 * const command = loadSettings({
 *   args: ["--dry-run"],
 *   env: { API_URL: "http://immich:2283/api", API_KEY: "secret" },
 *   version: "1.0.0",
 *   readTextFile: () => undefined,
 * });
 * assert.equal(command.kind, "run");
 * if (command.kind === "run") {
 *   assert.equal(command.command, "run");
 *   assert.equal(command.settings.dryRun, true);
 *   assert.equal(command.settings.runMode, "once");
 * }
 * ```
 */
export function loadSettings(options: LoadSettingsOptions): Command {
  const readTextFile = options.readTextFile ?? readTextFileIfPresent;
  const help = helpCommand(options.args);
  if (help !== undefined) return help;
  const { command, explicit, rest } = splitCommand(options.args);
  const hint = helpHint(command, explicit);
  const { values, positionals } = parseCommandLine(rest, command, hint);
  if (values.help) return { kind: "help", text: helpText(explicit ? command : undefined) };
  if (values.version) return { kind: "version", text: `stacksync ${options.version}` };
  const declared = COMMANDS[command] as CommandDeclaration;
  if (declared.operand?.required && positionals.length === 0) {
    throw new ConfigError(
      `Missing ${declared.operand.name}: stacksync ${command} needs it; see ${hint}`,
    );
  }

  const fromFlag = (flag: string): string | undefined => {
    const value = values[flag];
    if (value === undefined) return undefined;
    return typeof value === "boolean" ? String(value) : value;
  };

  // Before any value: a slip explains a setting that looks missing.
  const environmentWarnings = checkEnvironmentNames(options.env);
  const envFilePath = nonEmpty(fromFlag(SETTINGS.envFile.flag)) ?? nonEmpty(options.env.ENV_FILE);
  const envFile = readEnvFile(envFilePath, readTextFile);
  const fileValues = new Map(envFile?.entries.map((entry) => [entry.name, entry.value]));
  const shown = shownExcept(
    givenKeys([fromFlag(SETTINGS.apiKey.flag), options.env.API_KEY, fileValues.get("API_KEY")]),
  );

  const read = new Set(settingsOf(command));
  const { raw, adoptions } = parseValues(read, { fromFlag, env: options.env, fileValues }, shown);
  const commandOptions = optionsOfLine(values, shown);
  const settings = validate(raw as RawSettings, { readTextFile, env: options.env, read, shown });
  const warnings = [
    ...adoptions,
    ...unsupportedWarnings(options.env, envFile),
    ...environmentWarnings,
    ...unknownNameWarnings(envFile, shown),
  ];
  return {
    kind: "run",
    command,
    settings,
    ...(positionals[0] === undefined ? {} : { operand: positionals[0] }),
    options: commandOptions,
    warnings,
  };
}

/** An empty value counts as unset. */
function nonEmpty(value: string | undefined): string | undefined {
  return value === "" ? undefined : value;
}

/** Where a setting's text comes from, highest first: its flag, the environment, the env file. */
interface Sources {
  readonly fromFlag: (flag: string) => string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly fileValues: ReadonlyMap<string, string>;
}

/**
 * Parses every setting: those the command reads from their highest source, else their default;
 * the others take their defaults.
 *
 * @returns The values, and one line per value written in immich-stack's spelling.
 * @throws {ConfigError} For the first invalid value, naming its setting.
 */
function parseValues(read: ReadonlySet<string>, sources: Sources, shown: Shown) {
  const raw: Record<string, unknown> = {};
  /** Values in immich-stack's spelling, each with the line that says so. */
  const adoptions: string[] = [];
  for (const key of KEYS) {
    const declaration: SettingDeclaration<unknown> = SETTINGS[key];
    const flagText = sources.fromFlag(declaration.flag);
    const given = !read.has(key)
      ? undefined
      : declaration.emptyFlagClears && flagText === ""
      ? flagText
      : nonEmpty(flagText) ?? nonEmpty(sources.env[declaration.env]) ??
        nonEmpty(sources.fileValues.get(declaration.env));
    // Written for immich-stack: read as it reads it, and say how stacksync writes it.
    const adopted = given === undefined ? undefined : immichStackSpelling(declaration.env, given);
    adoptions.push(...adopted?.warnings ?? []);
    const text = (adopted === undefined ? given : nonEmpty(adopted.text)) ?? declaration.default;
    if (text === undefined) continue;
    const result = declaration.schema.safeParse(text);
    if (!result.success) {
      const problem = result.error.issues[0]?.message ?? "invalid value";
      if (key === "criteria") throw new ConfigError(`${CRITERIA_PREFIX}${problem}`);
      const current = declaration.secret ? "" : shown.currentValue(text);
      const title = declaration.errorTitle ?? `Invalid ${describe(key)}`;
      throw new ConfigError(`${title}: ${problem}${current}`);
    }
    raw[key] = result.data;
  }
  return { raw, adoptions };
}

/**
 * The values of the commands' own flags on the command line.
 *
 * @throws {ConfigError} For a `--format` that names no format.
 */
function optionsOfLine(
  values: ReturnType<typeof parseCommandLine>["values"],
  shown: Shown,
): CommandOptions {
  const flag = (key: keyof typeof OPTIONS) => values[OPTIONS[key].flag];
  const out = flag("out");
  const html = flag("html");
  const format = flag("format");
  if (format !== undefined && !REPORT_FORMATS.some((known) => known === format)) {
    throw new ConfigError(
      `Invalid --format: must be one of ${REPORT_FORMATS.join(", ")}` +
        shown.currentValue(String(format)),
    );
  }
  return {
    ...(typeof out === "string" ? { out } : {}),
    ...(typeof html === "string" ? { html } : {}),
    ...(flag("embedThumbnails") === true ? { embedThumbnails: true } : {}),
    exact: flag("exact") === true,
    force: flag("force") === true,
    full: flag("full") === true,
    ...(typeof format === "string" ? { format: format as ReportFormat } : {}),
  };
}
