import assert from "node:assert/strict";
import {
  BOOLEAN_KEYS,
  type Criteria,
  type CriteriaNode,
  DEFAULT_CRITERIA,
  leaves,
  parseCriteria,
  promotionInputs,
  TEXT_KEYS,
  TIME_KEYS,
} from "../src/grouping/criteria.ts";

/** Wraps an expression node the way users write it in CRITERIA. */
function expression(node: unknown): unknown {
  return { mode: "advanced", expression: node };
}

/** A compact picture of a criteria tree: `and(originalFileName#0, localDateTime#1)`. */
function shape(node: CriteriaNode): string {
  switch (node.kind) {
    case "leaf":
      return `${node.filterOnly ? "?" : ""}${node.criterion.key}#${node.id}`;
    case "not":
      return `not(${shape(node.child)})`;
    default:
      return `${node.kind}(${node.children.map(shape).join(", ")})`;
  }
}

function criterionOf(criteria: Criteria, id = 0) {
  return leaves(criteria.root)[id].criterion;
}

const ALL_KEYS = [...TEXT_KEYS, ...TIME_KEYS, ...BOOLEAN_KEYS].join(", ");

Deno.test("parseCriteria() returns the default criteria for undefined", () => {
  assert.equal(parseCriteria(undefined), DEFAULT_CRITERIA);
  assert.equal(DEFAULT_CRITERIA.form, "legacy");
  assert.equal(shape(DEFAULT_CRITERIA.root), "and(originalFileName#0, localDateTime#1)");
  assert.deepEqual(criterionOf(DEFAULT_CRITERIA, 0), {
    kind: "text",
    key: "originalFileName",
    split: { delimiters: ["~", "."], index: 0 },
  });
  assert.deepEqual(criterionOf(DEFAULT_CRITERIA, 1), {
    kind: "time",
    key: "localDateTime",
    deltaMs: 1000,
  });
});

Deno.test("parseCriteria() normalizes every form into a tree", async (t) => {
  const cases: { name: string; input: unknown; form: Criteria["form"]; tree: string }[] = [
    {
      name: "legacy array is an AND",
      input: [{ key: "originalFileName" }, { key: "isFavorite" }, { key: "updatedAt" }],
      form: "legacy",
      tree: "and(originalFileName#0, isFavorite#1, updatedAt#2)",
    },
    {
      name: "one group is that group",
      input: { mode: "advanced", groups: [{ operator: "OR", criteria: [{ key: "type" }] }] },
      form: "groups",
      tree: "or(type#0)",
    },
    {
      name: "several groups are an OR of groups; the operator defaults to AND",
      input: {
        mode: "advanced",
        groups: [
          { criteria: [{ key: "originalPath" }, { key: "fileCreatedAt" }] },
          { operator: "OR", criteria: [{ key: "checksum" }, { key: "isTrashed" }] },
        ],
      },
      form: "groups",
      tree: "or(and(originalPath#0, fileCreatedAt#1), or(checksum#2, isTrashed#3))",
    },
    {
      name: "expression nests to any depth; boolean keys are filters there",
      input: expression({
        operator: "AND",
        children: [
          {
            operator: "OR",
            children: [
              { criteria: { key: "originalFileName" } },
              { operator: "AND", children: [{ criteria: { key: "ownerId" } }] },
            ],
          },
          { operator: "NOT", children: [{ criteria: { key: "isArchived" } }] },
          { criteria: { key: "hasMetadata" } },
          { criteria: { key: "fileModifiedAt", delta: { milliseconds: 5 } } },
        ],
      }),
      form: "expression",
      tree:
        "and(or(originalFileName#0, and(ownerId#1)), not(?isArchived#2), ?hasMetadata#3, fileModifiedAt#4)",
    },
    {
      name: "an expression may be a single leaf",
      input: expression({ criteria: { key: "duration" } }),
      form: "expression",
      tree: "duration#0",
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const criteria = parseCriteria(c.input);
      assert.equal(criteria.form, c.form);
      assert.equal(shape(criteria.root), c.tree);
      assert.equal(criteria.leafCount, leaves(criteria.root).length);
    });
  }
});

