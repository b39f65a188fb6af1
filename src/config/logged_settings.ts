/**
 * The settings as the logs may see them: the start-up record, and the secrets to hide.
 *
 * @module
 */
import { shownUrl } from "../shown_url.ts";
import type { CommandName } from "./commands.ts";
import { type Settings, settingsOf } from "./settings.ts";

/**
 * The effective settings as one record for the start-up log line; API keys are only counted,
 * and a user name and password in API_URL are shown as `***`.
 *
 * @param settings The validated settings.
 * @param command The command they were loaded for; only the settings it reads are shown.
 * @returns Every setting the command reads by name, with `apiKeys` replaced by their number.
 *
 * @example Usage
 * ```ts
 * import { describeSettings, loadSettings } from "../config.ts";
 * import assert from "node:assert/strict";
 *
 * const command = loadSettings({
 *   args: [],
 *   env: { API_URL: "http://me:pw@immich:2283/api", API_KEY: "key-1,key-2" },
 *   version: "1.0.0",
 *   readTextFile: () => undefined,
 * });
 * assert.equal(command.kind, "run");
 * if (command.kind === "run") {
 *   assert.equal(describeSettings(command.settings).apiKeys, "2 keys");
 *   assert.equal(describeSettings(command.settings).apiUrl, "http://***:***@immich:2283/api");
 * }
 * ```
 */
export function describeSettings(
  settings: Settings,
  command: CommandName = "run",
): Record<string, unknown> {
  const { apiKeys, ...rest } = settings;
  const read = new Set<string>(settingsOf(command));
  const shown = Object.entries(rest).filter(([key]) => read.has(key))
    .map(([key, value]) => key === "apiUrl" ? [key, shownUrl(String(value))] : [key, value]);
  if (read.has("apiKey")) {
    shown.push(["apiKeys", `${apiKeys.length} key${apiKeys.length === 1 ? "" : "s"}`]);
  }
  return Object.fromEntries(shown);
}

/**
 * Every secret the settings hold, for the logger to hide wherever one turns up: the API keys,
 * and the password of API_URL as written and decoded.
 *
 * @param settings The validated settings.
 * @returns The secrets, without empty strings.
 *
 * @example Usage
 * ```ts
 * import { loadSettings, secretsOf } from "../config.ts";
 * import assert from "node:assert/strict";
 *
 * const command = loadSettings({
 *   args: [],
 *   env: { API_URL: "http://me:p%40ss@immich:2283/api", API_KEY: "key-1" },
 *   version: "1.0.0",
 *   readTextFile: () => undefined,
 * });
 * assert.equal(command.kind, "run");
 * if (command.kind === "run") {
 *   assert.deepEqual(secretsOf(command.settings), ["key-1", "p%40ss", "p@ss"]);
 * }
 * ```
 */
export function secretsOf(settings: Settings): string[] {
  // Commands that talk to no server (`runs`) have no API_URL.
  const password = URL.parse(settings.apiUrl)?.password ?? "";
  const passwords = password === "" ? [] : [password, decodedPassword(password)];
  return [...new Set([...settings.apiKeys, ...passwords])];
}

function decodedPassword(password: string): string {
  try {
    return decodeURIComponent(password);
  } catch {
    return password;
  }
}
