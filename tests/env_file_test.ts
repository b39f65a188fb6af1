/**
 * The strict env file reader: its grammar case by case, then a fuzz test of generated files
 * (random characters, truncated lines, unbalanced quotes, BOM, CRLF, unknown and misspelt names)
 * checked against a second, independent reading of the grammar written here as a regular
 * expression per rule. Every file either loads exactly as written or is refused with one line
 * naming the line; most run in process through loadSettings, a sample through the real CLI
 * against the Immich test server.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { EnvFileError, parseEnvFile } from "../src/env_file.ts";
import { closestName } from "../src/closest_name.ts";
import {
  type Command,
  ConfigError,
  describeSettings,
  loadSettings,
  SETTINGS,
  UNSUPPORTED_SETTINGS,
} from "../src/config.ts";
import { mapLimited, runCli } from "./_cli.ts";
import { type Random, seededRandom } from "./_random.ts";
import { startImmichServer } from "./immich_server.ts";

Deno.test("parseEnvFile() reads comments, blanks, export, quotes, escapes, BOM and CRLF", () => {
  const text = "\uFEFF# a comment\r\n\r\n  \t\n" +
    "export API_URL = http://immich:2283/api   # the server\r\n" +
    "PARENT_FILENAME_PROMOTE=cover, edit#1\n" +
    'CRITERIA=\'[{"key":"localDateTime"}]\' # json\n' +
    'CONFIRM_RESET_STACK="I said \\"yes\\"\\tand\\\\left\\nthen"\n' +
    "EMPTY=\n" +
    "HASH=#not a value\n" +
    "DOLLAR='$HOME stays'\n" +
    "COST=5$ and $1\n";
  assert.deepEqual(parseEnvFile(text), [
    { name: "API_URL", value: "http://immich:2283/api", line: 4 },
    { name: "PARENT_FILENAME_PROMOTE", value: "cover, edit#1", line: 5 },
    { name: "CRITERIA", value: '[{"key":"localDateTime"}]', line: 6 },
    { name: "CONFIRM_RESET_STACK", value: 'I said "yes"\tand\\left\nthen', line: 7 },
    { name: "EMPTY", value: "", line: 8 },
    { name: "HASH", value: "", line: 9 },
    { name: "DOLLAR", value: "$HOME stays", line: 10 },
    { name: "COST", value: "5$ and $1", line: 11 },
  ]);
});

Deno.test("parseEnvFile() refuses every other line with its number and what is wrong", async (t) => {
  const cases: [string, string][] = [
    ["DRY_RUN true", 'expected NAME=value, found no "=" after DRY_RUN'],
    ["just words here", 'expected NAME=value, found no "=" after just'],
    ["=true", 'expected NAME=value, found no name before "="'],
    [
      "DRY RUN=true",
      'expected NAME=value: the name before "=" must be one word of letters, ' +
      "digits and _",
    ],
    ["A='x", "the value of A opens a ' quote that is not closed on the same line"],
    ['A="x\\"', 'the value of A opens a " quote that is not closed on the same line'],
    ['A="x\\', 'the value of A opens a " quote that is not closed on the same line'],
    ["A='x' y", "text after the closing quote of A: only a # comment may follow"],
    ["A='x'#y", "text after the closing quote of A: only a # comment may follow"],
    [
      "A=x'y",
      "a quote inside the unquoted value of A: put the whole value in single quotes, A='…', which keep it as written",
    ],
    [
      'CRITERIA="[{"key":"localDateTime"}]"',
      "text after the closing quote of CRITERIA: a value holding \" (such as JSON) goes in single quotes, CRITERIA='…'",
    ],
    [
      'A="\\d"',
      'unknown escape \\d in the double-quoted value of A: use \\\\, \\", \\n, \\r ' +
      "or \\t, or single quotes for a literal backslash",
    ],
    [
      "A=${HOME}",
      "the value of A holds ${…}, but stacksync does not expand variables: write " +
      "the value itself, or put it in single quotes to keep the $",
    ],
    [
      'A="$HOME"',
      "the value of A holds $HOME, but stacksync does not expand variables: write " +
      "the value itself, or put it in single quotes to keep the $",
    ],
    ["A=x\u0007y", "the value of A holds the control character U+0007"],
    ["A='x\ry'", "the value of A holds the control character U+000D"],
  ];
  for (const [line, problem] of cases) {
    await t.step(JSON.stringify(line), () => {
      assert.throws(() => parseEnvFile(`# first\n${line}\nB=1\n`), (error: unknown) => {
        assert.ok(error instanceof EnvFileError);
        assert.deepEqual([error.line, error.problem], [2, problem]);
        return true;
      });
    });
  }
  await t.step("a name set twice", () => {
    assert.throws(() => parseEnvFile("A=1\nB=2\nexport A=3"), {
      message: "line 3: A is set again (first on line 1): keep one",
    });
  });
  await t.step("a word that may be a key is not echoed", () => {
    const key = "Zq3Xv9Lr2Kd8Pw5Hn1Tc7Yb4Mf6Gs0JaQe2Uo8Ix";
    assert.throws(() => parseEnvFile(`${key}\n`, { mayShow: (word) => word !== key }), {
      message: 'line 1: expected NAME=value, found no "="',
    });
  });
});

Deno.test("closestName() suggests a setting for case, separator and small spelling slips", () => {
  const names = Object.values(SETTINGS).map((setting) => setting.env);
  const cases: [string, string | undefined][] = [
    ["DRYRUN", "DRY_RUN"],
    ["dry_run", "DRY_RUN"],
    ["Dry-Run", "DRY_RUN"],
    ["DRY_RUNS", "DRY_RUN"],
    ["DRY_URN", "DRY_RUN"],
    ["CRON_INTERVALL", "CRON_INTERVAL"],
    ["WITH_ARCHIVE", "WITH_ARCHIVED"],
    ["PARENT_FILENAME_PROMOTION", "PARENT_FILENAME_PROMOTE"],
    ["API_URI", "API_URL"],
    ["TZ", undefined],
    ["DB_PASSWORD", undefined],
    ["IMMICH_API_KEY", undefined],
    ["UPLOAD_LOCATION", undefined],
    ["DRY_RUN", undefined],
  ];
  assert.deepEqual(cases.map(([typed]) => [typed, closestName(typed, names)]), cases);
});

// ---- The fuzz test ----

const SETTING_NAMES: readonly string[] = Object.values(SETTINGS).map((setting) => setting.env);
const UNSUPPORTED: readonly string[] = UNSUPPORTED_SETTINGS.map((setting) => setting.env);

/** The outcome the grammar gives a file: its entries, or the first line it refuses. */
type Reading = { readonly entries: Map<string, string> } | { readonly refusedAt: number };

