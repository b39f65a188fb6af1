import assert from "node:assert/strict";
import type { Asset } from "../src/model.ts";
import { CameraReader } from "../src/api/_camera.ts";
import {
  DEFAULT_CRITERIA,
  DEVICE_RULES,
  type GroupingRules,
  promotionInputs,
} from "../src/grouping/criteria.ts";
import { groupAssets } from "../src/grouping/group.ts";
import { createParentOrder } from "../src/promotion/parent.ts";
import { CORPUS, type CorpusCase, type CorpusKind } from "./_default_rules_corpus.ts";

/** The promote settings' defaults (src/config.ts). */
const PROMOTE = {
  filenamePromote: ["cover", "edit", "crop", "hdr", "biggestNumber"],
  extPromote: [".jpg", ".png", ".jpeg", ".heic", ".dng"],
};

/** A case's photos as the client reads them from a search with EXIF; ids are the labels. */
function assetsOf(c: CorpusCase): Asset[] {
  const reader = new CameraReader();
  return c.files.map((file) => {
    const asset: Record<string, unknown> = {
      id: file.label,
      originalFileName: file.name,
      localDateTime: file.at,
    };
    reader.read(file.exif, asset);
    return asset as unknown as Asset;
  });
}

/** Stacks as `cover | the others, sorted`, sorted: what a case expects, whatever the order. */
function normal(stacks: readonly (readonly string[])[]): string[] {
  return stacks.map(([cover, ...rest]) => `${cover} | ${[...rest].sort().join(", ")}`).sort();
}

/** The stacks the rules make of a case, cover first. */
function stacksOf(c: CorpusCase, rules: GroupingRules): string[] {
  const { regexPromotions, delimiters } = promotionInputs(rules);
  const order = createParentOrder({
    ...PROMOTE,
    regexPromotions,
    ...(delimiters.length > 0 ? { delimiters } : {}),
  });
  const { groups } = groupAssets(assetsOf(c), rules);
  return normal(groups.map((group) => order.promote(group).assets.map((a) => a.id)));
}

/** How many cases of each kind the rules get right. */
function score(rules: GroupingRules): Record<CorpusKind | "all", string> {
  const counts = new Map<string, [number, number]>();
  for (const c of CORPUS) {
    const right = stacksOf(c, rules).join("\n") === normal(c.stacks).join("\n") ? 1 : 0;
    for (const kind of [c.kind, "all"]) {
      const [passed, total] = counts.get(kind) ?? [0, 0];
      counts.set(kind, [passed + right, total + 1]);
    }
  }
  return Object.fromEntries(
    [...counts].map(([kind, [passed, total]]) => [kind, `${passed}/${total}`]),
  ) as Record<CorpusKind | "all", string>;
}

Deno.test("the default rules stack every case of the corpus as expected", async (t) => {
  for (const c of CORPUS) {
    await t.step(`${c.kind}: ${c.name}`, () => {
      assert.deepEqual(stacksOf(c, DEVICE_RULES), normal(c.stacks), c.source);
    });
  }
});

Deno.test("the corpus covers every kind, each case with its source and unique labels", () => {
  const kinds = new Map<string, number>();
  for (const c of CORPUS) {
    kinds.set(c.kind, (kinds.get(c.kind) ?? 0) + 1);
    assert.ok(c.source !== "", c.name);
    const labels = c.files.map((file) => file.label);
    assert.equal(new Set(labels).size, labels.length, c.name);
    for (const stack of c.stacks) for (const label of stack) assert.ok(labels.includes(label));
  }
  assert.deepEqual(Object.fromEntries(kinds), {
    "raw+jpeg": 28,
    burst: 20,
    edit: 34,
    bracket: 6,
    live: 5,
    apart: 26,
  });
});

Deno.test("on the corpus immich-stack's default CRITERIA get 51 of 119 right (docs/default-rules.md)", () => {
  assert.deepEqual(score(DEFAULT_CRITERIA), {
    "raw+jpeg": "26/28",
    burst: "0/20",
    edit: "4/34",
    bracket: "0/6",
    live: "2/5",
    apart: "19/26",
    all: "51/119",
  });
  assert.equal(score(DEVICE_RULES).all, "119/119");
});
