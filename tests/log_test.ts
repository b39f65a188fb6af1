import assert from "node:assert/strict";
import { join } from "node:path";
import { getLogger } from "@logtape/logtape";
import {
  literal,
  LOG_FILE_FALLBACK,
  LOG_LEVELS,
  type LogFormat,
  type LogLevelName,
  type LogOptions,
  REDACTED,
  setupLogging,
} from "../src/log.ts";
import logMessageLint from "../scripts/log_message_lint.ts";
import { parseLogfmt } from "./_logs.ts";

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function parseLine(format: LogFormat, line: string): Record<string, unknown> {
  assert.ok(line.endsWith("\n") && !line.slice(0, -1).includes("\n"), `one line: ${line}`);
  return format === "json" ? JSON.parse(line) : parseLogfmt(line.slice(0, -1));
}

/** Sets up logging that collects stdout lines in memory. */
async function capture(options: Partial<LogOptions> = {}) {
  const lines: string[] = [];
  const logging = await setupLogging({
    level: "trace",
    format: "text",
    secrets: [],
    write: (line) => lines.push(line),
    ...options,
  });
  return { lines, logging };
}

const logger = getLogger(["stacksync", "test"]);

function logAtEveryLevel(): void {
  logger.trace("at trace");
  logger.debug("at debug");
  logger.info("at info");
  logger.warn("at warn");
  logger.error("at error");
  logger.fatal("at fatal");
}

async function tempDir(): Promise<string> {
  return await Deno.makeTempDir({ prefix: "stacksync_log_test_" });
}

Deno.test("setupLogging() writes only records at or above the chosen level", async (t) => {
  for (const [index, level] of LOG_LEVELS.entries()) {
    await t.step(level, async () => {
      const { lines, logging } = await capture({ level, format: "json" });
      logAtEveryLevel();
      await logging.dispose();
      const levels = lines.map((line) => parseLine("json", line).level);
      assert.deepEqual(levels, LOG_LEVELS.slice(index));
    });
  }
});

Deno.test("setupLogging() writes logfmt and json lines with time, level, msg and context fields", async (t) => {
  for (const format of ["text", "json"] as const) {
    await t.step(format, async () => {
      const { lines, logging } = await capture({ format });
      logger.info("Processing user: {user}", { user: "Alice Smith" });
      logger.warn("Retry {attempt}/{max} after {delay}", { attempt: 2, max: 3, delay: "1s" });
      logger.debug("Parent chosen", {
        assetID: "a-1",
        filename: 'IMG "1"=final.jpg',
        stackID: "s-1",
        correlationID: "c-9",
        note: "",
      });
      await logging.dispose();
      const [user, retry, parent] = lines.map((line) => parseLine(format, line));
      for (const record of [user, retry, parent]) {
        assert.match(String(record.time), ISO_TIME);
      }
      const text = (value: unknown) => format === "json" ? value : String(value);
      assert.equal(user.level, "info");
      assert.equal(user.msg, "Processing user: Alice Smith");
      assert.equal(user.user, "Alice Smith");
      assert.equal(retry.level, "warn");
      assert.equal(retry.msg, "Retry 2/3 after 1s");
      assert.equal(retry.attempt, text(2));
      assert.equal(parent.level, "debug");
      assert.deepEqual(
        [parent.assetID, parent.filename, parent.stackID, parent.correlationID, parent.note],
        ["a-1", 'IMG "1"=final.jpg', "s-1", "c-9", ""],
      );
    });
  }
});

Deno.test("setupLogging() writes the time as ISO 8601 and keys in a fixed order", async () => {
  const { lines, logging } = await capture();
  logger.info("Updated stack {stackID}", { stackID: "s-7" });
  await logging.dispose();
  assert.match(lines[0], /^time=\S+ level=info msg="Updated stack s-7" stackID=s-7\n$/);
});

