import assert from "node:assert/strict";
import { crc32 as zlibCrc32 } from "node:zlib";
import { crc32 } from "../src/state/_crc32.ts";
import { seededRandom } from "./_random.ts";

const encoder = new TextEncoder();

Deno.test("crc32: the published check values of CRC-32/ISO-HDLC", () => {
  // "123456789" → 0xCBF43926: the check value in Greg Cook's catalogue of parametrised CRC
  // algorithms (reveng.sourceforge.io/crc-catalogue/17plus.htm, CRC-32/ISO-HDLC).
  assert.equal(crc32("123456789"), 0xCBF43926);
  // The pangram's CRC-32 as Wikipedia's "Cyclic redundancy check" article and zlib give it.
  assert.equal(crc32("The quick brown fox jumps over the lazy dog"), 0x414FA339);
  assert.equal(crc32(""), 0);
  assert.equal(crc32(new Uint8Array(0), 0x1234_5678), 0x1234_5678);
  // 32 zero bytes and 32 bytes of 0xFF, as zlib's crc32 answers them.
  assert.equal(crc32(new Uint8Array(32)), 0x190A55AD);
  assert.equal(crc32(new Uint8Array(32).fill(0xFF)), 0xFF6CAB0B);
});

Deno.test("crc32: a text counts as its UTF-8 bytes", () => {
  const text = "Zoë's café ✓ 写真";
  assert.equal(crc32(text), crc32(encoder.encode(text)));
});

Deno.test("crc32: zlib's answer for every length, offset and split of random bytes", () => {
  const random = seededRandom(24);
  const buffer = new Uint8Array(4_200);
  for (let i = 0; i < buffer.length; i++) buffer[i] = Math.floor(random() * 256);
  // Every offset in a word and lengths across the eight-byte steps: views that start unaligned.
  for (let offset = 0; offset < 5; offset++) {
    for (const length of [1, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1_000, 4_097]) {
      const bytes = buffer.subarray(offset, offset + length);
      const whole = zlibCrc32(bytes);
      assert.equal(crc32(bytes), whole, `offset ${offset}, length ${length}`);
      for (const cut of [1, 5, Math.floor(length / 2), length - 1]) {
        if (cut <= 0 || cut >= length) continue;
        const continued = crc32(bytes.subarray(cut), crc32(bytes.subarray(0, cut)));
        assert.equal(continued, whole, `offset ${offset}, length ${length}, cut at ${cut}`);
      }
    }
  }
});