Deno.test("parseCriteria() fills immich-stack's defaults for omitted options", () => {
  const criteria = parseCriteria([
    { key: "originalPath", split: { delimiters: ["/"] } },
    { key: "originalFileName", regex: { key: "^(IMG)_" } },
    { key: "localDateTime" },
  ]);
  assert.deepEqual(criterionOf(criteria, 0), {
    kind: "text",
    key: "originalPath",
    split: { delimiters: ["/"], index: 0 },
  });
  const regex = criterionOf(criteria, 1);
  assert.ok(regex.kind === "text" && regex.regex);
  assert.equal(regex.regex.index, 0);
  assert.equal(regex.regex.promoteIndex, undefined);
  assert.deepEqual(criterionOf(criteria, 2), { kind: "time", key: "localDateTime", deltaMs: 0 });
});

Deno.test("parseCriteria() accepts Go's named groups and leading flags in patterns", () => {
  const criteria = parseCriteria([
    { key: "originalFileName", regex: { key: "(?i)^(?P<base>img_\\d+)", index: 1 } },
  ]);
  const c = criterionOf(criteria);
  assert.ok(c.kind === "text" && c.regex);
  assert.equal(c.regex.pattern.flags, "i");
  assert.equal(c.regex.pattern.exec("IMG_0001.JPG")?.groups?.base, "IMG_0001");
});

