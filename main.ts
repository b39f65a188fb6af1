/**
 * stacksync entry point: reads the settings, runs once or in cron mode, sets the exit status.
 *
 * @module
 */
import { ConfigError, loadSettings } from "./src/config.ts";
import denoJson from "./deno.json" with { type: "json" };

/** Exit statuses, decided here and nowhere else. */
export const EXIT = { ok: 0, failed: 1, config: 2 } as const;

function main(args: string[]): number {
  let command;
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
  return EXIT.ok;
}

if (import.meta.main) {
  Deno.exit(main(Deno.args));
}
