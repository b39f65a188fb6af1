/**
 * A seeded, realistic synthetic photo library for the Immich test server, for `deno task bench`,
 * `deno task demo` and tests.
 *
 * Each user's library is a timeline of capture events from five cameras, named as those cameras
 * name files:
 *
 * | camera  | files                                                                        |
 * |---------|------------------------------------------------------------------------------|
 * | Canon   | `IMG_0001.CR3` + `IMG_0001.JPG`, edits `IMG_0001~2.JPG`, `IMG_0001_edited.jpg` |
 * | Sony    | `DSC01234.ARW` + `DSC01234.JPG`, HDR brackets of 3 or 5 `.ARW`                |
 * | iPhone  | `IMG_1234.HEIC` with a hidden motion part `IMG_1234.MOV`, ProRAW `.DNG`, `.PNG` screenshots |
 * | Pixel   | `PXL_20240615_143022123.RAW-01.MP.COVER.jpg` + `….RAW-02.ORIGINAL.dng`, `Screenshot_….png` |
 * | Samsung | `20240615_143022.jpg`, `20240615_143022~2.jpg`, bursts `20240615_143022_001.jpg`, `Screenshot_…_Chrome.jpg` |
 *
 * Events are RAW+JPEG pairs, bursts of 3–20 frames 100–900 ms apart, HDR brackets (0, −2, +2
 * stops, then −4, +4), edited copies, singles, screenshots without EXIF, live photos, videos; a
 * few assets are archived or trashed. Photos carry the EXIF a camera writes (make, model, lens,
 * exposure), videos and screenshots none. With the default rules about one group forms per four
 * assets, so 200 000 assets give about 50 000 stacks once converged; immich-stack's default
 * CRITERIA (file name before the first `~` or `.`, plus localDateTime within 1000 ms) leave the
 * bursts and brackets, which have distinct names, as singles.
 *
 * Pre-existing stacks (`GeneratedUser.stacks`) cover the cases the planner must handle: correct
 * (parent as the default promotion would choose it), wrong parent, missing a member, made by
 * hand over a burst (which the default rules make the same stack), and stacks that hold one
 * visible asset because the other member is in the trash.
 *
 * With `stackedTrash`, some groups are stacked before any run and one member of each is then moved
 * to the trash, as happens when a stacked library is tidied: Immich keeps trashed assets (and
 * their place in the stack) for 30 days. Half of those groups of three (an edit, the JPEG, the
 * raw file) were stacked before their raw file was imported, so a pass grows them.
 *
 * Everything is derived from the seed: the same options give the same library, ids included.
 *
 * @module
 */
import type { ImmichServer, TestAssetInput } from "../tests/immich_server.ts";
import { type Random, seededRandom, shuffled } from "../tests/_random.ts";

/** Options of {@linkcode generateLibrary}. */
export interface LibraryOptions {
  /** Seed of the pseudo-random generator; the same seed gives the same library. */
  readonly seed: number;
  /** Assets per user (hidden live-photo motion parts and trashed assets included). */
  readonly assets: number;
  /** @default {1} */
  readonly users?: number;
  /**
   * Share libraries between users, as Immich partners: each user's library is shown to the next
   * user (the last to the first). With one user, a partner user with a tenth of the assets is
   * added who shares with the first.
   *
   * @default {false}
   */
  readonly partners?: boolean;
  /**
   * The share of each user's assets that are members of a stack and in the trash: that many
   * groups are stacked as the default promotion orders them (half of those of three without
   * their last, raw, member), then one member of each other than the primary is trashed
   * ({@linkcode GeneratedUser.stackedTrash}). Drawn from a generator of its own, so the rest of
   * the library is the same as without.
   *
   * @default {0}
   */
  readonly stackedTrash?: number;
  /**
   * Archive a few events' assets, as users do. Without, those assets stay on the timeline; the
   * rest of the library is the same.
   *
   * @default {true}
   */
  readonly archive?: boolean;
}

