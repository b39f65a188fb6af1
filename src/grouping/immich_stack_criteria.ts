/**
 * CRITERIA as immich-stack reads it, rewritten in the strict form {@link parseCriteria} checks,
 * with one warning per thing rewritten. Pure.
 *
 * immich-stack reads CRITERIA with Go's JSON decoder, which passes over fields it does not know,
 * and its stacker leaves out options it cannot apply instead of refusing them:
 *
 * - a field no object of CRITERIA has (its own fix-trash example writes `regex.pattern`);
 * - `regex` without `key` (its pattern), `split` without delimiters;
 * - `split` and `regex` on time and boolean keys, `delta` on keys that are not times; `regex` on
 *   a time key inside an expression (or groups that are all AND, which immich-stack evaluates as
 *   one) filters by the time as immich-stack writes it, and is kept for that;
 * - `split` beside a `regex` on a file name or path (the regex wins);
 * - `promote_index` without `promote_keys`, or either on a key other than a file name or path;
 * - `delta` without `milliseconds` (0: equal times only).
 *
 * What immich-stack itself refuses, or fails on while grouping, stays an error.
 *
 * @module
 */
import { closestName } from "../closest_name.ts";

const CRITERION_FIELDS = ["key", "split", "regex", "delta"];
const SPLIT_FIELDS = ["delimiters", "index"];
const REGEX_FIELDS = ["key", "index", "promote_index", "promote_keys"];
const DELTA_FIELDS = ["milliseconds"];
const NODE_FIELDS = ["criteria", "operator", "children"];
const GROUP_FIELDS = ["operator", "criteria"];
const ADVANCED_FIELDS = ["mode", "groups", "expression"];

const TIME_KEYS = ["localDateTime", "fileCreatedAt", "fileModifiedAt", "updatedAt"];
const BOOLEAN_KEYS = ["isFavorite", "isArchived", "isTrashed", "isOffline", "hasMetadata"];
const PATH_KEYS = ["originalFileName", "originalPath"];

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Rewrites one CRITERIA document; `warnings` collects the lines. */
class Adopter {
  readonly warnings: string[] = [];

  /** The object's fields that `fields` names; a line for the others, which it leaves out. */
  known(object: Json, fields: readonly string[], path: string, what: string): Json {
    const kept: Json = {};
    const unknown: string[] = [];
    for (const [field, value] of Object.entries(object)) {
      if (fields.includes(field)) kept[field] = value;
      else unknown.push(field);
    }
    if (unknown.length > 0) {
      const near = unknown.map((field) => closestName(field, fields)).filter((f) =>
        f !== undefined
      );
      const named = unknown.map((field) => `${path === "" ? "" : `${path}.`}${field}`);
      this.warnings.push(
        `Ignored CRITERIA ${named.join(", ")} as immich-stack does: ${what} has no such field ` +
          `(it has ${fields.join(", ")})${near.length > 0 ? `; did you mean ${near[0]}?` : ""}`,
      );
    }
    return kept;
  }

  /** Leaves out an option immich-stack does not apply, and says why. */
  drop(criterion: Json, option: string, path: string, why: string): void {
    delete criterion[option];
    this.warnings.push(`Ignored CRITERIA ${path}.${option} as immich-stack does: ${why}`);
  }

  criterion(input: unknown, path: string, inExpression: boolean): unknown {
    if (!isObject(input)) return input;
    const criterion = this.known(input, CRITERION_FIELDS, path, "a criterion");
    const key = typeof criterion.key === "string" ? criterion.key : "";
    const isTime = TIME_KEYS.includes(key);
    const isBoolean = BOOLEAN_KEYS.includes(key);
    const onPath = PATH_KEYS.includes(key);

    if (isObject(criterion.regex)) {
      const regex = this.known(criterion.regex, REGEX_FIELDS, `${path}.regex`, "regex");
      criterion.regex = regex;
      if (typeof regex.key !== "string" || regex.key === "") {
        this.drop(criterion, "regex", path, "it has no key, the pattern it would match");
      } else if (isBoolean) {
        this.drop(criterion, "regex", path, `it applies no regex to the boolean key ${key}`);
      } else if (isTime && !inExpression) {
        this.drop(
          criterion,
          "regex",
          path,
          `it applies a regex to the time key ${key} only inside an expression`,
        );
      } else {
        this.promotion(regex, `${path}.regex`, onPath ? undefined : key);
      }
    }
    if (isObject(criterion.split)) {
      const split = this.known(criterion.split, SPLIT_FIELDS, `${path}.split`, "split");
      criterion.split = split;
      if (!Array.isArray(split.delimiters) || split.delimiters.length === 0) {
        this.drop(criterion, "split", path, "it has no delimiters");
      } else if (isTime || isBoolean) {
        this.drop(criterion, "split", path, `it splits text keys only, not ${key}`);
      } else if (onPath && criterion.regex !== undefined) {
        this.drop(criterion, "split", path, "the regex beside it wins");
      }
    }
    if (isObject(criterion.delta)) {
      const delta = this.known(criterion.delta, DELTA_FIELDS, `${path}.delta`, "delta");
      criterion.delta = delta;
      if (!isTime) {
        this.drop(criterion, "delta", path, `it applies delta to time keys only, not ${key}`);
      } else if (delta.milliseconds === undefined) {
        criterion.delta = { milliseconds: 0 };
        this.warnings.push(
          `Read CRITERIA ${path}.delta without milliseconds as immich-stack does, as 0: only ` +
            `equal times match; write "delta": {"milliseconds": 0}`,
        );
      }
    }
    return criterion;
  }

