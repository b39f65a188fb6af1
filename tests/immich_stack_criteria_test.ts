/**
 * adoptCriteria(): CRITERIA written for immich-stack, rewritten as stacksync checks it, with one
 * warning per rewrite; and that the result groups as immich-stack does.
 */
import assert from "node:assert/strict";
import { adoptCriteria } from "../src/grouping/immich_stack_criteria.ts";
import { parseCriteria } from "../src/grouping/criteria.ts";
import { groupAssets } from "../src/grouping/group.ts";
import type { Asset } from "../src/model.ts";

Deno.test("adoptCriteria() leaves stacksync's own criteria as they are", () => {
  for (
    const criteria of [
      [{ key: "originalFileName", split: { delimiters: ["~", "."], index: 0 } }],
      {
        mode: "advanced",
        groups: [{
          operator: "OR",
          criteria: [{ key: "localDateTime", delta: { milliseconds: 5 } }],
        }],
      },
      { mode: "advanced", expression: { criteria: { key: "originalPath", regex: { key: "a" } } } },
    ]
  ) {
    assert.deepEqual(adoptCriteria(criteria), { criteria, warnings: [] });
  }
});

Deno.test("adoptCriteria() drops what immich-stack does not apply, and says so once each", () => {
  const { criteria, warnings } = adoptCriteria({
    mode: "advanced",
    description: "mine",
    groups: [
      {
        operator: "or",
        criteria: [
          {
            key: "originalFileName",
            split: { delimiters: ["_"], index: 0 },
            regex: { key: "^(\\w+)_", index: 1, promote_index: 1 },
          },
          { key: "localDateTime", regex: { key: "T10" } },
          { key: "type", regex: { key: "IMAGE", promote_index: 0, promote_keys: ["IMAGE"] } },
        ],
      },
    ],
  });
  assert.deepEqual(criteria, {
    mode: "advanced",
    groups: [{
      operator: "AND",
      criteria: [
        { key: "originalFileName", regex: { key: "^(\\w+)_", index: 1 } },
        // In groups that are all AND (immich-stack evaluates them as one expression) a regex on a
        // time key filters, so it stays.
        { key: "localDateTime", regex: { key: "T10" } },
        { key: "type", regex: { key: "IMAGE" } },
      ],
    }],
  });
  assert.deepEqual(warnings, [
    "Ignored CRITERIA description as immich-stack does: advanced CRITERIA has no such field (it has " +
    "mode, groups, expression)",
    'Read CRITERIA groups[0].operator "or" as AND, as immich-stack does with anything but "OR": ' +
    'write "AND"',
    "Ignored CRITERIA groups[0].criteria[0].regex.promote_index and promote_keys as " +
    "immich-stack does: promote_index needs promote_keys",
    "Ignored CRITERIA groups[0].criteria[0].split as immich-stack does: the regex beside it wins",
    "Ignored CRITERIA groups[0].criteria[2].regex.promote_index and promote_keys as " +
    "immich-stack does: it promotes by file names and paths only, not type",
  ]);
  assert.doesNotThrow(() => parseCriteria(criteria));
});

Deno.test("adoptCriteria() drops a time key's regex outside an expression, where immich-stack ignores it", () => {
  const { criteria, warnings } = adoptCriteria([{ key: "localDateTime", regex: { key: "T10" } }]);
  assert.deepEqual(criteria, [{ key: "localDateTime" }]);
  assert.deepEqual(warnings, [
    "Ignored CRITERIA [0].regex as immich-stack does: it applies a regex to the time key " +
    "localDateTime only inside an expression",
  ]);
});

Deno.test("a time key's regex in an expression filters by the time as immich-stack writes it, cut to the delta", () => {
  const photo = (id: string, time: string) =>
    ({ id, originalFileName: "IMG_1.jpg", localDateTime: time }) as Asset;
  const criteria = parseCriteria({
    mode: "advanced",
    expression: {
      operator: "AND",
      children: [
        { criteria: { key: "originalFileName" } },
        // 10:00:00.900 is written 10:00:00.000000000Z once cut to the second.
        {
          criteria: {
            key: "localDateTime",
            delta: { milliseconds: 1000 },
            regex: { key: "T10:00:00\\.0+Z$" },
          },
        },
      ],
    },
  });
  const { groups, skipped } = groupAssets([
    photo("a", "2024-05-01T10:00:00.000Z"),
    photo("b", "2024-05-01T10:00:00.900Z"),
    photo("c", "2024-05-01T10:00:01.000Z"),
  ], criteria);
  assert.deepEqual(groups.map((group) => group.assets.map((asset) => asset.id)), [["a", "b"]]);
  assert.deepEqual(skipped.map(({ asset, reason }) => [asset.id, reason]), [["c", "excluded"]]);
});
