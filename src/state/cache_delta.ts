/**
 * The delta of the cache (`<key>.<generation>.delta`): a pass's writes as the server answered
 * them, one JSON line each, so that the next pass starts from the stacks as they are. Only the
 * lines the header counts belong to the cache.
 *
 * @module
 */
import { z } from "zod";
import type { Stack } from "../model.ts";
import type { CacheWrite } from "../incremental/library.ts";
import { WRITE_PRIVATE } from "../private_files.ts";
import { checkSum, type FileSum, Summer } from "./_checksum.ts";
import { ChunkedText, readLines } from "./_files.ts";
import { cacheFilePath, type CacheFiles, type CacheHeader } from "./cache.ts";

/** A stack as a write's answer gave it. */
const stackSchema = z.object({
  id: z.string(),
  primaryAssetId: z.string(),
  assetIds: z.array(z.string()),
  archivedAssetIds: z.array(z.string()).optional(),
});

const writeSchema = z.discriminatedUnion("op", [
  z.object({
    op: z.literal("create"),
    stack: stackSchema,
    updatedAt: z.array(z.number()),
  }),
  z.object({
    op: z.literal("update"),
    stack: stackSchema,
  }),
  z.object({ op: z.literal("delete"), stackId: z.string() }),
]);

function parseWrite(line: string): CacheWrite {
  return writeSchema.parse(JSON.parse(line));
}

/**
 * Reads the writes of a generation's delta that its header counts.
 *
 * @param files The cache.
 * @param header The header naming the generation and how many lines count.
 * @returns The writes, in the order they were answered.
 * @throws {SyntaxError} When the delta holds fewer lines than counted, or is damaged.
 */
export async function readDelta(files: CacheFiles, header: CacheHeader): Promise<CacheWrite[]> {
  const writes: CacheWrite[] = [];
  if (header.deltaLines === 0) return writes;
  const path = cacheFilePath(files, header.generation, "delta");
  const sum = new Summer();
  const lines: string[] = [];
  for await (const { line } of readLines(path)) {
    if (lines.length >= header.deltaLines) break;
    lines.push(line);
    sum.add(`${line}\n`);
  }
  if (lines.length < header.deltaLines) {
    throw new SyntaxError(
      `Cannot read the cache ${path}: it is damaged (${lines.length} of ${header.deltaLines} ` +
        "lines)",
    );
  }
  // Checked before any line is parsed: a damaged line may still be JSON.
  checkSum(path, sum.sum, header.sums.delta);
  for (const line of lines) writes.push(parseWrite(line));
  return writes;
}

/**
 * Appends the pass's writes to the delta of a generation, one JSON line each as the answer
 * comes. Lines are written 64 KB at a time (a `write()` per answer cost about 1.5 s of a first
 * run of 48 000 writes): the delta counts only once the pass ends well and its header says how
 * many lines it has, so lines a killed pass never wrote are lines no header counts.
 */
export class DeltaWriter {
  readonly #path: string;
  #file: Deno.FsFile | undefined;
  readonly #sum = new Summer();
  readonly #text = new ChunkedText(
    () => this.#file ??= Deno.openSync(this.#path, WRITE_PRIVATE),
    this.#sum,
  );
  #lines = 0;

  /**
   * @param files The cache.
   * @param generation The generation the writes belong to.
   */
  constructor(files: CacheFiles, generation: string) {
    this.#path = cacheFilePath(files, generation, "delta");
  }

  /** How many writes were recorded. */
  get lines(): number {
    return this.#lines;
  }

  /** What the lines written add up to: complete once closed. */
  get sum(): FileSum {
    return this.#sum.sum;
  }

  /**
   * Records one write.
   *
   * @param write The write and its answer.
   */
  record(write: CacheWrite): void {
    const line = write.op === "create"
      ? { op: "create", stack: stackRecord(write.stack), updatedAt: write.updatedAt }
      : write.op === "update"
      ? { op: "update", stack: stackRecord(write.stack) }
      : write;
    this.#text.put(`${JSON.stringify(line)}\n`);
    this.#lines++;
  }

  /** Writes what is left and closes the delta. */
  close(): void {
    this.#text.flush();
    this.#file?.close();
    this.#file = undefined;
  }
}

function stackRecord(stack: Stack) {
  return {
    id: stack.id,
    primaryAssetId: stack.primaryAssetId,
    assetIds: stack.assetIds,
    ...(stack.archivedAssetIds === undefined ? {} : { archivedAssetIds: stack.archivedAssetIds }),
  };
}
