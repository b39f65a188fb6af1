/**
 * The components of a plan: the dependent writes (replaces, and the creates of a reset) that
 * share old stacks, and so stand or fall together. Pure.
 *
 * @module
 */
import type { Action, CreateAction, Plan, ReplaceAction } from "../model.ts";

/** A write that lists assets and depends on old stacks being gone: a replace or a reset's create. */
export type Dependent = ReplaceAction | (CreateAction & { readonly stackIds: readonly string[] });

/** Dependent writes that share old stacks, in plan order, with those stacks. */
export interface Component {
  readonly actions: Dependent[];
  readonly stackIds: Set<string>;
}

/** Groups the dependent writes that share old stacks (union by stack id). */
export function componentsOf(plan: Plan): Map<Action, Component> {
  const byStack = new Map<string, Component>();
  const byAction = new Map<Action, Component>();
  for (const action of plan.actions) {
    const stackIds = action.kind === "replace"
      ? action.stackIds
      : action.kind === "create"
      ? action.stackIds
      : undefined;
    if (stackIds === undefined || stackIds.length === 0) continue;
    const dependent = action as Dependent;
    let component: Component = { actions: [dependent], stackIds: new Set(stackIds) };
    for (const id of stackIds) {
      const other = byStack.get(id);
      if (other === undefined || other === component) continue;
      // Merge the smaller into the larger; actions keep plan order.
      const [big, small] = other.actions.length >= component.actions.length
        ? [other, component]
        : [component, other];
      big.actions.push(...small.actions);
      big.actions.sort((a, b) => plan.actions.indexOf(a) - plan.actions.indexOf(b));
      for (const stackId of small.stackIds) big.stackIds.add(stackId);
      component = big;
    }
    for (const id of component.stackIds) byStack.set(id, component);
    for (const member of component.actions) byAction.set(member, component);
  }
  return byAction;
}
