/**
 * The immich-stack settings stacksync does not support, and the warnings for them.
 *
 * @module
 */
import type { EnvFile } from "./env_sources.ts";

/**
 * An immich-stack setting that stacksync does not support. Setting one gets a warning naming
 * it and what stacksync does instead, so that nobody migrating believes it is in effect; a
 * setting that becomes supported moves to {@linkcode SETTINGS}.
 */
export interface UnsupportedSetting {
  /** Its environment variable. */
  readonly env: string;
  /** Values (lower case) with which immich-stack behaves as stacksync does: no warning. */
  readonly harmless: readonly string[];
  /** What stacksync does instead, or what to use. */
  readonly instead: string;
}

/**
 * immich-stack's settings that stacksync does not support (its documented environment): none
 * since stacksync took STACK_CONCURRENCY, PREVENT_SELF_REKT and the fix-trash settings. A setting
 * immich-stack adds goes here until stacksync supports it.
 */
export const UNSUPPORTED_SETTINGS: readonly UnsupportedSetting[] = [];

/** One line per immich-stack setting given that stacksync does not support. */
export function unsupportedWarnings(
  env: Readonly<Record<string, string | undefined>>,
  envFile: EnvFile | undefined,
): string[] {
  const warnings: string[] = [];
  for (const setting of UNSUPPORTED_SETTINGS) {
    const entry = envFile?.entries.find((candidate) => candidate.name === setting.env);
    const fromEnv = env[setting.env];
    const [value, source] = fromEnv !== undefined && fromEnv !== ""
      ? [fromEnv, "the environment"]
      : [entry?.value, `${envFile?.path} line ${entry?.line}`];
    if (value === undefined || value === "") continue;
    if (setting.harmless.includes(value.trim().toLowerCase())) continue;
    warnings.push(
      `Ignored ${setting.env} from ${source}: stacksync does not support this immich-stack ` +
        `setting; ${setting.instead}`,
    );
  }
  return warnings;
}