Deno.test("parseCriteria() reports the JSON path and the problem", async (t) => {
  const fileName = { key: "originalFileName" };
  const cases: { name: string; input: unknown; message: string }[] = [
    {
      name: "not an array or object",
      input: "originalFileName",
      message: 'top level: expected an array of criteria or an object with "mode": "advanced"',
    },
    {
      name: "null",
      input: null,
      message: 'top level: expected an array of criteria or an object with "mode": "advanced"',
    },
    { name: "empty array", input: [], message: "top level: must hold at least one criterion" },
    {
      name: "unknown criterion key",
      input: [fileName, { key: "filename" }],
      message: `[1].key: unknown key "filename", expected one of ${ALL_KEYS}`,
    },
    {
      name: "missing key",
      input: [{}],
      message: `[0].key: missing, expected one of ${ALL_KEYS}`,
    },
    {
      name: "unknown field",
      input: [{ key: "originalFileName", spilt: { delimiters: ["~"] } }],
      message: "[0].spilt: unknown field, expected key, split, regex, delta",
    },
    {
      name: "unknown field in split",
      input: [{ key: "originalFileName", split: { delimiters: ["~"], idx: 1 } }],
      message: "[0].split.idx: unknown field, expected delimiters, index",
    },
    {
      name: "unknown field that is also the missing one's misspelling",
      input: [{ key: "localDateTime", delta: { seconds: 1 } }],
      message: "[0].delta.seconds: unknown field, expected milliseconds",
    },
    {
      name: "unknown field of an expression node",
      input: { mode: "advanced", expression: { operator: "NOT", child: [] } },
      message: "expression.child: unknown field, expected criteria, operator, children",
    },
    {
      name: "negative split index",
      input: [{ key: "originalFileName", split: { delimiters: ["~"], index: -1 } }],
      message: "[0].split.index: must not be negative",
    },
    {
      name: "fractional split index",
      input: [{ key: "originalFileName", split: { delimiters: ["~"], index: 1.5 } }],
      message: "[0].split.index: must be a whole number",
    },
    {
      name: "split index as text",
      input: [{ key: "originalFileName", split: { delimiters: ["~"], index: "1" } }],
      message: "[0].split.index: must be a whole number",
    },
    {
      name: "no delimiters",
      input: [{ key: "originalFileName", split: { delimiters: [] } }],
      message: "[0].split.delimiters: must hold at least one delimiter",
    },
    {
      name: "empty delimiter",
      input: [{ key: "originalFileName", split: { delimiters: ["~", ""] } }],
      message: "[0].split.delimiters[1]: must not be empty",
    },
    {
      name: "negative delta",
      input: [fileName, { key: "localDateTime", delta: { milliseconds: -1000 } }],
      message: "[1].delta.milliseconds: must not be negative",
    },
    {
      name: "fractional delta",
      input: [{ key: "updatedAt", delta: { milliseconds: 0.5 } }],
      message: "[0].delta.milliseconds: must be a whole number",
    },
    {
      name: "delta without milliseconds",
      input: [{ key: "updatedAt", delta: {} }],
      message: "[0].delta.milliseconds: must be a whole number",
    },
    {
      name: "delta on a text key",
      input: [{ key: "originalFileName", delta: { milliseconds: 1000 } }],
      message: "[0].delta: delta applies only to time keys, not originalFileName",
    },
    {
      name: "split on a time key",
      input: [{ key: "localDateTime", split: { delimiters: ["T"] } }],
      message: "[0].split: split applies only to text keys, not localDateTime",
    },
    {
      name: "regex on a boolean key",
      input: [{ key: "isFavorite", regex: { key: "true" } }],
      message: "[0].regex: regex applies only to text and time keys, not isFavorite",
    },
    {
      name: "split and regex together",
      input: [{ key: "originalFileName", split: { delimiters: ["~"] }, regex: { key: "x" } }],
      message: "[0].regex: use either split or regex, not both",
    },
    {
      name: "bad pattern",
      input: [{ key: "originalFileName", regex: { key: "IMG_(\\d+" } }],
      message:
        "[0].regex.key: cannot compile the pattern: Invalid regular expression: /IMG_(\\d+/: Unterminated group",
    },
    {
      name: "empty pattern",
      input: [{ key: "originalPath", regex: { key: "" } }],
      message: "[0].regex.key: must not be empty",
    },
    {
      name: "capture group index beyond the pattern",
      input: [{ key: "originalFileName", regex: { key: "IMG_(\\d+)", index: 2 } }],
      message: "[0].regex.index: pattern has only 1 capture group, not 2",
    },
    {
      name: "negative regex index",
      input: [{ key: "originalFileName", regex: { key: "IMG_(\\d+)", index: -1 } }],
      message: "[0].regex.index: must not be negative",
    },
    {
      name: "promote index beyond the pattern",
      input: [{
        key: "originalFileName",
        regex: { key: "(a)(b)", index: 1, promote_index: 3, promote_keys: ["b"] },
      }],
      message: "[0].regex.promote_index: pattern has only 2 capture groups, not 3",
    },
    {
      name: "promote index without keys",
      input: [{ key: "originalFileName", regex: { key: "(a)(b)", promote_index: 2 } }],
      message: "[0].regex: promote_index and promote_keys go together",
    },
    {
      name: "promotion on a key promotion cannot read",
      input: [{ key: "type", regex: { key: "(I)", promote_index: 1, promote_keys: ["I"] } }],
      message: "[0].regex.promote_index: promotion applies only to file names and paths",
    },
    {
      name: "other mode",
      input: { mode: "legacy", groups: [{ criteria: [fileName] }] },
      message: 'mode: must be "advanced"',
    },
    {
      name: "neither groups nor expression",
      input: { mode: "advanced" },
      message: "top level: needs either groups or expression",
    },
    {
      name: "both groups and expression",
      input: {
        mode: "advanced",
        groups: [{ criteria: [fileName] }],
        expression: { criteria: fileName },
      },
      message: "top level: needs either groups or expression",
    },
    {
      name: "no groups",
      input: { mode: "advanced", groups: [] },
      message: "groups: must hold at least one group",
    },
    {
      name: "empty group",
      input: { mode: "advanced", groups: [{ operator: "AND", criteria: [] }] },
      message: "groups[0].criteria: must hold at least one criterion",
    },
    {
      name: "unknown group operator",
      input: { mode: "advanced", groups: [{ operator: "NOT", criteria: [fileName] }] },
      message: 'groups[0].operator: Invalid option: expected one of "AND"|"OR"',
    },
    {
      name: "bad criterion inside a group",
      input: {
        mode: "advanced",
        groups: [{ criteria: [fileName] }, {
          criteria: [{ key: "localDateTime", delta: { milliseconds: -5 } }],
        }],
      },
      message: "groups[1].criteria[0].delta.milliseconds: must not be negative",
    },
    {
      name: "NOT with two children",
      input: expression({
        operator: "AND",
        children: [
          { criteria: fileName },
          {
            operator: "NOT",
            children: [{ criteria: { key: "isArchived" } }, { criteria: { key: "isTrashed" } }],
          },
        ],
      }),
      message: "expression.children[1]: NOT takes exactly one child",
    },
    {
      name: "OR without children",
      input: expression({ operator: "OR", children: [] }),
      message: "expression: OR takes at least one child",
    },
    {
      name: "operator without children",
      input: expression({ operator: "AND" }),
      message: "expression: AND takes at least one child",
    },
    {
      name: "leaf and operator together",
      input: expression({
        operator: "AND",
        criteria: fileName,
        children: [{ criteria: fileName }],
      }),
      message: "expression: needs either criteria or operator with children",
    },
    {
      name: "leaf with children",
      input: expression({ criteria: fileName, children: [{ criteria: fileName }] }),
      message: "expression: a criteria leaf takes no children",
    },
    {
      name: "empty node",
      input: expression({ operator: "OR", children: [{ criteria: fileName }, {}] }),
      message: "expression.children[1]: needs either criteria or operator with children",
    },
    {
      name: "unknown operator",
      input: expression({ operator: "XOR", children: [{ criteria: fileName }] }),
      message: 'expression.operator: Invalid option: expected one of "AND"|"OR"|"NOT"',
    },
    {
      name: "deeply nested bad pattern",
      input: expression({
        operator: "AND",
        children: [{
          operator: "OR",
          children: [{ criteria: fileName }, {
            criteria: { key: "originalPath", regex: { key: "[" } },
          }],
        }],
      }),
      message:
        "expression.children[0].children[1].criteria.regex.key: cannot compile the pattern: Invalid regular expression: /[/: Unterminated character class",
    },
    {
      name: "only filters",
      input: expression({
        operator: "AND",
        children: [
          { criteria: { key: "isFavorite" } },
          { operator: "NOT", children: [{ criteria: fileName }] },
        ],
      }),
      message:
        "expression: needs a criterion that yields a value; boolean keys and NOT only filter",
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      assert.throws(() => parseCriteria(c.input), (error: unknown) => {
        assert.ok(error instanceof SyntaxError);
        assert.equal(error.message, `Invalid grouping criteria: ${c.message}`);
        return true;
      });
    });
  }
});

