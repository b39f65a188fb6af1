/**
 * The script of the review page, private to `page.ts`. It runs in the browser: `page.ts` puts
 * the source of {@linkcode pageScript} into the page, so the function may use nothing outside
 * itself but its parameter, the DOM and the page's data blocks. Its types are checked like any
 * other module's, against the part of the DOM it uses, declared below (the project's type check
 * has no DOM library: adding one would change the types of every Deno module); the browser test
 * runs it against the real one.
 *
 * @module
 */
import type {
  PlanAction,
  PlanAsset,
  PlanConflict,
  PlanFile,
  PlanStack,
} from "../plan_file/format.ts";

/** An element, with what the script reads and sets on every kind. */
interface PageElement {
  textContent: string | null;
  className: string;
  title: string;
  readonly tagName: string;
  readonly dataset: Record<string, string | undefined>;
  readonly style: { transform: string; height: string };
  readonly classList: { toggle(token: string, force: boolean): boolean };
  append(...nodes: PageElement[]): void;
  remove(): void;
  setAttribute(name: string, value: string): void;
  querySelector(selectors: string): PageElement | null;
  addEventListener(type: "change" | "click", listener: () => void): void;
  getBoundingClientRect(): { readonly top: number; readonly height: number };
}
interface PageInput extends PageElement {
  type: string;
  checked: boolean;
}
interface PageSelect extends PageElement {
  readonly value: string;
}
interface PageImage extends PageElement {
  src: string;
  alt: string;
  decoding: "async" | "sync" | "auto";
}
interface PageLink extends PageElement {
  href: string;
  download: string;
  click(): void;
}
/** The elements the script makes, by tag. */
interface PageElements {
  article: PageElement;
  div: PageElement;
  header: PageElement;
  h3: PageElement;
  li: PageElement;
  p: PageElement;
  section: PageElement;
  span: PageElement;
  ul: PageElement;
  input: PageInput;
  img: PageImage;
  a: PageLink;
}
interface PageKeyEvent {
  readonly key: string;
  readonly altKey: boolean;
  readonly ctrlKey: boolean;
  readonly metaKey: boolean;
  readonly target: PageElement;
  preventDefault(): void;
}
/** The window, with what the script uses of it. */
interface PageWindow {
  readonly document: {
    getElementById(id: string): PageElement | null;
    createElement<K extends keyof PageElements>(tag: K): PageElements[K];
    querySelectorAll(selectors: string): Iterable<PageElement>;
  };
  readonly scrollY: number;
  readonly innerHeight: number;
  scrollTo(x: number, y: number): void;
  requestAnimationFrame(callback: () => void): number;
  addEventListener(type: "scroll" | "resize", listener: () => void, options?: object): void;
  addEventListener(type: "keydown", listener: (event: PageKeyEvent) => void): void;
}

/**
 * Builds the review page from its data blocks: one card per action (and per conflict left
 * alone) in a list that renders only the cards on screen, the filters, the ticks, the keys and
 * the save button.
 *
 * @param writePlan Writes a plan file's text, in pieces (the plan command's own writer).
 */
