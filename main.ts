/**
 * stacksync entry point: reads the settings, sets up logging, runs once or in cron mode, and sets
 * the exit status.
 *
 * @module
 */
import { getLogger } from "@logtape/logtape";
import {
  type Command,
  ConfigError,
  describeSettings,
  loadSettings,
  secretsOf,
} from "./src/config.ts";
import { setupLogging } from "./src/log.ts";
import { passSucceeded, runCron, runPass } from "./src/run.ts";
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

  const { settings, warnings } = command;
  await using _logging = await setupLogging({
    level: settings.logLevel,
    format: settings.logFormat,
    file: settings.logFile,
    secrets: secretsOf(settings),
  });
  const log = getLogger(["stacksync", "main"]);
  log.info("Starting stacksync {version}", {
    version: denoJson.version,
    ...describeSettings(settings),
  });
  for (const warning of warnings) log.warn(warning);
  const shutdown = new AbortController();
  const onSignal = () => {
    if (shutdown.signal.aborted) Deno.exit(EXIT.failed); // a second signal does not wait
    log.info("Received shutdown signal");
    // Requests in flight end at once; an action they leave unanswered is reported with this.
    shutdown.abort(new Error("stopped by the shutdown signal before the server answered"));
  };
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  for (const signal of signals) Deno.addSignalListener(signal, onSignal);
  try {
    if (settings.runMode === "cron") {
      await runCron(settings, { signal: shutdown.signal });
      return EXIT.ok;
    }
    const reports = await runPass(settings, { signal: shutdown.signal });
    const complete = reports.length === settings.apiKeys.length;
    return complete && passSucceeded(reports) ? EXIT.ok : EXIT.failed;
  } finally {
    for (const signal of signals) Deno.removeSignalListener(signal, onSignal);
  }
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
