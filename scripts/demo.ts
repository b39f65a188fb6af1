/**
 * `deno task demo`: stacksync from end to end with nothing to set up. It starts the Immich test
 * server (tests/immich_server.ts) on a random loopback port, loads a generated sample library of
 * two users (scripts/gen_library.ts: RAW+JPEG pairs, bursts, edited copies, live photos,
 * screenshots, and stacks made earlier: right ones, one with the wrong cover, one missing a photo,
 * one made by hand), then runs the real CLI four times as a subprocess (main.ts with the
 * permission flags of the compiled binaries): a dry run, a real run, a second real run that
 * finds nothing to change, and `stacksync undo`, which puts back the stacks the real run changed.
 * It shows the stacks of one user as a table after the third pass and again after the undo, and
 * exits 0; any other outcome prints `error: …` and exits 1.
 *
 * The CLI runs with a clean environment in an empty folder, so the caller's API_URL, API_KEY,
 * other settings, proxies and any `.env` file cannot reach the demo; its journals go to a state
 * folder inside it.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { type ImmichServer, startImmichServer, type TestStack } from "../tests/immich_server.ts";
import { RUN_FLAGS } from "./compile.ts";
import {
  type GeneratedLibrary,
  generateLibrary,
  type LoadedUser,
  loadLibrary,
} from "./gen_library.ts";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
/** A fixed seed: every demo shows the same library, so the README can describe it. */
const SEED = 1;
/** Photos and videos per user in the demo library, before the scenarios' own. */
export const DEMO_ASSETS_PER_USER = 150;
/** Members listed per stack in the final table before the rest are only counted. */
const SHOWN_MEMBERS = 2;

/** One CLI run of the demo. */
interface Pass {
  readonly title: string;
  /** What the pass does, for someone who has never seen stacksync. */
  readonly about: string;
  readonly env: Readonly<Record<string, string>>;
  /** The subcommand and its arguments; none for a run. */
  readonly args?: readonly string[];
}

const PASSES: readonly Pass[] = [
  {
    title: "dry run",
    about: "Reads every stack and photo, groups the photos, picks each group's cover, and logs " +
      "what it would change. It sends no change (DRY_RUN=true).",
    env: { DRY_RUN: "true" },
  },
  {
    title: "real run",
    about: "The same plan, carried out: creates the missing stacks, fixes covers, adds missing " +
      "photos to stacks. Stacks no group touches (like those made by hand) stay as they are.",
    env: {},
  },
  {
    title: "real run again",
    about: "Reads the server afresh and finds nothing left to change: it plans from what is on " +
      "the server and can run as often as you like. The conflict named in pass 2 is counted " +
      "now, not named again (LOG_LEVEL=debug names it in every pass).",
    env: {},
  },
  {
    title: "undo",
    about: "Every real run keeps a journal of its changes in the state folder (STATE_DIR). " +
      "`stacksync undo` reads the journal of the latest run that changed something and puts " +
      "back the stacks it changed: same photos, same covers. Immich gives re-made stacks new " +
      "ids; the log maps old ids to new.",
    env: {},
    args: ["undo"],
  },
];

/** What one pass printed and how it ended. */
interface PassResult {
  readonly code: number;
  /** Per user (in key order): whether the plan said "No changes". */
  readonly unchanged: boolean[];
  /** Ids of the stacks left as they are because they conflict with the groups. */
  readonly conflicts: string[];
}

/** The log messages that report a write, done or planned. */
const ACTION_MESSAGE =
  /^(\[DRY RUN\] Would |Success! |Updated stack |Deleted stack |Left stack |Restored stack )/;

/** Only what deno needs from the caller's environment: where it lives and its cache. */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: "1" };
  const names = [
    "PATH",
    "HOME",
    "DENO_DIR",
    "XDG_CACHE_HOME",
    "USERPROFILE",
    "LOCALAPPDATA",
    "APPDATA",
    "SystemRoot",
    "TEMP",
    "TMP",
  ];
  for (const name of names) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

function heading(text: string): void {
  console.log(`\n━━ ${text} ${"━".repeat(Math.max(3, 76 - text.length))}`);
}

/** Wraps prose at 80 columns with an indent. */
function say(text: string, indent = "  ", first = indent): void {
  let line = first;
  let start = first.length;
  for (const word of text.split(" ")) {
    if (line.length > start && line.length + word.length + 1 > 80) {
      console.log(line);
      line = indent;
      start = indent.length;
    }
    line += line.length > start ? ` ${word}` : word;
  }
  if (line.length > start) console.log(line);
}

