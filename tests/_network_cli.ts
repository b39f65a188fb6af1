/**
 * The real CLI against a misbehaving network or server, shared by tests/cli_network_test.ts and
 * tests/full/cli_network_test.ts: a test server with one user, the CLI run to its end, its JSON
 * log lines.
 *
 * @module
 */
import { type CliRun, finishCli, type FinishedCli, spawnCli } from "./_cli.ts";
import { type ImmichServer, startImmichServer } from "./immich_server.ts";

/** The key of the user of {@linkcode serverWithPair}. */
export const KEY: string = "sk-network-7d1e";

/**
 * A test server with one user, Pat, whose RAW+JPEG pair is unstacked.
 *
 * @returns The server; the caller closes it.
 */
export async function serverWithPair(): Promise<ImmichServer> {
  const server = await startImmichServer();
  const user = server.addUser({ name: "Pat" });
  server.addKey(user.id, { secret: KEY });
  for (const name of ["IMG_0001.jpg", "IMG_0001.dng"]) {
    server.addAsset(user.id, { originalFileName: name, localDateTime: "2024-05-01T10:00:00Z" });
  }
  return server;
}

/** A JSON log line of the CLI. */
export interface LogLine {
  readonly level: string;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/**
 * The CLI's JSON log lines.
 *
 * @param lines Its standard output, line by line.
 * @returns Each line parsed.
 */
export function parseLines(lines: readonly string[]): LogLine[] {
  return lines.filter((line) => line !== "").map((line) => JSON.parse(line));
}

/**
 * The messages of log lines.
 *
 * @param lines The lines.
 * @param level Only lines of this level, when given.
 * @returns Each message.
 */
export function messages(lines: readonly LogLine[], level?: string): string[] {
  return lines.filter((line) => level === undefined || line.level === level).map((l) => l.msg);
}

/**
 * Runs the CLI to its end; one that still runs after `deadlineMs` is killed (code undefined).
 *
 * @param run The CLI's environment and arguments.
 * @param deadlineMs How long it may run.
 * @returns How it ended.
 */
export async function runUntil(run: CliRun, deadlineMs = 30_000): Promise<FinishedCli> {
  const cli = await spawnCli(run);
  try {
    return await finishCli(cli, deadlineMs);
  } finally {
    await Deno.remove(cli.cwd, { recursive: true });
  }
}

/**
 * A port nothing listens on.
 *
 * @returns The port.
 */
export function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  listener.close();
  return port;
}

/**
 * A server that answers every request 404 with an HTML page, as a web server that is not Immich.
 *
 * @returns Its API_URL and the server, which the caller shuts down.
 */
export function notImmich(): { url: string; server: Deno.HttpServer } {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () =>
      new Response("<html><body>Not Found</body></html>", {
        status: 404,
        headers: { "content-type": "text/html" },
      }),
  );
  return { url: `http://127.0.0.1:${server.addr.port}/photos/api`, server };
}
