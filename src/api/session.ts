/**
 * One user's session with Immich, which every part of the client shares: the transport, the
 * server's version (with the fallback that adds `/api` to an API_URL that reached Immich's web
 * page), the key's user, the server's clock and the count of failed attempts.
 *
 * @module
 */
import type { ServerVersionResponseDto, UserAdminResponseDto } from "@immich/sdk";
import { getLogger } from "@logtape/logtape";
import { z } from "zod";
import type { ServerVersion, User } from "../model.ts";
import { shownUrl } from "../shown_url.ts";
import type { Fits, Proven } from "./_dto.ts";
import { immichId } from "./_values.ts";
import { InvalidResponseError, PermanentError } from "./errors.ts";
import { createHttpClient, type HttpClient, type HttpClientOptions } from "./http.ts";

const logger = getLogger(["stacksync", "api"]);

/**
 * API_URLs that reached Immich's web page, each with the address of its API found by adding
 * `/api`: learned once per process, so that the next user's client goes there at once and the
 * warning is said once.
 */
const API_ADDRESSES = new Map<string, string>();

const versionSchema = z.object({ major: z.number(), minor: z.number(), patch: z.number() });
const userSchema = z.object({ id: immichId, name: z.string(), email: z.string() });

/** See {@linkcode Fits}: the answers this module reads. */
export type SessionDtoCompatibility = Proven<[
  Fits<ServerVersionResponseDto, z.input<typeof versionSchema>>,
  Fits<UserAdminResponseDto, z.input<typeof userSchema>>,
]>;

/** Settings of {@linkcode createSession}: those of the HTTP client. */
export type SessionOptions = HttpClientOptions;

/** What a session tells about the server and the key, and its end. */
export interface ImmichConnection {
  /** `GET /server/version` (public), cached. */
  serverVersion(): Promise<ServerVersion>;
  /** `GET /users/me`, cached: the key's user. */
  me(): Promise<User>;
  /** How many attempts failed in a way worth retrying (5xx, 429, network, time-out) so far. */
  faults(): number;
  /** Closes the connection pool. */
  close(): void;
}

/** The session as the parts of the client use it. */
export interface Session extends ImmichConnection {
  /** The transport; after the `/api` fallback it sends to the address found. */
  readonly http: HttpClient;
}

/**
 * The version as messages give it.
 *
 * @param version The server's version.
 * @returns `major.minor.patch`.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { versionText } from "./session.ts";
 *
 * assert.equal(versionText({ major: 1, minor: 132, patch: 3 }), "1.132.3");
 * ```
 */
export function versionText(version: ServerVersion): string {
  return `${version.major}.${version.minor}.${version.patch}`;
}

/**
 * The failure of a pass whose first request, `GET /server/version`, answered 404: API_URL points
 * at something other than Immich's API.
 */
function notTheApi(error: PermanentError, baseUrl: string): PermanentError {
  return new PermanentError(
    `Cannot find the Immich API at API_URL as GET /server/version answered 404 ` +
      `${error.serverMessage}: check the address, which ends in /api (e.g. ` +
      `http://immich:2283/api): current value is ${shownUrl(baseUrl)}`,
    {
      method: "GET",
      path: "/server/version",
      status: 404,
      serverMessage: error.serverMessage,
      correlationId: error.correlationId,
      attempt: error.attempt,
      cause: error,
    },
  );
}

/**
 * Opens the session of one user.
 *
 * @param options The HTTP client settings: base URL, key, time-out, retry settings.
 * @returns The session; call `close()` when the user is done.
 * @throws {TypeError} When the base URL is not a URL.
 *
 * @example Usage
 * ```ts
 * import { createSession } from "./session.ts";
 * import assert from "node:assert/strict";
 *
 * const server = Deno.serve(
 *   { hostname: "127.0.0.1", port: 0, onListen() {} },
 *   () => Response.json({ major: 3, minor: 1, patch: 0 }),
 * );
 * const session = createSession({
 *   baseUrl: `http://127.0.0.1:${server.addr.port}/api`,
 *   apiKey: "example-key",
 * });
 * assert.equal((await session.serverVersion()).major, 3);
 * assert.equal(session.faults(), 0);
 * session.close();
 * await server.shutdown();
 * ```
 */
export function createSession(options: SessionOptions): Session {
  let faultCount = 0;
  // Every failed attempt counts as a fault of the pass.
  const connect = (baseUrl: string) =>
    createHttpClient({
      ...options,
      baseUrl,
      observer: {
        answered: (response) => options.observer?.answered?.(response),
        failed(error) {
          options.observer?.failed?.(error);
          faultCount++;
        },
      },
    });
  const learned = API_ADDRESSES.get(options.baseUrl);
  let current = connect(learned ?? options.baseUrl);
  let version: Promise<ServerVersion> | undefined;
  let user: Promise<User> | undefined;

  /**
   * `GET /server/version`; when API_URL lacks `/api` and so reaches Immich's web page, the same
   * at the address with `/api` added, which the session then keeps, saying so once.
   */
  async function readVersion(): Promise<ServerVersion> {
    try {
      return await current.request("GET", "/server/version", { schema: versionSchema });
    } catch (error) {
      // The first request of a pass: a 404 means API_URL points at something else.
      if (error instanceof PermanentError && error.status === 404) {
        throw notTheApi(error, options.baseUrl);
      }
      const withApi = `${options.baseUrl.replace(/\/+$/, "")}/api`;
      if (
        !(error instanceof InvalidResponseError) || error.serverMessage !== "HTML page" ||
        learned !== undefined || /\/api$/.test(new URL(options.baseUrl).pathname)
      ) throw error;
      const retried = connect(withApi);
      let found: ServerVersion;
      try {
        found = await retried.request("GET", "/server/version", { schema: versionSchema });
      } catch {
        retried.close();
        throw error;
      }
      current.close();
      current = retried;
      API_ADDRESSES.set(options.baseUrl, withApi);
      logger.warn(
        "API_URL {apiUrl} answers Immich's web page, not its API: using {usedUrl}; add /api to " +
          "API_URL",
        { apiUrl: shownUrl(options.baseUrl), usedUrl: shownUrl(withApi) },
      );
      return found;
    }
  }

  return {
    http: {
      request: (method, path, requestOptions) => current.request(method, path, requestOptions),
      stream: (method, path, streamOptions) => current.stream(method, path, streamOptions),
      close: () => current.close(),
    },
    serverVersion() {
      version ??= readVersion();
      return version;
    },
    me() {
      user ??= current.request("GET", "/users/me", { schema: userSchema });
      return user;
    },
    faults() {
      return faultCount;
    },
    close() {
      current.close();
    },
  };
}
