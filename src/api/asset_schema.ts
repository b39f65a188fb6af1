/**
 * A search item validated into the lean {@linkcode Asset} kept for the whole pass, with only the
 * criterion fields the run reads (docs/architecture.md, "Immich versions").
 *
 * @module
 */
import type { AssetResponseDto } from "@immich/sdk";
import { z } from "zod";
import type { Asset, CriterionField, CriterionFields } from "../model.ts";
import type { Fits, Proven } from "./_dto.ts";
import type { CameraReader } from "./_camera.ts";

// Both `…Z` (search) and `…+00:00` (stacks) forms are valid.
const timestamp = z.iso.datetime({ offset: true });
/** What every asset needs: the fields promotion and planning read, and EXIF for sizes and cameras. */
const coreAssetSchema = z.object({
  id: z.string(),
  originalFileName: z.string(),
  localDateTime: timestamp,
  exifInfo: z.object({
    fileSizeInByte: z.number().nullish(),
    make: z.string().nullish(),
    model: z.string().nullish(),
    lensModel: z.string().nullish(),
    exposureTime: z.string().nullish(),
    fNumber: z.number().nullish(),
    iso: z.number().nullish(),
    dateTimeOriginal: z.string().nullish(),
  }).nullish(),
});

/** One schema per field that only criteria read; an asset is checked on the ones it keeps. */
const criterionFieldSchemas = {
  originalPath: z.string(),
  fileCreatedAt: timestamp,
  fileModifiedAt: timestamp,
  updatedAt: timestamp,
  type: z.enum(["IMAGE", "VIDEO", "AUDIO", "OTHER"]),
  checksum: z.string(),
  ownerId: z.string(),
  isFavorite: z.boolean(),
  isArchived: z.boolean(),
  isTrashed: z.boolean(),
  isOffline: z.boolean(),
  hasMetadata: z.boolean(),
  // A string such as "0:00:05.12300" up to v3.1; the v3.2 DTOs type it as a number.
  duration: z.union([z.string(), z.number()]).nullable().transform((value) =>
    value === null ? null : String(value)
  ),
  // Gone from Immich 3's answers (its DTOs have neither): a criterion on them is left out.
  deviceId: z.string().optional(),
  deviceAssetId: z.string().optional(),
} satisfies {
  readonly [F in CriterionField]: z.ZodType<CriterionFields[F]>;
};

/** The same schemas, typed for access by a generic field name. */
const CRITERION_FIELD_SCHEMAS: { readonly [F in CriterionField]: z.ZodType<CriterionFields[F]> } =
  criterionFieldSchemas;

/** See {@linkcode Fits}: the asset fields this module reads. */
export type AssetDtoCompatibility = Proven<[
  Fits<AssetResponseDto, z.input<typeof coreAssetSchema>>,
  ...{
    [F in CurrentField]: Fits<AssetResponseDto[F], z.input<typeof criterionFieldSchemas[F]>>;
  }[CurrentField][],
]>;

/** The criterion fields Immich 3 still sends. */
type CurrentField = Exclude<CriterionField, "deviceId" | "deviceAssetId">;

/** Every field criteria can read: what the client keeps when not told otherwise. */
export const ALL_CRITERION_FIELDS = Object.keys(CRITERION_FIELD_SCHEMAS) as CriterionField[];

const ASSET_TYPES = { IMAGE: "IMAGE", VIDEO: "VIDEO", AUDIO: "AUDIO", OTHER: "OTHER" } as const;

type MutableAsset = { -readonly [K in keyof Asset]: Asset[K] };

/** The asset, or the first field that failed validation. */
export type AssetResult = { readonly asset: Asset } | {
  readonly field: string;
  readonly message: string;
};

/**
 * Validates one search item into the lean asset kept for the whole pass, with only the
 * criterion fields the run reads. 200 000 of them are held at once, so strings that repeat
 * share one copy instead of one per asset: the owner (already checked to be the user), the
 * type, and capture times that equal localDateTime, as they mostly do. Every asset gets its
 * fields in the same order, so all share one compact hidden class.
 *
 * @param item The search item.
 * @param ownerId The user, whose id every asset shares.
 * @param fields The criterion fields to check and keep.
 * @param cameras Reads the camera fields from EXIF (the default rules), when given.
 * @returns The asset, or the first field that failed validation.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { toAsset } from "./asset_schema.ts";
 *
 * const item = {
 *   id: "a1",
 *   originalFileName: "IMG_0001.JPG",
 *   localDateTime: "2024-05-01T10:00:00.000Z",
 *   type: "IMAGE",
 * };
 * assert.deepEqual(toAsset(item, "u1", ["type"]), {
 *   asset: {
 *     id: "a1",
 *     originalFileName: "IMG_0001.JPG",
 *     localDateTime: "2024-05-01T10:00:00.000Z",
 *     type: "IMAGE",
 *   },
 * });
 * const invalid = toAsset({ ...item, type: "PDF" }, "u1", ["type"]);
 * assert.equal("field" in invalid && invalid.field, "type");
 * ```
 */
export function toAsset(
  item: Record<string, unknown>,
  ownerId: string,
  fields: readonly CriterionField[],
  cameras?: CameraReader,
): AssetResult {
  const core = coreAssetSchema.safeParse(item);
  if (!core.success) {
    const issue = core.error.issues[0];
    return { field: issue?.path.join(".") || "(asset)", message: issue?.message ?? "invalid" };
  }
  const local = core.data.localDateTime;
  const asset: MutableAsset = {
    id: core.data.id,
    originalFileName: core.data.originalFileName,
    localDateTime: local,
  };
  const shared = { ownerId, localDateTime: local };
  for (const field of fields) {
    const problem = copyField(asset, field, item[field], shared);
    if (problem !== undefined) return { field, message: problem };
  }
  const size = core.data.exifInfo?.fileSizeInByte;
  if (size !== undefined && size !== null) asset.fileSizeInByte = size;
  cameras?.read(core.data.exifInfo, asset);
  return { asset };
}

/** Checks one criterion field and sets it, sharing repeated strings; returns the problem. */
function copyField<F extends CriterionField>(
  asset: { -readonly [K in CriterionField]?: CriterionFields[K] },
  field: F,
  raw: unknown,
  shared: { readonly ownerId: string; readonly localDateTime: string },
): string | undefined {
  const result = CRITERION_FIELD_SCHEMAS[field].safeParse(raw);
  if (!result.success) return result.error.issues[0]?.message ?? "invalid";
  const value: CriterionFields[F] = result.data;
  // A field the server does not send (the device fields from Immich 3) stays off the asset.
  if (value === undefined) return undefined;
  if (field === "ownerId") asset.ownerId = shared.ownerId;
  else if (field === "type") asset.type = ASSET_TYPES[value as keyof typeof ASSET_TYPES];
  else if (value === shared.localDateTime) {
    asset[field] = shared.localDateTime as CriterionFields[F];
  } else asset[field] = value;
  return undefined;
}