/**
 * The grammar of src/env_file.ts written again, rule by rule as regular expressions, without
 * looking at how that module scans: the two must agree on every file.
 */
function oracle(text: string): Reading {
  const entries = new Map<string, string>();
  const lines = text.replace(/^\uFEFF/, "").split("\n").map((line) => line.replace(/\r$/, ""));
  const nameLines: [string, number][] = [];
  // deno-lint-ignore no-control-regex
  const control = /[\x00-\x08\x0a-\x1f\x7f]/;
  const expansion = /\$(\{|[A-Za-z_])/;
  const restOk = (rest: string) => /^([ \t]*|[ \t]+#[^]*)$/.test(rest);
  for (const [index, line] of lines.entries()) {
    const at = index + 1;
    if (/^[ \t]*(#[^]*)?$/.test(line)) continue;
    const match = /^[ \t]*(?:export[ \t]+)?([^=]*)=[ \t]*([^]*)$/.exec(line);
    if (match === null) return { refusedAt: at };
    const name = match[1].replace(/[ \t]+$/, "");
    const raw = match[2];
    if (name === "" || /[ \t"'#]/.test(name) || control.test(name)) return { refusedAt: at };
    let value: string;
    const single = /^'([^']*)'([^]*)$/.exec(raw);
    const double = /^"((?:[^"\\]|\\[^])*)"([^]*)$/.exec(raw);
    if (raw.startsWith("'")) {
      if (single === null || !restOk(single[2]) || control.test(single[1])) {
        return { refusedAt: at };
      }
      value = single[1];
    } else if (raw.startsWith('"')) {
      if (double === null || !restOk(double[2]) || control.test(double[1])) {
        return { refusedAt: at };
      }
      if (/\\[^\\"nrt]/.test(double[1].replace(/\\[\\"nrt]/g, ""))) return { refusedAt: at };
      if (expansion.test(double[1])) return { refusedAt: at };
      value = double[1].replace(
        /\\([\\"nrt])/g,
        (_, c: string) => ({ n: "\n", r: "\r", t: "\t" })[c as "n" | "r" | "t"] ?? c,
      );
    } else {
      value = raw.replace(/(^|[ \t])#[^]*$/, "$1").replace(/[ \t]+$/, "");
      if (/["']/.test(value) || control.test(value) || expansion.test(value)) {
        return { refusedAt: at };
      }
    }
    if (entries.has(name)) return { refusedAt: at };
    entries.set(name, value);
    nameLines.push([name, at]);
  }
  for (const [name, at] of nameLines) {
    if (SETTING_NAMES.includes(name) || UNSUPPORTED.includes(name)) continue;
    if (closestName(name, SETTING_NAMES) !== undefined) return { refusedAt: at };
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return { refusedAt: at };
  }
  return { entries };
}

/** Values a setting may take in the generated files, valid or not. */
const VALUES: Readonly<Record<string, readonly string[]>> = {
  API_URL: ["http://immich:2283/api", "https://photos.example.com/immich/api", "immich:2283"],
  API_KEY: ["key-a", "key-a,key-b", "Zq3Xv9Lr2Kd8Pw5Hn1Tc7Yb4Mf6Gs0JaQe2Uo8Ix"],
  DRY_RUN: ["true", "false", "yes", "maybe"],
  RUN_MODE: ["once", "cron"],
  STACK_CONCURRENCY: ["1", "8", "0", "two"],
  PREVENT_SELF_REKT: ["true", "false"],
  FIX_TRASH_AFTER_STACKING: ["false", "true"],
  TRASH_ORPHANED_RAWS: ["false", "true"],
  RAW_ORPHAN_EXTENSIONS: ["dng,nef", ".CR3"],
  CRON_INTERVAL: ["3600", "86400", "1h"],
  REQUEST_TIMEOUT: ["30", "120"],
  LOG_LEVEL: ["debug", "info", "warn"],
  LOG_FORMAT: ["json", "text"],
  CRITERIA: [
    '[{"key":"localDateTime","delta":{"milliseconds":500}}]',
    '[{"key":"originalFileName"}]',
  ],
  PARENT_FILENAME_PROMOTE: ["cover,edit", ",_edited", "cover, edit #1", "edit#2", "it's", "a\\b"],
  PARENT_EXT_PROMOTE: [".jpg,.dng", ".dng"],
  FILTER_ALBUM_IDS: ["Holidays 2024", "album-1,album-2", 'Tom\'s "best"'],
  CONFIRM_RESET_STACK: ["I acknowledge all my current stacks will be deleted"],
  LOG_FILE: ["logs/run.log", "C:\\logs\\run.log"],
};

/** Names for entries: settings, immich-stack ones, unknown, misspelt and invalid names. */
const OTHER_NAMES = ["TZ", "DB_PASSWORD", "FOO_BAR", "DRYRUN", "dry_run", "LOG_LEVELS", "2LOG"];

const NOISE = ['"', "'", "=", "#", "\\", "$", "\r", "\n", "\t", " ", "\u0000", "é", "\uFEFF", "x"];

function pick<T>(items: readonly T[], random: Random): T {
  return items[Math.floor(random() * items.length)];
}

/** Control characters no style can write (tab, LF and CR can be escaped in double quotes). */
// deno-lint-ignore no-control-regex
const UNWRITABLE = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/;

/** The line of one entry, in a style the value allows; undefined when none does. */
function renderEntry(name: string, value: string, random: Random): string | undefined {
  const styles: string[] = [];
  if (UNWRITABLE.test(value)) return undefined;
  const expands = /\$(\{|[A-Za-z_])/.test(value);
  if (!/["'\n\r\t]|^[ #]| $| #/.test(value) && !expands) styles.push(value);
  if (!/['\n\r]/.test(value)) styles.push(`'${value}'`);
  if (!expands) {
    const escaped = value.replace(/[\\"]/g, (c) => `\\${c}`).replace(/\n/g, "\\n")
      .replace(/\r/g, "\\r").replace(/\t/g, "\\t");
    styles.push(`"${escaped}"`);
  }
  if (styles.length === 0) return undefined;
  const prefix = random() < 0.2 ? "export " : random() < 0.1 ? "  " : "";
  const equals = random() < 0.15 ? " = " : "=";
  const comment = random() < 0.15 ? " # note" : "";
  return `${prefix}${name}${equals}${pick(styles, random)}${comment}`;
}

/** A generated file and, when left whole, the entries it was written from. */
interface Generated {
  readonly text: string;
  readonly written?: Map<string, string>;
}

function generate(random: Random): Generated {
  if (random() < 0.08) {
    const length = Math.floor(random() * 80);
    return { text: Array.from({ length }, () => pick(NOISE, random)).join("") };
  }
  const written = new Map<string, string>();
  const lines: string[] = [];
  const count = 1 + Math.floor(random() * 7);
  for (let i = 0; i < count; i++) {
    if (random() < 0.2) lines.push(pick(["", "# comment", "  # indented", "\t"], random));
    const name = random() < 0.75
      ? pick([...Object.keys(VALUES), ...UNSUPPORTED], random)
      : pick(OTHER_NAMES, random);
    if (written.has(name)) continue;
    const value = random() < 0.85
      ? pick(VALUES[name] ?? ["1", "x y"], random)
      : Array.from({ length: 1 + Math.floor(random() * 6) }, () => pick(NOISE, random)).join("");
    const line = renderEntry(name, value, random);
    if (line === undefined) continue;
    lines.push(line);
    written.set(name, value);
  }
  const newline = random() < 0.3 ? "\r\n" : "\n";
  let text = (random() < 0.15 ? "\uFEFF" : "") + lines.join(newline) +
    (random() < 0.7 ? newline : "");
  if (random() < 0.45) {
    const at = Math.floor(random() * (text.length + 1));
    const kind = random();
    if (kind < 0.35) text = text.slice(0, at);
    else if (kind < 0.7) text = text.slice(0, at) + pick(NOISE, random) + text.slice(at);
    else text = text.slice(0, at) + text.slice(at + 1);
    return { text };
  }
  return { text, written };
}

/** loadSettings of a file, or of the same values given as environment variables. */
function load(env: Record<string, string>, file?: string): Command | ConfigError {
  try {
    return loadSettings({
      args: [],
      env,
      version: "1.0.0",
      readTextFile: (path) => path === "fuzz.env" ? file : undefined,
    });
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
}

function asEnvironment(entries: Map<string, string>): Record<string, string> {
  return Object.fromEntries(
    [...entries].filter(([name]) => SETTING_NAMES.includes(name) && name !== "ENV_FILE"),
  );
}

Deno.test("loadSettings() takes 2 400 generated env files exactly as written or refuses them with one line", () => {
  const random = seededRandom(12);
  let refused = 0;
  let loaded = 0;
  for (let i = 0; i < 2400; i++) {
    const { text, written } = generate(random);
    const reading = oracle(text);
    const context = `file ${i}: ${JSON.stringify(text)}`;
    if (written !== undefined) {
      // A file left whole reads as the entries it was written from.
      assert.ok("entries" in reading || reading.refusedAt > 0, context);
      if ("entries" in reading) assert.deepEqual(reading.entries, written, context);
    }
    // A file without the two required settings gets them from the environment, so that the
    // rest of it is compared rather than the same "Missing API_URL" twice.
    const required = "entries" in reading
      ? Object.fromEntries(
        Object.entries({ API_URL: "http://immich:2283/api", API_KEY: "key-z" })
          .filter(([name]) => !reading.entries.has(name)),
      )
      : {};
    const fromFile = load({ ENV_FILE: "fuzz.env", ...required }, text);
    if ("refusedAt" in reading) {
      refused++;
      assert.ok(fromFile instanceof ConfigError, context);
      assert.ok(
        fromFile.message.startsWith(`Invalid env file fuzz.env at line ${reading.refusedAt}: `),
        `${context}\n${fromFile.message}`,
      );
      assert.ok(!/[\n\r]/.test(fromFile.message), context);
      continue;
    }
    const fromEnvironment = load({ ...asEnvironment(reading.entries), ...required });
    if (fromEnvironment instanceof ConfigError) {
      assert.ok(fromFile instanceof ConfigError, context);
      assert.equal(fromFile.message, fromEnvironment.message, context);
      continue;
    }
    loaded++;
    assert.ok(!(fromFile instanceof ConfigError), `${context}\n${fromFile}`);
    assert.ok(fromFile.kind === "run" && fromEnvironment.kind === "run");
    assert.deepEqual(fromFile.settings, fromEnvironment.settings, context);
    const unknown = [...reading.entries.keys()].filter((name) =>
      !SETTING_NAMES.includes(name) && !UNSUPPORTED.includes(name)
    );
    const named = fromFile.warnings.find((line) => line.includes("stacksync setting")) ?? "";
    for (const name of unknown) assert.ok(named.includes(`${name} (line `), `${context}\n${named}`);
  }
  // The generator must exercise both outcomes, or the test proves nothing.
  assert.ok(refused > 600 && loaded > 400, `${refused} refused, ${loaded} loaded`);
});

/**
 * Settings of the CLI sample that the environment decides over the file: no write even from a
 * misread file, one pass, and JSON lines from the start-up line on.
 */
const OVERRIDES = { DRY_RUN: "true", RUN_MODE: "once", LOG_FORMAT: "json", LOG_LEVEL: "info" };

Deno.test("main.ts sends requests only with the settings a generated env file holds", async () => {
  const random = seededRandom(34);
  const key = "sk-fuzz-5e2a";
  // The server and key come first and whole, the generated lines after them; the server's
  // address does not change how a file reads, so files are chosen with a stand-in one.
  const fileFor = (url: string, text: string) => `API_URL=${url}\nAPI_KEY=${key}\n${text}`;
  const texts: string[] = [];
  while (texts.length < 12) {
    const text = generate(random).text.replace(/^\uFEFF/, "");
    // Half refused, half taken: those taken must reach the server to show what it was sent.
    const wanted = texts.length % 2 === 0 ? "refusedAt" : "entries";
    if (wanted in oracle(fileFor("http://127.0.0.1:1/api", text))) texts.push(text);
  }
  const runs = await mapLimited(texts, async (text) => {
    await using server = await startImmichServer();
    server.addKey(server.addUser({ name: "Fuzz" }).id, { secret: key });
    const file = fileFor(server.url, text);
    const run = await runCli({ files: { ".env": file }, env: OVERRIDES });
    await Deno.remove(run.cwd, { recursive: true });
    return { run, file, requests: server.requests.length };
  }, { limit: 3 });
  let reached = 0;
  for (const { run, file, requests } of runs) {
    const context = `${JSON.stringify(file)}\n${run.stdout}${run.stderr}`;
    const reading = oracle(file);
    if ("refusedAt" in reading) {
      assert.equal(run.code, 2, context);
      assert.match(
        run.stderr,
        new RegExp(`^error: Invalid env file \\.env at line ${reading.refusedAt}: [^\\n]+\\n$`),
      );
      assert.equal(requests, 0, context);
      continue;
    }
    // The CLI keeps its journal in its own folder (tests/_cli.ts): the same here.
    const stateHome = { XDG_STATE_HOME: join(run.cwd, ".state") };
    const expected = load({ ...asEnvironment(reading.entries), ...OVERRIDES, ...stateHome });
    if (expected instanceof ConfigError) {
      assert.deepEqual([run.code, run.stderr, requests], [2, `error: ${expected.message}\n`, 0]);
      continue;
    }
    assert.ok(expected.kind === "run");
    const { time: _time, level: _level, msg, version: _version, ...started } = JSON.parse(
      run.stdout.split("\n")[0],
    );
    assert.match(msg, /^Starting stacksync /, context);
    assert.deepEqual(started, {
      command: "run",
      ...JSON.parse(JSON.stringify(describeSettings(expected.settings))),
    });
    assert.ok(requests > 0, context);
    reached++;
  }
  assert.ok(reached >= 3, `${reached} runs reached the server`);
});