Deno.test("setupLogging() quotes a logfmt value exactly when it holds white space, a quote, =, a backslash or a control character", async () => {
  const quoted = [
    "a b",
    'a"b',
    "a=b",
    "a\\b",
    "a\u0000b",
    "a\tb",
    "a\u007fb",
    "a\u0085b",
    "a\u00a0b",
    "a\u2028b",
    "a\u3000b",
    "a\ufeffb",
    "",
  ];
  const bare = ["a-b", "IMG_0001.jpg", "a\u00a1b", "é", "a\u200bb", "😀", "a\ud800b"];
  const { lines, logging } = await capture();
  for (const value of [...quoted, ...bare]) logger.info("Value", { value });
  await logging.dispose();
  const written = lines.map((line) => line.slice(line.indexOf(" value=") + 7, -1));
  assert.deepEqual(
    written,
    [...quoted, ...bare].map((v) => quoted.includes(v) ? JSON.stringify(v) : v),
  );
});

Deno.test("setupLogging() renders errors with their causes and nested values as JSON", async () => {
  const { lines, logging } = await capture({ format: "json" });
  const cause = new Error("connection refused");
  logger.error("API request failed", {
    error: new Error("Failed to connect to API", { cause }),
    body: { assetIds: ["a-1", "a-2"] },
    at: new Date(Date.UTC(2024, 0, 31)),
  });
  await logging.dispose();
  const record = parseLine("json", lines[0]);
  assert.equal(record.error, "Failed to connect to API: connection refused");
  assert.deepEqual(record.body, { assetIds: ["a-1", "a-2"] });
  assert.equal(record.at, "2024-01-31T00:00:00.000Z");
});