/** A stack made before any run, one of whose members went to the trash afterwards. */
export interface StackedTrash {
  /** The stack's asset ids, primary first. */
  readonly stack: readonly string[];
  /** The member moved to the trash once the stack existed. */
  readonly trashed: string;
}

/** One generated user. */
export interface GeneratedUser {
  readonly name: string;
  /** The user's id on the test server (a UUID v4). */
  readonly id: string;
  /** The API key secret (test-only, derived from the seed). */
  readonly key: string;
  /** The assets, with deterministic ids, in capture order. */
  readonly assets: TestAssetInput[];
  /** Pre-existing stacks as asset ids, primary first. */
  readonly stacks: string[][];
  /** Stacks with a member in the trash (`stackedTrash`), never over a pre-existing stack's assets. */
  readonly stackedTrash?: readonly StackedTrash[];
  /** Indices (in {@linkcode GeneratedLibrary.users}) of the users this library is shared with. */
  readonly sharedWith: readonly number[];
}

/** What {@linkcode generateLibrary} makes. */
export interface GeneratedLibrary {
  readonly users: GeneratedUser[];
}

/** A user as {@linkcode loadLibrary} added it. */
export interface LoadedUser {
  readonly id: string;
  readonly name: string;
  readonly key: string;
}

type Rng = Random;

function int(rng: Rng, min: number, max: number): number {
  return min + Math.floor(rng() * (max - min + 1));
}

function hex(rng: Rng, digits: number): string {
  let out = "";
  while (out.length < digits) out += Math.floor(rng() * 0x10000).toString(16).padStart(4, "0");
  return out.slice(0, digits);
}

/** A UUID v4 from the generator: the test server, like Immich, accepts only v4 ids. */
function uuid(rng: Rng): string {
  const variant = "89ab"[Math.floor(rng() * 4)];
  return `${hex(rng, 8)}-${hex(rng, 4)}-4${hex(rng, 3)}-${variant}${hex(rng, 3)}-${hex(rng, 12)}`;
}

function pick<T>(rng: Rng, weighted: readonly (readonly [T, number])[]): T {
  const total = weighted.reduce((sum, [, w]) => sum + w, 0);
  let r = rng() * total;
  for (const [value, weight] of weighted) {
    r -= weight;
    if (r < 0) return value;
  }
  return weighted[weighted.length - 1][0];
}

const pad = (n: number, width: number) => String(n).padStart(width, "0");

