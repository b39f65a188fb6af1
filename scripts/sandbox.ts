/**
 * `deno task sandbox`: a stand-in Immich server to try stacksync's settings and the README's
 * recipes against, with no Immich at hand. It starts the Immich test server
 * (tests/immich_server.ts) on 127.0.0.1 with the demo's library (two users: RAW+JPEG pairs,
 * bursts, edited copies, live photos and stacks made earlier; scripts/demo.ts), or one of another
 * size, plus duplicates for `stacksync duplicates` to find, prints the `API_URL` and `API_KEY`
 * lines to paste into a `.env` file, and serves until Ctrl-C (SIGINT) or SIGTERM. Every photo has
 * a picture (the review page of `plan --html` shows them), one per shot: a RAW and its JPEG look
 * alike. What stacksync changes lasts until the sandbox stops; each start begins with the same
 * library and the same keys.
 *
 * @module
 */
import { type ImmichServer, startImmichServer } from "../tests/immich_server.ts";
import { runScript, scriptArgs } from "./_script_args.ts";
import { DEMO_ASSETS_PER_USER, loadDemoLibrary } from "./demo.ts";

const USAGE = `Usage: deno task sandbox [options]

Starts a stand-in Immich server on 127.0.0.1 with a sample library of two users, prints the
API_URL and API_KEY lines to paste into a .env file, and serves until Ctrl-C.

Options:
  --assets <n>   Photos and videos per user (default: ${DEMO_ASSETS_PER_USER}, the demo's library)
  --port <n>     Port to listen on (default: a free one); a fixed port keeps pasted lines valid
                 from one start to the next
  --help         Show this help`;

/** What the command line asks the sandbox to do. */
interface SandboxCommand {
  readonly assets: number;
  readonly port: number;
}

function sandboxCommand(args: readonly string[]): SandboxCommand | "help" {
  const values = scriptArgs("sandbox", args, {
    assets: { type: "string", default: String(DEMO_ASSETS_PER_USER) },
    port: { type: "string", default: "0" },
    help: { type: "boolean" },
  });
  if (values.help) return "help";
  const number = (flag: string, text: string, least: number, most: number) => {
    const value = Number(text);
    if (!/^\d+$/.test(text) || value < least || value > most) {
      throw new RangeError(
        `Cannot start the sandbox as ${flag} needs a whole number from ${least} to ${most}: ` +
          `current value is ${text}`,
      );
    }
    return value;
  };
  return {
    assets: number("--assets", values.assets, 10, 1_000_000),
    port: number("--port", values.port, 0, 65535),
  };
}

/**
 * Adds copies of the first user's photos for `stacksync duplicates`: a RAW+JPEG pair whose JPEG
 * was uploaded twice (same file name and capture time, other content), and a photo saved again
 * under another name (same content).
 */
function addDuplicates(server: ImmichServer, userId: string): void {
  const localDateTime = "2024-06-02T09:30:00.000Z";
  for (const originalFileName of ["IMG_9101.CR3", "IMG_9101.JPG", "IMG_9101.JPG"]) {
    server.addAsset(userId, { originalFileName, localDateTime });
  }
  const original = server.addAsset(userId, {
    originalFileName: "IMG_9102.JPG",
    localDateTime: "2024-06-02T09:31:00.000Z",
  });
  server.addAsset(userId, {
    originalFileName: "IMG_9102 copy.JPG",
    localDateTime: "2024-06-03T18:00:00.000Z",
    checksum: original.checksum,
  });
}

/** Resolves at the first SIGINT or SIGTERM (Ctrl-C only on Windows). */
function shutdownSignal(): Promise<Deno.Signal> {
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  return new Promise((resolve) => {
    const listeners = signals.map((signal) => {
      const listener = () => {
        signals.forEach((s, i) => Deno.removeSignalListener(s, listeners[i]));
        resolve(signal);
      };
      Deno.addSignalListener(signal, listener);
      return listener;
    });
  });
}

async function serve(command: SandboxCommand): Promise<number> {
  const stopped = shutdownSignal();
  let server;
  try {
    server = await startImmichServer({ port: command.port });
  } catch (error) {
    if (!(error instanceof Deno.errors.AddrInUse)) throw error;
    console.error(
      `error: Cannot start the sandbox as port ${command.port} is taken: choose another --port`,
    );
    return 1;
  }
  await using _server = server;
  const { users } = loadDemoLibrary(server, command.assets);
  addDuplicates(server, users[0].id);
  const first = users[0].name;
  console.log(
    `Stand-in Immich server at ${server.origin} (loopback only), with ${users.length} users ` +
      `of ${command.assets} photos and videos each, and a few duplicates among ${first}'s.\n\n` +
      "Paste these two lines into a .env file in the folder you run stacksync from:\n\n" +
      `API_URL=${server.url}\n` +
      `API_KEY=${users.map((user) => user.key).join(",")}\n\n` +
      "Then try any setting or recipe, e.g. `deno task start --dry-run`. Changes last until the " +
      "sandbox stops;\neach start begins with the same library. Stop it with Ctrl-C.",
  );
  const signal = await stopped;
  await server.close();
  console.log(`\nStand-in Immich server stopped (${signal})`);
  return 0;
}

if (import.meta.main) {
  Deno.exit(await runScript(Deno.args, { usage: USAGE, parse: sandboxCommand, run: serve }));
}