  /** Promotion settings that change nothing in immich-stack are left out. */
  promotion(regex: Json, path: string, otherKey: string | undefined): void {
    const hasIndex = regex.promote_index !== undefined;
    const keys = regex.promote_keys;
    const hasKeys = Array.isArray(keys) && keys.length > 0;
    if (!hasIndex && keys === undefined) return;
    const why = otherKey !== undefined
      ? `it promotes by file names and paths only, not ${otherKey}`
      : !hasIndex
      ? "promote_keys needs promote_index"
      : !hasKeys
      ? "promote_index needs promote_keys"
      : undefined;
    if (why === undefined) return;
    delete regex.promote_index;
    delete regex.promote_keys;
    this.warnings.push(
      `Ignored CRITERIA ${path}.promote_index and promote_keys as immich-stack does: ${why}`,
    );
  }

  node(input: unknown, path: string): unknown {
    if (!isObject(input)) return input;
    const node = this.known(input, NODE_FIELDS, path, "an expression node");
    if (node.criteria !== undefined) {
      node.criteria = this.criterion(node.criteria, `${path}.criteria`, true);
    }
    if (Array.isArray(node.children)) {
      node.children = node.children.map((child, i) => this.node(child, `${path}.children[${i}]`));
    }
    return node;
  }

  group(input: unknown, path: string, inExpression: boolean): unknown {
    if (!isObject(input)) return input;
    const group = this.known(input, GROUP_FIELDS, path, "a group");
    if (group.operator !== undefined && group.operator !== "AND" && group.operator !== "OR") {
      this.warnings.push(
        `Read CRITERIA ${path}.operator ${JSON.stringify(group.operator)} as AND, as ` +
          'immich-stack does with anything but "OR": write "AND"',
      );
      group.operator = "AND";
    }
    if (Array.isArray(group.criteria)) {
      group.criteria = group.criteria.map((c, i) =>
        this.criterion(c, `${path}.criteria[${i}]`, inExpression)
      );
    }
    return group;
  }
}

/**
 * Rewrites CRITERIA written for immich-stack into stacksync's strict form.
 *
 * @param input CRITERIA after `JSON.parse`.
 * @returns The criteria to check and use, and one warning per thing rewritten (none when the
 *   criteria are already stacksync's own).
 *
 * @example immich-stack's own fix-trash example: its regex has no key, so it applies none
 * ```ts
 * import assert from "node:assert/strict";
 * import { adoptCriteria } from "./immich_stack_criteria.ts";
 *
 * const { criteria, warnings } = adoptCriteria([
 *   { key: "originalFileName", regex: { pattern: "BURST(\\d+)", index: 1 } },
 * ]);
 * assert.deepEqual(criteria, [{ key: "originalFileName" }]);
 * assert.equal(warnings.length, 2);
 * assert.equal(adoptCriteria([{ key: "localDateTime", delta: { milliseconds: 1000 } }]).warnings.length, 0);
 * ```
 */
export function adoptCriteria(input: unknown): { criteria: unknown; warnings: string[] } {
  const adopter = new Adopter();
  let criteria = input;
  if (Array.isArray(input)) {
    criteria = input.map((criterion, i) => adopter.criterion(criterion, `[${i}]`, false));
  } else if (isObject(input)) {
    const advanced = adopter.known(input, ADVANCED_FIELDS, "", "advanced CRITERIA");
    if (Array.isArray(advanced.groups)) {
      // immich-stack evaluates groups that are all AND as an expression.
      const allAnd = advanced.groups.every((group) =>
        !isObject(group) || group.operator === undefined || group.operator !== "OR"
      );
      advanced.groups = advanced.groups.map((group, i) =>
        adopter.group(group, `groups[${i}]`, allAnd)
      );
    }
    if (advanced.expression !== undefined) {
      advanced.expression = adopter.node(advanced.expression, "expression");
    }
    criteria = advanced;
  }
  return { criteria, warnings: adopter.warnings };
}
