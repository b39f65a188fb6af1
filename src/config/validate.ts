/**
 * The checks across settings: the API keys (from API_KEY or its file), RESET_STACKS and its
 * confirmation, the date filters, and the default STATE_DIR.
 *
 * @module
 */
import { isAbsolute, join } from "node:path";
import { ConfigError } from "./error.ts";
import {
  type Declarations,
  describe,
  type RawSettings,
  SETTING_NAMES,
  type Settings,
} from "./settings.ts";
import { RESET_CONFIRMATION } from "./settings_stacks.ts";
import type { Shown } from "./shown.ts";

function splitKeys(text: string, source: string): string[] {
  const keys = text.split(",").map((key) => key.trim());
  if (keys.some((key) => key === "")) {
    throw new ConfigError(`Invalid ${source}: the list of API keys has an empty entry`);
  }
  return keys;
}

/** The keys of an API_KEY_FILE: one per line or comma-separated. */
function keysOfFile(content: string, shown: Shown): string[] {
  const source = describe("apiKeyFile");
  if (content.trim() === "") throw new ConfigError(`Invalid ${source}: the key file is empty`);
  // An env file line pasted into the key file would send `API_KEY=…` as the key.
  const assignment = /^[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)[ \t]*=/m.exec(content);
  const name = assignment?.[1];
  if (name !== undefined && (SETTING_NAMES.includes(name) || /KEY/i.test(name))) {
    const holds = shown.may(name) ? `${name}=` : "a NAME= line";
    throw new ConfigError(
      `Invalid ${source}: the key file holds ${holds}: put the key alone, one key per line`,
    );
  }
  return splitKeys(content.replace(/\s+$/, "").split(/\r?\n/).join(","), source);
}

/** What {@linkcode validate} needs besides the raw values. */
export interface ValidateContext {
  readonly readTextFile: (path: string) => string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The settings the command reads; the others keep their defaults, unchecked. */
  readonly read: ReadonlySet<keyof Declarations>;
  /** Which values messages may show. */
  readonly shown: Shown;
}

/**
 * The default STATE_DIR, after XDG: `$XDG_STATE_HOME/stacksync`, else
 * `~/.local/state/stacksync`, else (Windows) `%LOCALAPPDATA%\stacksync`.
 */
function defaultStateDir(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const base = (name: string) => {
    const value = env[name];
    return value !== undefined && isAbsolute(value) ? value : undefined;
  };
  const xdg = base("XDG_STATE_HOME");
  if (xdg !== undefined) return join(xdg, "stacksync");
  const home = base("HOME");
  if (home !== undefined) return join(home, ".local", "state", "stacksync");
  const local = base("LOCALAPPDATA");
  return local === undefined ? undefined : join(local, "stacksync");
}

/**
 * The settings checked across each other, with the API keys read and the default STATE_DIR.
 *
 * @throws {ConfigError} For a missing or conflicting setting, naming it.
 */
export function validate(raw: RawSettings, context: ValidateContext): Settings {
  const { apiKey, apiKeyFile, envFile: _envFile, confirmResetStack, ...rest } = raw;
  const stateDir = raw.stateDir ?? defaultStateDir(context.env);
  const local = { ...rest, ...(stateDir === undefined ? {} : { stateDir }) };
  if (!context.read.has("apiUrl")) return { ...local, apiUrl: "", apiKeys: [] };
  const { readTextFile, shown } = context;
  if (raw.apiUrl === undefined) {
    throw new ConfigError(`Missing ${describe("apiUrl")}: set the address of the Immich API`);
  }
  if (apiKey !== undefined && apiKeyFile !== undefined) {
    throw new ConfigError(
      `Conflicting ${describe("apiKey")} and ${describe("apiKeyFile")}: set only one of them`,
    );
  }
  let apiKeys: string[];
  if (apiKeyFile !== undefined) {
    let content: string | undefined;
    try {
      content = readTextFile(apiKeyFile);
    } catch (error) {
      throw new ConfigError(
        `Cannot read API_KEY_FILE ${shown.path(apiKeyFile)}: ${(error as Error).message}`,
      );
    }
    if (content === undefined) {
      throw new ConfigError(`Cannot read API_KEY_FILE ${shown.path(apiKeyFile)}: no such file`);
    }
    apiKeys = keysOfFile(content, shown);
  } else if (apiKey !== undefined) {
    apiKeys = splitKeys(apiKey, describe("apiKey"));
  } else {
    throw new ConfigError(
      `Missing ${describe("apiKey")}: set an Immich API key, or API_KEY_FILE (--api-key-file)`,
    );
  }
  if (raw.resetStacks && raw.runMode === "cron") {
    throw new ConfigError(
      `Invalid ${describe("resetStacks")}: RESET_STACKS works only with RUN_MODE=once`,
    );
  }
  if (raw.resetStacks && confirmResetStack !== RESET_CONFIRMATION) {
    throw new ConfigError(
      `Invalid ${describe("confirmResetStack")}: RESET_STACKS needs it to be exactly ` +
        `"${RESET_CONFIRMATION}"`,
    );
  }
  if (
    raw.filterTakenAfter !== undefined && raw.filterTakenBefore !== undefined &&
    raw.filterTakenAfter >= raw.filterTakenBefore
  ) {
    throw new ConfigError(
      `Invalid ${describe("filterTakenAfter")}: must be before FILTER_TAKEN_BEFORE: ` +
        `current values are ${raw.filterTakenAfter} and ${raw.filterTakenBefore}`,
    );
  }
  return { ...local, apiUrl: raw.apiUrl, apiKeys };
}