/** A log line's context worth showing next to an action: its reason and first file. */
function actionNote(line: Record<string, unknown>): string {
  const parts = [line.reason, line.filename].filter((part) => typeof part === "string");
  return parts.length === 0 ? "" : `  (${parts.join(": ")})`;
}

/**
 * Prints the interesting lines of a pass's JSON log: per user the plan, the first change of each
 * reason (the rest only counted), the summary, and every warning or error. Notes per user whether
 * the plan said "No changes".
 */
function showLog(stdout: string): Omit<PassResult, "code"> {
  const unchanged: boolean[] = [];
  const conflicts: string[] = [];
  const reasons = new Set<string>();
  let hidden = 0;
  const flushHidden = () => {
    if (hidden > 0) console.log(`      … and ${hidden} more changes like these`);
    reasons.clear();
    hidden = 0;
  };
  for (const text of stdout.split("\n")) {
    if (text.trim() === "") continue;
    let line: Record<string, unknown>;
    try {
      line = JSON.parse(text);
    } catch {
      console.log(`  ${text}`);
      continue;
    }
    const msg = String(line.msg);
    if (msg.startsWith("Starting stacksync")) continue;
    if (msg.startsWith("Left stack ")) conflicts.push(...String(line.stackID).split(","));
    if (ACTION_MESSAGE.test(msg)) {
      const reason = String(line.reason ?? (msg.startsWith("Restored stack ") ? "undo" : msg));
      if (reasons.has(reason)) {
        hidden++;
      } else {
        reasons.add(reason);
        console.log(`      ${msg}${actionNote(line)}`);
      }
      continue;
    }
    flushHidden();
    if (msg.startsWith("Processing user: ") || msg.startsWith("Undoing run ")) {
      console.log(`  ${msg}`);
    } else if (msg.startsWith("Plan: ") || msg.startsWith("No changes: ")) {
      unchanged.push(msg.startsWith("No changes: "));
      console.log(`    ${msg}`);
    } else if (
      msg.startsWith("Summary for ") || /^Left \d+ stacks? as /.test(msg) ||
      line.level === "warn" || line.level === "error"
    ) {
      console.log(`    ${msg}`);
    } else if (/^(Run|Undo) finished: /.test(msg)) {
      console.log(`  ${msg}`);
    }
  }
  flushHidden();
  return { unchanged, conflicts };
}

async function runPass(
  pass: Pass,
  index: number,
  settings: Record<string, string>,
  cwd: string,
): Promise<PassResult> {
  heading(`Pass ${index + 1} of ${PASSES.length}: ${pass.title}`);
  say(pass.about);
  const shownEnv = Object.entries(pass.env).map(([name, value]) => `${name}=${value} `).join("");
  const args = pass.args ?? [];
  console.log(
    `  $ ${shownEnv}deno run ${RUN_FLAGS.join(" ")} main.ts${
      args.map((arg) => ` ${arg}`).join("")
    }\n`,
  );
  // --cached-only: starting the demo cached every npm package of deno.lock, but not the
  // metadata of those only main.ts loads (LogTape, the Immich SDK). Deno fetches missing
  // metadata in the background and keeps it only if the process outlives the fetch, which a
  // pass does not: each printed a Download line, whatever the cache held.
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "--cached-only", ...RUN_FLAGS, MAIN, ...args],
    env: { ...baseEnv(), ...settings, ...pass.env },
    clearEnv: true,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const shown = showLog(new TextDecoder().decode(output.stdout));
  const stderr = new TextDecoder().decode(output.stderr).trim();
  if (stderr !== "") console.log(stderr.replace(/^/gm, "  "));
  console.log(`  Exit status ${output.code}`);
  return { code: output.code, ...shown };
}

/** How a stack now on the server came about, judged from the stacks before the demo. */
function changeOf(
  stack: TestStack,
  before: readonly (readonly string[])[],
  conflicts: readonly string[],
): string {
  if (conflicts.includes(stack.id)) return "conflict, left as it is";
  const members = new Set(stack.assetIds);
  const same = before.find((old) =>
    old.length === members.size && old.every((id) => members.has(id))
  );
  if (same !== undefined) return same[0] === stack.primaryAssetId ? "kept as it was" : "new cover";
  if (before.some((old) => old.every((id) => members.has(id)))) return "photos added";
  return "created";
}

/** Stacks as `primary: members`, sorted: equal for the same stacks whatever their ids. */
function describeStacks(stacks: readonly TestStack[]): string[] {
  return stacks.map((stack) => `${stack.primaryAssetId}: ${[...stack.assetIds].sort()}`).sort();
}