/** `20240615_143022` from an epoch time, as phone cameras name files. */
function stamp(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1, 2)}${pad(d.getUTCDate(), 2)}_` +
    `${pad(d.getUTCHours(), 2)}${pad(d.getUTCMinutes(), 2)}${pad(d.getUTCSeconds(), 2)}`;
}

type Camera = "canon" | "sony" | "iphone" | "pixel" | "samsung";

/** Make, model and lens of each camera, as EXIF names them. */
const MODELS: Readonly<Record<Camera, readonly [string, string, string]>> = {
  canon: ["Canon", "EOS R5", "RF24-105mm F4 L IS USM"],
  sony: ["SONY", "ILCE-7M4", "FE 24-70mm F2.8 GM II"],
  iphone: ["Apple", "iPhone 15 Pro", "iPhone 15 Pro back triple camera 6.86mm f/1.78"],
  pixel: ["Google", "Pixel 8 Pro", ""],
  samsung: ["samsung", "SM-S918B", ""],
};

/** Exposure times a shot is taken at; an HDR bracket steps two stops either way. */
const TIMES = ["1/2000", "1/1000", "1/500", "1/250", "1/125", "1/60", "1/30", "1/15", "1/8"];

/** How a pre-existing stack over an event is made. */
type StackKind = "correct" | "wrong-parent" | "missing-member" | "one-asset" | "by-hand";

/** One capture event: its files, and which of them the default CRITERIA group together. */
interface Event {
  readonly assets: TestAssetInput[];
  /** Ids of the assets that form one group (primary as default promotion picks it, first). */
  readonly group: string[];
  /** Ids of burst frames that a user could stack by hand. */
  readonly burst: string[];
  /** A visible asset and a trashed one of the same shot, for a one-asset stack. */
  readonly orphan?: readonly [string, string];
}

/** Per-camera file counters, which wrap as real cameras do. */
interface Counters {
  canon: number;
  sony: number;
  iphone: number;
}

interface FileSpec {
  readonly name: string;
  readonly at: number;
  readonly camera: Camera | null;
  readonly raw?: boolean;
  readonly hidden?: boolean;
  readonly video?: boolean;
  readonly livePhotoVideoId?: string;
  /** Its place in {@linkcode TIMES}; the event's when not given. */
  readonly exposure?: number;
}

class EventBuilder {
  readonly assets: TestAssetInput[] = [];
  readonly group: string[] = [];
  readonly burst: string[] = [];
  orphan?: readonly [string, string];
  /** The event's exposure time, a place in {@linkcode TIMES}. */
  readonly exposure: number;

  constructor(private readonly rng: Rng) {
    this.exposure = int(rng, 2, TIMES.length - 3);
  }

  add(spec: FileSpec): string {
    const id = uuid(this.rng);
    const time = new Date(spec.at).toISOString();
    const exif = spec.camera !== null;
    const [make, model, lens] = exif ? MODELS[spec.camera as Camera] : [null, null, ""];
    const rng = this.rng;
    this.assets.push({
      id,
      originalFileName: spec.name,
      localDateTime: time,
      fileCreatedAt: time,
      dateTimeOriginal: exif ? time : null,
      make,
      model,
      ...(exif && !spec.video
        ? {
          lensModel: lens === "" ? null : lens,
          exposureTime: TIMES[spec.exposure ?? this.exposure],
          fNumber: spec.camera === "canon" || spec.camera === "sony" ? 8 : 1.8,
          iso: 100,
        }
        : {}),
      ...(spec.video
        ? { type: "VIDEO" as const, duration: `0:00:${pad(int(rng, 2, 59), 2)}.00000` }
        : {}),
      ...(spec.hidden ? { visibility: "hidden" as const } : {}),
      ...(spec.livePhotoVideoId === undefined ? {} : { livePhotoVideoId: spec.livePhotoVideoId }),
      fileSizeInByte: spec.raw
        ? int(rng, 20_000_000, 48_000_000)
        : spec.video
        ? int(rng, 2_000_000, 90_000_000)
        : int(rng, 300_000, 9_000_000),
      width: exif ? 6000 : 1080,
      height: exif ? 4000 : 2400,
    });
    return id;
  }

  /** Adds files that the default CRITERIA put in one group, the expected parent first. */
  addGroup(specs: readonly FileSpec[]): string[] {
    const ids = specs.map((spec) => this.add(spec));
    this.group.push(...ids);
    return ids;
  }

  build(): Event {
    return { assets: this.assets, group: this.group, burst: this.burst, orphan: this.orphan };
  }
}

/** Frame gaps of a burst: 100–900 ms each. */
function frameTimes(rng: Rng, start: number, count: number): number[] {
  const times = [start];
  for (let i = 1; i < count; i++) times.push(times[i - 1] + int(rng, 100, 900));
  return times;
}

function nextCounter(counters: Counters, camera: keyof Counters, steps = 1): number {
  const first = counters[camera];
  counters[camera] = (first + steps - 1) % 9999 + 1;
  return first;
}

/** How a Canon or Sony body names its files: the name of a counter value, and the raw extension. */
function cameraNames(camera: "canon" | "sony"): { name: (n: number) => string; rawExt: string } {
  const [prefix, rawExt] = camera === "canon" ? ["IMG_", "CR3"] : ["DSC0", "ARW"];
  return { name: (n) => `${prefix}${pad(n, 4)}`, rawExt };
}

function dedicatedCamera(
  rng: Rng,
  b: EventBuilder,
  camera: "canon" | "sony",
  at: number,
  counters: Counters,
): void {
  const { name, rawExt } = cameraNames(camera);
  const kind = pick(
    rng,
    [
      ["pair", 64],
      ["jpeg", 6],
      ["pair-edit", 8],
      ["edited", 5],
      ["orphan", 3],
      ["burst", 8],
      ["hdr", 7],
      ["video", 3],
    ] as const,
  );
  switch (kind) {
    case "pair":
    case "pair-edit": {
      const base = name(nextCounter(counters, camera));
      const specs: FileSpec[] = [
        { name: `${base}.JPG`, at, camera },
        { name: `${base}.${rawExt}`, at, camera, raw: true },
      ];
      // An export from an editor keeps the EXIF time and gets a `~2` suffix.
      if (kind === "pair-edit") specs.unshift({ name: `${base}~2.JPG`, at, camera });
      b.addGroup(specs);
      return;
    }
    case "jpeg":
      b.add({ name: `${name(nextCounter(counters, camera))}.JPG`, at, camera });
      return;
    case "edited": {
      const base = name(nextCounter(counters, camera));
      b.add({ name: `${base}.JPG`, at, camera });
      // `_edited` is part of the name before the first dot: the default CRITERIA keep it apart.
      b.add({ name: `${base}_edited.jpg`, at, camera });
      return;
    }
    case "orphan": {
      const base = name(nextCounter(counters, camera));
      const jpeg = b.add({ name: `${base}.JPG`, at, camera });
      const raw = b.add({ name: `${base}.${rawExt}`, at, camera, raw: true });
      b.assets[b.assets.length - 1] = { ...b.assets[b.assets.length - 1], isTrashed: true };
      b.orphan = [jpeg, raw];
      return;
    }
    case "burst": {
      const frames = int(rng, 3, 20);
      const first = nextCounter(counters, camera, frames);
      const withRaw = rng() < 0.3;
      frameTimes(rng, at, frames).forEach((t, i) => {
        const base = name((first + i - 1) % 9999 + 1);
        if (withRaw) {
          b.addGroup([
            { name: `${base}.JPG`, at: t, camera },
            { name: `${base}.${rawExt}`, at: t, camera, raw: true },
          ]);
        } else {
          b.burst.push(b.add({ name: `${base}.JPG`, at: t, camera }));
        }
      });
      return;
    }
    case "hdr": {
      const frames = rng() < 0.7 ? 3 : 5;
      const first = nextCounter(counters, camera, frames);
      // 0, -2, +2 (and -4, +4) stops, as cameras bracket by default.
      const steps = [0, 2, -2, 4, -4];
      frameTimes(rng, at, frames).forEach((t, i) => {
        b.burst.push(
          b.add({
            name: `${name((first + i - 1) % 9999 + 1)}.${rawExt}`,
            at: t,
            camera,
            raw: true,
            exposure: Math.min(Math.max(b.exposure + steps[i], 0), TIMES.length - 1),
          }),
        );
      });
      return;
    }
    case "video":
      b.add({
        name: camera === "canon"
          ? `MVI_${pad(nextCounter(counters, camera), 4)}.MP4`
          : `C${pad(nextCounter(counters, camera), 4)}.MP4`,
        at,
        camera,
        video: true,
      });
      return;
  }
}

function iphone(rng: Rng, b: EventBuilder, at: number, counters: Counters): void {
  const name = (n: number) => `IMG_${pad(n, 4)}`;
  const kind = pick(
    rng,
    [
      ["single", 16],
      ["live", 26],
      ["proraw", 16],
      ["export", 10],
      ["burst", 5],
      ["screenshot", 10],
      ["video", 7],
    ] as const,
  );
  const camera = "iphone";
  switch (kind) {
    case "single":
      b.add({ name: `${name(nextCounter(counters, camera))}.HEIC`, at, camera });
      return;
    case "live": {
      const base = name(nextCounter(counters, camera));
      // The motion part is hidden: search leaves it out on v1.133+, and it is never stacked.
      const motion = b.add({ name: `${base}.MOV`, at, camera, video: true, hidden: true });
      b.add({ name: `${base}.HEIC`, at, camera, livePhotoVideoId: motion });
      return;
    }
    case "proraw":
    case "export": {
      const base = name(nextCounter(counters, camera));
      b.addGroup(
        kind === "proraw"
          ? [{ name: `${base}.HEIC`, at, camera }, { name: `${base}.DNG`, at, camera, raw: true }]
          : [{ name: `${base}~2.JPG`, at, camera }, { name: `${base}.HEIC`, at, camera }],
      );
      return;
    }
    case "burst": {
      const frames = int(rng, 3, 20);
      const first = nextCounter(counters, camera, frames);
      frameTimes(rng, at, frames).forEach((t, i) => {
        b.burst.push(b.add({ name: `${name((first + i - 1) % 9999 + 1)}.HEIC`, at: t, camera }));
      });
      return;
    }
    case "screenshot":
      b.add({ name: `${name(nextCounter(counters, camera))}.PNG`, at, camera: null });
      return;
    case "video":
      b.add({ name: `${name(nextCounter(counters, camera))}.MOV`, at, camera, video: true });
      return;
  }
}

function pixel(rng: Rng, b: EventBuilder, at: number): void {
  const base = `PXL_${stamp(at)}${pad(at % 1000, 3)}`;
  const camera = "pixel";
  const kind = pick(
    rng,
    [
      ["single", 18],
      ["raw", 40],
      ["portrait", 10],
      ["burst", 5],
      ["screenshot", 15],
      ["video", 10],
    ] as const,
  );
  switch (kind) {
    case "single":
      b.add({ name: `${base}.jpg`, at, camera });
      return;
    case "raw":
      b.addGroup([
        { name: `${base}.RAW-01.MP.COVER.jpg`, at, camera },
        { name: `${base}.RAW-02.ORIGINAL.dng`, at, camera, raw: true },
      ]);
      return;
    case "portrait":
      b.addGroup([
        { name: `${base}.PORTRAIT.jpg`, at, camera },
        { name: `${base}.PORTRAIT.ORIGINAL.jpg`, at, camera },
      ]);
      return;
    case "burst": {
      const frames = int(rng, 3, 20);
      const burstStamp = `${stamp(at).replace("_", "")}${pad(at % 1000, 3)}`;
      frameTimes(rng, at, frames).forEach((t, i) => {
        const cover = i === 0 ? "_COVER" : "";
        b.burst.push(
          b.add({
            name: `${pad(i, 5)}IMG_${pad(i, 5)}_BURST${burstStamp}${cover}.jpg`,
            at: t,
            camera,
          }),
        );
      });
      return;
    }
    case "screenshot":
      b.add({ name: `Screenshot_${stamp(at).replace("_", "-")}.png`, at, camera: null });
      return;
    case "video":
      b.add({ name: `${base}.mp4`, at, camera, video: true });
      return;
  }
}

function samsung(rng: Rng, b: EventBuilder, at: number): void {
  const base = stamp(at);
  const camera = "samsung";
  const kind = pick(
    rng,
    [
      ["single", 28],
      ["edit", 16],
      ["raw", 18],
      ["burst", 5],
      ["screenshot", 15],
      ["video", 8],
    ] as const,
  );
  switch (kind) {
    case "single":
      b.add({ name: `${base}.jpg`, at, camera });
      return;
    case "edit":
      b.addGroup([{ name: `${base}~2.jpg`, at, camera }, { name: `${base}.jpg`, at, camera }]);
      return;
    case "raw":
      b.addGroup([
        { name: `${base}.jpg`, at, camera },
        { name: `${base}.dng`, at, camera, raw: true },
      ]);
      return;
    case "burst":
      // Every frame is named by the time the burst began.
      frameTimes(rng, at, int(rng, 3, 20)).forEach((t, i) => {
        b.burst.push(b.add({ name: `${base}_${pad(i + 1, 3)}.jpg`, at: t, camera }));
      });
      return;
    case "screenshot":
      b.add({ name: `Screenshot_${base}_Chrome.jpg`, at, camera: null });
      return;
    case "video":
      b.add({ name: `${base}.mp4`, at, camera, video: true });
      return;
  }
}

/** Archives (unless `archive` is false) or trashes a few assets of an event, as users do. */
function tidy(rng: Rng, assets: TestAssetInput[], archive: boolean): void {
  const archived = rng() < 0.03;
  for (let i = 0; i < assets.length; i++) {
    const asset = assets[i];
    if (asset.visibility === "hidden" || asset.isTrashed) continue;
    // The same draws either way, so that without the archive the rest stays the same.
    if (archived) {
      if (archive) assets[i] = { ...asset, visibility: "archive" };
    } else if (rng() < 0.01) assets[i] = { ...asset, isTrashed: true };
  }
}

/** What {@linkcode generateUser} makes beyond the assets' count and sharing. */
interface UserOptions {
  readonly archive: boolean;
  readonly stackedTrash: number;
  /** The generator that picks the stacks with a trashed member. */
  readonly trashRng: Rng;
}

function generateUser(
  rng: Rng,
  name: string,
  assetCount: number,
  sharedWith: readonly number[],
  options: UserOptions,
): GeneratedUser {
  const id = uuid(rng);
  const key = `bench-${hex(rng, 40)}`;
  const counters: Counters = { canon: int(rng, 1, 9999), sony: int(rng, 1, 9999), iphone: 1 };
  const assets: TestAssetInput[] = [];
  const stacks: string[][] = [];
  /** Groups no pre-existing stack covers, with no asset archived or trashed. */
  const unstacked: string[][] = [];
  // Ten years of photos from 2015 on, in capture order.
  let at = Date.UTC(2015, 0, 1) + int(rng, 0, 86_400_000);
  const meanGap = Math.max(2_000, Math.floor(10 * 365 * 86_400_000 / Math.max(assetCount, 1)));
  while (assets.length < assetCount) {
    // Gaps of a second to many hours; always more than the default 1000 ms delta.
    at += 1_500 + Math.floor(-Math.log(1 - rng()) * meanGap);
    const b = new EventBuilder(rng);
    const camera = pick(
      rng,
      [
        ["canon", 30],
        ["sony", 20],
        ["iphone", 26],
        ["pixel", 15],
        ["samsung", 13],
      ] as const,
    );
    if (camera === "canon" || camera === "sony") dedicatedCamera(rng, b, camera, at, counters);
    else if (camera === "iphone") iphone(rng, b, at, counters);
    else if (camera === "pixel") pixel(rng, b, at);
    else samsung(rng, b, at);
    const event = b.build();
    const room = assetCount - assets.length;
    if (event.assets.length > room) {
      // The last event is cut to the requested size; keep it simple and stack-free.
      for (const asset of event.assets.slice(0, room)) {
        assets.push({ ...asset, livePhotoVideoId: null, visibility: "timeline" });
      }
      break;
    }
    const hasTrash = event.orphan !== undefined;
    if (!hasTrash) tidy(rng, event.assets, options.archive);
    for (const asset of event.assets) assets.push(asset);
    const last = event.assets[event.assets.length - 1];
    at = Date.parse(last.localDateTime as string);
    const stack = existingStack(rng, event);
    if (stack !== undefined) stacks.push(stack);
    else if (event.group.length >= 2 && event.assets.every(untidied)) unstacked.push(event.group);
  }
  const count = Math.round(options.stackedTrash * assetCount);
  const stackedTrash = shuffled(unstacked, options.trashRng).slice(0, count).map((group) => {
    // Half the groups of three stack without their raw file, imported after the stack was made.
    const late = group.length >= 3 && options.trashRng() < 0.5;
    const stack = late ? group.slice(0, -1) : group;
    return { stack, trashed: stack[1 + Math.floor(options.trashRng() * (stack.length - 1))] };
  });
  return { name, id, key, assets, stacks, stackedTrash, sharedWith };
}

/** Mixed into the seed for the generator of {@linkcode LibraryOptions.stackedTrash}. */
const TRASH_SEED = 0x7a54;

/** Neither archived nor trashed by {@linkcode tidy} or an orphan event. */
function untidied(asset: TestAssetInput): boolean {
  return asset.isTrashed !== true && (asset.visibility ?? "timeline") !== "archive";
}

/** Maybe a pre-existing stack over the event, of a kind drawn by weight. */
function existingStack(rng: Rng, event: Event): string[] | undefined {
  if (event.orphan !== undefined) return rng() < 0.6 ? [...event.orphan] : undefined;
  if (event.burst.length >= 2) return rng() < 0.15 ? [...event.burst] : undefined;
  if (event.group.length < 2 || rng() >= 0.5) return undefined;
  const kind: StackKind = pick(
    rng,
    [
      ["correct", 70],
      ["wrong-parent", 18],
      ["missing-member", 12],
    ] as const,
  );
  const group = event.group;
  switch (kind) {
    case "wrong-parent":
      return [...group.slice(1), group[0]];
    case "missing-member":
      // A stack needs two members; for a pair this becomes the wrong parent instead.
      return group.length > 2 ? group.slice(0, -1) : [group[1], group[0]];
    default:
      return [...group];
  }
}

/**
 * Generates a library: users with keys, assets and pre-existing stacks. Pure and deterministic:
 * the same options give the same library.
 *
 * @param options Seed, assets per user, users and partner sharing.
 * @returns The library, to load with {@linkcode loadLibrary}.
 * @throws {RangeError} When `assets` or `users` is not a non-negative integer (users positive).
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { generateLibrary } from "./gen_library.ts";
 *
 * const library = generateLibrary({ seed: 7, assets: 500 });
 * assert.equal(library.users.length, 1);
 * assert.equal(library.users[0].assets.length, 500);
 * assert.deepEqual(generateLibrary({ seed: 7, assets: 500 }), library);
 * ```
 */
