/**
 * The cached library as an incremental pass reads and rewrites it: the compact library of a
 * body and the writes of its delta, the rows and group keys the pass regroups, the body of
 * the next generation written from the last one, and the stacks as a journal records them.
 *
 * @module
 */
import type { Asset } from "../model.ts";
import type { BucketHashes } from "../grouping/group.ts";
import {
  addRow,
  addRowFromBytes,
  bucketsOf,
  type CacheWrite,
  emptyLibrary,
  expandStack,
  idOf,
  type Library,
  type Ref,
  REMOVED,
  type RowData,
  setBuckets,
} from "../incremental/library.ts";
import { type RecordedStack, recordStack } from "./journal.ts";
import type { CacheFiles, CacheHeader } from "./cache.ts";
import type { FileSum } from "./_checksum.ts";
import {
  type BodyFile,
  bodyOf,
  BodyWriter,
  type Extra,
  scanBody,
  scanBodySync,
} from "./cache_body.ts";
import { readDelta } from "./cache_delta.ts";
import { decoder, fieldEnd, fieldsOf, numberAt, TAB, textAt, unescapeText } from "./_cache_text.ts";

function refsOf(text: string): Ref[] {
  return text === "" ? [] : text.split(",").map((item) => /^\d+$/.test(item) ? Number(item) : item);
}

function rowsOf(text: string): number[] {
  return text === "" ? [] : text.split(",").map(Number);
}

/** A field of base-36 bucket hashes separated by commas, read from its bytes. */
function hashesAt(bytes: Uint8Array, bounds: number[], field: number): BucketHashes {
  const end = fieldEnd(bytes, bounds, field);
  if (end === bounds[field]) return [];
  // One hash, the common case, is a number without a list.
  let hashes: number[] | undefined;
  let value = 0;
  for (let at = bounds[field]; at < end; at++) {
    const c = bytes[at];
    if (c === 0x2c /* , */) {
      (hashes ??= []).push(value);
      value = 0;
    } else value = value * 36 + (c <= 0x39 ? c - 0x30 : c - 0x57);
  }
  if (hashes === undefined) return value;
  hashes.push(value);
  return hashes;
}

/** What a cache holds: its compact library, and the writes of the pass that left it. */
export interface CacheRead {
  readonly library: Library;
  readonly writes: readonly CacheWrite[];
}

/**
 * Reads a cache's library without the names and times of its assets (see
 * {@linkcode readRows}), and the writes of its delta.
 *
 * @param files The cache.
 * @param header Its header.
 * @returns The library and the writes to apply to it.
 * @throws {SyntaxError} When a file is damaged; the caller then runs a full pass.
 */
export async function readCache(files: CacheFiles, header: CacheHeader): Promise<CacheRead> {
  // Room for the rows the header counts and some removed or new ones: the columns are not
  // grown, copied and left as garbage while the cache is read.
  const { assets, stacks, groups } = header.sizes;
  const library = emptyLibrary({
    rows: assets + (assets >> 4) + 1024,
    stacks: stacks + 1024,
    groups: groups + 1024,
    others: 1024,
  });
  await scanBody(files, bodyOf(header), (section, index, bytes) => {
    switch (section) {
      case "#assets": {
        if (bytes.length === 1 && bytes[0] === 0x2d /* - */) {
          addRow(library, "", -1, REMOVED);
          return;
        }
        const bounds = fieldsOf(bytes, 7);
        const row = addRowFromBytes(
          library,
          bytes,
          0,
          fieldEnd(bytes, bounds, 0),
          numberAt(bytes, bounds, 3),
          numberAt(bytes, bounds, 4),
        );
        setBuckets(library, row, hashesAt(bytes, bounds, 5));
        if (bounds.length === 7 && bounds[6] < bytes.length) {
          const extra: Extra = JSON.parse(unescapeText(textAt(bytes, bounds, 6)));
          if (extra.skip !== undefined) library.skips.set(index, extra.skip);
        }
        return;
      }
      case "#others": {
        const bounds = fieldsOf(bytes, 3);
        library.others.set(textAt(bytes, bounds, 0), {
          updatedAt: numberAt(bytes, bounds, 1),
          scopes: numberAt(bytes, bounds, 2),
        });
        return;
      }
      case "#stacks": {
        const bounds = fieldsOf(bytes, 4);
        const id = textAt(bytes, bounds, 0);
        const [primary] = refsOf(textAt(bytes, bounds, 1));
        library.stacks.set(id, {
          id,
          primary,
          members: refsOf(textAt(bytes, bounds, 2)),
          archived: refsOf(textAt(bytes, bounds, 3)),
        });
        return;
      }
      case "#groups": {
        const bounds = fieldsOf(bytes, 2);
        library.groups.add(rowsOf(textAt(bytes, bounds, 1)));
        return;
      }
      case "#seen": {
        const bounds = fieldsOf(bytes, 2);
        library.seen.set(textAt(bytes, bounds, 0), numberAt(bytes, bounds, 1));
        return;
      }
    }
  });
  return { library, writes: await readDelta(files, header) };
}