Deno.test("promotionInputs() collects regex promotions and file name delimiters in order", () => {
  const criteria = parseCriteria(expression({
    operator: "OR",
    children: [
      { criteria: { key: "originalFileName", split: { delimiters: ["~", "."], index: 0 } } },
      { criteria: { key: "originalPath", split: { delimiters: ["/"], index: 1 } } },
      {
        criteria: {
          key: "originalPath",
          regex: { key: "/(RAW|JPEG)/", index: 0, promote_index: 1, promote_keys: ["JPEG", "RAW"] },
        },
      },
      {
        criteria: {
          key: "originalFileName",
          regex: {
            key: "(PXL_\\d+_\\d+)(_\\w+)?",
            index: 1,
            promote_index: 2,
            promote_keys: ["_MP", ""],
          },
        },
      },
      { criteria: { key: "originalFileName", split: { delimiters: [".", "_", "-"], index: 0 } } },
    ],
  }));
  const { regexPromotions, delimiters } = promotionInputs(criteria);
  assert.deepEqual(delimiters, ["~", ".", "_", "-"]);
  assert.deepEqual(
    regexPromotions.map((p) => [p.field, p.pattern.source, p.promoteIndex, p.promoteKeys]),
    [
      ["originalPath", "\\/(RAW|JPEG)\\/", 1, ["JPEG", "RAW"]],
      ["originalFileName", "(PXL_\\d+_\\d+)(_\\w+)?", 2, ["_MP", ""]],
    ],
  );
});

Deno.test("promotionInputs() finds nothing in criteria without file name splits or promotions", () => {
  const criteria = parseCriteria([
    { key: "originalPath", split: { delimiters: ["/"] } },
    { key: "originalFileName", regex: { key: "^(IMG_\\d+)", index: 1 } },
  ]);
  assert.deepEqual(promotionInputs(criteria), { regexPromotions: [], delimiters: [] });
});
