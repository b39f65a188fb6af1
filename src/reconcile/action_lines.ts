/**
 * What the applier's log lines say of an action: the write it makes, and its properties.
 *
 * @module
 */
import type { Action } from "../model.ts";
import { fileList } from "./render.ts";

/** The write a dependent or single action makes, for "Skipped …" and "Stopped before …" lines. */
export function describeWrite(action: Action): string {
  switch (action.kind) {
    case "replace":
      return `creating the stack that replaces ${action.stackIds.join(", ")}`;
    case "create":
      return `creating a stack of ${action.assetIds.length} assets`;
    case "grow":
    case "update-primary":
      return `updating stack ${action.stackId}`;
    case "delete":
      return `deleting stack ${action.stackId}`;
  }
}

/** The text of an error, whatever was thrown. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Context properties of a log line about an action (and one of its stacks). */
export function properties(action: Action, stackId?: string): Record<string, unknown> {
  const parent = action.context.assets[0];
  return {
    stackID: stackId ?? ownStacks(action),
    assetID: action.assetIds[0],
    filename: parent?.originalFileName,
    reason: action.reason,
    assets: action.assetIds.length,
  };
}

/** The properties of an action's own line: its context plus the file names of its assets. */
export function lineProperties(action: Action, stackId?: string): Record<string, unknown> {
  const { label } = action.context;
  return {
    ...properties(action, stackId),
    ...(label === undefined ? {} : { rule: label }),
    files: fileList(action.context.assets),
  };
}

/** The stacks an action changes, as a log line names them. */
function ownStacks(action: Action): string | undefined {
  switch (action.kind) {
    case "create":
      return undefined;
    case "replace":
      return action.stackIds.join(",");
    default:
      return action.stackId;
  }
}
