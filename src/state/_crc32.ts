/**
 * CRC-32 (ISO-HDLC: the one of zlib, gzip and PNG), computed here rather than with `node:zlib`'s:
 * that module brings Node's streams and process with it, which cost a pass with nothing to change
 * a quarter of its start-up and several megabytes (BENCHMARKS.md). Eight tables, eight bytes a
 * step ("slicing by 8"), so that summing a cache of 30 MB stays a matter of milliseconds. Private
 * to `src/state/`.
 *
 * @module
 */

/** The reversed polynomial 0x04C11DB7. */
const POLYNOMIAL = 0xEDB88320;

/**
 * Eight tables of 256 entries end to end: entry `256 * k + b` is the CRC of byte `b` followed by
 * `k` zero bytes.
 */
const TABLE: Uint32Array = (() => {
  const table = new Uint32Array(8 * 256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ POLYNOMIAL : crc >>> 1;
    table[byte] = crc;
  }
  for (let i = 256; i < table.length; i++) {
    const previous = table[i - 256];
    table[i] = (previous >>> 8) ^ table[previous & 0xFF];
  }
  return table;
})();

/** Words can be read as they lie in memory (every platform Deno builds for). */
const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

const encoder = new TextEncoder();

/**
 * The CRC-32 of `data`, continuing `previous` (the CRC of the bytes before it), as zlib's
 * `crc32(data, previous)` answers.
 *
 * @param data Bytes, or a text as its UTF-8 bytes.
 * @param previous The CRC of what came before, 0 for none.
 * @returns The CRC-32, an unsigned 32-bit integer.
 *
 * @example The check value of CRC-32/ISO-HDLC
 * ```ts
 * import assert from "node:assert/strict";
 * import { crc32 } from "./_crc32.ts";
 *
 * assert.equal(crc32("123456789"), 0xCBF43926);
 * assert.equal(crc32("6789", crc32("12345")), 0xCBF43926);
 * ```
 */
export function crc32(data: Uint8Array | string, previous = 0): number {
  const bytes = typeof data === "string" ? encoder.encode(data) : data;
  const t = TABLE;
  let crc = ~previous;
  let i = 0;
  // Byte by byte up to a word boundary, then eight bytes a step as two aligned words.
  const start = LITTLE_ENDIAN ? (4 - (bytes.byteOffset & 3)) & 3 : bytes.length;
  if (bytes.length - start >= 8) {
    for (; i < start; i++) crc = (crc >>> 8) ^ t[(crc ^ bytes[i]) & 0xFF];
    const words = new Int32Array(bytes.buffer, bytes.byteOffset + i, (bytes.length - i) >>> 3 << 1);
    for (let w = 0; w < words.length; w += 2) {
      const low = crc ^ words[w];
      const high = words[w + 1];
      crc = t[1792 + (low & 0xFF)] ^ t[1536 + ((low >>> 8) & 0xFF)] ^
        t[1280 + ((low >>> 16) & 0xFF)] ^ t[1024 + (low >>> 24)] ^ t[768 + (high & 0xFF)] ^
        t[512 + ((high >>> 8) & 0xFF)] ^ t[256 + ((high >>> 16) & 0xFF)] ^ t[high >>> 24];
    }
    i += words.length * 4;
  }
  for (; i < bytes.length; i++) crc = (crc >>> 8) ^ t[(crc ^ bytes[i]) & 0xFF];
  return ~crc >>> 0;
}