/** Lays rows out in columns; the first row is the header. */
function table(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  const line = (row: readonly string[]) =>
    row.map((cell, column) => cell.padEnd(widths[column])).join("  ").trimEnd();
  return [
    line(rows[0]),
    line(widths.map((width) => "─".repeat(width))),
    ...rows.slice(1).map(line),
  ];
}

/** Stacks of the demo's own on top of the generated library, each with what it shows. */
interface Scenario {
  readonly what: string;
  /** File names; the ones in `stack` form a stack before the demo, the first as its cover. */
  readonly files: readonly string[];
  readonly stack: readonly string[];
}

const SCENARIOS: readonly Scenario[] = [
  {
    what: "a stack missing a photo, with the RAW as its cover: it grows, and the edited " +
      "copy (~2) becomes the cover",
    files: ["IMG_9001.JPG", "IMG_9001.CR3", "IMG_9001~2.JPG"],
    stack: ["IMG_9001.CR3", "IMG_9001.JPG"],
  },
  {
    what: "a stack holding two unrelated photos: a conflict, left as it is and reported " +
      "(REPLACE_STACKS=true would replace it)",
    files: ["IMG_9002.JPG", "IMG_9002.CR3", "IMG_9005.JPG"],
    stack: ["IMG_9002.JPG", "IMG_9005.JPG"],
  },
  {
    what: "a stack made by hand of two photos no rule groups: no group touches it, so " +
      "stacksync leaves it as it is",
    files: ["IMG_9010.JPG", "IMG_9014.JPG"],
    stack: ["IMG_9010.JPG", "IMG_9014.JPG"],
  },
];

/** Asset names and stacks the scenarios added. */
interface Added {
  /** File name by asset id. */
  readonly names: Map<string, string>;
  /** The stacks made, as asset ids, cover first. */
  readonly stacks: string[][];
}

/** Adds the scenarios to a user: each one's files taken at the same second, a minute apart. */
function addScenarios(server: ImmichServer, userId: string): Added {
  const names = new Map<string, string>();
  const stacks: string[][] = [];
  for (const [index, scenario] of SCENARIOS.entries()) {
    const localDateTime = new Date(Date.UTC(2024, 5, 1, 12, index)).toISOString();
    const ids = new Map<string, string>();
    for (const file of scenario.files) {
      const asset = server.addAsset(userId, { originalFileName: file, localDateTime });
      ids.set(file, asset.id);
      names.set(asset.id, file);
    }
    const stack = scenario.stack.map((file) => ids.get(file)!);
    server.addStack(userId, stack);
    stacks.push(stack);
  }
  return { names, stacks };
}

/** The demo library as loaded on a test server. */
export interface DemoLibrary {
  /** The generated library, before the scenarios. */
  readonly library: GeneratedLibrary;
  /** Its two users as added, with their keys. */
  readonly users: readonly LoadedUser[];
  /** What the scenarios added to the first user. */
  readonly added: Added;
}

/**
 * Loads the demo's library onto a test server: two users with RAW+JPEG pairs, bursts, edited
 * copies, live photos, screenshots and stacks made earlier, plus the first user's scenarios.
 * The same seed every time, so the keys stay the same from one start to the next.
 *
 * @param server The test server.
 * @param assetsPerUser Photos and videos per user, before the scenarios'.
 * @returns The library, its users and what the scenarios added.
 */
export function loadDemoLibrary(
  server: ImmichServer,
  assetsPerUser = DEMO_ASSETS_PER_USER,
): DemoLibrary {
  const library = generateLibrary({ seed: SEED, assets: assetsPerUser, users: 2 });
  const { users } = loadLibrary(server, library);
  return { library, users, added: addScenarios(server, users[0].id) };
}

/** What the final table needs besides the stacks. */
interface StackContext {
  /** The user's stacks before the demo, as asset ids. */
  readonly before: readonly (readonly string[])[];
  /** File name by asset id. */
  readonly names: ReadonlyMap<string, string>;
  /** Stacks the passes left alone as conflicts. */
  readonly conflicts: readonly string[];
}

