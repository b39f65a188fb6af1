/**
 * The part of the DOM the review page's script uses, declared for its type check: the project's
 * type check has no DOM library (adding one would change the types of every Deno module), and
 * the browser test runs the script against the real one. Types only: nothing here reaches the
 * page.
 *
 * @module
 */
import type { PlanAction, PlanConflict } from "../plan_file/format.ts";

/** An element, with what the script reads and sets on every kind. */
export interface PageElement {
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
export interface PageInput extends PageElement {
  type: string;
  checked: boolean;
}
export interface PageSelect extends PageElement {
  readonly value: string;
}
export interface PageImage extends PageElement {
  src: string;
  alt: string;
  decoding: "async" | "sync" | "auto";
}
export interface PageLink extends PageElement {
  href: string;
  download: string;
  click(): void;
}
/** The elements the script makes, by tag. */
export interface PageElements {
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
export interface PageKeyEvent {
  readonly key: string;
  readonly altKey: boolean;
  readonly ctrlKey: boolean;
  readonly metaKey: boolean;
  readonly target: PageElement;
  preventDefault(): void;
}
/** The window, with what the script uses of it. */
export interface PageWindow {
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

/** One card: an action (tickable) or a conflict left alone (for information). */
export interface Card {
  /** The user's index in the plan. */
  readonly user: number;
  readonly kind: string;
  readonly action?: PlanAction;
  readonly conflict?: PlanConflict;
  readonly key: string;
  /** The cards ticked and unticked with this one: those sharing photos or stacks. */
  readonly group: string;
}