export function pageScript(writePlan: (plan: PlanFile) => Iterable<string>): void {
  const page = globalThis as unknown as PageWindow;
  const { document } = page;
  const data = <T>(id: string): T => JSON.parse(document.getElementById(id)!.textContent!) as T;
  const plan = data<PlanFile>("plan-data");
  const images = data<Record<string, string>>("image-data");
  const together = data<number[][]>("together-data");

  const list = document.getElementById("cards")!;
  const height = Number(list.dataset.cardHeight);
  const kindSelect = document.getElementById("kind") as PageSelect;
  const userSelect = document.getElementById("user") as PageSelect;
  const counter = document.getElementById("ticked")!;
  const toolbar = document.getElementById("toolbar")!;
  const BADGES: Record<string, string> = {
    "create": "create",
    "grow": "grow",
    "update-primary": "new cover",
    "replace": "replace",
    "delete": "delete",
    "needs-replace": "needs replace",
  };

  /** One card: an action (tickable) or a conflict left alone (for information). */
  interface Card {
    readonly user: number;
    readonly kind: string;
    readonly action?: PlanAction;
    readonly conflict?: PlanConflict;
    /** The cards ticked and unticked with this one: those sharing photos or stacks. */
    readonly key: string;
    readonly group: string;
  }
  const cards: Card[] = [];
  plan.users.forEach((user, u) => {
    user.actions.forEach((action, i) => {
      cards.push({
        user: u,
        kind: action.kind,
        action,
        key: `${u}/${action.id}`,
        group: `${u}/${together[u][i]}`,
      });
    });
    user.needsReplace.forEach((conflict, i) => {
      cards.push({ user: u, kind: "needs-replace", conflict, key: `${u}/c${i}`, group: "" });
    });
  });
  const byGroup = new Map<string, Card[]>();
  for (const card of cards) {
    if (card.action !== undefined) {
      byGroup.set(card.group, [...byGroup.get(card.group) ?? [], card]);
    }
  }
  const ticked = new Set(cards.filter((card) => card.action !== undefined).map((c) => c.key));
  const actions = ticked.size;

  let visible: number[] = [];
  let current = 0;
  const shown = new Map<number, PageElement>();

  const el = <K extends keyof PageElements>(
    tag: K,
    className?: string,
    text?: string,
  ): PageElements[K] => {
    const node = document.createElement(tag);
    if (className !== undefined) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const time = (asset: PlanAsset) =>
    asset.localDateTime === undefined
      ? ""
      : asset.localDateTime.replace("T", " ").replace(/(\.000)?(Z|[+-]\d\d:\d\d)$/, "");
  const picture = (asset: PlanAsset, size: string) => {
    const src = images[asset.id];
    if (src === undefined) {
      const none = el("div", `picture none ${size}`, asset.originalFileName);
      none.title = asset.originalFileName;
      return none;
    }
    const image = el("img", `picture ${size}`);
    image.src = src;
    image.alt = asset.originalFileName;
    image.decoding = "async";
    return image;
  };
  /** A photo's line: a small picture, its name, and its time with a note such as "cover". */
  const member = (asset: PlanAsset, note: string) => {
    const item = el("li");
    item.append(picture(asset, "small"));
    const text = el("div", "text");
    const name = el("span", "name", asset.originalFileName);
    name.title = asset.originalFileName;
    const line = el("span", "line", time(asset));
    if (note !== "") line.append(el("span", "note", note));
    text.append(name, line);
    item.append(text);
    return item;
  };
  const MEMBERS = 4;
  const members = (assets: readonly PlanAsset[], note: (asset: PlanAsset, i: number) => string) => {
    const items = el("ul", "members");
    assets.slice(0, MEMBERS).forEach((asset, i) => items.append(member(asset, note(asset, i))));
    if (assets.length > MEMBERS) {
      items.append(el("li", "more", `and ${assets.length - MEMBERS} more`));
    }
    return items;
  };
  const marks = (...notes: string[]) => notes.filter((note) => note !== "").join(", ");
  /** The stack to be: its cover large, every photo listed. */
  const target = (title: string, assets: readonly PlanAsset[], note: (a: PlanAsset) => string) => {
    const side = el("section", "side target");
    side.append(el("h3", undefined, title));
    const row = el("div", "row");
    row.append(
      picture(assets[0], "cover"),
      members(assets, (a, i) => marks(i === 0 ? "cover" : "", note(a))),
    );
    side.append(row);
    return side;
  };
  /** The stacks as they are now. */
  const now = (stacks: readonly PlanStack[], note: (a: PlanAsset) => string) => {
    const side = el("section", "side now");
    side.append(
      el("h3", undefined, stacks.length === 1 ? "Now: 1 stack" : `Now: ${stacks.length} stacks`),
    );
    for (const stack of stacks.slice(0, 2)) {
      side.append(members(stack.assets, (a, i) =>
        marks(
          i === 0 ? "cover" : "",
          a.trashed ? "in the trash" : "",
          a.hidden ? "hidden" : "",
          note(a),
        )));
    }
    if (stacks.length > 2) side.append(el("p", "more", `and ${stacks.length - 2} more stacks`));
    return side;
  };

  const build = (index: number): PageElement => {
    const card = cards[index];
    const node = el("article", `card kind-${card.kind}`);
    node.dataset.key = card.key;
    // A card clicked (its tick too) becomes the current one, which the keys start from.
    node.addEventListener("click", () => {
      current = visible.indexOf(index);
      refresh();
    });
    node.dataset.kind = card.kind;
    const head = el("header");
    if (card.action !== undefined) {
      const box = el("input", "tick");
      box.type = "checkbox";
      box.checked = ticked.has(card.key);
      box.setAttribute("aria-label", "Apply this action");
      box.addEventListener("change", () => toggle(card, box.checked));
      head.append(box);
      node.dataset.id = card.action.id;
      node.title = `action ${card.action.id}`;
    }
    head.append(el("span", "badge", BADGES[card.kind]));
    if (plan.users.length > 1) head.append(el("span", "user", plan.users[card.user].name));
    const entry = card.action ?? card.conflict!;
    head.append(el("span", "reason", entry.reason.text));
    if (entry.rule !== undefined) head.append(el("span", "rule", entry.rule));
    const size = byGroup.get(card.group)?.length ?? 1;
    if (size > 1) head.append(el("span", "together", `goes with ${size - 1} more`));
    node.append(head);
    const body = el("div", "body");
    const action = card.action;
    if (action === undefined) {
      body.append(target("The group", entry.assets, () => ""), now(entry.stacks, () => ""));
    } else if (action.kind === "delete") {
      const stack = action.stacks[0];
      body.append(target("Now: 1 stack", stack.assets, (a) => a.trashed ? "in the trash" : ""));
      const after = el("section", "side");
      after.append(el("h3", undefined, "Will be"), el("p", "outcome", "No stack: the photos stay"));
      body.append(after);
    } else {
      const added = new Set(action.added ?? []);
      const removed = new Map((action.removed ?? []).map((r) => [r.id, r.reason]));
      const old = action.kind === "update-primary" ? action.stacks[0]?.primaryAssetId : undefined;
      body.append(target(
        action.kind === "create" ? "New stack" : "Will be",
        action.assets,
        (a) => added.has(a.id) ? "joins" : a.id === old ? "was the cover" : "",
      ));
      if (action.stacks.length > 0) {
        body.append(now(action.stacks, (a) => removed.has(a.id) ? "leaves" : ""));
      }
    }
    node.append(body);
    return node;
  };

  const listTop = () => list.getBoundingClientRect().top + page.scrollY;
  const place = (node: PageElement, position: number) => {
    node.style.transform = `translateY(${position * height}px)`;
    node.classList.toggle("current", position === current);
    node.classList.toggle("unticked", !ticked.has(cards[visible[position]].key));
  };
  let pending = false;
  const render = () => {
    pending = false;
    const top = page.scrollY - listTop();
    const first = Math.max(0, Math.floor(top / height) - 4);
    const last = Math.min(visible.length, Math.ceil((top + page.innerHeight) / height) + 4);
    for (const [position, node] of shown) {
      if (position < first || position >= last) {
        node.remove();
        shown.delete(position);
      }
    }
    for (let position = first; position < last; position++) {
      let node = shown.get(position);
      if (node === undefined) {
        node = build(visible[position]);
        shown.set(position, node);
        list.append(node);
      }
      place(node, position);
    }
  };
  const schedule = () => {
    if (pending) return;
    pending = true;
    page.requestAnimationFrame(render);
  };
  const refresh = () => {
    for (const [position, node] of shown) place(node, position);
    counter.textContent = `${ticked.size} of ${actions} actions ticked`;
  };
  const redraw = () => {
    for (const node of shown.values()) node.remove();
    shown.clear();
    render();
    refresh();
  };
  const toggle = (card: Card, on: boolean) => {
    for (const other of byGroup.get(card.group) ?? [card]) {
      if (on) ticked.add(other.key);
      else ticked.delete(other.key);
    }
    for (const [position, node] of shown) {
      const box = node.querySelector("input.tick") as PageInput | null;
      if (box !== null) box.checked = ticked.has(cards[visible[position]].key);
    }
    refresh();
  };
  const filter = () => {
    const kind = kindSelect.value;
    const user = userSelect.value;
    visible = [];
    cards.forEach((card, i) => {
      if (
        (kind === "all" || card.kind === kind) && (user === "all" || String(card.user) === user)
      ) {
        visible.push(i);
      }
    });
    current = 0;
    list.style.height = `${visible.length * height}px`;
    redraw();
  };
  /** Scrolls so that the current card is on screen, below the sticky toolbar. */
  const reveal = () => {
    const top = listTop() + current * height;
    const bar = toolbar.getBoundingClientRect().height;
    if (top < page.scrollY + bar) page.scrollTo(0, top - bar - 8);
    else if (top + height > page.scrollY + page.innerHeight) {
      page.scrollTo(0, top + height - page.innerHeight + 8);
    }
    render();
    refresh();
  };

  kindSelect.addEventListener("change", filter);
  userSelect.addEventListener("change", filter);
  page.addEventListener("scroll", schedule, { passive: true });
  page.addEventListener("resize", schedule);
  for (const button of document.querySelectorAll("button[data-kind]")) {
    button.addEventListener("click", () => {
      const on = button.dataset.tick === "true";
      for (const card of cards) {
        if (card.kind === button.dataset.kind && card.action) toggle(card, on);
      }
    });
  }
  page.addEventListener("keydown", (event) => {
    const { target } = event;
    if (event.altKey || event.ctrlKey || event.metaKey || target.tagName === "SELECT") return;
    const moves: Record<string, number> = {
      j: 1,
      ArrowDown: 1,
      k: -1,
      ArrowUp: -1,
      Home: -Infinity,
      End: Infinity,
    };
    if (event.key in moves) {
      event.preventDefault();
      current = Math.max(0, Math.min(visible.length - 1, current + moves[event.key]));
      reveal();
    } else if (event.key === " " && target.tagName !== "BUTTON" && target.tagName !== "INPUT") {
      // Not on a focused tick or button: those take Space themselves.
      event.preventDefault();
      const card = cards[visible[current]];
      if (card?.action !== undefined) toggle(card, !ticked.has(card.key));
    }
  });
  document.getElementById("save")!.addEventListener("click", () => {
    const approved: PlanFile = {
      ...plan,
      users: plan.users.map((user, u) => ({
        ...user,
        actions: user.actions.filter((action) => ticked.has(`${u}/${action.id}`)),
      })),
    };
    const link = el("a");
    link.href = URL.createObjectURL(
      new Blob([...writePlan(approved)], { type: "application/json" }),
    );
    link.download = "plan-approved.json";
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
  });
  filter();
}
