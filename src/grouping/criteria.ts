/**
 * Parsing and validation of CRITERIA, the grouping rules.
 *
 * Accepts the three forms immich-stack users already have, with the same JSON field names:
 * the legacy array of criteria, `{"mode":"advanced","groups":[…]}` and
 * `{"mode":"advanced","expression":{…}}`. All three become one tree of AND, OR and NOT nodes
 * over numbered leaves, which is what {@link groupAssets} evaluates.
 *
 * @module
 */

import { z } from "zod";
import type { CriterionField, RegexPromotion } from "../model.ts";

/** Time keys: grouped by gap chaining with a tolerance (`delta`), exact when none is given. */
export const TIME_KEYS = ["localDateTime", "fileCreatedAt", "fileModifiedAt", "updatedAt"] as const;
/** Text keys: grouped by their value, optionally cut by `split` or `regex`. */
export const TEXT_KEYS = [
  "originalFileName",
  "originalPath",
  "type",
  "checksum",
  "ownerId",
  "duration",
  "id",
  // Immich sends these two only before v3; without them the criterion is left out.
  "deviceId",
  "deviceAssetId",
] as const;
/** Boolean keys: a value (`true`/`false`) in the legacy and groups forms, a filter in expressions. */
export const BOOLEAN_KEYS = [
  "isFavorite",
  "isArchived",
  "isTrashed",
  "isOffline",
  "hasMetadata",
] as const;

/** A time criterion key. */
export type TimeKey = typeof TIME_KEYS[number];
/** A text criterion key. */
export type TextKey = typeof TEXT_KEYS[number];
/** A boolean criterion key. */
export type BooleanKey = typeof BOOLEAN_KEYS[number];
/** Any criterion key. */
export type CriterionKey = TimeKey | TextKey | BooleanKey;

/** `split`: cut the text at every delimiter (each in turn) and keep part `index`. */
export interface SplitOption {
  /** Non-empty delimiters, applied in this order. */
  readonly delimiters: readonly string[];
  /** Zero-based part to keep. */
  readonly index: number;
}

/** `regex`: the compiled pattern; capture group `index` is the value (0 = whole match). */
export interface RegexOption {
  /** The compiled `regex.key`. */
  readonly pattern: RegExp;
  /** Capture group used as the value; 0 is the whole match. */
  readonly index: number;
  /** Capture group whose text ranks the asset by its position in `promoteKeys`. */
  readonly promoteIndex?: number;
  /** Promotion order of the `promoteIndex` capture, strongest first. */
  readonly promoteKeys?: readonly string[];
}

/** One validated criterion. */
export type Criterion = TextCriterion | TimeCriterion | BooleanCriterion;

/** A text criterion: its value, cut by `split` or `regex` when given. */
export interface TextCriterion {
  /** Discriminant. */
  readonly kind: "text";
  /** The asset field. */
  readonly key: TextKey;
  /** Cut the value at delimiters (never together with `regex`). */
  readonly split?: SplitOption;
  /** Take a capture group of the value (never together with `split`). */
  readonly regex?: RegexOption;
}

/** A time criterion: chained with gaps of at most `deltaMs` (0 = equal times). */
export interface TimeCriterion {
  /** Discriminant. */
  readonly kind: "time";
  /** The asset field. */
  readonly key: TimeKey;
  /** Largest gap, in milliseconds, between neighbours of one group. */
  readonly deltaMs: number;
  /**
   * `regex.key` on a time key, as immich-stack applies it inside an expression: only assets
   * whose time, written as immich-stack writes it (UTC, nine fraction digits, cut down to a
   * multiple of the delta, e.g. `2024-05-01T10:00:00.000000000Z`), matches it take part.
   */
  readonly filter?: RegExp;
}

/** A boolean criterion. */
export interface BooleanCriterion {
  /** Discriminant. */
  readonly kind: "boolean";
  /** The asset field. */
  readonly key: BooleanKey;
}

/**
 * A node of the normalized criteria tree.
 *
 * Leaves are numbered depth-first from 0, so two leaves on the same key stay apart.
 * A `filterOnly` leaf (a boolean key inside an expression) decides whether an asset takes part
 * but adds nothing to the group key.
 */
export type CriteriaNode =
  | {
    readonly kind: "leaf";
    readonly id: number;
    readonly criterion: Criterion;
    readonly filterOnly: boolean;
  }
  | { readonly kind: "and" | "or"; readonly children: readonly CriteriaNode[] }
  | { readonly kind: "not"; readonly child: CriteriaNode };