/** The content of a row: what the compact library leaves out. */
export interface RowContent {
  readonly asset?: Asset;
  readonly invalid?: { readonly field: string; readonly message: string };
}

/**
 * Reads in full the rows and the group keys an incremental pass regroups or plans.
 *
 * @param files The cache.
 * @param header Its header.
 * @param rows The rows wanted.
 * @param groups The groups wanted, by their place in the cache.
 * @returns Their contents, and the groups' keys.
 */
export async function readRows(
  files: CacheFiles,
  header: CacheHeader,
  rows: ReadonlySet<number>,
  groups: ReadonlySet<number>,
): Promise<{ rows: Map<number, RowContent>; keys: Map<number, string> }> {
  const contents = new Map<number, RowContent>();
  const keys = new Map<number, string>();
  await scanBody(files, bodyOf(header), (section, index, bytes) => {
    if (section === "#assets" && rows.has(index) && bytes.length > 1) {
      contents.set(index, contentOf(bytes));
    } else if (section === "#groups" && groups.has(index)) {
      keys.set(index, unescapeText(textAt(bytes, fieldsOf(bytes, 2), 0)));
    }
  });
  return { rows: contents, keys };
}

function contentOf(bytes: Uint8Array): RowContent {
  const bounds = fieldsOf(bytes, 7);
  const json = bounds.length === 7 && bounds[6] < bytes.length ? textAt(bytes, bounds, 6) : "";
  const extra: Extra = json === "" ? {} : JSON.parse(unescapeText(json));
  if (extra.invalid !== undefined) return { invalid: extra.invalid };
  return {
    asset: {
      id: textAt(bytes, bounds, 0),
      originalFileName: unescapeText(textAt(bytes, bounds, 1)),
      localDateTime: unescapeText(textAt(bytes, bounds, 2)),
      ...extra.fields,
      ...(extra.size === undefined ? {} : { fileSizeInByte: extra.size }),
    } as Asset,
  };
}

/** How {@linkcode rewriteBody} changes a body. */
export interface BodyEdits {
  /** Rows written in full (changed, new, regrouped, moved by a write); others are copied. */
  readonly rows: ReadonlyMap<number, RowContent>;
  /** Groups of the old body that are gone, by their place. */
  readonly droppedGroups: ReadonlySet<number>;
  /** New groups, appended. */
  readonly newGroups: readonly { readonly key: string; readonly rows: readonly number[] }[];
}

/**
 * Writes the body of a new generation from the old one and the library: unchanged rows and
 * groups are copied as bytes, the rest written from the library; the stacks, others and seen
 * assets come from the library.
 *
 * @param files The cache.
 * @param header The header of the old body.
 * @param generation The new generation.
 * @param library The library now.
 * @param edits What changed beyond the library's columns.
 * @returns What the new body adds up to.
 */
