/**
 * Log capture for tests: LogTape records of the `stacksync` loggers go into an array.
 *
 * @module
 */
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
