/**
 * The session with Immich of a command's key, on which a command puts the parts of the client it
 * uses (`src/api/`), so that it loads no other.
 *
 * @module
 */
import { createSession, type Session } from "../api/session.ts";
import type { CommandContext } from "./command.ts";

/**
 * The session of one key, with the command's time limit (REQUEST_TIMEOUT), stop signal and wait
 * between attempts.
 *
 * @param context The command's context (API_URL, REQUEST_TIMEOUT, signal, sleep).
 * @param apiKey The key.
 * @returns The session; close it when done.
 */
export function sessionOf(context: CommandContext, apiKey: string): Session {
  return createSession({
    baseUrl: context.settings.apiUrl,
    apiKey,
    timeoutMs: context.settings.requestTimeout * 1000,
    signal: context.signal,
    ...(context.sleep === undefined ? {} : { sleep: context.sleep }),
  });
}
