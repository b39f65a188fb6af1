/**
 * Progress on long work through the real CLI against the Immich test server (a first run of
 * 48 000 stacks was minutes of log lines with no count, no percentage and no time left).
 * On a terminal (a pseudo-terminal from util-linux `script`) a line on standard error is redrawn
 * in place and never shares a row with a log line; without one, a log line at info carries the
 * same figures (STACKSYNC_PROGRESS_INTERVAL_MS=0 logs at every page and step, where a real run
 * waits 10 s); `duplicates --format json` writes its document and nothing else to standard
 * output, and no control sequence reaches a log line, a dumb terminal or NO_COLOR's.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type CliResult, type CliRun, jsonLines, runCli } from "./_cli.ts";
import { type ImmichServer, startImmichServer } from "./immich_server.ts";

const ESC = "\x1b";
const APPLYING = /Applying the plan of Ada: \d+ of 8 steps \(\d+%\), [\d.]+ a second, time left/;
const READING = /Reading the library of Ada: page 1, 16 of 16 assets \(100%\), time left 0 s/;

/** The line drawn from the start of its row, over what was there. */
function drawn(line: RegExp): RegExp {
  return new RegExp(`\r${ESC}\\[K${line.source}`);
}

/** A terminal that takes control sequences (tests/_cli.ts sets NO_COLOR for every run). */
const TERMINAL = { TERM: "xterm", NO_COLOR: "" };
/** Progress in the log at every page and step, rather than every 10 s. */
const EVERY_STEP = { STACKSYNC_PROGRESS_INTERVAL_MS: "0" };

/** Ada with 8 RAW+JPEG pairs to stack, and the settings that reach her. */
function library(
  server: ImmichServer,
): { userId: string; env: { API_URL: string; API_KEY: string } } {
  const user = server.addUser({ name: "Ada" });
  for (let i = 0; i < 8; i++) {
    const localDateTime = new Date(Date.UTC(2024, 4, 1, 10, i)).toISOString();
    server.addAsset(user.id, { originalFileName: `IMG_${1000 + i}.jpg`, localDateTime });
    server.addAsset(user.id, { originalFileName: `IMG_${1000 + i}.dng`, localDateTime });
  }
  return { userId: user.id, env: { API_URL: server.url, API_KEY: server.addKey(user.id) } };
}

/** Runs the CLI, then removes its working folder; `read` sees the folder first. */
async function cli(
  run: CliRun,
  read?: (cwd: string) => Promise<string>,
): Promise<CliResult & { file?: string }> {
  const result = await runCli(run);
  try {
    return { ...result, ...(read === undefined ? {} : { file: await read(result.cwd) }) };
  } finally {
    await Deno.remove(result.cwd, { recursive: true });
  }
}

/**
 * The rows a terminal shows after receiving `transcript`: each row written over from its start
 * by a carriage return, and cut at the cursor by erase-to-end-of-line (ECMA-48 EL, `ESC [ K`).
 *
 * @throws {Error} For any other control sequence: the line uses no other.
 */
function screen(transcript: string): string[] {
  return transcript.split("\n").map((row) => {
    const cells: string[] = [];
    let column = 0;
    for (let i = 0; i < row.length; i++) {
      if (row[i] === "\r") column = 0;
      else if (row.startsWith(`${ESC}[K`, i)) {
        cells.length = column;
        i += 2;
      } else if (row[i] === ESC) throw new Error(`Unexpected control sequence in ${row}`);
      else cells[column++] = row[i];
    }
    return cells.join("");
  });
}

