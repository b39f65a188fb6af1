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
 * (a library holds a few dozen of each), each read once per text the server sends.
 */
export class CameraReader {
  /** Cameras by make, then model, as sent (`""` for none). */
  readonly #cameras = new Map<string, Map<string, string | undefined>>();
  /** Lenses and exposure times, as sent. */
  readonly #lenses = new Map<string, string | undefined>();
  readonly #seconds = new Map<string, number | undefined>();
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
    asset.camera = exif ? this.#camera(exif.make ?? "", exif.model ?? "") : undefined;
    const lens = exif?.lensModel;
    asset.lens = lens ? this.#lens(lens) : undefined;
    asset.exposure = exif ? this.#exposure(exif) : undefined;
    asset.undated = exif && exif.dateTimeOriginal == null ? true : undefined;
  }

  #camera(make: string, model: string): string | undefined {
    let byModel = this.#cameras.get(make);
    if (byModel === undefined) this.#cameras.set(make, byModel = new Map());
    if (byModel.has(model)) return byModel.get(model);
    const camera = this.#shared(cameraName(make, model));
    byModel.set(model, camera);
    return camera;
  }

  #lens(lens: string): string | undefined {
    if (this.#lenses.has(lens)) return this.#lenses.get(lens);
    const tidied = this.#shared(tidy(lens));
    this.#lenses.set(lens, tidied);
    return tidied;
  }

  #exposure(exif: CameraExif): number | undefined {
    const time = exif.exposureTime;
    if (!time) return undefined;
    let seconds = this.#seconds.get(time);
    if (seconds === undefined && !this.#seconds.has(time)) {
      this.#seconds.set(time, seconds = secondsOf(time));
    }
    return seconds === undefined ? undefined : exposureOf(seconds, exif.fNumber, exif.iso);
  }

  /** One string for equal cameras and lenses of other spellings (`Canon  EOS R5`). */
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

/** `log2(exposure time × ISO / f-number²)` in twelfths of a stop. */
function exposureOf(
  seconds: number,
  fNumber: number | null | undefined,
  iso: number | null | undefined,
): number {
  const aperture = fNumber && fNumber > 0 ? fNumber : 1;
  const sensitivity = iso && iso > 0 ? iso : 100;
  return Math.round(12 * Math.log2((seconds * sensitivity) / (aperture * aperture)));
}

function secondsOf(text: string | null | undefined): number | undefined {
  if (!text) return undefined;
  const slash = text.indexOf("/");
  const seconds = slash === -1
    ? Number(text)
    : Number(text.slice(0, slash)) / Number(text.slice(slash + 1));
  return Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}
