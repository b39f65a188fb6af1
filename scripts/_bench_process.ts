/**
 * The processes of `deno task bench`: the command under measurement, run through an `sh`
 * wrapper that reads its `/proc` files, and the Immich test server in a process of its own
 * (`scripts/_bench_server.ts`), driven through its standard input.
 *
 * Per run it records wall time, CPU time (user + system), peak RSS (the kernel's high-water mark,
 * `VmHWM`), the exit status and the output: exact under GNU time, else sampled from `/proc` (see
 * `WRAPPER`).
 *
 * @module
 */
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
/** The CLI's entry point. */
export const MAIN = `${ROOT}main.ts`;
/** The repository's deno.json, for its import map. */
export const CONFIG = `${ROOT}deno.json`;
const SERVER_SCRIPT = `${ROOT}scripts/_bench_server.ts`;

/** What one measured process did. */
export interface Measurement {
  readonly wallMs: number;
  /** User + system CPU time of the process. */
  readonly cpuMs: number;
  /** Peak resident set size (VmHWM) in MiB. */
  readonly peakRssMiB: number;
  readonly exitCode: number;
  /** Its standard output and error. */
  readonly output: string;
}

function clockTicks(): number {
  try {
    const out = new Deno.Command("getconf", { args: ["CLK_TCK"] }).outputSync();
    const ticks = Number(new TextDecoder().decode(out.stdout).trim());
    return Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
  } catch {
    return 100;
  }
}

const TICKS = clockTicks();

/**
 * The `sh` wrapper: runs the command with its output in `$OUT`. Under GNU time
 * (`/usr/bin/time`, Debian's `time`), it prints `exact <max RSS in KiB> <user s> <system s>` from
 * the rusage the kernel keeps of the process, exact however short the run. Without GNU time it
 * samples the process's `/proc` files every 20 ms with shell builtins (Deno may read `/proc` only
 * with `--allow-all`), then prints the last `VmHWM` and the last `/proc/<pid>/stat`: the
 * high-water mark only grows and CPU time only adds up, so the last sample falls short by at most
 * what happened in the final 20 ms (nothing at all for CPU when the sample caught the process as
 * a zombie, whose stat is final).
 */
const WRAPPER = `if [ -x /usr/bin/time ]; then
  /usr/bin/time -f "%M %U %S" -o "$OUT.rusage" "$@" >"$OUT" 2>&1
  rc=$?
  # GNU time writes a line about a non-zero status before its own.
  while read -r line; do last=$line; done <"$OUT.rusage"
  rm -f "$OUT.rusage"
  echo "exact $last"
  exit $rc
fi
"$@" >"$OUT" 2>&1 &
pid=$!
hwm=0
stat=
while [ -r "/proc/$pid/stat" ]; do
  while read -r key value rest; do
    case "$key" in VmHWM:) hwm=$value ;; esac
  done 2>/dev/null <"/proc/$pid/status"
  read -r line 2>/dev/null <"/proc/$pid/stat" && stat=$line
  sleep 0.02
done
wait "$pid"
rc=$?
echo "$hwm"
echo "$stat"
exit $rc`;

