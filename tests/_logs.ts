/**
 * Log capture for tests: LogTape records of the `stacksync` loggers go into an array; logfmt
 * lines read back into their fields.
 *
 * @module
 */
import assert from "node:assert/strict";
import { configure, type LogLevel, type LogRecord } from "@logtape/logtape";

/**
 * Sends every `stacksync` record at `lowestLevel` or above into the returned array, replacing
 * any earlier configuration and silencing LogTape's own notices; call `reset()` when done.
 *
 * @param lowestLevel The least severe level kept.
 * @returns The array the records are appended to.
 */
export async function recordLogs(lowestLevel: LogLevel = "trace"): Promise<LogRecord[]> {
  const records: LogRecord[] = [];
  await configure({
    reset: true,
    sinks: { buffer: (record) => records.push(record) },
    loggers: [
      { category: ["stacksync"], lowestLevel, sinks: ["buffer"] },
      { category: ["logtape", "meta"], lowestLevel: "error", sinks: [] },
    ],
  });
  return records;
}

/**
 * Parses one logfmt line (`LOG_FORMAT=text`, without its newline) into its fields; quoted values
 * are JSON strings. A line that is not logfmt fails the test.
 *
 * @param line The line.
 * @returns Its fields by name.
 */
export function parseLogfmt(line: string): Record<string, string> {
  const fields: Record<string, string> = {};
  const pair = /([^\s=]+)=("(?:[^"\\]|\\.)*"|[^\s"]*)(?:\s+|$)/y;
  let consumed = 0;
  for (let match = pair.exec(line); match !== null; match = pair.exec(line)) {
    fields[match[1]] = match[2].startsWith('"') ? JSON.parse(match[2]) : match[2];
    consumed = pair.lastIndex;
  }
  assert.equal(consumed, line.length, `not logfmt: ${line}`);
  return fields;
}