Deno.test("main.ts draws a progress line on a terminal and keeps it off the log's rows", async () => {
  await using server = await startImmichServer();
  const { userId, env } = library(server);
  const result = await cli({ env: { ...env, ...TERMINAL }, terminal: {} });
  assert.equal(result.code, 0, result.stdout);
  // Drawn while reading against the count, and while applying: redrawn in place.
  // Redrawn at most every 100 ms, it may show any page.
  assert.match(result.stdout, drawn(/Reading the library of Ada: page \d, \d+ of 16 assets/));
  assert.match(result.stdout, drawn(APPLYING));
  // Seen as the terminal shows it, every row is a whole log line: each drawing of the line was
  // cleared before the next log line, and the last when the work ended.
  const rows = screen(result.stdout).filter((row) => row !== "");
  assert.ok(rows.length > 8, result.stdout);
  for (const row of rows) assert.match(row, /^time=\S+ level=\w+ msg="/, row);
  assert.ok(rows.some((row) => row.includes('msg="Success! Stack created"')), result.stdout);
  assert.equal(server.stacks(userId).length, 8);
});

Deno.test("main.ts keeps the progress line on standard error when only it is a terminal", async () => {
  await using server = await startImmichServer();
  const { env } = library(server);
  const result = await cli(
    {
      env: { ...env, ...TERMINAL, LOG_FORMAT: "json", DRY_RUN: "true" },
      terminal: { stdoutFile: "out.jsonl" },
    },
    (cwd) => Deno.readTextFile(join(cwd, "out.jsonl")),
  );
  assert.equal(result.code, 0, `${result.stdout}\n${result.file}`);
  // The terminal got the line, drawn and cleared, and nothing else.
  assert.match(result.stdout, /Dry run of the plan of Ada: \d+ of 8 steps/);
  assert.deepEqual(screen(result.stdout).filter((row) => row !== ""), []);
  // The JSON log holds no control sequence and no progress line (its work ended within 10 s).
  const file = result.file!;
  assert.ok(!file.includes(ESC));
  const lines = jsonLines(file);
  assert.ok(lines.some((line) => line.msg.startsWith("[DRY RUN] Would create stack")), file);
  assert.ok(!lines.some((line) => line.msg.startsWith("Dry run of the plan")), file);
});

Deno.test("main.ts logs the progress without a terminal, with the same figures", async (t) => {
  await using server = await startImmichServer();
  const { userId, env } = library(server);
  const base = { ...env, ...EVERY_STEP };

  await t.step("a dry run, in JSON lines: reading without a count, then each action", async () => {
    const result = await cli({ env: { ...base, LOG_FORMAT: "json", DRY_RUN: "true" } });
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.ok(!result.stdout.includes(ESC) && !result.stderr.includes(ESC));
    const lines = jsonLines(result.stdout);
    // A dry run keeps no cache, so it asks for no count: pages and assets only.
    const reading = lines.filter((line) => line.msg.startsWith("Reading the library"));
    assert.deepEqual(reading.map((line) => [line.level, line.msg, line.pages, line.done]), [
      ["info", "Reading the library of Ada: page 1, 16 assets", 1, 16],
    ]);
    const steps = lines.filter((line) => line.msg.startsWith("Dry run of the plan of Ada"));
    assert.deepEqual(steps.map((line) => [line.done, line.total, line.percent]), [
      [1, 8, 12],
      [2, 8, 25],
      [3, 8, 37],
      [4, 8, 50],
      [5, 8, 62],
      [6, 8, 75],
      [7, 8, 87],
      [8, 8, 100],
    ]);
    assert.ok(steps.every((line) => line.level === "info" && typeof line.rate === "number"));
    assert.equal(steps.at(-1)!.left, "0 s");
  });

  await t.step("a real run, in logfmt: reading against the count, then each write", async () => {
    const result = await cli({ env: base });
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.ok(!result.stdout.includes(ESC) && !result.stderr.includes(ESC));
    const progress = result.stdout.split("\n").filter((line) =>
      /msg="(Reading the library|Applying the plan)/.test(line)
    );
    assert.match(progress[0], READING);
    assert.match(progress[0], / level=info .* pages=1 done=16 total=16 percent=100 /);
    assert.equal(progress.length, 9, result.stdout);
    assert.match(progress[8], /Applying the plan of Ada: 8 of 8 steps \(100%\)/);
    assert.equal(server.stacks(userId).length, 8);
  });
});

Deno.test("main.ts sends no control sequence to a dumb terminal or NO_COLOR's: it logs", async () => {
  await using server = await startImmichServer();
  const { env } = library(server);
  for (const terminal of [{ TERM: "dumb", NO_COLOR: "" }, { TERM: "xterm", NO_COLOR: "1" }]) {
    const result = await cli({
      env: { ...env, ...EVERY_STEP, ...terminal, DRY_RUN: "true" },
      terminal: {},
    });
    assert.equal(result.code, 0, result.stdout);
    assert.ok(!result.stdout.includes(ESC), JSON.stringify(terminal));
    assert.match(
      result.stdout,
      /level=info msg="Dry run of the plan of Ada: 8 of 8 steps \(100%\)/,
    );
  }
});

Deno.test("main.ts writes only the document of duplicates --format json to stdout", async (t) => {
  await using server = await startImmichServer();
  const { env } = library(server);
  const args = ["duplicates", "--format", "json"];
  const report = (text: string) => {
    assert.ok(!text.includes(ESC));
    const parsed = JSON.parse(text);
    assert.equal(parsed.format, "stacksync-duplicates");
    assert.equal(parsed.users[0].photos, 16);
  };

  await t.step("on a terminal: the line goes to standard error's", async () => {
    const result = await cli(
      { args, env: { ...env, ...EVERY_STEP, ...TERMINAL }, terminal: { stdoutFile: "out.json" } },
      (cwd) => Deno.readTextFile(join(cwd, "out.json")),
    );
    assert.equal(result.code, 0, `${result.stdout}\n${result.file}`);
    assert.match(result.stdout, drawn(/Reading the library of Ada: page \d, \d+ assets/));
    report(result.file!);
  });

  await t.step("without one: the log line goes to standard error with the log", async () => {
    const result = await cli({ args, env: { ...env, ...EVERY_STEP } });
    assert.equal(result.code, 0, result.stderr);
    report(result.stdout);
    assert.match(result.stderr, /level=info msg="Reading the library of Ada: page 1, 16 assets"/);
  });
});
