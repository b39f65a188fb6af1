/**
 * The zod schemas of a journal's records and of its summary file, for reading them back.
 *
 * @module
 */
import { z } from "zod";
import { JOURNAL_FORMAT } from "./journal_format.ts";

const assetSchema = z.object({
  id: z.string(),
  originalFileName: z.string().optional(),
  trashed: z.literal(true).optional(),
  hidden: z.literal(true).optional(),
});
const stackSchema = z.object({
  id: z.string(),
  primaryAssetId: z.string(),
  assets: z.array(assetSchema),
});
const resultSchema = z.object({
  id: z.string(),
  primaryAssetId: z.string(),
  assetIds: z.array(z.string()),
});
const headerFields = {
  run: z.string(),
  command: z.enum(["run", "undo", "restore", "fix-trash", "apply"]),
  undoes: z.string().optional(),
  startedAt: z.string(),
  server: z.string(),
  user: z.object({ id: z.string(), name: z.string() }),
  stacksync: z.string(),
};
const countsSchema = z.object({
  created: z.number(),
  updated: z.number(),
  deleted: z.number(),
  // Summaries written before fix-trash existed have neither.
  trashed: z.number().default(0),
  restored: z.number().default(0),
  failed: z.number(),
  unknown: z.number(),
  changedSince: z.number(),
  notDone: z.number(),
});
/** A record other than an intent. */
export const recordSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("journal"),
    format: z.literal(JOURNAL_FORMAT),
    version: z.number(),
    ...headerFields,
  }),
  z.object({ type: z.literal("stack"), ...stackSchema.shape }),
  z.object({ type: z.literal("stacks-end"), count: z.number() }),
  z.object({ type: z.literal("done"), seq: z.number(), stack: resultSchema.optional() }),
  z.object({ type: z.literal("failed"), seq: z.number(), error: z.string() }),
  z.object({
    type: z.literal("end"),
    finishedAt: z.string(),
    changedSince: z.number(),
    notDone: z.number(),
  }),
]);
/** The stacks a write changes as read just before it (absent in journals of stacksync 0.1). */
const groundSchema = z.array(stackSchema).optional();
/** An intent record, told apart by its operation. */
export const intentSchema = z.discriminatedUnion("op", [
  z.object({
    type: z.literal("intent"),
    seq: z.number(),
    op: z.literal("create"),
    assetIds: z.array(z.string()),
    grows: z.string().optional(),
    ground: groundSchema,
  }),
  z.object({
    type: z.literal("intent"),
    seq: z.number(),
    op: z.literal("update-primary"),
    stackId: z.string(),
    primaryAssetId: z.string(),
    ground: groundSchema,
  }),
  z.object({
    type: z.literal("intent"),
    seq: z.number(),
    op: z.literal("delete"),
    stackId: z.string(),
    ground: groundSchema,
  }),
  z.object({
    type: z.literal("intent"),
    seq: z.number(),
    op: z.literal("trash"),
    assetIds: z.array(z.string()),
  }),
  z.object({
    type: z.literal("intent"),
    seq: z.number(),
    op: z.literal("restore"),
    assetIds: z.array(z.string()),
  }),
]);
/** A summary file. */
export const summarySchema = z.object({
  format: z.literal("stacksync-run"),
  version: z.number(),
  ...headerFields,
  finishedAt: z.string().optional(),
  counts: countsSchema,
});
