/**
 * The plan file of `stacksync plan` and `stacksync apply` (format `stacksync-plan`, version 1;
 * docs/plan-file.md describes every field): for each user, the settings that shaped the plan,
 * every action with its reason, its photos and the stacks it touches as they were read, and the
 * conflicts left alone. It never holds a key.
 *
 * Each action's `id` is a digest of what applying it depends on (its kind, its photos in order,
 * the stacks it touches as read, the stacks it deletes): the same action planned on the same
 * ground always gets the same id, and an action edited by hand no longer matches its id, so
 * {@linkcode parsePlanFile} refuses the file.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { stackSchemaOf } from "../stack_schema.ts";
import type { Action, ActionReason, RemovedAsset } from "../model.ts";

/** The format name of plan files. */
export const PLAN_FORMAT = "stacksync-plan";
/** The plan file version this stacksync writes, and the only one it reads. */
export const PLAN_VERSION = 1;

/** What an action does; the page badges `update-primary` as "new cover". */
export type PlanKind = Action["kind"];

/** A photo as the plan shows it. */
export interface PlanAsset {
  readonly id: string;
  /** The file name; the id when the run did not learn it. */
  readonly originalFileName: string;
  /** The capture time (`localDateTime`), when the run read it. */
  readonly localDateTime?: string;
  /** A stack member in the trash, which `GET /stacks` does not list. */
  readonly trashed?: true;
  /** A stack member that is hidden (a live photo's video), which `GET /stacks` does not list. */
  readonly hidden?: true;
}

/** A stack as the plan read it: every member, the primary first. */
export interface PlanStack {
  readonly id: string;
  readonly primaryAssetId: string;
  readonly assets: readonly PlanAsset[];
}

/** Why: the stable code of logs and JSON lines, and the same in words. */
export interface PlanReason {
  readonly code: ActionReason;
  readonly text: string;
}

/** One action of a plan. */
export interface PlanAction {
  /** A digest of what the action depends on; see the module documentation. */
  readonly id: string;
  readonly kind: PlanKind;
  readonly reason: PlanReason;
  /** Which of the default rules made its group (`RAW+JPEG pair`); absent otherwise. */
  readonly rule?: string;
  /**
   * The stack it makes, cover first (`create`, `grow`, `update-primary`, `replace`), or the
   * members of the stack it deletes (`delete`).
   */
  readonly assets: readonly PlanAsset[];
  /** Every stack it touches, as read: the one it grows, changes or deletes, those it replaces. */
  readonly stacks: readonly PlanStack[];
  /** For `replace`: the stacks it deletes (another replace of the plan deletes the others). */
  readonly deletes?: readonly string[];
  /** For `grow`: the photos that join the stack. */
  readonly added?: readonly string[];
  /** For `replace`: the members of the stacks it deletes that the new stack does not list. */
  readonly removed?: readonly {
    readonly id: string;
    readonly reason: RemovedAsset["reason"];
  }[];
}

/** A group that conflicts with stacks the plan leaves alone (REPLACE_STACKS is off). */
export interface PlanConflict {
  readonly reason: PlanReason;
  /** Which of the default rules made its group; absent otherwise. */
  readonly rule?: string;
  /** The group, cover first. */
  readonly assets: readonly PlanAsset[];
  /** The stacks it conflicts with, as read. */
  readonly stacks: readonly PlanStack[];
}

/** One user's plan. */
export interface PlanUser {
  readonly id: string;
  readonly name: string;
  /**
   * The settings that shaped the plan, by variable name (`CRITERIA`, `REPLACE_STACKS`, …), with
   * their values as JSON; `apply` plans again with exactly these.
   */
  readonly settings: Readonly<Record<string, unknown>>;
  /** Stacks already as their groups want them. */
  readonly inSync: number;
  readonly actions: readonly PlanAction[];
  readonly needsReplace: readonly PlanConflict[];
}

/** A plan file. */
export interface PlanFile {
  readonly format: typeof PLAN_FORMAT;
  readonly version: typeof PLAN_VERSION;
  /** ISO 8601 time the plan was made. */
  readonly createdAt: string;
  /** The stacksync version that made it. */
  readonly stacksync: string;
  /** API_URL without credentials, query or fragment. */
  readonly server: string;
  readonly users: readonly PlanUser[];
}