/** Validated CRITERIA: the form it was written in and the tree it means. */
export interface Criteria {
  /** The form CRITERIA was written in. */
  readonly form: "legacy" | "groups" | "expression";
  /** What it means: the tree grouping evaluates. */
  readonly root: CriteriaNode;
  /** Number of leaves; leaf ids run from 0 to `leafCount - 1`. */
  readonly leafCount: number;
}

/**
 * An object that takes only the fields of `shape`; an unknown one is named with the fields
 * expected instead (`delta.seconds: unknown field, expected milliseconds`), so a misspelt
 * field is not reported as the missing one it was meant to be.
 */
function strict<const Shape extends z.ZodRawShape>(shape: Shape) {
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `unknown field, expected ${Object.keys(shape).join(", ")}`
        : undefined,
  });
}

/** One criterion as written, with what its fields must agree on. */
function criterionSchema() {
  const wholeNumber = z
    .int({ error: "must be a whole number" })
    .min(0, { error: "must not be negative" });

  const rawSplit = strict({
    delimiters: z
      .array(z.string().min(1, { error: "must not be empty" }))
      .min(1, { error: "must hold at least one delimiter" }),
    index: wholeNumber.default(0),
  });

  const rawRegex = strict({
    key: z.string().min(1, { error: "must not be empty" }),
    index: wholeNumber.default(0),
    promote_index: wholeNumber.optional(),
    promote_keys: z.array(z.string()).optional(),
  });

  const keys = [...TEXT_KEYS, ...TIME_KEYS, ...BOOLEAN_KEYS];
  return strict({
    key: z.enum(keys, {
      error: (issue) => {
        const what = issue.input === undefined
          ? "missing"
          : `unknown key ${JSON.stringify(issue.input)}`;
        return `${what}, expected one of ${keys.join(", ")}`;
      },
    }),
    split: rawSplit.optional(),
    regex: rawRegex.optional(),
    delta: strict({ milliseconds: wholeNumber }).optional(),
  })
    .check((ctx) => {
      const { key, split, regex, delta } = ctx.value;
      const problem = (path: string[], message: string) =>
        ctx.issues.push({ code: "custom", message, input: ctx.value, path });
      const isText = (TEXT_KEYS as readonly string[]).includes(key);
      const isTime = (TIME_KEYS as readonly string[]).includes(key);
      if (split && !isText) problem(["split"], `split applies only to text keys, not ${key}`);
      if (regex && !isText && !isTime) {
        problem(["regex"], `regex applies only to text and time keys, not ${key}`);
      }
      if (split && regex) problem(["regex"], "use either split or regex, not both");
      if (delta && !isTime) problem(["delta"], `delta applies only to time keys, not ${key}`);
      if (!regex) return;
      let pattern: RegExp;
      try {
        pattern = compilePattern(regex.key);
      } catch (error) {
        problem(["regex", "key"], `cannot compile the pattern: ${(error as Error).message}`);
        return;
      }
      const groups = captureGroupCount(pattern);
      const tooHigh = (index: number) =>
        `pattern has only ${groups} capture group${groups === 1 ? "" : "s"}, not ${index}`;
      if (regex.index > groups) problem(["regex", "index"], tooHigh(regex.index));
      if (regex.promote_index !== undefined && regex.promote_index > groups) {
        problem(["regex", "promote_index"], tooHigh(regex.promote_index));
      }
      if ((regex.promote_index === undefined) !== (regex.promote_keys === undefined)) {
        problem(["regex"], "promote_index and promote_keys go together");
      }
      if (
        regex.promote_index !== undefined && key !== "originalFileName" && key !== "originalPath"
      ) {
        problem(["regex", "promote_index"], `promotion applies only to file names and paths`);
      }
    });
}

/**
 * The schemas of CRITERIA's forms. Built when CRITERIA is first parsed, not when the module
 * loads: building them cost a pass with the default rules, which parse none, a good part of its
 * start-up (BENCHMARKS.md).
 */
