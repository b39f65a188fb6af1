/**
 * The stacks read through the timeline, for a server that cannot answer `GET /stacks`
 * (docs/architecture.md, "Immich versions").
 *
 * @module
 */
import { z } from "zod";
import type { Stack } from "../model.ts";
import { immichId } from "./_values.ts";
import { PermanentError } from "./errors.ts";
import { HIDDEN_SEARCH, stackedIn, TRASH_SEARCHES, visibilityBody } from "./search_pages.ts";
import { type Session, versionText } from "./session.ts";
import type { Stacks } from "./stacks.ts";

const bucketsSchema = z.array(z.object({ timeBucket: z.string(), count: z.number() }));
const bucketSchema = z.object({
  id: z.array(immichId),
  ownerId: z.array(z.string()),
  visibility: z.array(z.string()),
  isTrashed: z.array(z.boolean()),
  stack: z.array(z.tuple([immichId, z.string()]).nullable()).optional(),
});

/**
 * The timeline queries that show every stack's cover but locked ones: the timeline, the
 * archive, hidden assets, and the trash (timeline and archive, then hidden).
 */
const TIMELINE_SCOPES: readonly Readonly<Record<string, string>>[] = [
  { visibility: "timeline" },
  { visibility: "archive" },
  { visibility: "hidden" },
  { isTrashed: "true" },
  { isTrashed: "true", visibility: "hidden" },
];

/** Searches of the user's assets off the timeline: archived, hidden, in the trash. */
const OFF_TIMELINE: readonly Readonly<Record<string, unknown>>[] = [
  { ...visibilityBody("archive"), withDeleted: false },
  HIDDEN_SEARCH,
  ...TRASH_SEARCHES,
];

/** The stacks through the timeline. */
export interface TimelineStacks {
  /**
   * The stacks read through the timeline, for a server that cannot answer `GET /stacks`: one
   * request per month of the timeline, the archive and the trash (`withStacked` gives each
   * cover's stack and count), then `GET /stacks/{id}` for each stack with more than its cover
   * among the members it counts; archived members are found through the search of the archive.
   *
   * @throws {PermanentError} On a server before v2, whose timeline has another shape.
   */
  listStacksByTimeline(): Promise<Stack[]>;
}

/**
 * The timeline part of the client.
 *
 * @param session The user's session.
 * @param reader The stacks part, to read each stack the timeline shows.
 * @returns {@linkcode TimelineStacks.listStacksByTimeline}.
 */
export function timelineStacksOf(
  session: Session,
  reader: Pick<Stacks, "getStack" | "stackWithPrimary">,
): TimelineStacks {
  const { http } = session;
  return {
    async listStacksByTimeline() {
      const version = await session.serverVersion();
      if (version.major < 2) {
        throw new PermanentError(
          `Cannot read the stacks through the timeline as Immich ${versionText(version)} ` +
            "serves it in another shape: upgrade Immich to v2 or newer",
          {
            method: "GET",
            path: "/timeline/bucket",
            status: 200,
            serverMessage: "timeline before v2",
            attempt: 1,
          },
        );
      }
      const { id: userId } = await session.me();
      /** By stack id: its cover, and how many members the timeline counts (cover included). */
      const covers = new Map<string, { primaryAssetId: string; counted: number; alone: boolean }>();
      /** The user's assets off the timeline that the timeline shows without a stack. */
      const shownAlone = new Set<string>();
      for (const scope of TIMELINE_SCOPES) {
        const query = new URLSearchParams({ withStacked: "true", ...scope });
        const buckets = await http.request("GET", `/timeline/buckets?${query}`, {
          schema: bucketsSchema,
        });
        for (const { timeBucket } of buckets) {
          query.set("timeBucket", timeBucket);
          const columns = await http.request("GET", `/timeline/bucket?${query}`, {
            schema: bucketSchema,
          });
          for (const [i, id] of columns.id.entries()) {
            if (columns.ownerId[i] !== userId) continue;
            const stack = columns.stack?.[i];
            if (stack === null || stack === undefined) {
              if (scope.visibility !== "timeline") shownAlone.add(id);
              continue;
            }
            const counted = Number(stack[1]);
            // The count is of members on the timeline and not in the trash: 1 with such a cover
            // is the cover alone, unless archived members hide (checked below).
            const alone = counted === 1 && columns.visibility[i] === "timeline" &&
              !columns.isTrashed[i];
            covers.set(stack[0], { primaryAssetId: id, counted, alone });
          }
        }
      }
      const stacks = new Map<string, Stack>();
      const alone: string[] = [];
      for (const [stackId, { primaryAssetId, alone: coverAlone }] of covers) {
        if (coverAlone) {
          stacks.set(stackId, { id: stackId, primaryAssetId, assetIds: [primaryAssetId] });
          alone.push(stackId);
          continue;
        }
        const stack = await reader.getStack(stackId);
        if (stack !== undefined) stacks.set(stackId, stack);
      }
      // A stack none of whose members is on the timeline outside the trash has no count: its
      // cover is off the timeline, in a stack (the searches with and without stacked assets
      // tell), and shown without one.
      const stacked = new Map<string, boolean>();
      for (const body of OFF_TIMELINE) {
        for (const [id, record] of await stackedIn(http, body, { userId })) {
          stacked.set(id, record.visibility === "archive" && record.isTrashed !== true);
        }
      }
      const loose = () => {
        const held = new Set(
          [...stacks.values()].flatMap((s) => [s.primaryAssetId, ...s.assetIds]),
        );
        return [...stacked.keys()].filter((id) => !held.has(id));
      };
      for (const id of loose()) {
        if (!shownAlone.has(id)) continue;
        const stack = await reader.stackWithPrimary(id);
        if (stack !== undefined) stacks.set(stack.id, stack);
      }
      // No count shows archived members either: one no stack holds yet belongs to a stack
      // counted as its cover alone.
      if (loose().some((id) => stacked.get(id))) {
        for (const stackId of alone) {
          const stack = await reader.getStack(stackId);
          if (stack === undefined) stacks.delete(stackId);
          else stacks.set(stackId, stack);
        }
      }
      return [...stacks.values()];
    },
  };
}
