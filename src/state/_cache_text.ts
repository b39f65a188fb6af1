/**
 * The text format of the cache's body and plan: a first line naming the file, then sections of
 * lines (a section starts with its `#name` line), the last section `#end`. Files are read in
 * chunks of 1 MB and handed over a line at a time as bytes; fields are separated by tabs, and
 * text fields escape tabs and newlines with backslashes. Private to `src/state/`.
 *
 * @module
 */
import { checkSum, type FileSum, Summer } from "./_checksum.ts";

/** A text file of the cache: its first line, then sections of lines, the last one `#end`. */
export interface Sectioned<S extends string> {
  readonly magic: string;
  readonly sections: readonly S[];
  /** What the file is, for errors. */
  readonly kind: string;
}

/** Text fields may hold a tab or a newline: escaped with backslashes. */
export function escapeText(text: string): string {
  return /[\\\t\n\r]/.test(text)
    ? text.replace(
      /[\\\t\n\r]/g,
      (c) => c === "\\" ? "\\\\" : c === "\t" ? "\\t" : c === "\n" ? "\\n" : "\\r",
    )
    : text;
}

/** The text of an escaped field. */
export function unescapeText(text: string): string {
  return text.includes("\\")
    ? text.replace(
      /\\(.)/g,
      (_, c: string) => c === "t" ? "\t" : c === "n" ? "\n" : c === "r" ? "\r" : c,
    )
    : text;
}

export const NEWLINE = 0x0a;
export const TAB = 0x09;
export const decoder = new TextDecoder();

/**
 * Calls `line` for each line of a file of sections after its first, with its section and its
 * number in the section, reading the file in chunks of 1 MB; the line's bytes are only valid
 * during the call. Strings made from them are copies (a slice of one big text would keep all
 * of it). The file is checked against its sum at the end: what `line` made of a damaged file
 * is to be dropped when this throws.
 *
 * @param path The file.
 * @param format What the file must be.
 * @param written What the file added up to when written; unchecked without it.
 * @param line Called for each line.
 * @throws {SyntaxError} When the file is not of the format, ends before `#end`, or does not add
 *   up to `written`.
 */
export async function scanSections<S extends string>(
  path: string,
  format: Sectioned<S>,
  written: FileSum | undefined,
  line: (section: S, index: number, bytes: Uint8Array) => void,
): Promise<void> {
  const file = await Deno.open(path, { read: true });
  try {
    const lines = sectionLines(path, format, line);
    for (let read: number | null = 0; read !== null; read = await file.read(lines.space())) {
      lines.filled(read);
    }
    lines.end(written);
  } finally {
    file.close();
  }
}

/**
 * {@linkcode scanSections} reading synchronously, for the journal, which writes synchronously.
 *
 * @param path The file.
 * @param format What the file must be.
 * @param written What the file added up to when written; unchecked without it.
 * @param line Called for each line.
 * @throws {SyntaxError} When the file is not of the format, ends before `#end`, or does not add
 *   up to `written`.
 */
export function scanSectionsSync<S extends string>(
  path: string,
  format: Sectioned<S>,
  written: FileSum | undefined,
  line: (section: S, index: number, bytes: Uint8Array) => void,
): void {
  const file = Deno.openSync(path, { read: true });
  try {
    const lines = sectionLines(path, format, line);
    for (let read: number | null = 0; read !== null; read = file.readSync(lines.space())) {
      lines.filled(read);
    }
    lines.end(written);
  } finally {
    file.close();
  }
}

/**
 * Splits chunks into lines and tracks sections; shared by both scans, which read into
 * `space()` and pass the count to `filled()`.
 */
function sectionLines<S extends string>(
  path: string,
  format: Sectioned<S>,
  line: (section: S, index: number, bytes: Uint8Array) => void,
) {
  const broken = (what: string) => new SyntaxError(`Cannot read the cache ${path}: ${what}`);
  let buffer = new Uint8Array(1 << 20);
  let kept = 0;
  let first = true;
  let section: S | undefined;
  let index = 0;
  let ended = false;
  const sum = new Summer();
  let failure: unknown;
  /** Handles the complete lines of `buffer[0, length)`, moves the rest to the front. */
  const feed = (length: number): number => {
    let start = 0;
    for (;;) {
      // Past `length` the buffer holds stale bytes; searching in place spares a view per line.
      const at = buffer.indexOf(NEWLINE, start);
      if (at < 0 || at >= length) break;
      const bytes = buffer.subarray(start, at);
      start = at + 1;
      if (ended) continue;
      if (first) {
        if (decoder.decode(bytes) !== format.magic) {
          throw broken(`it is not a cache ${format.kind}`);
        }
        first = false;
      } else if (bytes[0] === 0x23 /* # */ && bytes.indexOf(TAB) < 0) {
        const name = decoder.decode(bytes) as S;
        if (!format.sections.includes(name)) throw broken(`unknown section ${name}`);
        section = name;
        index = 0;
        ended = name === "#end";
      } else {
        if (section === undefined) throw broken("a line comes before any section");
        line(section, index++, bytes);
      }
    }
    buffer.copyWithin(0, start, length);
    return length - start;
  };
  return {
    /** Where the next read goes: after the part line kept, the buffer grown when it is full. */
    space(): Uint8Array {
      if (kept === buffer.length) {
        const bigger = new Uint8Array(buffer.length * 2);
        bigger.set(buffer);
        buffer = bigger;
      }
      return buffer.subarray(kept);
    },
    /**
     * Takes in `count` bytes read into {@linkcode space}. After a line that cannot be read, the
     * rest is only added up: a damaged file is said to be damaged, whatever its lines became.
     */
    filled(count: number): void {
      sum.add(buffer.subarray(kept, kept + count));
      if (failure !== undefined) return;
      try {
        kept = feed(kept + count);
      } catch (error) {
        failure = error;
        kept = 0;
      }
    },
    /** Checks the file's end, and what it adds up to. */
    end(written: FileSum | undefined): void {
      if (failure !== undefined) {
        checkSum(path, sum.sum, written);
        throw failure;
      }
      if (!ended) throw broken("it ends early");
      checkSum(path, sum.sum, written);
    },
  };
}

/** The tab-separated fields of a line, as byte ranges. */
export function fieldsOf(bytes: Uint8Array, count: number): number[] {
  const bounds = [0];
  for (let from = 0; bounds.length < count;) {
    const tab = bytes.indexOf(TAB, from);
    if (tab < 0) break;
    bounds.push(tab + 1);
    from = tab + 1;
  }
  return bounds;
}

/** Where a field of {@linkcode fieldsOf}'s bounds ends: before its tab, or at the line's end. */
export function fieldEnd(bytes: Uint8Array, bounds: number[], field: number): number {
  return field + 1 < bounds.length ? bounds[field + 1] - 1 : bytes.length;
}

export function textAt(bytes: Uint8Array, bounds: number[], field: number): string {
  const end = fieldEnd(bytes, bounds, field);
  return decoder.decode(bytes.subarray(bounds[field], end));
}

/** A field's whole number, read from its bytes: the hot path of loading a cache. */
export function numberAt(bytes: Uint8Array, bounds: number[], field: number): number {
  const end = fieldEnd(bytes, bounds, field);
  let at = bounds[field];
  const negative = bytes[at] === 0x2d; /* - */
  if (negative) at++;
  if (at === end) return NaN;
  let value = 0;
  for (; at < end; at++) {
    const digit = bytes[at] - 0x30;
    if (digit < 0 || digit > 9) return Number(textAt(bytes, bounds, field));
    value = value * 10 + digit;
  }
  return negative ? -value : value;
}
