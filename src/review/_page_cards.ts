/**
 * How the review page draws one card: its pictures, the stack to be and the stacks as they are.
 * These functions run in the browser: `page.ts` puts their sources into the page beside
 * `pageScript`'s, so each may use nothing but its parameters, the DOM and the other functions of
 * {@linkcode CARD_FUNCTIONS} (docs/plan-file.md, "The review page").
 *
 * @module
 */
import type { PlanAsset, PlanStack } from "../plan_file/format.ts";
import type { Card, PageElement, PageElements, PageWindow } from "./_page_dom.ts";

/** The pictures, by asset id, as the page's data block holds them. */
export type Images = Readonly<Record<string, string>>;

/** A note beside a photo of a list, such as "cover" or "joins", or "" for none. */
type Note = (asset: PlanAsset, index: number) => string;

/** What a card shows of its place in the page, and what it does when used. */
export interface CardView {
  readonly ticked: boolean;
  /** The label of the card's kind. */
  readonly badge: string;
  /** The user's name, where the plan has more than one user. */
  readonly user?: string;
  /** The other cards ticked and unticked with this one. */
  readonly together: number;
  /** The card was clicked: it becomes the current one. */
  select(): void;
  /** Its tick changed. */
  tick(on: boolean): void;
}

/** Makes an element of the page, with its class and text. */
export function pageElement<K extends keyof PageElements>(
  tag: K,
  className?: string,
  text?: string,
): PageElements[K] {
  const node = (globalThis as unknown as PageWindow).document.createElement(tag);
  if (className !== undefined) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A photo's local capture time as the page shows it, without zone or zero milliseconds. */
function shownTime(asset: PlanAsset): string {
  return asset.localDateTime === undefined
    ? ""
    : asset.localDateTime.replace("T", " ").replace(/(\.000)?(Z|[+-]\d\d:\d\d)$/, "");
}

/** A photo's picture, or its file name where the page has none. */
function picture(asset: PlanAsset, size: string, images: Images): PageElement {
  const src = images[asset.id];
  if (src === undefined) {
    const none = pageElement("div", `picture none ${size}`, asset.originalFileName);
    none.title = asset.originalFileName;
    return none;
  }
  const image = pageElement("img", `picture ${size}`);
  image.src = src;
  image.alt = asset.originalFileName;
  image.decoding = "async";
  return image;
}

/** A photo's line: a small picture, its name, and its time with a note such as "cover". */
function memberItem(asset: PlanAsset, note: string, images: Images): PageElement {
  const item = pageElement("li");
  item.append(picture(asset, "small", images));
  const text = pageElement("div", "text");
  const name = pageElement("span", "name", asset.originalFileName);
  name.title = asset.originalFileName;
  const line = pageElement("span", "line", shownTime(asset));
  if (note !== "") line.append(pageElement("span", "note", note));
  text.append(name, line);
  item.append(text);
  return item;
}

/** The first photos of a list, and how many more there are. */
function memberList(assets: readonly PlanAsset[], note: Note, images: Images): PageElement {
  const shown = 4;
  const items = pageElement("ul", "members");
  assets.slice(0, shown).forEach((asset, i) =>
    items.append(memberItem(asset, note(asset, i), images))
  );
  if (assets.length > shown) {
    items.append(pageElement("li", "more", `and ${assets.length - shown} more`));
  }
  return items;
}

/** Notes joined with commas, the empty ones left out. */
function marks(...notes: string[]): string {
  return notes.filter((note) => note !== "").join(", ");
}

/** The stack to be: its cover large, every photo listed. */
function targetSide(
  title: string,
  assets: readonly PlanAsset[],
  sides: { readonly note: (asset: PlanAsset) => string; readonly images: Images },
): PageElement {
  const side = pageElement("section", "side target");
  side.append(pageElement("h3", undefined, title));
  const row = pageElement("div", "row");
  row.append(
    picture(assets[0], "cover", sides.images),
    memberList(assets, (a, i) => marks(i === 0 ? "cover" : "", sides.note(a)), sides.images),
  );
  side.append(row);
  return side;
}

/** The stacks as they are now. */
function nowSide(
  stacks: readonly PlanStack[],
  sides: { readonly note: (asset: PlanAsset) => string; readonly images: Images },
): PageElement {
  const side = pageElement("section", "side now");
  side.append(
    pageElement(
      "h3",
      undefined,
      stacks.length === 1 ? "Now: 1 stack" : `Now: ${stacks.length} stacks`,
    ),
  );
  for (const stack of stacks.slice(0, 2)) {
    side.append(memberList(stack.assets, (a, i) =>
      marks(
        i === 0 ? "cover" : "",
        a.trashed ? "in the trash" : "",
        a.hidden ? "hidden" : "",
        sides.note(a),
      ), sides.images));
  }
  if (stacks.length > 2) {
    side.append(pageElement("p", "more", `and ${stacks.length - 2} more stacks`));
  }
  return side;
}

/** A card's body: what its action makes beside what is there now. */
function cardBody(card: Card, images: Images): PageElement {
  const body = pageElement("div", "body");
  const none = { note: () => "", images };
  const action = card.action;
  if (action === undefined) {
    const conflict = card.conflict!;
    body.append(targetSide("The group", conflict.assets, none), nowSide(conflict.stacks, none));
  } else if (action.kind === "delete") {
    body.append(targetSide("Now: 1 stack", action.stacks[0].assets, {
      note: (a) => a.trashed ? "in the trash" : "",
      images,
    }));
    const after = pageElement("section", "side");
    after.append(
      pageElement("h3", undefined, "Will be"),
      pageElement("p", "outcome", "No stack: the photos stay"),
    );
    body.append(after);
  } else {
    const added = new Set(action.added ?? []);
    const removed = new Map((action.removed ?? []).map((r) => [r.id, r.reason]));
    const old = action.kind === "update-primary" ? action.stacks[0]?.primaryAssetId : undefined;
    body.append(targetSide(action.kind === "create" ? "New stack" : "Will be", action.assets, {
      note: (a) => added.has(a.id) ? "joins" : a.id === old ? "was the cover" : "",
      images,
    }));
    if (action.stacks.length > 0) {
      body.append(
        nowSide(action.stacks, { note: (a) => removed.has(a.id) ? "leaves" : "", images }),
      );
    }
  }
  return body;
}

/**
 * Draws a card: its head (tick, kind, user, reason, rule, the cards it goes with) and its body.
 *
 * @param card The card.
 * @param view Its state in the page, and what it does when used; the pictures.
 * @returns The card's element.
 */
export function cardNode(card: Card, view: CardView & { readonly images: Images }): PageElement {
  const node = pageElement("article", `card kind-${card.kind}`);
  node.dataset.key = card.key;
  // A card clicked (its tick too) becomes the current one, which the keys start from.
  node.addEventListener("click", () => view.select());
  node.dataset.kind = card.kind;
  const head = pageElement("header");
  if (card.action !== undefined) {
    const box = pageElement("input", "tick");
    box.type = "checkbox";
    box.checked = view.ticked;
    box.setAttribute("aria-label", "Apply this action");
    box.addEventListener("change", () => view.tick(box.checked));
    head.append(box);
    node.dataset.id = card.action.id;
    node.title = `action ${card.action.id}`;
  }
  head.append(pageElement("span", "badge", view.badge));
  if (view.user !== undefined) head.append(pageElement("span", "user", view.user));
  const entry = card.action ?? card.conflict!;
  head.append(pageElement("span", "reason", entry.reason.text));
  if (entry.rule !== undefined) head.append(pageElement("span", "rule", entry.rule));
  if (view.together > 0) {
    head.append(pageElement("span", "together", `goes with ${view.together} more`));
  }
  node.append(head, cardBody(card, view.images));
  return node;
}

/** The functions whose sources the page carries for drawing cards. */
export const CARD_FUNCTIONS: readonly ((...args: never[]) => unknown)[] = [
  pageElement,
  shownTime,
  picture,
  memberItem,
  memberList,
  marks,
  targetSide,
  nowSide,
  cardBody,
  cardNode,
];
