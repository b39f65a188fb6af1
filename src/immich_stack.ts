/**
 * Settings written for immich-stack that stacksync would write otherwise, read with the meaning
 * immich-stack gives them, each with one warning line that says how stacksync writes it. So a
 * configuration carried over as it is runs as before, and says what to tidy. Pure.
 *
 * The settings stacksync reads differently on purpose (booleans, for one) are in the README's
 * "Migrating from immich-stack"; they are not rewritten here.
 *
 * @module
 */
import { adoptCriteria } from "./grouping/immich_stack_criteria.ts";

/** A value rewritten as stacksync writes it, and the warnings that say so. */
export interface Adopted {
  /** The text stacksync reads instead; "" when nothing is left (as if unset). */
  readonly text: string;
  /** One line per thing rewritten. */
  readonly warnings: readonly string[];
}

/** The rewriting of one setting: undefined when the text is already stacksync's own. */
type Spelling = (text: string) => Adopted | undefined;

/** logrus level names that stacksync spells otherwise. */
const LOG_LEVELS: Readonly<Record<string, string>> = { warning: "warn", panic: "fatal" };

const SPELLINGS: Readonly<Record<string, Spelling>> = {
  API_KEY: (text) => {
    const entries = text.split(",").map((entry) => entry.trim());
    const keys = entries.filter((entry) => entry !== "");
    const empty = entries.length - keys.length;
    if (empty === 0) return undefined;
    return {
      text: keys.join(","),
      warnings: [
        `Ignored ${empty === 1 ? "an empty entry" : `${empty} empty entries`} of API_KEY, as ` +
        "immich-stack does: separate the keys by single commas, with none at the end",
      ],
    };
  },
  LOG_LEVEL: (text) => {
    const level = LOG_LEVELS[text.trim().toLowerCase()];
    if (level === undefined) return undefined;
    return {
      text: level,
      warnings: [`Read LOG_LEVEL=${text.trim()} as ${level}, as immich-stack does: write ${level}`],
    };
  },
  CRON_INTERVAL: (text) => {
    if (!/^\s*0+\s*$/.test(text)) return undefined;
    return {
      text: "86400",
      warnings: [
        "Read CRON_INTERVAL=0 as immich-stack does, a day between passes in cron mode: write 86400",
      ],
    };
  },
  CRITERIA: (text) => {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return undefined; // CRITERIA's own check says what is wrong.
    }
    const { criteria, warnings } = adoptCriteria(json);
    return warnings.length === 0 ? undefined : { text: JSON.stringify(criteria), warnings };
  },
};

/**
 * The value stacksync reads for an immich-stack spelling of a setting, with the warnings.
 *
 * @param env The setting's variable, e.g. `LOG_LEVEL`.
 * @param text The value as given.
 * @returns The value to read instead, or undefined when it is stacksync's own spelling.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { immichStackSpelling } from "./immich_stack.ts";
 *
 * assert.deepEqual(immichStackSpelling("LOG_LEVEL", "warning"), {
 *   text: "warn",
 *   warnings: ["Read LOG_LEVEL=warning as warn, as immich-stack does: write warn"],
 * });
 * assert.equal(immichStackSpelling("LOG_LEVEL", "info"), undefined);
 * assert.equal(immichStackSpelling("API_KEY", "k1,")?.text, "k1");
 * ```
 */
export function immichStackSpelling(env: string, text: string): Adopted | undefined {
  return SPELLINGS[env]?.(text);
}
