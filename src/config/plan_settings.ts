/**
 * The settings that shape a plan: as a plan file records them, and read back from one.
 *
 * @module
 */
import type { SettingDeclaration } from "./declaration.ts";
import { ConfigError } from "./error.ts";
import { KEYS, SETTINGS, type Settings } from "./settings.ts";

/** The settings that shape a plan: those `run` and `plan` read and `apply` takes from its file. */
const PLAN_SHAPING = KEYS.filter((key) => {
  const { commands, guard }: SettingDeclaration<unknown> = SETTINGS[key];
  return commands.includes("run") && commands.includes("plan") && !commands.includes("apply") &&
    guard !== true;
});

/**
 * The settings that shaped a plan, as a plan file records them: by variable name, with their
 * values as JSON (lists as arrays, CRITERIA as its JSON); settings without a value are left out.
 *
 * @param settings The settings of `stacksync plan`.
 * @returns The record.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadSettings, planSettings } from "../config.ts";
 *
 * const command = loadSettings({
 *   args: ["plan", "--replace-stacks"],
 *   env: { API_URL: "http://immich:2283/api", API_KEY: "secret" },
 *   version: "1.0.0",
 *   readTextFile: () => undefined,
 * });
 * assert.equal(command.kind, "run");
 * if (command.kind === "run") {
 *   const recorded = planSettings(command.settings);
 *   assert.equal(recorded.REPLACE_STACKS, true);
 *   assert.deepEqual(recorded.PARENT_EXT_PROMOTE, [".jpg", ".png", ".jpeg", ".heic", ".dng"]);
 *   assert.equal(recorded.API_KEY, undefined);
 * }
 * ```
 */
export function planSettings(settings: Settings): Record<string, unknown> {
  const recorded: Record<string, unknown> = {};
  const values = settings as unknown as Record<string, unknown>;
  for (const key of PLAN_SHAPING) {
    if (values[key] !== undefined) recorded[SETTINGS[key].env] = values[key];
  }
  return recorded;
}

/**
 * The settings of a plan file applied to a command's own: each shaping setting the file records
 * is parsed by its declaration, as if it came from the environment; those it does not record
 * take their defaults.
 *
 * @param recorded The plan file's settings of one user.
 * @param base The command's settings (API_URL, the keys, DRY_RUN).
 * @param file The plan file's name, for messages.
 * @returns The settings to plan with.
 * @throws {ConfigError} For a setting stacksync does not know or a value it cannot use.
 */
export function settingsOfPlan(
  recorded: Readonly<Record<string, unknown>>,
  base: Settings,
  file: string,
): Settings {
  const known = new Set<string>(PLAN_SHAPING.map((key) => SETTINGS[key].env));
  const unknown = Object.keys(recorded).find((name) => !known.has(name));
  if (unknown !== undefined) {
    throw new ConfigError(
      `Cannot use the plan ${file} as it records a setting that shapes no plan: current value ` +
        `is ${JSON.stringify(unknown)}`,
    );
  }
  const values: Record<string, unknown> = {};
  for (const key of PLAN_SHAPING) {
    const declaration: SettingDeclaration<unknown> = SETTINGS[key];
    const value = recorded[declaration.env];
    // Lists were split at commas; CRITERIA is JSON (an array of objects, or an object).
    const text = value === undefined
      ? declaration.default
      : Array.isArray(value) && value.every((item) => typeof item === "string")
      ? value.join(",")
      : typeof value === "object" && value !== null
      ? JSON.stringify(value)
      : String(value);
    if (text === undefined) continue;
    const result = declaration.schema.safeParse(text);
    if (!result.success) {
      throw new ConfigError(
        `Cannot use the plan ${file} as its setting ${declaration.env} is invalid (` +
          `${result.error.issues[0]?.message ?? "invalid value"}): current value is ${text}`,
      );
    }
    values[key] = result.data;
  }
  return { ...base, ...values };
}