Deno.test("setupLogging() appends every line to LOG_FILE as well, creating its folders", async () => {
  const dir = await tempDir();
  const file = join(dir, "nested", "deeper", "stacksync.log");
  await Deno.mkdir(join(dir, "nested", "deeper"), { recursive: true });
  await Deno.writeTextFile(file, "earlier line\n");
  const { lines, logging } = await capture({ file, level: "info" });
  logger.info("Success! Stack created", { stackID: "s-1" });
  logger.debug("hidden");
  await logging.dispose();
  assert.equal(lines.length, 1);
  assert.equal(await Deno.readTextFile(file), `earlier line\n${lines[0]}`);

  const fresh = join(dir, "new", "folder", "run.log");
  const second = await capture({ file: fresh, format: "json" });
  logger.info("Received shutdown signal");
  await second.logging.dispose();
  assert.equal(await Deno.readTextFile(fresh), second.lines.join(""));
  assert.equal(parseLine("json", second.lines[0]).msg, "Received shutdown signal");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("setupLogging() warns and carries on with stdout when LOG_FILE cannot be opened", async () => {
  const dir = await tempDir();
  const blocker = join(dir, "not-a-folder");
  await Deno.writeTextFile(blocker, "");
  const { lines, logging } = await capture({ file: join(blocker, "run.log"), format: "json" });
  logger.info("Processing user: {user}", { user: "alice" });
  await logging.dispose();
  const [warning, next] = lines.map((line) => parseLine("json", line));
  assert.equal(warning.level, "warn");
  assert.equal(warning.msg, LOG_FILE_FALLBACK);
  assert.equal(warning.msg, "Could not open log file, using stdout only");
  assert.equal(warning.file, join(blocker, "run.log"));
  assert.equal(next.msg, "Processing user: alice");
  assert.equal(lines.length, 2);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("setupLogging() redacts every secret from message, fields, errors and bodies", async (t) => {
  const secrets = ["key-AAA111", 'odd"key\\42'];
  for (const format of ["text", "json"] as const) {
    await t.step(format, async () => {
      const dir = await tempDir();
      const file = join(dir, "run.log");
      const { lines, logging } = await capture({ format, secrets, file });
      logger.info(literal(`header x-api-key: ${secrets[0]}`));
      logger.info("Processing user: {user}", { user: secrets[1] });
      logger.trace("Request", {
        headers: { "x-api-key": secrets[0] },
        body: [{ note: `keys ${secrets.join(",")}` }],
        [secrets[0]]: "as a field name",
      });
      logger.error("API request failed", {
        error: new Error(`bad key ${secrets[0]}`, { cause: new Error(secrets[1]) }),
      });
      await logging.dispose();
      const written = lines.join("") + await Deno.readTextFile(file);
      for (const secret of [...secrets, JSON.stringify(secrets[1]).slice(1, -1)]) {
        assert.ok(!written.includes(secret), `${secret} in ${written}`);
      }
      const records = lines.map((line) => parseLine(format, line));
      assert.equal(records[0].msg, `header x-api-key: ${REDACTED}`);
      assert.equal(records[1].user, REDACTED);
      assert.ok(String(records[3].error).includes(`bad key ${REDACTED}: ${REDACTED}`));
      assert.equal(records.length, 4);
      await Deno.remove(dir, { recursive: true });
    });
  }
});

Deno.test("setupLogging() keeps LogTape's own meta messages out of the output", async () => {
  const methods = ["debug", "info", "log", "warn", "error"] as const;
  const originals = methods.map((method) => console[method]);
  const printed: unknown[][] = [];
  for (const method of methods) console[method] = (...data: unknown[]) => printed.push(data);
  try {
    const { lines, logging } = await capture();
    await logging.dispose();
    assert.deepEqual(lines, []);
  } finally {
    methods.forEach((method, index) => console[method] = originals[index]);
  }
  assert.deepEqual(printed, []);
});

Deno.test("setupLogging() can be called again and the new setup replaces the old one", async () => {
  const first = await capture({ format: "text" });
  const second = await capture({ format: "json", level: "error" as LogLevelName });
  logger.info("dropped at error level");
  logger.error("Failed to create stack");
  await second.logging.dispose();
  await first.logging.dispose();
  assert.deepEqual(first.lines, []);
  assert.equal(second.lines.length, 1);
  assert.equal(parseLine("json", second.lines[0]).msg, "Failed to create stack");
});

Deno.test("literal() texts and template values with braces are written as they are, secrets hidden", async (t) => {
  const texts = ["Moved IMG_{0001}.CR3", "party {2024}.jpg", "IMG_1}.jpg", "{{x}}", "{*} {user}"];
  for (const format of ["text", "json"] as const) {
    await t.step(format, async () => {
      const { lines, logging } = await capture({ format, secrets: ["k{3}y"] });
      for (const text of texts) logger.info(literal(text), { user: "Ada" });
      logger.warn("Left {files} as they are", { files: "IMG_{1}.jpg, k{3}y" });
      logger.info(literal("key k{3}y in a message"));
      await logging.dispose();
      const records = lines.map((line) => parseLine(format, line));
      assert.deepEqual(records.map((record) => record.msg), [
        ...texts,
        `Left IMG_{1}.jpg, ${REDACTED} as they are`,
        `key ${REDACTED} in a message`,
      ]);
      assert.equal(records[texts.length].files, `IMG_{1}.jpg, ${REDACTED}`);
    });
  }
});

Deno.test("deno lint refuses a log message built from data, and takes templates and literal()", () => {
  const problems = (code: string) =>
    Deno.lint.runPlugin(logMessageLint, "case.ts", code).map((problem) => problem.id);
  const refused = [
    "log.info(`Left stack ${id} as it is`);",
    "log.warn(summary, { user });",
    "this.#logger.error(what);",
    'log.debug("Moved " + name);',
    "log.info(describe(action));",
    'log.info(done ? text : "Nothing to do");',
  ];
  const accepted = [
    'log.info("Left stack {stackID} as it is", { stackID });',
    'log.warn("Cannot write {path}: " + "{error}", { path, error });',
    "log.info(`No changes`);",
    'log.info(same ? "Restored stack {old}" : "Restored stack {old} as {id}", fields);',
    "log.info(literal(`Moved ${name}`));",
    "log.warn(LOG_FILE_FALLBACK, { file });",
    "console.error(`warning: ${text}`);",
    "log.info`Moved ${name}`;",
  ];
  for (const code of refused) assert.deepEqual(problems(code), ["stacksync/log-message"], code);
  for (const code of accepted) assert.deepEqual(problems(code), [], code);
});
