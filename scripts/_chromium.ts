/**
 * Chromium driven through `puppeteer-core`, for the review page's browser test, its benchmark
 * and the README's screenshot: Debian's `/usr/bin/chromium` when it is installed, else the
 * Chromium that the npm package `@sparticuz/chromium` (pinned in deno.json) carries inside
 * itself, so that `deno task test` needs nothing but Deno. Headless, offline (no background
 * networking, updates, sync or QUIC) and with a fresh profile that is removed afterwards.
 *
 * The package's browser is unpacked once per version into the temporary folder
 * (`stacksync-chromium-<version>`), by a child process that runs this file: the package unpacks
 * into whatever `TMPDIR` says, which only a child may change. The child unpacks into a folder of
 * its own that is renamed into place when complete, so that test files starting Chromium at the
 * same time never run a half-written browser.
 *
 * @module
 */
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import puppeteer, { type Browser } from "puppeteer-core";
import denoJson from "../deno.json" with { type: "json" };
import { exists } from "../src/state/_files.ts";

/** Where Debian's `chromium` package puts the browser. */
const SYSTEM_CHROMIUM = "/usr/bin/chromium";
/** The npm package that carries a Chromium (compressed) inside itself. */
const PACKAGE = "@sparticuz/chromium";

/** A running Chromium that closes itself and removes its profile when disposed. */
export type Chromium = Browser & AsyncDisposable;

/** A browser to start, and what its environment needs besides the caller's. */
interface Executable {
  readonly path: string;
  readonly env: Readonly<Record<string, string>>;
}

/** The system's fonts, and the package's own (Open Sans) for a machine that has none. */
function fontConfig(folder: string): string {
  return `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <dir>${join(folder, "fonts")}</dir>
  <cachedir>${join(folder, "fonts-cache")}</cachedir>
</fontconfig>
`;
}

/** Unpacks the package's Chromium into `folder`, unless another process got there first. */
async function unpack(folder: string): Promise<void> {
  const staging = await Deno.makeTempDir({
    dir: dirname(folder),
    prefix: `${basename(folder)}.partial-`,
  });
  try {
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        "--config",
        fileURLToPath(new URL("../deno.json", import.meta.url)),
        "--allow-read",
        `--allow-write=${staging}`,
        "--allow-env",
        // tar-fs asks for the user and the umask.
        "--allow-sys",
        fileURLToPath(import.meta.url),
      ],
      // The package unpacks the libraries Chromium links to (NSS, for a machine without them)
      // only where it believes it runs on AWS Lambda.
      env: { TMPDIR: staging, AWS_LAMBDA_JS_RUNTIME: "nodejs22.x", NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!output.success) {
      const stderr = new TextDecoder().decode(output.stderr).trim().split("\n")[0];
      throw new Error(`Cannot unpack the Chromium of ${PACKAGE} into ${staging}: ${stderr}`);
    }
    await Deno.writeTextFile(join(staging, "fonts.conf"), fontConfig(folder));
    await Deno.rename(staging, folder);
  } catch (error) {
    // Renaming onto a folder that another test file put there meanwhile fails: use that one.
    if (!await exists(join(folder, "chromium"))) throw error;
  } finally {
    await Deno.remove(staging, { recursive: true }).catch(() => {});
  }
}

/** The system's Chromium (unless the package's is asked for), else the package's. */
async function executable(bundled: boolean): Promise<Executable> {
  if (!bundled && await exists(SYSTEM_CHROMIUM)) return { path: SYSTEM_CHROMIUM, env: {} };
  const version = denoJson.imports[PACKAGE].split("@").at(-1);
  const folder = join(tmpdir(), `stacksync-chromium-${version}`);
  if (!await exists(join(folder, "chromium"))) await unpack(folder);
  return {
    path: join(folder, "chromium"),
    env: {
      LD_LIBRARY_PATH: join(folder, "al2023", "lib"),
      FONTCONFIG_PATH: folder,
    },
  };
}

/** Options of {@linkcode launchChromium}. */
export interface LaunchChromiumOptions {
  /**
   * Start the package's Chromium even where Debian's is installed (its own test).
   * @default {false}
   */
  readonly bundled?: boolean;
}

/**
 * Starts Chromium: Debian's when installed, else the one `@sparticuz/chromium` carries.
 *
 * @param options Which Chromium.
 * @returns The browser; dispose of it (or `close()` it) when done.
 * @throws {Error} When the package's Chromium cannot be unpacked, saying where.
 */
export async function launchChromium(options: LaunchChromiumOptions = {}): Promise<Chromium> {
  const { path, env } = await executable(options.bundled ?? false);
  const profile = await Deno.makeTempDir({ prefix: "stacksync_chromium_" });
  const browser = await puppeteer.launch({
    executablePath: path,
    env: { ...Deno.env.toObject(), ...env },
    // Pipes, not a DevTools port: nothing listens on the network.
    pipe: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      `--user-data-dir=${profile}`,
    ],
  });
  return Object.assign(browser, {
    async [Symbol.asyncDispose]() {
      await browser.close();
      await Deno.remove(profile, { recursive: true }).catch(() => {});
    },
  });
}

// The child process of unpack(): the package unpacks into TMPDIR and prints where.
if (import.meta.main) {
  const { default: chromium } = await import("@sparticuz/chromium");
  console.log(await chromium.executablePath());
}