const assetSchema = z.object({
  id: z.string(),
  originalFileName: z.string(),
  localDateTime: z.string().optional(),
  trashed: z.literal(true).optional(),
  hidden: z.literal(true).optional(),
});
const stackSchema = stackSchemaOf(assetSchema);
const reasonSchema = z.object({
  code: z.enum([
    "single-asset-stack",
    "reset",
    "not-in-target",
    "member-outside-group",
    "group-spans-stacks",
    "member-in-trash",
    "new-group",
    "primary-changed",
    "group-grew",
  ]),
  text: z.string(),
});
const actionSchema = z.object({
  id: z.string(),
  kind: z.enum(["create", "grow", "update-primary", "replace", "delete"]),
  reason: reasonSchema,
  rule: z.string().optional(),
  assets: z.array(assetSchema).min(1),
  stacks: z.array(stackSchema),
  deletes: z.array(z.string()).optional(),
  added: z.array(z.string()).optional(),
  removed: z.array(z.object({
    id: z.string(),
    reason: z.enum(["in-other-group", "in-no-group", "not-fetched", "in-trash"]),
  })).optional(),
});
const planSchema = z.object({
  format: z.literal(PLAN_FORMAT),
  version: z.literal(PLAN_VERSION),
  createdAt: z.string(),
  stacksync: z.string(),
  server: z.string(),
  users: z.array(z.object({
    id: z.string(),
    name: z.string(),
    settings: z.record(z.string(), z.unknown()),
    inSync: z.number(),
    actions: z.array(actionSchema),
    needsReplace: z.array(z.object({
      reason: reasonSchema,
      rule: z.string().optional(),
      assets: z.array(assetSchema),
      stacks: z.array(stackSchema),
    })),
  })),
});

/**
 * The id of an action: the first 80 bits of a SHA-256 digest of its kind, its photos in order,
 * the stacks it touches as read (id, primary, members, members in the trash) and the stacks it
 * deletes. File names, times and words do not count: they are for people.
 *
 * @param action The action without its id.
 * @returns 20 hexadecimal digits.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { actionId } from "./format.ts";
 *
 * const action = {
 *   kind: "create", reason: { code: "new-group", text: "" }, stacks: [],
 *   assets: [{ id: "a", originalFileName: "A.jpg" }, { id: "b", originalFileName: "A.dng" }],
 * } as const;
 * assert.match(actionId(action), /^[0-9a-f]{20}$/);
 * assert.equal(actionId({ ...action, reason: { code: "new-group", text: "other words" } }), actionId(action));
 * assert.notEqual(actionId({ ...action, assets: action.assets.toReversed() }), actionId(action));
 * ```
 */
export function actionId(action: Omit<PlanAction, "id">): string {
  const ids = (assets: readonly PlanAsset[]) => assets.map((asset) => asset.id);
  const canonical = JSON.stringify([
    action.kind,
    ids(action.assets),
    action.stacks.map((stack) => [
      stack.id,
      stack.primaryAssetId,
      ids(stack.assets).filter((id) => id !== stack.primaryAssetId).sort(),
      ids(stack.assets.filter((asset) => asset.trashed)).sort(),
    ]),
    action.deletes ?? [],
  ]);
  return createHash("sha256").update(canonical).digest("hex").slice(0, 20);
}

/**
 * The plan as the text of its file, in pieces of about 64 KB: JSON with one action per line, so
 * that a diff of two plans shows the actions that differ. It uses nothing outside itself,
 * because the review page runs this very function (its source) to save the approved plan in the
 * same layout.
 *
 * @param plan The plan.
 * @returns The pieces of the file's text, in order; it ends in a newline.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { parsePlanFile, planFileChunks } from "./format.ts";
 *
 * const plan = {
 *   format: "stacksync-plan", version: 1, createdAt: "2024-01-01T00:00:00.000Z",
 *   stacksync: "1.0.0", server: "http://immich/api", users: [],
 * } as const;
 * assert.deepEqual(parsePlanFile([...planFileChunks(plan)].join(""), "plan.json"), plan);
 * ```
 */
export function* planFileChunks(plan: PlanFile): Generator<string> {
  const { users, ...fields } = plan;
  let text = "{\n";
  for (const [key, value] of Object.entries(fields)) {
    text += `  ${JSON.stringify(key)}: ${JSON.stringify(value)},\n`;
  }
  text += `  "users": [`;
  for (const [u, user] of users.entries()) {
    const { actions, needsReplace, ...rest } = user;
    text += `${u === 0 ? "" : ","}\n    {\n`;
    for (const [key, value] of Object.entries(rest)) {
      text += `      ${JSON.stringify(key)}: ${JSON.stringify(value)},\n`;
    }
    const lists = [["actions", actions], ["needsReplace", needsReplace]] as const;
    for (const [l, [name, items]] of lists.entries()) {
      text += `      ${JSON.stringify(name)}: [`;
      for (const [i, item] of items.entries()) {
        text += `${i === 0 ? "" : ","}\n        ${JSON.stringify(item)}`;
        if (text.length >= 65536) {
          yield text;
          text = "";
        }
      }
      text += `${items.length === 0 ? "" : "\n      "}]${l === 0 ? "," : ""}\n`;
    }
    text += "    }";
  }
  yield `${text}${users.length === 0 ? "" : "\n  "}]\n}\n`;
}