function buildSchemas() {
  const rawCriterion = criterionSchema();
  const rawNode: z.ZodType<RawNode> = strict({
    criteria: rawCriterion.optional(),
    operator: z.enum(["AND", "OR", "NOT"]).optional(),
    get children() {
      return z.array(rawNode).optional();
    },
  })
    .check((ctx) => {
      const { criteria, operator, children } = ctx.value;
      const problem = (message: string) =>
        ctx.issues.push({ code: "custom", message, input: ctx.value });
      if ((criteria === undefined) === (operator === undefined)) {
        problem("needs either criteria or operator with children");
      } else if (criteria !== undefined && children !== undefined) {
        problem("a criteria leaf takes no children");
      } else if (operator === "NOT" && children?.length !== 1) {
        problem("NOT takes exactly one child");
      } else if (operator !== undefined && !children?.length) {
        problem(`${operator} takes at least one child`);
      }
    });

  const rawAdvanced = strict({
    mode: z.literal("advanced", { error: 'must be "advanced"' }),
    groups: z
      .array(
        strict({
          operator: z.enum(["AND", "OR"]).default("AND"),
          criteria: z.array(rawCriterion).min(1, { error: "must hold at least one criterion" }),
        }),
      )
      .min(1, { error: "must hold at least one group" })
      .optional(),
    expression: rawNode.optional(),
  })
    .check((ctx) => {
      if ((ctx.value.groups === undefined) === (ctx.value.expression === undefined)) {
        ctx.issues.push({
          code: "custom",
          message: "needs either groups or expression",
          input: ctx.value,
        });
      }
    });

  const rawLegacy = z.array(rawCriterion).min(1, { error: "must hold at least one criterion" });
  return { legacy: rawLegacy, advanced: rawAdvanced };
}

let schemas: ReturnType<typeof buildSchemas> | undefined;

function criteriaSchemas(): ReturnType<typeof buildSchemas> {
  return schemas ??= buildSchemas();
}

type RawCriterion = z.output<ReturnType<typeof criterionSchema>>;

interface RawNode {
  criteria?: RawCriterion;
  operator?: "AND" | "OR" | "NOT";
  children?: RawNode[];
}

/**
 * The default rules, `{"mode":"devices"}`: what cameras and phones write, recognised by
 * src/grouping/devices/ (docs/default-rules.md), instead of criteria.
 */
export interface DeviceRules {
  readonly form: "devices";
}

/** What grouping follows: CRITERIA as written, or the default rules. */
export type GroupingRules = Criteria | DeviceRules;

/** The default rules. */
export const DEVICE_RULES: DeviceRules = { form: "devices" };

/**
 * immich-stack's default CRITERIA: the file name before the first `~` or `.`, and
 * localDateTime with gaps of at most 1000 ms. stacksync's default is {@linkcode DEVICE_RULES};
 * this is what `CRITERIA` set to immich-stack's value means.
 *
 * @example As parsed from its JSON
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_CRITERIA, parseCriteria } from "./criteria.ts";
 *
 * const written = [
 *   { key: "originalFileName", split: { delimiters: ["~", "."] } },
 *   { key: "localDateTime", delta: { milliseconds: 1000 } },
 * ];
 * assert.deepEqual(parseCriteria(written), DEFAULT_CRITERIA);
 * ```
 */
export const DEFAULT_CRITERIA: Criteria = legacyCriteria([
  { key: "originalFileName", split: { delimiters: ["~", "."], index: 0 } },
  { key: "localDateTime", delta: { milliseconds: 1000 } },
]);

/**
 * Validates CRITERIA (already parsed from JSON) and normalizes it into a criteria tree.
 *
 * The legacy array is an AND of its criteria; `groups` is an OR of its groups, each an AND or
 * OR of its criteria; `expression` is taken as written. Boolean keys are values in the first
 * two forms and filters inside an expression, as in immich-stack.
 *
 * @param input CRITERIA after `JSON.parse`, or undefined for {@link DEFAULT_CRITERIA}
 * @returns the validated criteria
 * @throws {SyntaxError} `Invalid grouping criteria: <json path>: <problem>` for any unknown key,
 * bad pattern, negative or fractional number, or malformed expression
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseCriteria } from "./criteria.ts";
 *
 * const criteria = parseCriteria([{ key: "originalFileName" }, { key: "localDateTime" }]);
 * assert.equal(criteria.form, "legacy");
 * assert.equal(criteria.leafCount, 2);
 * assert.throws(
 *   () => parseCriteria({ mode: "advanced", expression: { operator: "NOT", children: [] } }),
 *   { name: "SyntaxError", message: "Invalid grouping criteria: expression: NOT takes exactly one child" },
 * );
 * ```
 */
