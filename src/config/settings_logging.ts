/**
 * The settings of the logs: level, format and file.
 *
 * @module
 */
import { LOG_LEVELS } from "../log.ts";
import { SERVER_COMMANDS } from "./commands.ts";
import { declare } from "./declaration.ts";
import { oneOf, text } from "./values.ts";

/** How much is logged, in which format, and to which file. */
export const LOGGING_SETTINGS = {
  logLevel: declare({
    env: "LOG_LEVEL",
    commands: SERVER_COMMANDS,
    flag: "log-level",
    default: "info",
    schema: oneOf(LOG_LEVELS),
    help: "Log verbosity: trace (HTTP bodies), debug (parent decisions), info, warn, error, " +
      "fatal (nothing: stacksync logs no fatal message; an invalid setting still says so)",
  }),
  logFormat: declare({
    env: "LOG_FORMAT",
    commands: SERVER_COMMANDS,
    flag: "log-format",
    default: "text",
    schema: oneOf(["text", "json"] as const),
    help: "Log line format: text (logfmt key=value) or json (one object per line)",
  }),
  logFile: declare({
    env: "LOG_FILE",
    commands: SERVER_COMMANDS,
    flag: "log-file",
    schema: text,
    help: "Also append logs to this file (created with its folder if missing)",
  }),
} as const;