/**
 * The plan as the text of its file, whole; see {@linkcode planFileChunks}.
 *
 * @param plan The plan.
 * @returns The file's text.
 */
export function planFileText(plan: PlanFile): string {
  return [...planFileChunks(plan)].join("");
}

/**
 * Reads and checks a plan file: JSON, the format name, the version, every field, each user
 * once, each action once, and each action's id against its content.
 *
 * @param text The file's content.
 * @param name The file's name, for messages.
 * @returns The plan.
 * @throws {SyntaxError} When it is not JSON or not a stacksync plan, naming the first problem.
 * @throws {RangeError} When its version is not 1, or an action does not match its id (it was
 *   edited by hand), naming the action and its user.
 *
 * @example A plan file edited by hand is refused
 * ```ts
 * import assert from "node:assert/strict";
 * import { actionId, parsePlanFile, planFileText } from "./format.ts";
 *
 * const action = {
 *   kind: "create", reason: { code: "new-group", text: "" }, stacks: [],
 *   assets: [{ id: "a", originalFileName: "A.jpg" }, { id: "b", originalFileName: "A.dng" }],
 * } as const;
 * const user = { id: "u1", name: "Ada", settings: {}, inSync: 0, needsReplace: [] };
 * const plan = {
 *   format: "stacksync-plan", version: 1, createdAt: "2024-01-01T00:00:00.000Z",
 *   stacksync: "1.0.0", server: "http://immich/api",
 *   users: [{ ...user, actions: [{ id: actionId(action), ...action }] }],
 * } as const;
 * const text = planFileText(plan);
 * assert.equal(parsePlanFile(text, "plan.json").users[0].actions.length, 1);
 * assert.throws(() => parsePlanFile(text.replace('"id":"b"', '"id":"x"'), "plan.json"), RangeError);
 * ```
 */
export function parsePlanFile(text: string, name: string): PlanFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    // Deleting the line of a last action leaves the comma of the line before it.
    try {
      json = JSON.parse(withoutTrailingCommas(text));
    } catch {
      throw new SyntaxError(
        `Cannot read the plan ${name} as it is not JSON: ${(error as Error).message}`,
      );
    }
  }
  const head = (typeof json === "object" && json !== null ? json : {}) as Record<string, unknown>;
  if (head.format !== PLAN_FORMAT) {
    throw new SyntaxError(
      `Cannot read ${name} as it is not a stacksync plan (its format is not "${PLAN_FORMAT}"): ` +
        "make one with stacksync plan",
    );
  }
  if (head.version !== PLAN_VERSION) {
    const newer = typeof head.version === "number" && head.version > PLAN_VERSION;
    throw new RangeError(
      `Cannot read the plan ${name} as this stacksync reads format version ${PLAN_VERSION} ` +
        `only: ${newer ? "upgrade stacksync, or plan again with this one" : "plan again"}: ` +
        `current value is ${JSON.stringify(head.version)}`,
    );
  }
  const parsed = planSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join(".") : "the file";
    throw new SyntaxError(
      `Cannot read the plan ${name} as it is not a stacksync plan: ${where}: ` +
        (issue?.message ?? "invalid"),
    );
  }
  const plan: PlanFile = parsed.data;
  const users = new Set<string>();
  for (const user of plan.users) {
    if (users.has(user.id)) {
      throw new RangeError(`Cannot read the plan ${name} as it holds user ${user.name} twice`);
    }
    users.add(user.id);
    const ids = new Set<string>();
    for (const { id, ...action } of user.actions) {
      if (ids.has(id)) {
        throw new RangeError(
          `Cannot read the plan ${name} as it holds action ${id} of ${user.name} twice`,
        );
      }
      ids.add(id);
      if (actionId(action) !== id) {
        throw new RangeError(
          `Cannot read the plan ${name} as action ${id} of ${user.name} was changed after ` +
            "stacksync planned it (it no longer matches its id): plan again, and leave out " +
            "actions only by unticking them on the review page or deleting their lines",
        );
      }
    }
  }
  return plan;
}

/**
 * JSON text without the commas that stand just before a `]` or `}` (spaces between), which
 * JSON does not allow and deleting the last line of a list leaves; text in strings is kept.
 *
 * @param text JSON, perhaps with trailing commas.
 * @returns The text without them.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { withoutTrailingCommas } from "./format.ts";
 *
 * assert.equal(withoutTrailingCommas('{"a":[1,\n],"b":",]"}'), '{"a":[1\n],"b":",]"}');
 * ```
 */
export function withoutTrailingCommas(text: string): string {
  let result = "";
  let from = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === "\\") i++;
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
    } else if (char === ",") {
      let next = i + 1;
      while (next < text.length && " \t\r\n".includes(text[next])) next++;
      if (text[next] === "]" || text[next] === "}") {
        result += text.slice(from, i);
        from = i + 1;
      }
    }
  }
  return result + text.slice(from);
}
