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

/** What an {@linkcode AssetReader} keeps of each asset besides its id, name and capture time. */
export interface AssetReading {
  /** The criterion fields to check and keep. */
  readonly fields: readonly CriterionField[];
  /** Reads the camera fields from EXIF (the default rules), when given. */
  readonly cameras?: CameraReader;
}

/**
 * Validates the items of one search into the lean assets kept for the whole pass, with only the
 * criterion fields the run reads. 200 000 of them are held at once, so strings that repeat
 * share one copy instead of one per asset: the owner (already checked to be the user), the
 * type, capture times that equal localDateTime, as they mostly do, and a localDateTime equal to
 * the last asset's (the files of one shot come one after the other in a search). Every asset
 * gets its fields in the same order, so all share one compact hidden class, and with the camera
 * fields (the default rules) it is made whole at once.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { AssetReader } from "./asset_schema.ts";
 *
 * const reader = new AssetReader("u1", { fields: ["type"] });
 * const item = {
 *   id: "a1",
 *   originalFileName: "IMG_0001.JPG",
 *   localDateTime: "2024-05-01T10:00:00.000Z",
 *   type: "IMAGE",
 * };
 * assert.deepEqual(reader.read(item), {
 *   asset: {
 *     id: "a1",
 *     originalFileName: "IMG_0001.JPG",
 *     localDateTime: "2024-05-01T10:00:00.000Z",
 *     type: "IMAGE",
 *   },
 * });
 * const invalid = reader.read({ ...item, type: "PDF" });
 * assert.equal("field" in invalid && invalid.field, "type");
 * ```
 */
export class AssetReader {
  readonly #ownerId: string;
  readonly #reading: AssetReading;
  /** The last localDateTime kept. */
  #local = "";

  /**
   * @param ownerId The user, whose id every asset shares.
   * @param reading The criterion fields to keep, and the camera reader.
   */
  constructor(ownerId: string, reading: AssetReading) {
    this.#ownerId = ownerId;
    this.#reading = reading;
  }

  /**
   * Validates one search item.
   *
   * @param item The search item.
   * @returns The asset, or the first field that failed validation.
   */
  read(item: Record<string, unknown>): AssetResult {
    const core = coreAssetSchema.safeParse(item);
    if (!core.success) {
      const issue = core.error.issues[0];
      return { field: issue?.path.join(".") || "(asset)", message: issue?.message ?? "invalid" };
    }
    const { id, originalFileName, exifInfo } = core.data;
    let local = core.data.localDateTime;
    if (local === this.#local) local = this.#local;
    else this.#local = local;
    const { fields, cameras } = this.#reading;
    const size = exifInfo?.fileSizeInByte ?? undefined;
    const asset = cameras === undefined
      ? withSize({ id, originalFileName, localDateTime: local }, size)
      : leanCameraAsset(id, originalFileName, local, size);
    const shared = { ownerId: this.#ownerId, localDateTime: local };
    for (const field of fields) {
      const problem = copyField(asset, field, item[field], shared);
      if (problem !== undefined) return { field, message: problem };
    }
    cameras?.read(exifInfo, asset);
    return { asset };
  }
}

/** The asset with its EXIF file size, when EXIF gives one. */
function withSize(asset: MutableAsset, size: number | undefined): MutableAsset {
  if (size !== undefined) asset.fileSizeInByte = size;
  return asset;
}

/**
 * An asset of the default rules, every field in one literal (the camera fields set by
 * {@linkcode CameraReader.read}): V8 keeps a literal's fields in the object itself, and puts
 * those added later in a second block (96 bytes an asset instead of 120).
 */
function leanCameraAsset(
  id: string,
  originalFileName: string,
  localDateTime: string,
  size: number | undefined,
): MutableAsset {
  return size === undefined
    ? {
      id,
      originalFileName,
      localDateTime,
      camera: undefined,
      lens: undefined,
      exposure: undefined,
      undated: undefined,
    }
    : {
      id,
      originalFileName,
      localDateTime,
      fileSizeInByte: size,
      camera: undefined,
      lens: undefined,
      exposure: undefined,
      undated: undefined,
    };
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