export async function rewriteBody(
  files: CacheFiles,
  header: CacheHeader,
  generation: string,
  library: Library,
  edits: BodyEdits,
): Promise<FileSum> {
  const body = await BodyWriter.create(files, generation);
  try {
    const full = (row: number) => {
      const content = edits.rows.get(row);
      if (content === undefined) throw new RangeError(`Cannot write row ${row} of the cache`);
      body.row(rowData(library, row, content));
    };
    let rows = 0;
    const removedId = (row: number) =>
      library.flags[row] === REMOVED ? idOf(library, row) : undefined;
    // The rows, then others and stacks from the library, then the groups kept and new ones.
    let middle = false;
    const writeMiddle = () => {
      if (middle) return;
      middle = true;
      for (let row = rows; row < library.rows; row++) {
        if (library.flags[row] === REMOVED) body.row(REMOVED_ROW);
        else full(row);
      }
      for (const [id, other] of library.others) body.other(id, other);
      for (const stack of library.stacks.values()) body.stack(stack, removedId);
    };
    await scanBody(files, bodyOf(header), (section, index, bytes) => {
      if (section === "#assets") {
        rows++;
        if (library.flags[index] === REMOVED) body.row(REMOVED_ROW);
        else if (edits.rows.has(index)) full(index);
        else body.copy("#assets", bytes);
      } else if (section === "#groups" && !edits.droppedGroups.has(index)) {
        writeMiddle();
        body.copy("#groups", bytes);
      }
    });
    writeMiddle();
    for (const group of edits.newGroups) body.group(group.key, group.rows);
    for (const [id, updatedAt] of library.seen) body.seen(id, updatedAt);
    return await body.finish();
  } catch (error) {
    await body.abandon();
    throw error;
  }
}

const REMOVED_ROW: RowData = { id: "", updatedAt: -1, flags: REMOVED, buckets: [] };

/**
 * A row in full: its content with the library's columns.
 *
 * @param library The library.
 * @param row The row.
 * @param content Its asset (or why it is invalid).
 * @returns The row.
 */
function rowData(library: Library, row: number, content: RowContent): RowData {
  const skip = library.skips.get(row);
  return {
    id: idOf(library, row),
    ...content,
    updatedAt: library.updatedAt[row],
    flags: library.flags[row],
    buckets: bucketsOf(library, row),
    ...(skip === undefined ? {} : { skip }),
  };
}

/**
 * The stacks of a generation's body with their members' file names, as a journal records them:
 * read synchronously when the journal opens, the body's rows once for the names. The names of
 * 100 000 members wait in one buffer of their bytes, not as strings: each becomes a string only
 * for its stack's record.
 *
 * @param files The cache.
 * @param body The body.
 * @param library The library the body was written from (its stacks are the body's).
 * @param marks Members to mark as Immich does not list them (trashed, hidden).
 * @returns The records.
 */
export function* stackRecords(
  files: CacheFiles,
  body: BodyFile,
  library: Library,
  marks: { readonly trashed: ReadonlySet<string>; readonly unlisted: ReadonlySet<string> },
): Generator<RecordedStack> {
  const rows = library.rows;
  const wanted = new Uint8Array(rows);
  library.stacks.forEachRef((ref) => {
    if (typeof ref === "number") wanted[ref] = 1;
  });
  // Row r's name is names[starts[r], ends[r]), escaped as the body has it; empty when unknown.
  const starts = new Int32Array(rows);
  const ends = new Int32Array(rows);
  let names = new Uint8Array(1 << 20);
  let used = 0;
  scanBodySync(files, body, (section, index, bytes) => {
    if (section !== "#assets" || wanted[index] !== 1 || bytes.length <= 1) return;
    const from = bytes.indexOf(TAB) + 1;
    if (from === 0) return;
    const tab = bytes.indexOf(TAB, from);
    const to = tab < 0 ? bytes.length : tab;
    if (used + to - from > names.length) {
      const bigger = new Uint8Array(Math.max(names.length * 2, used + to - from));
      bigger.set(names.subarray(0, used));
      names = bigger;
    }
    names.set(bytes.subarray(from, to), used);
    starts[index] = used;
    used += to - from;
    ends[index] = used;
  });
  for (const compact of library.stacks.values()) {
    const stack = expandStack(library, compact);
    const fileNames = new Map<string, string>();
    for (const ref of [compact.primary, ...compact.members]) {
      if (typeof ref === "number" && ends[ref] > starts[ref]) {
        fileNames.set(
          idOf(library, ref),
          unescapeText(decoder.decode(names.subarray(starts[ref], ends[ref]))),
        );
      }
    }
    yield recordStack(stack, { fileNames, ...marks });
  }
}
