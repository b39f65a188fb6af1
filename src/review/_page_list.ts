/**
 * The review page's list of cards: which cards there are, which are ticked, which pass the
 * filters, and the few on screen that are in the document (so 50 000 cards scroll as easily as
 * 50). This runs in the browser: `page.ts` puts the sources of {@linkcode LIST_FUNCTIONS} into
 * the page beside `pageScript`'s, so each may use nothing but its parameters, the DOM and the
 * page's other functions (`_page_cards.ts`).
 *
 * @module
 */
import type { PlanFile } from "../plan_file/format.ts";
import { cardNode, type Images } from "./_page_cards.ts";
import type { Card, PageElement, PageInput, PageWindow } from "./_page_dom.ts";

/** The elements the list reads and sets. */
export interface ListElements {
  /** The list, whose `data-card-height` is a card's height in pixels, gap included. */
  readonly list: PageElement;
  /** The line that counts the ticked actions. */
  readonly counter: PageElement;
  /** The sticky toolbar, which a card revealed must not hide under. */
  readonly toolbar: PageElement;
}

/**
 * A card per action and per conflict left alone, user after user, and the cards of actions
 * that go together (`together`: per user, per action, its group's number).
 */
export function cardsOf(plan: PlanFile, together: readonly (readonly number[])[]): Card[] {
  const cards: Card[] = [];
  plan.users.forEach((user, u) => {
    user.actions.forEach((action, i) => {
      const group = `${u}/${together[u][i]}`;
      cards.push({ user: u, kind: action.kind, action, key: `${u}/${action.id}`, group });
    });
    user.needsReplace.forEach((conflict, i) => {
      cards.push({ user: u, kind: "needs-replace", conflict, key: `${u}/c${i}`, group: "" });
    });
  });
  return cards;
}

/** The list of cards, what is ticked, the cards that pass the filters and the current one. */
export class CardList {
  readonly #page = globalThis as unknown as PageWindow;
  readonly #plan: PlanFile;
  readonly #cards: readonly Card[];
  readonly #images: Images;
  readonly #elements: ListElements;
  readonly #height: number;
  readonly #byGroup = new Map<string, Card[]>();
  readonly #ticked: Set<string>;
  readonly #actions: number;
  readonly #shown = new Map<number, PageElement>();
  #visible: number[] = [];
  #current = 0;
  #pending = false;

  /**
   * @param plan The plan the page shows.
   * @param parts Its cards ({@linkcode cardsOf}), pictures and elements.
   */
  constructor(
    plan: PlanFile,
    parts: { readonly cards: readonly Card[]; images: Images; elements: ListElements },
  ) {
    this.#plan = plan;
    this.#cards = parts.cards;
    this.#images = parts.images;
    this.#elements = parts.elements;
    this.#height = Number(parts.elements.list.dataset.cardHeight);
    for (const card of this.#cards) {
      if (card.action === undefined) continue;
      this.#byGroup.set(card.group, [...this.#byGroup.get(card.group) ?? [], card]);
    }
    const actions = this.#cards.filter((card) => card.action !== undefined);
    this.#ticked = new Set(actions.map((card) => card.key));
    this.#actions = this.#ticked.size;
  }

