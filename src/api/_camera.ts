/**
 * What the default rules read from an asset's EXIF (`withExif` search answers): the camera,
 * the lens, the exposure and whether EXIF gives a capture time, kept small for 200 000 assets.
 *
 * @module
 */
import type { Asset } from "../model.ts";

/** The EXIF fields read, as Immich's search answers them. */
export interface CameraExif {
  readonly make?: string | null;
  readonly model?: string | null;
  readonly lensModel?: string | null;
  /** `1/200`, `0.5`, `30`. */
  readonly exposureTime?: string | null;
  readonly fNumber?: number | null;
  readonly iso?: number | null;
  readonly dateTimeOriginal?: string | null;
}

/** The asset fields read from EXIF. */
export type CameraFields = Pick<Asset, "camera" | "lens" | "exposure" | "undated">;

/**
 * Reads cameras, lenses and exposures, sharing one string per camera and lens among all assets
 * (a library holds a few dozen of each).
 */
export class CameraReader {
  readonly #strings = new Map<string, string>();

  /**
   * Sets an asset's camera fields from its EXIF, every one of them (undefined when unknown) so
   * that all assets keep one shape.
   *
   * @param exif The asset's `exifInfo`; undefined or null when the server sent none.
   * @param asset The asset to set them on.
   *
   * @example Usage
   * ```ts
   * import assert from "node:assert/strict";
   * import { CameraReader } from "./_camera.ts";
   *
   * const asset: Record<string, unknown> = {};
   * new CameraReader().read({
   *   make: "NIKON CORPORATION", model: "NIKON D850", lensModel: null,
   *   exposureTime: "1/200", fNumber: 8, iso: 400, dateTimeOriginal: null,
   * }, asset);
   * assert.deepEqual(asset, { camera: "NIKON D850", lens: undefined, exposure: -60, undated: true });
   * ```
   */
  read(
    exif: CameraExif | null | undefined,
    asset: { -readonly [K in keyof CameraFields]?: CameraFields[K] },
  ): void {
    asset.camera = this.#shared(cameraName(exif?.make, exif?.model));
    asset.lens = this.#shared(tidy(exif?.lensModel));
    asset.exposure = exif ? exposureOf(exif) : undefined;
    asset.undated = exif && exif.dateTimeOriginal == null ? true : undefined;
  }

  #shared(text: string | undefined): string | undefined {
    if (text === undefined) return undefined;
    const known = this.#strings.get(text);
    if (known !== undefined) return known;
    this.#strings.set(text, text);
    return text;
  }
}

function tidy(text: string | null | undefined): string | undefined {
  const trimmed = text?.trim().replace(/\s+/g, " ");
  return trimmed ? trimmed : undefined;
}

/** `Canon EOS R5` of `Canon` and `EOS R5` or `Canon EOS R5`; `NIKON D850` of `NIKON CORPORATION`. */
function cameraName(
  make: string | null | undefined,
  model: string | null | undefined,
): string | undefined {
  const maker = tidy(make);
  const product = tidy(model);
  if (maker === undefined || product === undefined) return product ?? maker;
  const brand = maker.split(" ")[0].toLowerCase();
  return product.toLowerCase().startsWith(brand) ? product : `${maker} ${product}`;
}

/** `log2(exposure time × ISO / f-number²)` in twelfths of a stop; undefined without a time. */
function exposureOf(exif: CameraExif): number | undefined {
  const seconds = secondsOf(exif.exposureTime);
  if (seconds === undefined) return undefined;
  const aperture = exif.fNumber && exif.fNumber > 0 ? exif.fNumber : 1;
  const iso = exif.iso && exif.iso > 0 ? exif.iso : 100;
  return Math.round(12 * Math.log2((seconds * iso) / (aperture * aperture)));
}

function secondsOf(text: string | null | undefined): number | undefined {
  if (!text) return undefined;
  const slash = text.indexOf("/");
  const seconds = slash === -1
    ? Number(text)
    : Number(text.slice(0, slash)) / Number(text.slice(slash + 1));
  return Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}
