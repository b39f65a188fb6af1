/**
 * How many of its cases a test of many runs: a property test its seeded cases, a table test (the
 * CLI over every invalid configuration) its rows, numbered from 1. `deno task test` runs an even
 * sample of each, so that the suite stays quick; `deno task test:full` sets
 * `STACKSYNC_PROPERTY_CASES=all` and runs every one; `first-last` runs a range, to replay a
 * failure.
 *
 * @module
 */

/** The seeds to run, and what share of all cases they are. */
export interface PropertyCases {
  /** Seeds from 1 to the test's number of cases, in ascending order. */
  readonly seeds: readonly number[];
  /** `seeds.length` divided by the number of cases: coverage thresholds scale by it. */
  readonly share: number;
}

/**
 * The seeds of a property test with `cases` cases: every one under
 * `STACKSYNC_PROPERTY_CASES=all`, a range under `first-last`, else `sample` seeds spread evenly
 * from 1.
 *
 * @param cases The test's number of cases, seeds 1 to `cases`.
 * @param options `sample`: how many cases the quick suite runs; `asked`: the value of
 *   STACKSYNC_PROPERTY_CASES (read from the environment when left out).
 * @returns The seeds and their share of all cases.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { propertyCases } from "./_property_cases.ts";
 *
 * assert.deepEqual(propertyCases(300, { sample: 30, asked: undefined }).seeds.slice(0, 3), [1, 11, 21]);
 * assert.equal(propertyCases(300, { sample: 30, asked: "all" }).share, 1);
 * assert.deepEqual(propertyCases(300, { sample: 30, asked: "5-7" }).seeds, [5, 6, 7]);
 * ```
 */
export function propertyCases(
  cases: number,
  options: { readonly sample: number; readonly asked?: string | undefined },
): PropertyCases {
  const asked = "asked" in options ? options.asked : Deno.env.get("STACKSYNC_PROPERTY_CASES");
  const all = Array.from({ length: cases }, (_, i) => i + 1);
  let seeds: number[];
  if (asked === "all") seeds = all;
  else if (asked !== undefined) {
    const [first, last] = asked.split("-").map(Number);
    if (!(first >= 1 && last >= first)) {
      throw new Error(
        `Cannot read STACKSYNC_PROPERTY_CASES: use "all" or a range of seeds such as "1-40": ` +
          `current value is "${asked}"`,
      );
    }
    seeds = all.filter((seed) => seed >= first && seed <= last);
  } else {
    const step = cases / Math.min(options.sample, cases);
    seeds = all.filter((seed) => (seed - 1) % step < 1);
  }
  return { seeds, share: seeds.length / cases };
}

/**
 * The fewest cases that must reach a path for the cases to be worth their name: `all` when every
 * case runs, one in a sample or a range.
 *
 * @param cases What {@linkcode propertyCases} chose.
 * @param all The fewest when every case runs.
 * @returns `all`, or 1.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { fewest, propertyCases } from "./_property_cases.ts";
 *
 * assert.equal(fewest(propertyCases(300, { sample: 30, asked: "all" }), 31), 31);
 * assert.equal(fewest(propertyCases(300, { sample: 30, asked: undefined }), 31), 1);
 * ```
 */
export function fewest(cases: PropertyCases, all: number): number {
  return cases.share === 1 ? all : 1;
}