/** Peak RSS in KiB and CPU in ms from the wrapper's lines. */
function usageOf(text: string): { kib: number; cpuMs: number } {
  const [first = "", statLine = ""] = text.split("\n");
  const exact = /^exact (\d+) ([\d.]+) ([\d.]+)$/.exec(first);
  if (exact !== null) {
    return {
      kib: Number(exact[1]),
      cpuMs: Math.round((Number(exact[2]) + Number(exact[3])) * 1000),
    };
  }
  // After the parenthesised command name come state (field 3) ... utime (14) and stime (15).
  const fields = statLine.slice(statLine.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return { kib: Number(first), cpuMs: ticks * 1000 / TICKS };
}

/**
 * Runs a command as a user would and measures it (see the module's notes).
 *
 * @param command The program and its arguments.
 * @param env Its whole environment; nothing else is passed on.
 * @param cwd Its working folder.
 * @returns Wall and CPU time, peak RSS, exit status and output.
 */
export async function measure(
  command: readonly string[],
  env: Readonly<Record<string, string>>,
  cwd: string,
): Promise<Measurement> {
  const outFile = await Deno.makeTempFile({ prefix: "stacksync-bench-", suffix: ".log" });
  try {
    const started = performance.now();
    const child = new Deno.Command("sh", {
      args: ["-c", WRAPPER, "sh", ...command],
      env: { ...env, OUT: outFile },
      clearEnv: true,
      cwd,
      stdin: "null",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const [status, text] = await Promise.all([
      child.status,
      new Response(child.stdout).text(),
    ]);
    // The wrapper ends a few ms after the process: the sampling interval at most.
    const wallMs = performance.now() - started;
    const { kib, cpuMs } = usageOf(text);
    return {
      wallMs,
      cpuMs,
      peakRssMiB: kib / 1024,
      exitCode: status.code,
      output: await Deno.readTextFile(outFile),
    };
  } finally {
    await Deno.remove(outFile);
  }
}

/** A bench server process (`scripts/_bench_server.ts`), driven through its stdin. */
export interface ServerProcess {
  readonly url: string;
  /** The API key of its first user. */
  readonly key: string;
  command(name: "requests"): Promise<Record<string, number>>;
  command(name: "stacks" | "unstack" | "save" | "reset"): Promise<number[]>;
  command(
    name: `advance ${number}` | `change ${number}` | `fail-stacks ${string}`,
  ): Promise<unknown>;
  command(name: `latency ${number}`): Promise<{ latency: number }>;
  command(name: "digest"): Promise<{ digest: string }>;
  command(name: "stack-hashes"): Promise<{ hashes: string[] }>;
  close(): Promise<void>;
}

/**
 * Starts a bench server process and waits until its library is loaded.
 *
 * @param args The server's arguments, e.g. `["--assets", "2000", "--seed", "1", "--partners"]`.
 * @returns The running server.
 * @throws {Error} When the server exits before it is ready or while it answers.
 */
export async function startServer(args: readonly string[]): Promise<ServerProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--config",
      CONFIG,
      "--allow-net=127.0.0.1",
      "--allow-read",
      SERVER_SCRIPT,
      ...args,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const writer = child.stdin.getWriter();
  let buffer = "";
  const nextLine = async (): Promise<string> => {
    for (;;) {
      const newline = buffer.indexOf("\n");
      if (newline >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        return line;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error(`Cannot read from the bench server: it exited: ${args.join(" ")}`);
      buffer += value;
    }
  };
  const ready = JSON.parse(await nextLine());
  const command = async (name: string) => {
    await writer.write(new TextEncoder().encode(`${name}\n`));
    return JSON.parse(await nextLine());
  };
  return {
    url: ready.url,
    key: ready.users[0].key,
    command,
    async close() {
      await writer.write(new TextEncoder().encode("quit\n"));
      await writer.close();
      await reader.cancel();
      await child.status;
    },
  } as ServerProcess;
}

/**
 * The command line that runs a script of this repository as `deno task start` runs main.ts.
 *
 * @param script The script's path.
 * @param flags Permission and V8 flags, as `RUN_FLAGS` of scripts/compile.ts.
 * @returns The program and its arguments.
 */
export function cliCommand(script: string, flags: readonly string[]): string[] {
  return [Deno.execPath(), "run", "--config", CONFIG, ...flags, script];
}

/**
 * Whether a request changes stacks.
 *
 * @param endpoint `METHOD /path`, as the server counts requests.
 * @returns True for POST, PUT and DELETE on `/stacks`.
 */
export function isWrite(endpoint: string): boolean {
  return /^(POST|PUT|DELETE) \/stacks/.test(endpoint);
}
