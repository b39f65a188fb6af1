/**
 * Grouping on its own: grouping and promotion of a generated library (scripts/gen_library.ts)
 * by immich-stack's default CRITERIA and by the default rules, each run in a process of its own
 * so that their memory is measured apart, rounds alternating. With `--fetch`, also what reading
 * the camera costs the search: the client reads every search page of the library from the Immich
 * test server with and without EXIF.
 *
 * Usage: `deno run -A --v8-flags=--expose-gc scripts/bench_grouping.ts [--assets N] [--seed S]
 * [--rounds R] [--fetch]`
 *
 * Per variant it prints the wall time of each round (the fastest counts), the least CPU time
 * of a round (user and system: the steadiest figure on a busy machine), the peak resident
 * memory the grouping added (VmHWM after it, reset just before it through `/proc/self/clear_refs`,
 * minus the resident memory then) and the heap its result keeps. The assets are built as the
 * client builds them from a search with EXIF, camera fields included.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { runScript, scriptArgs } from "./_script_args.ts";
import { generateLibrary } from "./gen_library.ts";
import { CameraReader } from "../src/api/_camera.ts";
import { createImmichClient } from "../src/api/immich.ts";
import {
  DEFAULT_CRITERIA,
  DEVICE_RULES,
  type GroupingRules,
  promotionInputs,
} from "../src/grouping/criteria.ts";
import { groupAssets } from "../src/grouping/group.ts";
import { createParentOrder } from "../src/promotion/parent.ts";
import type { Asset } from "../src/model.ts";

const SELF = fileURLToPath(import.meta.url);
const SERVER = fileURLToPath(new URL("./_bench_server.ts", import.meta.url));
const VARIANTS = { criteria: DEFAULT_CRITERIA, devices: DEVICE_RULES } as const;

/** What one child process measured. */
interface Measured {
  readonly ms: readonly number[];
  readonly peakMiB: number;
  readonly keptMiB?: number;
  readonly cpuMs?: number;
  readonly groups?: number;
}

const MIB = 1024 * 1024;

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** `VmRSS` or `VmHWM` of this process, in bytes. */
function memory(field: "VmRSS" | "VmHWM"): number {
  const line = Deno.readTextFileSync("/proc/self/status").split("\n")
    .find((l) => l.startsWith(`${field}:`));
  return Number(line?.split(/\s+/)[1] ?? 0) * 1024;
}

/** User + system CPU of this process, in ms. */
function cpu(): number {
  const fields = Deno.readTextFileSync("/proc/self/stat").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * The assets of the first user of a generated library, as a search with EXIF gives them: their
 * strings read from JSON, as the client reads them (the generator's are concatenated).
 */
export function libraryAssets(assets: number, seed: number): Asset[] {
  const reader = new CameraReader();
  const generated = generateLibrary({ seed, assets }).users[0].assets
    .filter((a) => a.visibility !== "hidden" && a.type !== "VIDEO" && !a.isTrashed);
  return (JSON.parse(JSON.stringify(generated)) as typeof generated)
    .map((a) => {
      const asset: Record<string, unknown> = {
        id: a.id,
        originalFileName: a.originalFileName,
        localDateTime: a.localDateTime,
      };
      reader.read({
        make: a.make ?? null,
        model: a.model ?? null,
        lensModel: a.lensModel ?? null,
        exposureTime: a.exposureTime ?? null,
        fNumber: a.fNumber ?? null,
        iso: a.iso ?? null,
        dateTimeOriginal: a.dateTimeOriginal === null ? null : a.localDateTime!,
      }, asset);
      return asset as unknown as Asset;
    });
}

/** Groups and promotes, as a pass does; returns what it made. */
function groupAndPromote(assets: readonly Asset[], rules: GroupingRules) {
  const { regexPromotions } = promotionInputs(rules);
  const order = createParentOrder({
    filenamePromote: ["cover", "edit", "crop", "hdr", "biggestNumber"],
    extPromote: [".jpg", ".png", ".jpeg", ".heic", ".dng"],
    regexPromotions,
  });
  return groupAssets(assets, rules, { buckets: true }).groups.map((g) => order.promote(g));
}

function groupChild(variant: keyof typeof VARIANTS, assets: number, seed: number): Measured {
  const library = libraryAssets(assets, seed);
  gc();
  Deno.writeTextFileSync("/proc/self/clear_refs", "5");
  const resident = memory("VmRSS");
  const before = cpu();
  const start = performance.now();
  let kept: unknown[] | undefined = groupAndPromote(library, VARIANTS[variant]);
  const ms = performance.now() - start;
  const cpuMs = cpu() - before;
  const peakMiB = (memory("VmHWM") - resident) / MIB;
  const groups = kept.length;
  gc();
  const withGroups = Deno.memoryUsage().heapUsed;
  kept = undefined;
  gc();
  const keptMiB = (withGroups - Deno.memoryUsage().heapUsed) / MIB;
  return { ms: [ms], cpuMs, peakMiB, keptMiB, groups };
}

async function fetchChild(url: string, key: string, camera: boolean): Promise<Measured> {
  const client = createImmichClient({ baseUrl: url, apiKey: key });
  try {
    const before = cpu();
    const start = performance.now();
    let count = 0;
    const filter = { withArchived: false, withDeleted: false, includeVideos: false };
    for await (const page of client.searchAssets({ ...filter, withCamera: camera })) {
      count += page.assets.length;
    }
    return {
      ms: [performance.now() - start],
      cpuMs: cpu() - before,
      peakMiB: memory("VmHWM") / MIB,
      groups: count,
    };
  } finally {
    client.close();
  }
}

/** Runs this script as a child and reads its one JSON line. */
async function child(args: readonly string[]): Promise<Measured> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--v8-flags=--expose-gc,--max-semi-space-size=4", SELF, ...args],
    stdout: "piped",
  }).output();
  if (!output.success) throw new Error(`The measurement ${args.join(" ")} failed`);
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

