/**
 * Ids as the cached library of an incremental pass keeps them: 16 bytes each when the id is a
 * UUID in canonical form (lower-case hex, as Immich writes them) instead of a string of 64 bytes
 * of heap, any other id as a string. No I/O.
 *
 * @module
 */

/**
 * Ids by slot, in the order added, with room to grow. A scan finds the slots of many ids at once
 * ({@linkcode IdList.match}); {@linkcode IdList.find} finds one through a hash index built the
 * first time it is asked.
 */
export class IdList {
  /** Four words per slot; zeros for the slots of `#odd`. */
  #words: Int32Array;
  #count = 0;
  /** The ids that are no UUID, by slot. */
  readonly #odd = new Map<number, string>();
  /** Slot + 1 by the hash of its words, open addressing; 0 where there is none. */
  #table: Int32Array | undefined;
  /** The slots of the ids that are no UUID, for `find`. */
  #oddSlots: Map<string, number[]> | undefined;

  /** @param capacity Room for this many ids to start with. */
  constructor(capacity = 0) {
    this.#words = new Int32Array(capacity * 4);
  }

  /** How many ids were added: their slots are 0 to count - 1. */
  get count(): number {
    return this.#count;
  }

  /**
   * Adds an id at the next slot, even if it is there already.
   *
   * @param id The id.
   * @returns Its slot.
   */
  add(id: string): number {
    const slot = this.#next();
    if (!uuidWordsOf(id, this.#words, slot * 4)) this.#odd.set(slot, id);
    this.#index(slot);
    return slot;
  }

  /**
   * {@linkcode IdList.add} with the id as UTF-8 bytes, made a string only when it is no UUID.
   *
   * @param bytes The bytes holding the id at `[from, to)`.
   * @param from Where it starts.
   * @param to Where it ends.
   * @returns Its slot.
   */
  addFromBytes(bytes: Uint8Array, from: number, to: number): number {
    const slot = this.#next();
    if (!uuidWords(bytes, from, to, this.#words, slot * 4)) {
      this.#odd.set(slot, decoder.decode(bytes.subarray(from, to)));
    }
    this.#index(slot);
    return slot;
  }

  /**
   * The id in a slot.
   *
   * @param slot The slot.
   * @returns The id, as it was added.
   */
  id(slot: number): string {
    const odd = this.#odd.size === 0 ? undefined : this.#odd.get(slot);
    if (odd !== undefined) return odd;
    const words = this.#words;
    for (let i = 0; i < 16; i++) {
      const byte = (words[slot * 4 + (i >> 2)] >>> ((i & 3) * 8)) & 0xff;
      codes[HEX_AT[i]] = HEX_CODES[byte >> 4];
      codes[HEX_AT[i] + 1] = HEX_CODES[byte & 0xf];
    }
    return String.fromCharCode.apply(null, codes);
  }

  /**
   * The first slot, in the order added, that holds an id and that `accept` takes.
   *
   * @param id The id.
   * @param accept Which slots count (a table's live ones).
   * @returns The slot, or -1.
   */
  find(id: string, accept: (slot: number) => boolean = () => true): number {
    if (this.#table === undefined) this.#rebuild();
    if (!uuidWordsOf(id, probe, 0)) {
      return this.#oddSlots!.get(id)?.find(accept) ?? -1;
    }
    const table = this.#table!;
    const mask = table.length - 1;
    for (let at = wordsHash(probe, 0) & mask; table[at] !== 0; at = (at + 1) & mask) {
      const slot = table[at] - 1;
      if (this.#holds(slot, probe) && accept(slot)) return slot;
    }
    return -1;
  }

  /**
   * Calls `found` for each slot holding one of the ids, in slot order for each id (UUIDs first,
   * then other ids): one scan of the words.
   *
   * @param ids The ids.
   * @param found Called with each id found and its slot.
   */
  match(ids: ReadonlySet<string>, found: (id: string, slot: number) => void): void {
    if (ids.size === 0) return;
    // The UUIDs by the hash of their words; any other id is among #odd.
    const wanted = new Map<number, { readonly id: string; readonly words: Int32Array }[]>();
    const odd = new Set<string>();
    for (const id of ids) {
      const words = new Int32Array(4);
      if (!uuidWordsOf(id, words, 0)) {
        odd.add(id);
        continue;
      }
      const hash = wordsHash(words, 0);
      const same = wanted.get(hash);
      if (same === undefined) wanted.set(hash, [{ id, words }]);
      else same.push({ id, words });
    }
    if (wanted.size > 0) {
      for (let slot = 0; slot < this.#count; slot++) {
        const candidates = wanted.get(wordsHash(this.#words, slot * 4));
        if (candidates === undefined) continue;
        for (const { id, words } of candidates) if (this.#holds(slot, words)) found(id, slot);
      }
    }
    if (odd.size > 0) {
      // Slots enter #odd in ascending order and never leave it.
      for (const [slot, id] of this.#odd) if (odd.has(id)) found(id, slot);
    }
  }

  /** Whether a slot holds the UUID of `words`. */
  #holds(slot: number, words: Int32Array): boolean {
    const own = this.#words;
    return words[0] === own[slot * 4] && words[1] === own[slot * 4 + 1] &&
      words[2] === own[slot * 4 + 2] && words[3] === own[slot * 4 + 3] &&
      (this.#odd.size === 0 || !this.#odd.has(slot));
  }

  #next(): number {
    if (this.#count * 4 === this.#words.length) {
      const bigger = new Int32Array(Math.max(64, Math.ceil(this.#count * 1.5)) * 4);
      bigger.set(this.#words);
      this.#words = bigger;
    }
    return this.#count++;
  }

  /** Puts a new slot in the index, once there is one. */
  #index(slot: number): void {
    if (this.#table === undefined) return;
    if (this.#count * 2 > this.#table.length) return this.#rebuild();
    this.#place(slot);
  }

  /** The index of every slot, at most half full. */
  #rebuild(): void {
    let size = 64;
    while (size < this.#count * 2 + 2) size *= 2;
    this.#table = new Int32Array(size);
    this.#oddSlots = new Map();
    for (let slot = 0; slot < this.#count; slot++) this.#place(slot);
  }

  /** Puts a slot in the table, or among #oddSlots when its id is no UUID. */
  #place(slot: number): void {
    const odd = this.#odd.get(slot);
    if (odd === undefined) this.#insert(slot);
    else this.#oddSlots!.set(odd, [...this.#oddSlots!.get(odd) ?? [], slot]);
  }

  #insert(slot: number): void {
    const table = this.#table!;
    const mask = table.length - 1;
    let at = wordsHash(this.#words, slot * 4) & mask;
    while (table[at] !== 0) at = (at + 1) & mask;
    table[at] = slot + 1;
  }
}

const UUID_LENGTH = 36;
const DASH = 0x2d;
/** Where each of a UUID's 16 bytes is written in its text. */
const HEX_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
const HEX_CODES = [..."0123456789abcdef"].map((c) => c.charCodeAt(0));
/** Each ASCII code's value as a lower-case hex digit, or -1. */
const HEX_VALUE = new Int8Array(128).fill(-1);
HEX_CODES.forEach((code, value) => HEX_VALUE[code] = value);
const codes: number[] = new Array(UUID_LENGTH).fill(DASH);
const scratch = new Uint8Array(UUID_LENGTH);
const scratchWords = new Int32Array(4);
const probe = new Int32Array(4);
const decoder = new TextDecoder();

/**
 * Reads a UUID in canonical form (lower-case hex, dashes at 8, 13, 18, 23) into four words.
 *
 * @returns Whether `bytes[from, to)` is one; the words are written only then.
 */
function uuidWords(
  bytes: Uint8Array,
  from: number,
  to: number,
  into: Int32Array,
  at: number,
): boolean {
  if (to - from !== UUID_LENGTH) return false;
  if (
    bytes[from + 8] !== DASH || bytes[from + 13] !== DASH || bytes[from + 18] !== DASH ||
    bytes[from + 23] !== DASH
  ) return false;
  scratchWords.fill(0);
  for (let i = 0; i < 16; i++) {
    const high = bytes[from + HEX_AT[i]];
    const low = bytes[from + HEX_AT[i] + 1];
    if (high >= 128 || low >= 128 || HEX_VALUE[high] < 0 || HEX_VALUE[low] < 0) return false;
    scratchWords[i >> 2] |= (HEX_VALUE[high] << 4 | HEX_VALUE[low]) << ((i & 3) * 8);
  }
  into.set(scratchWords, at);
  return true;
}

/** {@linkcode uuidWords} of an id given as a string. */
function uuidWordsOf(id: string, into: Int32Array, at: number): boolean {
  if (id.length !== UUID_LENGTH) return false;
  for (let i = 0; i < UUID_LENGTH; i++) scratch[i] = id.charCodeAt(i);
  return uuidWords(scratch, 0, UUID_LENGTH, into, at);
}

function wordsHash(words: Int32Array, at: number): number {
  return words[at] ^ Math.imul(words[at + 1], 0x9e3779b1) ^ Math.imul(words[at + 2], 0x85ebca6b) ^
    Math.imul(words[at + 3], 0xc2b2ae35);
}

/**
 * Slots by id as a Map keeps its keys: in the order added, an id set again keeps its slot, one
 * deleted and set again takes a new slot at the end. For tables that keep their values in typed
 * arrays by slot.
 */
export class IdSlots {
  readonly #ids: IdList;
  /** 1 for a slot in use, 0 for one whose id was deleted. */
  #live: Uint8Array;
  #size = 0;

  /** @param capacity Room for this many ids to start with. */
  constructor(capacity = 0) {
    this.#ids = new IdList(capacity);
    this.#live = new Uint8Array(capacity);
  }

  /** How many ids are in use. */
  get size(): number {
    return this.#size;
  }

  /** How many slots were ever taken: 0 to count - 1, some no longer in use. */
  get count(): number {
    return this.#ids.count;
  }

  /** The slot of an id in use, or -1. */
  slotOf(id: string): number {
    return this.#ids.find(id, (slot) => this.#live[slot] === 1);
  }

  /** The slot of an id, a new one at the end when it has none in use. */
  claim(id: string): number {
    const found = this.slotOf(id);
    if (found >= 0) return found;
    const slot = this.#ids.add(id);
    if (slot === this.#live.length) this.#live = grown(this.#live, slot + 1);
    this.#live[slot] = 1;
    this.#size++;
    return slot;
  }

  /** Ends an id's use of its slot; the slot, or -1 when it had none. */
  release(id: string): number {
    const slot = this.slotOf(id);
    if (slot < 0) return -1;
    this.#live[slot] = 0;
    this.#size--;
    return slot;
  }

  /** Whether a slot is in use. */
  inUse(slot: number): boolean {
    return this.#live[slot] === 1;
  }

  /** The id of a slot. */
  id(slot: number): string {
    return this.#ids.id(slot);
  }
}

/** A copy of a column with room for `size` entries (more than it has) and half as many again. */
export function grown<T extends Uint8Array | Int32Array | Float64Array>(
  column: T,
  size: number,
): T {
  const bigger = new (column.constructor as new (size: number) => T)(
    Math.max(16, Math.ceil(size * 1.5)),
  );
  bigger.set(column);
  return bigger;
}
