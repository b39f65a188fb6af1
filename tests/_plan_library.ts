/**
 * The library the tests of `plan`, `apply` and the review page share: the end-to-end test
 * library with fixed asset ids (two servers hold the same photos, and the page's screenshot
 * stays the same), plus stacks that make a plan of every kind.
 *
 * @module
 */
import { LIBRARY, type Library, type LibraryAsset, makeStack } from "./_e2e.ts";
import type { TestStack } from "./immich_server.ts";

/** {@linkcode LIBRARY} with an id per photo that is the same on every server. */
export const PLAN_LIBRARY: readonly LibraryAsset[] = LIBRARY.map((asset, i) => ({
  ...asset,
  more: { ...asset.more, id: `00000000-0000-4000-8000-${String(i + 1).padStart(12, "0")}` },
}));

/** The settings under which {@linkcode reviewStacks} plan one action of every kind. */
export const EVERY_KIND = { REPLACE_STACKS: "true", REMOVE_SINGLE_ASSET_STACKS: "true" };

/** The stacks {@linkcode reviewStacks} makes, by what the plan does to them. */
export interface ReviewStacks {
  /** IMG_0001.dng before IMG_0001.jpg: a new cover. */
  readonly cover: TestStack;
  /** IMG_0004.jpg and .dng without the edit: the edit joins. */
  readonly grow: TestStack;
  /** IMG_0002.jpg with IMG_0100.jpg, which is no part of its group: replaced. */
  readonly mixed: TestStack;
  /** IMG_0101.jpg alone: deleted with REMOVE_SINGLE_ASSET_STACKS. */
  readonly single: TestStack;
}

/**
 * Makes the stacks that, with {@linkcode EVERY_KIND}, give a plan of one delete, one replace,
 * one new cover, one grow and four creates.
 *
 * @param library A library of {@linkcode PLAN_LIBRARY}.
 * @returns The stacks made.
 */
export function reviewStacks(library: Library): ReviewStacks {
  return {
    cover: makeStack(library, "IMG_0001.dng", "IMG_0001.jpg"),
    grow: makeStack(library, "IMG_0004.jpg", "IMG_0004.dng"),
    mixed: makeStack(library, "IMG_0002.jpg", "IMG_0100.jpg"),
    single: makeStack(library, "IMG_0101.jpg", "IMG_0101.jpg"),
  };
}