export function parseCriteria(input: unknown): Criteria {
  if (input === undefined) return DEFAULT_CRITERIA;
  if (Array.isArray(input)) return legacyCriteria(validate(criteriaSchemas().legacy, input));
  if (typeof input !== "object" || input === null) {
    throw invalid([], 'expected an array of criteria or an object with "mode": "advanced"');
  }
  const ids = { next: 0 };
  const advanced = validate(criteriaSchemas().advanced, input);
  if (advanced.groups) {
    const groups = advanced.groups.map((group): CriteriaNode => ({
      kind: group.operator === "AND" ? "and" : "or",
      children: group.criteria.map((c) => leaf(c, false, ids)),
    }));
    return {
      form: "groups",
      root: groups.length === 1 ? groups[0] : { kind: "or", children: groups },
      leafCount: ids.next,
    };
  }
  const root = toNode(advanced.expression as RawNode, ids);
  if (!yieldsValue(root)) {
    throw invalid(
      ["expression"],
      "needs a criterion that yields a value; boolean keys and NOT only filter",
    );
  }
  return { form: "expression", root, leafCount: ids.next };
}

/**
 * Validates CRITERIA (already parsed from JSON) into the rules grouping follows:
 * `{"mode":"devices"}` is the default rules, anything else criteria ({@linkcode parseCriteria}).
 *
 * @param input CRITERIA after `JSON.parse`.
 * @returns The rules.
 * @throws {SyntaxError} `Invalid grouping criteria: <json path>: <problem>`, as
 *   {@linkcode parseCriteria} does; for the devices mode, a field besides `mode`
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEVICE_RULES, parseRules } from "./criteria.ts";
 *
 * assert.equal(parseRules({ mode: "devices" }), DEVICE_RULES);
 * assert.equal(parseRules([{ key: "originalFileName" }]).form, "legacy");
 * assert.throws(() => parseRules({ mode: "devices", delta: 1 }), {
 *   message: "Invalid grouping criteria: delta: unknown field, expected mode",
 * });
 * ```
 */
export function parseRules(input: unknown): GroupingRules {
  const mode = (input as { mode?: unknown } | null)?.mode;
  if (typeof input !== "object" || Array.isArray(input) || mode !== "devices") {
    return parseCriteria(input);
  }
  validate(strict({ mode: z.literal("devices") }), input);
  return DEVICE_RULES;
}

/**
 * What promotion needs from the criteria: the regex promotions, and the split delimiters of
 * the `originalFileName` criteria (which `biggestNumber` uses to find the trailing number).
 *
 * @param criteria validated criteria
 * @returns regex promotions in leaf order, and the distinct delimiters in order of appearance
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_CRITERIA, promotionInputs } from "./criteria.ts";
 *
 * assert.deepEqual(promotionInputs(DEFAULT_CRITERIA), { regexPromotions: [], delimiters: ["~", "."] });
 * ```
 */
export function promotionInputs(
  criteria: GroupingRules,
): { regexPromotions: RegexPromotion[]; delimiters: string[] } {
  const regexPromotions: RegexPromotion[] = [];
  const delimiters: string[] = [];
  if (criteria.form === "devices") return { regexPromotions, delimiters };
  for (const node of leaves(criteria.root)) {
    const c = node.criterion;
    if (c.kind !== "text" || (c.key !== "originalFileName" && c.key !== "originalPath")) continue;
    const { regex, split } = c;
    if (regex?.promoteIndex !== undefined && regex.promoteKeys) {
      regexPromotions.push({
        field: c.key,
        pattern: regex.pattern,
        promoteIndex: regex.promoteIndex,
        promoteKeys: regex.promoteKeys,
      });
    }
    if (c.key !== "originalFileName" || !split) continue;
    for (const d of split.delimiters) if (!delimiters.includes(d)) delimiters.push(d);
  }
  return { regexPromotions, delimiters };
}

/**
 * The asset fields beyond those every asset has (id, file name, local time) that the criteria
 * read, so the client keeps only these.
 *
 * @param criteria validated criteria
 * @returns the fields, each once, in leaf order
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { criterionFields, DEFAULT_CRITERIA, parseCriteria } from "./criteria.ts";
 *
 * assert.deepEqual(criterionFields(DEFAULT_CRITERIA), []);
 * assert.deepEqual(
 *   criterionFields(parseCriteria([{ key: "originalPath" }, { key: "isFavorite" }, { key: "originalPath" }])),
 *   ["originalPath", "isFavorite"],
 * );
 * ```
 */
export function criterionFields(criteria: GroupingRules): CriterionField[] {
  const fields = new Set<CriterionField>();
  if (criteria.form === "devices") return [];
  for (const { criterion } of leaves(criteria.root)) {
    const key = criterion.key;
    if (key !== "originalFileName" && key !== "localDateTime" && key !== "id") fields.add(key);
  }
  return [...fields];
}

