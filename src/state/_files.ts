/**
 * File primitives of the state folder: gzip, line reading that tolerates a torn last line,
 * atomic replacement. Private to `src/state/`.
 *
 * @module
 */
import { writeAll } from "../log.ts";
import { openPrivate } from "../private_files.ts";
import type { Summer } from "./_checksum.ts";

const encoder = new TextEncoder();

/**
 * Replaces a file's content atomically: written beside it (owner-only), flushed to disk, then renamed over it,
 * so a reader sees the old or the new content, never a part. The temporary name is the process's
 * own: two processes making the same folder at once do not rename each other's file away.
 */
export async function replaceFile(path: string, text: string): Promise<void> {
  const temporary = `${path}.${crypto.randomUUID()}.tmp`;
  const file = await openPrivate(temporary);
  try {
    writeAll(file, text);
    await file.syncData();
  } finally {
    file.close();
  }
  await Deno.rename(temporary, path);
}

/**
 * Text written to a file about 64 KB at a time: one system call per chunk instead of one per
 * line (48 000 of them cost a first run about 3 s of CPU).
 */
export class ChunkedText {
  readonly #target: () => { writeSync(bytes: Uint8Array): number };
  readonly #sum: Summer | undefined;
  #text = "";

  /**
   * @param target The file, asked for at the first chunk (a delta opens its file then).
   * @param sum Adds up what is written (the cache's files).
   */
  constructor(target: () => { writeSync(bytes: Uint8Array): number }, sum?: Summer) {
    this.#target = target;
    this.#sum = sum;
  }

  /** Adds text; writes what gathered once it reaches 64 KB. */
  put(text: string): void {
    this.#text += text;
    if (this.#text.length >= 65536) this.flush();
  }

  /** Writes what gathered. */
  flush(): void {
    if (this.#text === "") return;
    const bytes = encoder.encode(this.#text);
    this.#sum?.add(bytes);
    writeAll(this.#target(), bytes);
    this.#text = "";
  }
}

/**
 * How hard gzip works on journals: level 2 compresses a journal of 50 000 stacks about twice as
 * fast as the default level 6, into a file a few percent larger.
 */
const GZIP_LEVEL = 2;

/**
 * Compresses `source` into `target` with gzip: through a temporary file that is flushed to disk
 * and renamed, so `target` exists only complete; `source` stays. The source is read into one
 * buffer that is used again once gzip has taken each piece: a read stream's new buffer per
 * piece left a journal's size of garbage (18 MB at 50 000 stacks) outside the heap, which V8
 * frees only at its next collection.
 */
export async function gzipFile(source: string, target: string): Promise<void> {
  const temporary = `${target}.tmp`;
  const input = await Deno.open(source, { read: true });
  try {
    const output = await openPrivate(temporary);
    try {
      // Loaded here only: a pass that compresses no journal never loads Node's streams.
      const { createGzip } = await import("node:zlib");
      const gzip = createGzip({ level: GZIP_LEVEL });
      // The first failure wins: a failed write to the disk destroys gzip, failing the next piece.
      let failure: unknown;
      const written = (async () => {
        try {
          for await (const chunk of gzip as AsyncIterable<Uint8Array>) writeAll(output, chunk);
        } catch (error) {
          failure ??= error;
          gzip.destroy();
        }
      })();
      try {
        const buffer = new Uint8Array(READ_SIZE);
        for (let read = await input.read(buffer); read !== null; read = await input.read(buffer)) {
          const piece = buffer.subarray(0, read);
          await new Promise<void>((resolve, reject) =>
            gzip.write(piece, (error) => error ? reject(error) : resolve())
          );
        }
        gzip.end();
      } catch (error) {
        failure ??= error;
        gzip.destroy();
      }
      await written;
      if (failure !== undefined) throw failure;
      await output.syncData();
    } finally {
      output.close();
    }
  } finally {
    input.close();
  }
  await Deno.rename(temporary, target);
}

/** The piece of a file {@linkcode gzipFile} reads at a time. */
const READ_SIZE = 1 << 16;

/**
 * The lines of a text file, gzip-compressed when its name ends in `.gz`, read as a stream. The
 * last line may be torn (a process killed while writing it): it is yielded with `torn: true`
 * when it does not end in a newline, and a gzip stream cut short ends the lines there.
 */
export async function* readLines(
  path: string,
): AsyncGenerator<{ readonly line: string; readonly torn: boolean }> {
  const file = await Deno.open(path, { read: true });
  const bytes: ReadableStream<Uint8Array> = path.endsWith(".gz")
    ? file.readable.pipeThrough<Uint8Array>(new DecompressionStream("gzip"))
    : file.readable;
  let pending = "";
  const reader = bytes.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<string>;
      try {
        chunk = await reader.read();
      } catch (error) {
        // A compressed journal cut short: what was decompressed so far still counts.
        if (error instanceof TypeError) break;
        throw error;
      }
      if (chunk.done) break;
      pending += chunk.value;
      let newline: number;
      while ((newline = pending.indexOf("\n")) >= 0) {
        yield { line: pending.slice(0, newline), torn: false };
        pending = pending.slice(newline + 1);
      }
    }
  } finally {
    // Closes the file when the caller stopped early or the stream failed.
    await reader.cancel().catch(() => {});
  }
  if (pending !== "") yield { line: pending, torn: true };
}

/** True when the path exists. */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
