/**
 * Stacks: `GET /stacks` streamed, one stack by id or by primary, and the writes (create, new
 * primary, delete), each turned into the lean {@linkcode Stack} of `src/model.ts`.
 *
 * @module
 */
import type { StackResponseDto } from "@immich/sdk";
import { z } from "zod";
import type { Stack } from "../model.ts";
import type { Fits, Proven } from "./_dto.ts";
import { parseJsonObjectArray } from "./_json_array.ts";
import { isImmichId } from "../immich_id.ts";
import { immichId, timeMs } from "./_values.ts";
import { PermanentError } from "./errors.ts";
import type { Session } from "./session.ts";

const stackSchema = z.object({
  id: immichId,
  primaryAssetId: immichId,
  assets: z.array(
    z.object({
      id: immichId,
      isArchived: z.boolean().optional(),
      visibility: z.string().optional(),
      updatedAt: z.string().optional(),
    }),
  ),
});
const stacksSchema = z.array(stackSchema);
const anything = z.unknown();

/** See {@linkcode Fits}: the answers this module reads. */
export type StacksDtoCompatibility = Proven<[
  Fits<StackResponseDto, z.input<typeof stackSchema>>,
]>;

/** A stack as `POST /stacks` or `PUT /stacks/{id}` answered it, with its members' `updatedAt`. */
export interface AnsweredStack extends Stack {
  /**
   * Each member's `updatedAt` after the write, ms since the epoch, in `assetIds` order. Read
   * when asked: only the cache's delta needs them, and a first run keeps none (150 000 times
   * to read at 200 000 assets).
   */
  updatedAt(): readonly number[];
}

/** Options of {@linkcode Stacks.listStacks}. */
export interface ListStacksOptions {
  /** Receives the file name of every member the answer lists, by asset id. */
  readonly fileNames?: Map<string, string>;
}

/** The stacks of the key's user. */
export interface Stacks {
  /**
   * `GET /stacks`, streamed: every stack with every member id it lists. With `fileNames`, the
   * members' file names are put in that map as well.
   */
  listStacks(options?: ListStacksOptions): Promise<Stack[]>;
  /** `GET /stacks/{id}`: the stack with every member it lists, undefined when it is gone. */
  getStack(stackId: string): Promise<Stack | undefined>;
  /** `GET /stacks?primaryAssetId=…`: the stack whose primary the asset is, if any. */
  stackWithPrimary(assetId: string): Promise<Stack | undefined>;
  /**
   * `POST /stacks`: the first id becomes the primary; a listed primary brings its whole stack
   * (docs/architecture.md, "Immich's merge rule").
   * One id makes a 1-asset stack: Immich wants two, and folds an id given twice (recorded
   * exchange 043).
   */
  createStack(assetIds: readonly string[]): Promise<AnsweredStack>;
  /** `PUT /stacks/{id}` with a new primary that is already a member. */
  updateStackPrimary(stackId: string, primaryAssetId: string): Promise<AnsweredStack>;
  /** `DELETE /stacks/{id}`; the assets stay. */
  deleteStack(stackId: string): Promise<void>;
}

function answered(stack: z.infer<typeof stackSchema>): AnsweredStack {
  // The answer may be kept whole (isStackAnswer): hold only the times, read when asked.
  const times = stack.assets.map((asset) => asset.updatedAt);
  return { ...toStack(stack), updatedAt: () => times.map(timeMs) };
}

/**
 * Whether a write's answer is a stack as {@linkcode stackSchema} reads it, checked without zod:
 * every `POST /stacks` pays for it (a first run makes tens of thousands). Anything else goes to
 * the schema, which says what is wrong.
 */
