/**
 * stacksync entry point: reads the settings, sets up logging, runs once or in cron mode, and sets
 * the exit status.
 *
 * @module
 */
import { getLogger } from "@logtape/logtape";
import { type Command, ConfigError, describeSettings, loadSettings } from "./src/config.ts";
import { setupLogging } from "./src/log.ts";
import denoJson from "./deno.json" with { type: "json" };

/** Exit statuses, decided here and nowhere else. */
export const EXIT = { ok: 0, failed: 1, config: 2 } as const;

async function main(args: string[]): Promise<number> {
  let command: Command;
  try {
    command = loadSettings({ args, env: Deno.env.toObject(), version: denoJson.version });
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`error: ${error.message}`);
      return EXIT.config;
    }
    throw error;
  }
  if (command.kind !== "run") {
    console.log(command.text);
    return EXIT.ok;
  }

  const { settings } = command;
  await using _logging = await setupLogging({
    level: settings.logLevel,
    format: settings.logFormat,
    file: settings.logFile,
    secrets: settings.apiKeys,
  });
  getLogger(["stacksync", "main"]).info("Starting stacksync {version}", {
    version: denoJson.version,
    ...describeSettings(settings),
  });
  // run integration: src/run.ts (call run(settings) here and map its outcome to EXIT)
  return EXIT.ok;
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