export function generateLibrary(options: LibraryOptions): GeneratedLibrary {
  const userCount = options.users ?? 1;
  if (!Number.isInteger(options.assets) || options.assets < 0) {
    throw new RangeError(
      `Cannot generate library as assets must be a non-negative integer: current value is ${options.assets}`,
    );
  }
  if (!Number.isInteger(userCount) || userCount < 1) {
    throw new RangeError(
      `Cannot generate library as users must be a positive integer: current value is ${userCount}`,
    );
  }
  const stackedTrash = options.stackedTrash ?? 0;
  if (!(stackedTrash >= 0 && stackedTrash <= 1)) {
    throw new RangeError(
      `Cannot generate library as stackedTrash must be a share from 0 to 1: current value is ${stackedTrash}`,
    );
  }
  const rng = seededRandom(options.seed);
  const userOptions = {
    archive: options.archive ?? true,
    stackedTrash,
    trashRng: seededRandom(options.seed ^ TRASH_SEED),
  };
  const users: GeneratedUser[] = [];
  for (let i = 0; i < userCount; i++) {
    const sharedWith = options.partners && userCount > 1 ? [(i + 1) % userCount] : [];
    users.push(generateUser(rng, `User ${i + 1}`, options.assets, sharedWith, userOptions));
  }
  if (options.partners && userCount === 1) {
    users.push(generateUser(rng, "Partner", Math.floor(options.assets / 10), [0], userOptions));
  }
  return { users };
}