  /** Shows the cards of a kind and a user (`"all"` for any), from the first. */
  filter(kind: string, user: string): void {
    this.#visible = [];
    this.#cards.forEach((card, i) => {
      if (
        (kind === "all" || card.kind === kind) && (user === "all" || String(card.user) === user)
      ) {
        this.#visible.push(i);
      }
    });
    this.#current = 0;
    this.#elements.list.style.height = `${this.#visible.length * this.#height}px`;
    for (const node of this.#shown.values()) node.remove();
    this.#shown.clear();
    this.#render();
    this.#refresh();
  }

  /** Draws the cards on screen at the next frame (scroll, resize). */
  schedule(): void {
    if (this.#pending) return;
    this.#pending = true;
    this.#page.requestAnimationFrame(() => this.#render());
  }

  /** Ticks or unticks a card and those that go with it. */
  toggle(card: Card, on: boolean): void {
    for (const other of this.#byGroup.get(card.group) ?? [card]) {
      if (on) this.#ticked.add(other.key);
      else this.#ticked.delete(other.key);
    }
    for (const [position, node] of this.#shown) {
      const box = node.querySelector("input.tick") as PageInput | null;
      if (box !== null) box.checked = this.#ticked.has(this.#cards[this.#visible[position]].key);
    }
    this.#refresh();
  }

  /** Ticks or unticks every action of a kind. */
  toggleKind(kind: string | undefined, on: boolean): void {
    for (const card of this.#cards) if (card.kind === kind && card.action) this.toggle(card, on);
  }

  /** Moves the current card by `step` shown cards (±Infinity: the first or last), in view. */
  move(step: number): void {
    this.#current = Math.max(0, Math.min(this.#visible.length - 1, this.#current + step));
    this.#reveal();
  }

  /** Ticks the current card if it was not, and unticks it if it was. */
  toggleCurrent(): void {
    const card = this.#cards[this.#visible[this.#current]];
    if (card?.action !== undefined) this.toggle(card, !this.#ticked.has(card.key));
  }

  /** The plan with only the ticked actions. */
  approved(): PlanFile {
    return {
      ...this.#plan,
      users: this.#plan.users.map((user, u) => ({
        ...user,
        actions: user.actions.filter((action) => this.#ticked.has(`${u}/${action.id}`)),
      })),
    };
  }

  #listTop(): number {
    return this.#elements.list.getBoundingClientRect().top + this.#page.scrollY;
  }

  #place(node: PageElement, position: number): void {
    node.style.transform = `translateY(${position * this.#height}px)`;
    node.classList.toggle("current", position === this.#current);
    const key = this.#cards[this.#visible[position]].key;
    node.classList.toggle("unticked", !this.#ticked.has(key));
  }

  /** Puts in the document the cards on screen and a few around them, and only those. */
  #render(): void {
    this.#pending = false;
    const page = this.#page;
    const top = page.scrollY - this.#listTop();
    const first = Math.max(0, Math.floor(top / this.#height) - 4);
    const last = Math.min(
      this.#visible.length,
      Math.ceil((top + page.innerHeight) / this.#height) + 4,
    );
    for (const [position, node] of this.#shown) {
      if (position < first || position >= last) {
        node.remove();
        this.#shown.delete(position);
      }
    }
    for (let position = first; position < last; position++) {
      let node = this.#shown.get(position);
      if (node === undefined) {
        node = this.#build(this.#visible[position]);
        this.#shown.set(position, node);
        this.#elements.list.append(node);
      }
      this.#place(node, position);
    }
  }

  #build(index: number): PageElement {
    const card = this.#cards[index];
    const users = this.#plan.users;
    return cardNode(card, {
      ticked: this.#ticked.has(card.key),
      badge: card.kind === "update-primary"
        ? "new cover"
        : card.kind === "needs-replace"
        ? "needs replace"
        : card.kind,
      ...users.length > 1 ? { user: users[card.user].name } : {},
      together: (this.#byGroup.get(card.group)?.length ?? 1) - 1,
      images: this.#images,
      select: () => {
        this.#current = this.#visible.indexOf(index);
        this.#refresh();
      },
      tick: (on) => this.toggle(card, on),
    });
  }

  #refresh(): void {
    for (const [position, node] of this.#shown) this.#place(node, position);
    this.#elements.counter.textContent = `${this.#ticked.size} of ${this.#actions} actions ticked`;
  }

  /** Scrolls so that the current card is on screen, below the sticky toolbar. */
  #reveal(): void {
    const page = this.#page;
    const height = this.#height;
    const top = this.#listTop() + this.#current * height;
    const bar = this.#elements.toolbar.getBoundingClientRect().height;
    if (top < page.scrollY + bar) page.scrollTo(0, top - bar - 8);
    else if (top + height > page.scrollY + page.innerHeight) {
      page.scrollTo(0, top + height - page.innerHeight + 8);
    }
    this.#render();
    this.#refresh();
  }
}

/** The functions and classes whose sources the page carries for its list. */
export const LIST_FUNCTIONS: readonly unknown[] = [cardsOf, CardList];