function showStacks(
  title: string,
  stacks: readonly TestStack[],
  context: StackContext,
): void {
  const { before, names, conflicts } = context;
  const name = (id: string) => names.get(id) ?? id;
  heading(title);
  say(
    `${stacks.length} stacks. The parent is the cover Immich shows; the other members sit ` +
      `behind it. "Change" compares with the ${before.length} stacks that existed before ` +
      `the demo.`,
  );
  console.log();
  const rows = stacks
    .map((stack) => {
      const others = stack.assetIds.filter((id) => id !== stack.primaryAssetId).map(name);
      const listed = others.slice(0, SHOWN_MEMBERS).join(", ") +
        (others.length > SHOWN_MEMBERS ? ` and ${others.length - SHOWN_MEMBERS} more` : "");
      return [
        stack.id.slice(0, 8),
        name(stack.primaryAssetId),
        listed,
        changeOf(stack, before, conflicts),
      ];
    })
    .sort((a, b) => a[1].localeCompare(b[1]));
  for (const line of table([["Stack", "Parent (cover)", "Other members", "Change"], ...rows])) {
    console.log(`  ${line}`);
  }
}

async function main(): Promise<number> {
  heading("stacksync demo");
  say(
    "stacksync groups the photos of an Immich library (RAW+JPEG pairs, bursts, edited copies) " +
      "and keeps Immich's stacks in line with those groups. This demo needs no Immich and no " +
      "settings: it starts a stand-in Immich server on this machine, fills it with a sample " +
      "library, and runs the real stacksync command against it four times.",
  );
  await using server = await startImmichServer();
  const { library, users, added } = loadDemoLibrary(server);
  const [first] = library.users;
  const before = [...first.stacks, ...added.stacks];
  const names = new Map(first.assets.map((asset) => [asset.id ?? "", asset.originalFileName]));
  for (const [id, name] of added.names) names.set(id, name);
  const cwd = await Deno.makeTempDir({ prefix: "stacksync_demo_" });
  try {
    console.log(`\n  Stand-in Immich server: ${server.url} (loopback only)`);
    for (const [index, user] of users.entries()) {
      const assets = library.users[index].assets.length + (index === 0 ? added.names.size : 0);
      const stacks = server.stacks(user.id).length;
      console.log(`  ${user.name}: ${assets} photos and videos, ${stacks} stacks made earlier`);
    }
    say(
      "Most of the stacks made earlier are right; some have the wrong cover, some were made by " +
        `hand over a burst (the default rules group bursts the same way). ${first.name} also has:`,
    );
    for (const scenario of SCENARIOS) {
      say(`${scenario.stack.join(" + ")}: ${scenario.what}`, "      ", "    - ");
    }
    say(
      "Each pass runs main.ts with API_URL set to the stand-in server and API_KEY to both " +
        "users' keys, comma-separated, so both users are processed, one after the other. " +
        "Shown below each pass: the plan per user, the first change of each kind with its " +
        "reason, the summary, and the exit status.",
    );

    const settings = {
      API_URL: server.url,
      API_KEY: users.map((user) => user.key).join(","),
      LOG_FORMAT: "json",
      STATE_DIR: `${cwd}/state`,
    };
    const stacksBefore = describeStacks(server.stacks(users[0].id));
    const results: PassResult[] = [];
    for (const [index, pass] of PASSES.entries()) {
      if (pass.args?.[0] === "undo") {
        // Each conflict is named by the first pass that finds it.
        const conflicts = results.flatMap((result) => result.conflicts);
        const title = `The stacks of ${first.name} after pass ${index}`;
        showStacks(title, server.stacks(users[0].id), { before, names, conflicts });
      }
      results.push(await runPass(pass, index, settings, cwd));
    }
    const after = server.stacks(users[0].id);
    const title = `The stacks of ${first.name} after the undo`;
    showStacks(title, after, { before, names, conflicts: [] });

    const failed = results.findIndex((result) => result.code !== 0);
    if (failed >= 0) {
      console.error(`\nerror: Pass ${failed + 1} exited with status ${results[failed].code}`);
      return 1;
    }
    const again = results[PASSES.length - 2].unchanged;
    if (again.length !== users.length || !again.every(Boolean)) {
      console.error(`\nerror: The rerun still planned changes: expected "No changes" per user`);
      return 1;
    }
    if (JSON.stringify(describeStacks(after)) !== JSON.stringify(stacksBefore)) {
      console.error(`\nerror: The undo did not put back the stacks of ${first.name} as they were`);
      return 1;
    }
    heading("Done");
    say(
      "Every pass exited with status 0, the rerun changed nothing, and the undo put every " +
        "stack back as it was before the demo. The stand-in server stops now; nothing was sent " +
        "anywhere else. Next: `deno task sandbox` keeps such a server running to try settings " +
        "against, `deno task test` runs the test suite, and README.md explains how to create an " +
        "API key and do a dry run against your own Immich server.",
    );
    return 0;
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
}

if (import.meta.main) {
  Deno.exit(await main());
}
