/**
 * "Did you mean …?" for names typed by hand: settings in env files, flags and commands on the
 * command line.
 *
 * @module
 */

/** Upper case, with `-`, `.` and spaces read as `_`: how a name is compared. */
function normalize(name: string): string {
  return name.toUpperCase().replace(/[-. ]/g, "_");
}

/**
 * Edit distance counting an insertion, deletion, substitution or swap of neighbours as 1, in three
 * rows of numbers: every start compares each environment variable with every setting.
 */
function editDistance(a: string, b: string): number {
  let before = new Int32Array(b.length + 1);
  let previous = new Int32Array(b.length + 1);
  let row = new Int32Array(b.length + 1);
  for (let j = 0; j <= b.length; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        distance = Math.min(distance, before[j - 2] + 1);
      }
      row[j] = distance;
    }
    [before, previous, row] = [previous, row, before];
  }
  return previous[b.length];
}

/** A known name as compared: normalized, and without its separators. */
interface Compared {
  readonly name: string;
  readonly target: string;
  readonly bare: string;
}

const COMPARED = new WeakMap<readonly string[], readonly Compared[]>();

/** The known names as compared, made once per list (the settings' names, at every start). */
function compared(known: readonly string[]): readonly Compared[] {
  let list = COMPARED.get(known);
  if (list === undefined) {
    list = known.map((name) => {
      const target = normalize(name);
      return { name, target, bare: target.replaceAll("_", "") };
    });
    COMPARED.set(known, list);
  }
  return list;
}

/**
 * The known name a typed name most likely means: the same name in another case or with other
 * separators (`dry_run`, `DRYRUN`, `dry-run`), or one a small typo away (`DRY_RUNS`,
 * `CRON_INTERVALL`): an edit or two, one more per six letters of the known name.
 *
 * @param typed The name as typed.
 * @param known The names that exist.
 * @returns The closest known name, or undefined when none is close or `typed` is one of them.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { closestName } from "./closest_name.ts";
 *
 * const known = ["DRY_RUN", "RUN_MODE", "LOG_LEVEL"];
 * assert.equal(closestName("DRYRUN", known), "DRY_RUN");
 * assert.equal(closestName("dry_run", known), "DRY_RUN");
 * assert.equal(closestName("DRY_RUNS", known), "DRY_RUN");
 * assert.equal(closestName("TZ", known), undefined);
 * assert.equal(closestName("DRY_RUN", known), undefined);
 * ```
 */
export function closestName(typed: string, known: readonly string[]): string | undefined {
  if (known.includes(typed)) return undefined;
  const word = normalize(typed);
  const bare = word.replaceAll("_", "");
  let best: { name: string; distance: number } | undefined;
  for (const { name, target, bare: targetBare } of compared(known)) {
    if (target === word || targetBare === bare) return name;
    const allowed = Math.max(1, Math.floor(target.length / 6));
    // The distance is at least the difference in length: most names need no table at all.
    if (Math.abs(word.length - target.length) > allowed) continue;
    const distance = editDistance(word, target);
    if (distance > allowed) continue;
    if (best === undefined || distance < best.distance) best = { name, distance };
  }
  return best?.name;
}

/**
 * The known name a typed name is a slip of: the same name in another case or with other
 * separators (`DRYRUN`, `dry_run`, `Dry-Run`), or with one letter added, left out or swapped with
 * its neighbour (`DRY_RUNS`, `DRY_RNU`). Unlike {@linkcode closestName} it never takes one letter
 * for another, so names common elsewhere (`APP_KEY` beside `API_KEY`) are no slip.
 *
 * @param typed The name as typed.
 * @param known The names that exist.
 * @returns The known name, or undefined when `typed` is none of them typed with a slip, or is one
 *   of them.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { slipOf } from "./closest_name.ts";
 *
 * const known = ["DRY_RUN", "API_KEY"];
 * assert.equal(slipOf("DRYRUN", known), "DRY_RUN");
 * assert.equal(slipOf("DRY_RUNS", known), "DRY_RUN");
 * assert.equal(slipOf("APP_KEY", known), undefined);
 * assert.equal(slipOf("DRY_RUN", known), undefined);
 * ```
 */
export function slipOf(typed: string, known: readonly string[]): string | undefined {
  if (known.includes(typed)) return undefined;
  const word = normalize(typed).replaceAll("_", "");
  return compared(known).find((known) => isSlip(word, known.bare))?.name;
}

/** Equal, or one letter added, left out or swapped with its neighbour. */
function isSlip(a: string, b: string): boolean {
  if (a === b) return true;
  if (Math.abs(a.length - b.length) === 1) {
    const [short, long] = a.length < b.length ? [a, b] : [b, a];
    let i = 0;
    while (i < short.length && short[i] === long[i]) i++;
    return short.slice(i) === long.slice(i + 1);
  }
  if (a.length !== b.length) return false;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i + 1 < a.length && a[i] === b[i + 1] && a[i + 1] === b[i] &&
    a.slice(i + 2) === b.slice(i + 2);
}