interface Command {
  readonly assets: number;
  readonly seed: number;
  readonly rounds: number;
  readonly fetch: boolean;
  readonly child?: readonly string[];
}

function summary(name: string, runs: readonly Measured[]): string {
  const fastest = Math.min(...runs.flatMap((r) => r.ms));
  const cpuMs = runs.map((r) => r.cpuMs).filter((c) => c !== undefined) as number[];
  const parts = [
    `${name}: ${runs[0].groups} ${name.startsWith("search") ? "assets" : "groups"}`,
    `fastest ${Math.round(fastest)} ms of ${runs.map((r) => Math.round(r.ms[0])).join(", ")}`,
    ...(cpuMs.length > 0 ? [`CPU ${Math.min(...cpuMs)} ms`] : []),
    `peak ${Math.max(...runs.map((r) => r.peakMiB)).toFixed(1)} MiB`,
    ...(runs[0].keptMiB === undefined ? [] : [`kept ${runs[0].keptMiB.toFixed(1)} MiB`]),
  ];
  return parts.join(", ");
}

async function run(command: Command): Promise<number> {
  if (command.child !== undefined) {
    const [kind, ...rest] = command.child;
    const measured = kind === "group"
      ? groupChild(rest[0] as keyof typeof VARIANTS, command.assets, command.seed)
      : await fetchChild(rest[0], rest[1], rest[2] === "camera");
    console.log(JSON.stringify(measured));
    return 0;
  }
  const grouping: Record<string, Measured[]> = { criteria: [], devices: [] };
  for (let round = 0; round < command.rounds; round++) {
    for (const variant of round % 2 === 0 ? ["criteria", "devices"] : ["devices", "criteria"]) {
      const flags = ["--assets", `${command.assets}`, "--seed", `${command.seed}`];
      grouping[variant].push(await child([...flags, "--child", `group,${variant}`]));
    }
  }
  console.log(summary("grouping + promotion, immich-stack's CRITERIA", grouping.criteria));
  console.log(summary("grouping + promotion, default rules", grouping.devices));
  if (!command.fetch) return 0;
  const server = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", SERVER, "--assets", `${command.assets}`, "--seed", `${command.seed}`],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const lines = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let head = "";
  while (!head.includes("\n")) head += (await lines.read()).value ?? "";
  const { url, users } = JSON.parse(head.split("\n")[0]);
  const searches: Record<string, Measured[]> = { plain: [], camera: [] };
  for (let round = 0; round < command.rounds; round++) {
    for (const kind of round % 2 === 0 ? ["plain", "camera"] : ["camera", "plain"]) {
      searches[kind].push(await child(["--child", `fetch,${url},${users[0].key},${kind}`]));
    }
  }
  const writer = server.stdin.getWriter();
  await writer.write(new TextEncoder().encode("quit\n"));
  await writer.close();
  await lines.cancel();
  await server.status;
  console.log(summary("search without EXIF", searches.plain));
  console.log(summary("search with EXIF (camera fields)", searches.camera));
  return 0;
}

if (import.meta.main) {
  Deno.exit(
    await runScript(Deno.args, {
      usage: "Usage: deno run -A --v8-flags=--expose-gc scripts/bench_grouping.ts " +
        "[--assets N] [--seed S] [--rounds R] [--fetch]",
      parse(args) {
        const flags = scriptArgs("bench_grouping", args, {
          assets: { type: "string", default: "200000" },
          seed: { type: "string", default: "1" },
          rounds: { type: "string", default: "3" },
          fetch: { type: "boolean", default: false },
          child: { type: "string" },
          help: { type: "boolean", default: false },
        });
        if (flags.help) return "help";
        return {
          assets: Number(flags.assets),
          seed: Number(flags.seed),
          rounds: Number(flags.rounds),
          fetch: flags.fetch,
          ...(flags.child === undefined ? {} : { child: flags.child.split(",") }),
        };
      },
      run,
    }),
  );
}
