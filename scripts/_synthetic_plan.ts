/**
 * A plan file of any size without a server, for the review page's benchmark and for the browser
 * test of its lazy list: one user, actions of every kind in turn (mostly creates, as a first run
 * has), two to four photos each, ids computed as `stacksync plan` computes them.
 *
 * @module
 */
import {
  actionId,
  PLAN_FORMAT,
  PLAN_VERSION,
  type PlanAction,
  type PlanAsset,
  type PlanFile,
} from "../src/plan_file/format.ts";

/** Every eighth action is not a create: grow, new cover, replace, delete in turn. */
const OTHER_KINDS = ["grow", "update-primary", "replace", "delete"] as const;

function uuid(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
}

/**
 * A plan of `count` actions.
 *
 * @param count How many actions.
 * @returns The plan file's value.
 */
export function syntheticPlan(count: number): PlanFile {
  let next = 0;
  const start = Date.parse("2024-01-01T08:00:00.000Z");
  const shot = (i: number, size: number): PlanAsset[] => {
    const time = new Date(start + i * 61_000).toISOString();
    const base = `IMG_${String(i % 10000).padStart(4, "0")}`;
    return [".jpg", ".dng", "_edited.jpg", "~2.jpg"].slice(0, size).map((ext) => ({
      id: uuid(++next),
      originalFileName: `${base}${ext}`,
      localDateTime: time,
    }));
  };
  const actions: PlanAction[] = [];
  for (let i = 0; i < count; i++) {
    const kind = i % 8 === 7 ? OTHER_KINDS[(i >> 3) % OTHER_KINDS.length] : "create";
    const assets = shot(i, 2 + (i % 3));
    const stack = (members: PlanAsset[]) => ({
      id: uuid(0x100000000 + i),
      primaryAssetId: members[0].id,
      assets: members,
    });
    const body: Omit<PlanAction, "id"> = kind === "create"
      ? {
        kind,
        reason: { code: "new-group", text: "These photos form a group and none is in a stack" },
        assets,
        stacks: [],
      }
      : kind === "grow"
      ? {
        kind,
        reason: { code: "group-grew", text: `${assets.at(-1)!.originalFileName} belongs here` },
        assets,
        stacks: [stack(assets.slice(0, -1))],
        added: [assets.at(-1)!.id],
      }
      : kind === "update-primary"
      ? {
        kind,
        reason: { code: "primary-changed", text: `${assets[0].originalFileName} is the cover` },
        assets,
        stacks: [stack([...assets.slice(1), assets[0]])],
      }
      : kind === "replace"
      ? {
        kind,
        reason: { code: "member-outside-group", text: "The stack holds photos outside the group" },
        assets,
        stacks: [stack([assets[0], ...shot(i + 100000, 1)])],
        deletes: [uuid(0x100000000 + i)],
      }
      : {
        kind,
        reason: { code: "single-asset-stack", text: "The stack holds a single photo" },
        assets: assets.slice(0, 1),
        stacks: [stack(assets.slice(0, 1))],
      };
    actions.push({ id: actionId(body), ...body });
  }
  return {
    format: PLAN_FORMAT,
    version: PLAN_VERSION,
    createdAt: "2024-06-01T00:00:00.000Z",
    stacksync: "0.0.0",
    server: "http://immich.local:2283/api",
    users: [{ id: uuid(0), name: "Ada", settings: {}, inSync: 0, actions, needsReplace: [] }],
  };
}
