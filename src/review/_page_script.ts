/**
 * The script of the review page, private to `page.ts`. It runs in the browser: `page.ts` puts
 * the source of {@linkcode pageScript} into the page after those of {@linkcode PAGE_FUNCTIONS},
 * so each may use nothing outside itself but its parameters, the DOM, the page's data blocks and
 * those functions. Their types are checked like any other module's, against the part of the DOM
 * they use (`_page_dom.ts`); the browser test runs them against the real one.
 *
 * @module
 */
import type { PlanFile } from "../plan_file/format.ts";
import { CARD_FUNCTIONS, pageElement } from "./_page_cards.ts";
import type { PageSelect, PageWindow } from "./_page_dom.ts";
import { CardList, cardsOf, LIST_FUNCTIONS } from "./_page_list.ts";

/** The functions and classes `pageScript` uses, whose sources the page carries before its own. */
export const PAGE_FUNCTIONS: readonly unknown[] = [...CARD_FUNCTIONS, ...LIST_FUNCTIONS];

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
  const list = new CardList(plan, {
    cards: cardsOf(plan, data<number[][]>("together-data")),
    images: data<Record<string, string>>("image-data"),
    elements: {
      list: document.getElementById("cards")!,
      counter: document.getElementById("ticked")!,
      toolbar: document.getElementById("toolbar")!,
    },
  });
  const kindSelect = document.getElementById("kind") as PageSelect;
  const userSelect = document.getElementById("user") as PageSelect;
  const filter = () => list.filter(kindSelect.value, userSelect.value);
  kindSelect.addEventListener("change", filter);
  userSelect.addEventListener("change", filter);
  page.addEventListener("scroll", () => list.schedule(), { passive: true });
  page.addEventListener("resize", () => list.schedule());
  for (const button of document.querySelectorAll("button[data-kind]")) {
    button.addEventListener("click", () => {
      list.toggleKind(button.dataset.kind, button.dataset.tick === "true");
    });
  }
  const moves: Record<string, number> = {
    j: 1,
    ArrowDown: 1,
    k: -1,
    ArrowUp: -1,
    Home: -Infinity,
    End: Infinity,
  };
  page.addEventListener("keydown", (event) => {
    const { target } = event;
    if (event.altKey || event.ctrlKey || event.metaKey || target.tagName === "SELECT") return;
    if (event.key in moves) {
      event.preventDefault();
      list.move(moves[event.key]);
    } else if (event.key === " " && target.tagName !== "BUTTON" && target.tagName !== "INPUT") {
      // Not on a focused tick or button: those take Space themselves.
      event.preventDefault();
      list.toggleCurrent();
    }
  });
  document.getElementById("save")!.addEventListener("click", () => {
    const link = pageElement("a");
    link.href = URL.createObjectURL(
      new Blob([...writePlan(list.approved())], { type: "application/json" }),
    );
    link.download = "plan-approved.json";
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
  });
  filter();
}