/** Options of {@linkcode generateScenes}. */
export interface ScenesOptions {
  /** Seed of the pseudo-random generator; the same seed gives the same library. */
  readonly seed: number;
  /** RAW+JPEG pairs, each one shot. */
  readonly scenes: number;
  /** Scenes that also have an editor's export (`IMG_0001~2.JPG`), which joins their group. */
  readonly edits: number;
}

/**
 * Generates the small library most people have: one user's day trips with a Canon or a Sony
 * body shooting RAW+JPEG, a few shots exported again from an editor. Every scene is one group
 * under the default CRITERIA (the export first, else the JPEG), no stack exists yet, nothing is
 * archived or trashed. Pure and deterministic.
 *
 * @param options Seed, scenes and edits.
 * @returns The library, to load with {@linkcode loadLibrary}: `2 × scenes + edits` assets.
 * @throws {RangeError} When scenes or edits is not a whole number, or edits exceeds scenes.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { generateScenes } from "./gen_library.ts";
 *
 * const { users } = generateScenes({ seed: 1, scenes: 400, edits: 80 });
 * assert.equal(users[0].assets.length, 880);
 * assert.equal(users[0].assets.filter((asset) => asset.originalFileName.includes("~2")).length, 80);
 * ```
 */
export function generateScenes(options: ScenesOptions): GeneratedLibrary {
  const { scenes, edits } = options;
  if (!Number.isInteger(scenes) || !Number.isInteger(edits) || edits < 0 || edits > scenes) {
    throw new RangeError(
      `Cannot generate scenes as edits must be a whole number from 0 to scenes: current value is ${edits} of ${scenes}`,
    );
  }
  const rng = seededRandom(options.seed);
  const id = uuid(rng);
  const key = `bench-${hex(rng, 40)}`;
  const edited = new Set(shuffled([...Array(scenes).keys()], rng).slice(0, edits));
  const counters: Counters = { canon: int(rng, 1, 9999), sony: int(rng, 1, 9999), iphone: 1 };
  const assets: TestAssetInput[] = [];
  // Half a minute to twenty minutes between shots, from a summer morning on.
  let at = Date.UTC(2025, 5, 1, 8);
  for (let scene = 0; scene < scenes; scene++) {
    at += int(rng, 30_000, 1_200_000);
    const camera: "canon" | "sony" = rng() < 0.5 ? "canon" : "sony";
    const { name, rawExt } = cameraNames(camera);
    const base = name(nextCounter(counters, camera));
    const b = new EventBuilder(rng);
    b.addGroup([
      ...(edited.has(scene) ? [{ name: `${base}~2.JPG`, at, camera }] : []),
      { name: `${base}.JPG`, at, camera },
      { name: `${base}.${rawExt}`, at, camera, raw: true },
    ]);
    assets.push(...b.assets);
  }
  return { users: [{ name: "User 1", id, key, assets, stacks: [], sharedWith: [] }] };
}

