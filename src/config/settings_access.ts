/**
 * The settings that reach the server: API_URL, the API keys, and the env file.
 *
 * @module
 */
import { EVERY_COMMAND, SERVER_COMMANDS } from "./commands.ts";
import { declare } from "./declaration.ts";
import { httpUrl, text } from "./values.ts";

/** Where the Immich API is, the keys to it, and the env file that may hold them. */
export const ACCESS_SETTINGS = {
  apiUrl: declare({
    env: "API_URL",
    commands: SERVER_COMMANDS,
    flag: "api-url",
    schema: httpUrl,
    help: "Base address of the Immich API, ending in /api (e.g. http://immich:2283/api)",
  }),
  apiKey: declare({
    env: "API_KEY",
    commands: SERVER_COMMANDS,
    flag: "api-key",
    schema: text,
    secret: true,
    help: "Immich API key; several keys separated by commas are processed one user at a time",
  }),
  apiKeyFile: declare({
    env: "API_KEY_FILE",
    commands: SERVER_COMMANDS,
    flag: "api-key-file",
    schema: text,
    help: "File holding the API key(s), e.g. a Docker secret; excludes API_KEY",
  }),
  envFile: declare({
    env: "ENV_FILE",
    commands: EVERY_COMMAND,
    flag: "env-file",
    schema: text,
    help: "File of KEY=value lines read before the environment; default ./.env when present",
  }),
} as const;
