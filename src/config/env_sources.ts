/**
 * The sources of settings besides the command line: the env file, read and checked, and the
 * names in the environment and the file that are no settings.
 *
 * @module
 */
import { closestName, slipOf } from "../closest_name.ts";
import { type EnvEntry, EnvFileError, parseEnvFile } from "../env_file.ts";
import { ConfigError } from "./error.ts";
import { SETTING_NAMES } from "./settings.ts";
import { looksLikeKey, type Shown, shownExcept } from "./shown.ts";
import { UNSUPPORTED_SETTINGS } from "./unsupported.ts";

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Reads a file as strict UTF-8; undefined when it does not exist. */
export function readTextFileIfPresent(path: string): string | undefined {
  let bytes: Uint8Array;
  try {
    bytes = Deno.readFileSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  try {
    return UTF8.decode(bytes);
  } catch {
    // Replacement characters would change a value without a word: name the line instead.
    let line = 1;
    let start = 0;
    for (let i = 0; i <= bytes.length; i++) {
      if (i < bytes.length && bytes[i] !== 0x0a) continue;
      try {
        UTF8.decode(bytes.subarray(start, i));
      } catch {
        break;
      }
      line++;
      start = i + 1;
    }
    throw new TypeError(`not UTF-8 text (line ${line})`);
  }
}

/** An env file that was read: its path as given and its entries. */
export interface EnvFile {
  readonly path: string;
  readonly entries: readonly EnvEntry[];
}

/**
 * Reads the env file: the one given, else `./.env` when present.
 *
 * @throws {ConfigError} For a file given that cannot be read, a line that cannot be parsed, or a
 *   name that looks like a misspelt setting.
 */
export function readEnvFile(
  path: string | undefined,
  readTextFile: (path: string) => string | undefined,
): EnvFile | undefined {
  const file = path ?? ".env";
  const shownPath = shownExcept([]).path(file);
  let content: string | undefined;
  try {
    content = readTextFile(file);
  } catch (error) {
    throw new ConfigError(`Cannot read env file ${shownPath}: ${(error as Error).message}`);
  }
  if (content === undefined) {
    if (path === undefined) return undefined;
    throw new ConfigError(`Cannot read env file ${shownPath}: no such file`);
  }
  const invalid = (line: number, problem: string) =>
    new ConfigError(`Invalid env file ${shownPath} at line ${line}: ${problem}`);
  let entries: EnvEntry[];
  try {
    entries = parseEnvFile(content, { mayShow: (word) => !looksLikeKey(word) });
  } catch (error) {
    if (error instanceof EnvFileError) throw invalid(error.line, error.problem);
    throw error;
  }
  const unsupported = new Set(UNSUPPORTED_SETTINGS.map((setting) => setting.env));
  for (const { name, line } of entries) {
    if (SETTING_NAMES.includes(name) || unsupported.has(name)) continue;
    const shownName = looksLikeKey(name) ? "the name on this line" : name;
    const near = closestName(name, SETTING_NAMES);
    if (near !== undefined) {
      throw invalid(line, `${shownName} is not a setting: did you mean ${near}?`);
    }
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw invalid(
        line,
        `${shownName} is not a valid name: names are letters, digits and _, and do not start ` +
          "with a digit",
      );
    }
  }
  return { path: shownPath, entries };
}

/**
 * Environment variables that are no setting but close to one. A slip of a setting's name
 * (`DRYRUN`, `dry_run`, `DRY_RUNS`, `API_KEYS`) stops the command before anything is sent, as it
 * does in an env file: a dry run must not become a real one for a missing `_`. A name one letter
 * different (`APP_KEY` beside `API_KEY`) gets a warning only, as other programs sharing the
 * environment use such names (docs/architecture.md, "Settings and secrets").
 *
 * @returns One warning per name close to a setting that is no slip of one.
 * @throws {ConfigError} For the first slip, naming the setting meant.
 */
export function checkEnvironmentNames(env: Readonly<Record<string, string | undefined>>): string[] {
  const unsupported = new Set(UNSUPPORTED_SETTINGS.map((setting) => setting.env));
  return Object.keys(env).flatMap((name) => {
    if (env[name] === undefined || env[name] === "" || looksLikeKey(name)) return [];
    if (unsupported.has(name)) return [];
    const slip = slipOf(name, SETTING_NAMES);
    if (slip !== undefined) {
      throw new ConfigError(
        `Invalid environment variable ${name}: it is not a setting: did you mean ${slip}?`,
      );
    }
    const near = closestName(name, SETTING_NAMES);
    return near === undefined
      ? []
      : [`Ignored ${name} from the environment: it is not a setting, did you mean ${near}?`];
  });
}

/** One line naming every name of the env file that is not a setting, so typos show. */
export function unknownNameWarnings(envFile: EnvFile | undefined, shown: Shown): string[] {
  if (envFile === undefined) return [];
  const unsupported = new Set(UNSUPPORTED_SETTINGS.map((setting) => setting.env));
  const unknown = envFile.entries.filter(({ name }) =>
    !SETTING_NAMES.includes(name) && !unsupported.has(name)
  );
  if (unknown.length === 0) return [];
  const names = unknown.map(({ name, line }) =>
    shown.may(name) ? `${name} (line ${line})` : `a name that looks like a key (line ${line})`
  );
  return [
    `Ignored ${unknown.length === 1 ? "1 variable" : `${unknown.length} variables`} of ` +
    `${envFile.path} that ${
      unknown.length === 1 ? "is not a stacksync setting" : "are not stacksync settings"
    }: ${names.join(", ")}`,
  ];
}