/**
 * Adds a generated library to a test server: users, one `all` key each, assets, stacks (in
 * order, with the merge rule of `POST /stacks`), the stacks with a member in the trash, and
 * partner sharing.
 *
 * @param server The test server; the library's users must not exist on it yet.
 * @param library From {@linkcode generateLibrary}.
 * @returns The users as added, with their keys.
 * @throws {TypeError} When a user or an asset id is already taken on the server.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { startImmichServer } from "../tests/immich_server.ts";
 * import { generateLibrary, loadLibrary } from "./gen_library.ts";
 *
 * await using server = await startImmichServer();
 * const library = generateLibrary({ seed: 1, assets: 300 });
 * const { users } = loadLibrary(server, library);
 * assert.equal(server.stacks(users[0].id).length, library.users[0].stacks.length);
 * ```
 */
export function loadLibrary(
  server: ImmichServer,
  library: GeneratedLibrary,
): { users: LoadedUser[] } {
  const users = library.users.map((user) => {
    const added = server.addUser({ id: user.id, name: user.name });
    server.addKey(added.id, { secret: user.key });
    server.addAssets(added.id, user.assets);
    for (const stack of user.stacks) server.addStack(added.id, stack);
    // Immich leaves a trashed asset out of a new stack: it goes to the trash once stacked.
    for (const { stack, trashed } of user.stackedTrash ?? []) {
      server.addStack(added.id, stack);
      server.updateAsset(trashed, { isTrashed: true });
    }
    return { id: added.id, name: added.name, key: user.key };
  });
  library.users.forEach((user, i) => {
    for (const j of user.sharedWith) server.addPartner(users[i].id, users[j].id);
  });
  return { users };
}