function isStackAnswer(value: unknown): value is z.infer<typeof stackSchema> {
  if (!isRecord(value) || !isId(value.id) || !isId(value.primaryAssetId)) return false;
  const { assets } = value;
  if (!Array.isArray(assets)) return false;
  for (const asset of assets) {
    if (!isRecord(asset) || !isId(asset.id)) return false;
    const { isArchived, visibility, updatedAt } = asset;
    if (isArchived !== undefined && typeof isArchived !== "boolean") return false;
    if (visibility !== undefined && typeof visibility !== "string") return false;
    if (updatedAt !== undefined && typeof updatedAt !== "string") return false;
  }
  return true;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is string {
  return typeof value === "string" && isImmichId(value);
}

function toStack(stack: z.infer<typeof stackSchema>): Stack {
  const archived = stack.assets.filter((asset) =>
    asset.isArchived === true || asset.visibility === "archive"
  );
  return {
    id: stack.id,
    primaryAssetId: stack.primaryAssetId,
    assetIds: stack.assets.map((asset) => asset.id),
    ...(archived.length > 0 ? { archivedAssetIds: archived.map((asset) => asset.id) } : {}),
  };
}

/** Puts the file names of a `GET /stacks` item's members in `names`. */
function keepFileNames(item: unknown, names: Map<string, string>): void {
  const assets = (item as { assets?: unknown }).assets;
  if (!Array.isArray(assets)) return;
  for (const asset of assets) {
    const { id, originalFileName } = asset as { id?: unknown; originalFileName?: unknown };
    if (typeof id === "string" && typeof originalFileName === "string") {
      names.set(id, originalFileName);
    }
  }
}

/**
 * The stacks part of the client.
 *
 * @param session The user's session.
 * @returns The reads and writes of stacks.
 */
export function stacksOf(session: Session): Stacks {
  const { http } = session;
  return {
    listStacks(options = {}) {
      const names = options.fileNames;
      return http.stream("GET", "/stacks", {
        async read(body, invalid) {
          const stacks: Stack[] = [];
          try {
            for await (const item of parseJsonObjectArray(body, { nullBelow: 3 })) {
              const result = stackSchema.safeParse(item);
              if (!result.success) {
                const issue = result.error.issues[0];
                throw invalid(
                  `Invalid stack data: GET /stacks answered a stack without a valid ` +
                    `${issue?.path.join(".") || "shape"}: ${JSON.stringify(item).slice(0, 200)}`,
                );
              }
              stacks.push(toStack(result.data));
              if (names !== undefined) keepFileNames(item, names);
            }
          } catch (error) {
            if (!(error instanceof SyntaxError)) throw error;
            throw invalid(`Cannot parse the answer of GET /stacks as JSON: ${error.message}`);
          }
          return stacks;
        },
      });
    },
    async getStack(stackId) {
      try {
        const stack = await http.request("GET", `/stacks/${encodeURIComponent(stackId)}`, {
          schema: stackSchema,
        });
        return toStack(stack);
      } catch (error) {
        if (error instanceof PermanentError && error.status === 400) return undefined;
        throw error;
      }
    },
    async stackWithPrimary(assetId) {
      const stacks = await http.request(
        "GET",
        `/stacks?primaryAssetId=${encodeURIComponent(assetId)}`,
        { schema: stacksSchema },
      );
      const stack = stacks.find((candidate) => candidate.primaryAssetId === assetId);
      return stack === undefined ? undefined : toStack(stack);
    },
    async createStack(assetIds) {
      const stack = await http.request("POST", "/stacks", {
        body: { assetIds: assetIds.length === 1 ? [assetIds[0], assetIds[0]] : assetIds },
        schema: stackSchema,
        accepts: isStackAnswer,
      });
      return answered(stack);
    },
    async updateStackPrimary(stackId, primaryAssetId) {
      const stack = await http.request("PUT", `/stacks/${encodeURIComponent(stackId)}`, {
        body: { primaryAssetId },
        schema: stackSchema,
        accepts: isStackAnswer,
      });
      return answered(stack);
    },
    async deleteStack(stackId) {
      try {
        await http.request("DELETE", `/stacks/${encodeURIComponent(stackId)}`, {
          schema: anything,
        });
      } catch (error) {
        // The first attempt may have deleted it before its answer was lost.
        const goneOnRetry = error instanceof PermanentError && error.attempt > 1 &&
          error.status === 400 && /^not found/i.test(error.serverMessage);
        if (!goneOnRetry) throw error;
      }
    },
  };
}