/**
 * Every leaf of a criteria tree, depth-first (which is leaf id order).
 *
 * @param node the tree's root
 * @returns the leaves
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_CRITERIA, leaves } from "./criteria.ts";
 *
 * assert.deepEqual(leaves(DEFAULT_CRITERIA.root).map((l) => l.criterion.key), [
 *   "originalFileName",
 *   "localDateTime",
 * ]);
 * ```
 */
export function leaves(node: CriteriaNode): Extract<CriteriaNode, { kind: "leaf" }>[] {
  if (node.kind === "leaf") return [node];
  if (node.kind === "not") return leaves(node.child);
  return node.children.flatMap(leaves);
}

/**
 * Compiles an immich-stack (Go RE2) pattern as a JavaScript RegExp. Go's named groups
 * `(?P<name>…)` and leading flag groups such as `(?i)` are translated, since users copy
 * patterns written for Go.
 */
function compilePattern(source: string): RegExp {
  const flags = /^\(\?([ims]+)\)/.exec(source);
  const body = (flags ? source.slice(flags[0].length) : source).replaceAll("(?P<", "(?<");
  return new RegExp(body, flags ? [...new Set(flags[1])].join("") : "");
}

function captureGroupCount(pattern: RegExp): number {
  // An empty alternative always matches, and exec reports every group, matched or not.
  return (new RegExp(`${pattern.source}|`, pattern.flags).exec("") as RegExpExecArray).length - 1;
}

/** The legacy form: an AND of its criteria, already validated. */
function legacyCriteria(criteria: readonly RawCriterion[]): Criteria {
  const ids = { next: 0 };
  return {
    form: "legacy",
    root: { kind: "and", children: criteria.map((c) => leaf(c, false, ids)) },
    leafCount: ids.next,
  };
}

function leaf(raw: RawCriterion, filterOnly: boolean, ids: { next: number }): CriteriaNode {
  return { kind: "leaf", id: ids.next++, criterion: toCriterion(raw), filterOnly };
}

function toCriterion(raw: RawCriterion): Criterion {
  const key = raw.key;
  if ((TIME_KEYS as readonly string[]).includes(key)) {
    return {
      kind: "time",
      key: key as TimeKey,
      deltaMs: raw.delta?.milliseconds ?? 0,
      ...(raw.regex && { filter: compilePattern(raw.regex.key) }),
    };
  }
  if ((BOOLEAN_KEYS as readonly string[]).includes(key)) {
    return { kind: "boolean", key: key as BooleanKey };
  }
  const r = raw.regex;
  return {
    kind: "text",
    key: key as TextKey,
    ...(raw.split && { split: raw.split }),
    ...(r && {
      regex: {
        pattern: compilePattern(r.key),
        index: r.index,
        ...(r.promote_index !== undefined && { promoteIndex: r.promote_index }),
        ...(r.promote_keys && { promoteKeys: r.promote_keys }),
      },
    }),
  };
}

function toNode(raw: RawNode, ids: { next: number }): CriteriaNode {
  if (raw.criteria) {
    const isBoolean = (BOOLEAN_KEYS as readonly string[]).includes(raw.criteria.key);
    return leaf(raw.criteria, isBoolean, ids);
  }
  const children = (raw.children ?? []).map((child) => toNode(child, ids));
  if (raw.operator === "NOT") return { kind: "not", child: children[0] };
  return { kind: raw.operator === "OR" ? "or" : "and", children };
}

function yieldsValue(node: CriteriaNode): boolean {
  if (node.kind === "leaf") return !node.filterOnly;
  if (node.kind === "not") return false;
  return node.children.some(yieldsValue);
}

function validate<T>(schema: z.ZodType<T>, input: unknown): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  // An unknown field explains the other issues of its object (a misspelt field is also missing).
  const { issues } = result.error;
  const issue = issues.find((candidate) => candidate.code === "unrecognized_keys") ?? issues[0];
  if (issue.code !== "unrecognized_keys") {
    throw invalid(issue.path, issue.message.replace(/^Invalid input: /, ""));
  }
  const [first] = issue.keys;
  throw invalid([...issue.path, first], issue.message);
}

function invalid(path: readonly PropertyKey[], problem: string): SyntaxError {
  let where = "";
  for (const segment of path) {
    where += typeof segment === "number" ? `[${segment}]` : `${where ? "." : ""}${String(segment)}`;
  }
  return new SyntaxError(`Invalid grouping criteria: ${where || "top level"}: ${problem}`);
}
