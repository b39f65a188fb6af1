/**
 * The Immich test server (docs/architecture.md, "The Immich test server"): real HTTP on 127.0.0.1
 * and a random port, with the semantics recorded from a live Immich v3.1.0 in
 * `tests/testdata/immich-fixtures/` — users and API keys with permissions, owner scoping, the
 * merge rule of `POST /stacks` (through {@linkcode StackStore}), `search/metadata` paging with
 * `nextPage` strings, visibility by server version, partner assets, thumbnails (real WebP
 * pictures, `asset.view`), and error bodies in the v1/v2 or v3 shape. It records every request
 * (never the key) and injects faults on demand (errors, dropped connections, latency, and a route
 * that never answers). Tests, `deno task demo`, `deno task sandbox` and `deno task bench` all use
 * it.
 *
 * Paths in {@linkcode RecordedRequest} and in fault route keys are relative to `/api`, e.g.
 * `POST /stacks` or `DELETE /stacks/{id}`.
 *
 * @module
 */

import { z } from "zod";
import {
  listenHttp,
  type RawRequest,
  type RawResponse,
  type RawServer,
  REASONS,
} from "./_immich_http.ts";
import { type StackRecord, StackStore, StackStoreError } from "./immich_stacks.ts";
import { seededRandom } from "./_random.ts";
import { UpdatedIndex } from "./immich_updated_index.ts";
import {
  FIXTURE_FILES,
  FIXTURE_SCREENSHOT_TIMES,
  FIXTURE_USER_IDS,
} from "./_immich_fixture_library.ts";

/** Options for {@linkcode startImmichServer}. */
export interface ImmichServerOptions {
  /**
   * The Immich version to imitate, e.g. `"1.118.2"`, `"1.132.3"`, `"2.4.1"`, `"3.1.0"`,
   * `"3.2.2"`.
   * It decides the error body shape, validation style and search visibility rules.
   *
   * @default {"3.1.0"}
   */
  readonly version?: string;
  /**
   * The port to listen on; 0 picks a free one.
   *
   * @default {0}
   */
  readonly port?: number;
  /**
   * Makes the ids of users, assets, albums and stacks from this seed, so a property test's
   * failure replays with the same ids (and so the same orders).
   *
   * @default {random ids}
   */
  readonly seed?: number;
  /**
   * Whether Immich serves its web bundle: without it, paths outside `/api` answer an empty
   * `text/html` page with status 200, as an Immich built without the web app does.
   *
   * @default {true}
   */
  readonly webBundle?: boolean;
}

/** A user of the test server. */
export interface TestUser {
  readonly id: string;
  readonly name: string;
  readonly email: string;
}

/** Input for {@linkcode ImmichServer.addUser}. */
export interface TestUserInput {
  readonly name: string;
  /** @default {`<name in lower case, no spaces>@example.test`} */
  readonly email?: string;
  /** @default {a random UUID} */
  readonly id?: string;
  /** @default {false} */
  readonly isAdmin?: boolean;
}

/** Options for {@linkcode ImmichServer.addKey}. */
export interface TestKeyOptions {
  /** @default {["all"]} */
  readonly permissions?: readonly string[];
  /** @default {a random secret} */
  readonly secret?: string;
  /** @default {"cli-all"} */
  readonly name?: string;
}

/** Immich asset visibility (v1.133+; older servers derive isArchived and isVisible from it). */
export type TestVisibility = "timeline" | "archive" | "hidden" | "locked";

/** Immich asset types. */
export type TestAssetType = "IMAGE" | "VIDEO" | "AUDIO" | "OTHER";

/**
 * Input for {@linkcode ImmichServer.addAsset}. Every field but the name has a default like the
 * fixture library's (96x64 Canon EOS R5 images).
 */
export interface TestAssetInput {
  readonly originalFileName: string;
  /** @default {a random UUID} */
  readonly id?: string;
  /** ISO 8601; @default {fileCreatedAt, else "2024-01-01T00:00:00.000Z"} */
  readonly localDateTime?: string;
  /** ISO 8601; @default {localDateTime, else "2024-01-01T00:00:00.000Z"} */
  readonly fileCreatedAt?: string;
  /** ISO 8601; @default {fileCreatedAt} */
  readonly fileModifiedAt?: string;
  /** @default {"VIDEO" for video extensions, else "IMAGE"} */
  readonly type?: TestAssetType;
  /** @default {"timeline"} */
  readonly visibility?: TestVisibility;
  /** @default {false} */
  readonly isTrashed?: boolean;
  /** @default {false} */
  readonly isFavorite?: boolean;
  /** @default {null} */
  readonly livePhotoVideoId?: string | null;
  /** @default {2200, or 37296 for raw files} */
  readonly fileSizeInByte?: number;
  /** @default {"/data/upload/<owner>/<id[0:2]>/<id[2:4]>/<id>.<ext>"} */
  readonly originalPath?: string;
  /** Base64 SHA-1. @default {derived from the id} */
  readonly checksum?: string;
  /** @default {derived from the extension} */
  readonly originalMimeType?: string;
  /** EXIF DateTimeOriginal, ISO 8601, or null for none. @default {localDateTime} */
  readonly dateTimeOriginal?: string | null;
  /** @default {"Canon"} */
  readonly make?: string | null;
  /** @default {"EOS R5"} */
  readonly model?: string | null;
  /** EXIF lens, exposure time (`1/200`), f-number and ISO. @default {null each} */
  readonly lensModel?: string | null;
  readonly exposureTime?: string | null;
  readonly fNumber?: number | null;
  readonly iso?: number | null;
  /** @default {"1" for raw files, else null} */
  readonly orientation?: string | null;
  /** @default {null for raw files, else "UTC"} */
  readonly timeZone?: string | null;
  /** @default {96} */
  readonly width?: number;
  /** @default {64} */
  readonly height?: number;
  /** Video duration as Immich writes it. @default {null for images, "0:00:03.00000" for videos} */
  readonly duration?: string | null;
  /** The uploading device, sent by servers before v3 only. @default {"stacksync-test"} */
  readonly deviceId?: string;
  /** The device's id of the file, before v3 only. @default {"<file name>-<size>"} */
  readonly deviceAssetId?: string;
}

/** An asset as stored, with times as ISO 8601 text. */
export interface TestAsset {
  readonly id: string;
  readonly ownerId: string;
  readonly originalFileName: string;
  readonly originalPath: string;
  readonly localDateTime: string;
  readonly fileCreatedAt: string;
  readonly type: TestAssetType;
  readonly visibility: TestVisibility;
  readonly isTrashed: boolean;
  readonly checksum: string;
}

/** A stack as the server holds it: every member, primary first. */
export type TestStack = StackRecord;

/**
 * A change to an asset as the web app, the mobile app or a library scan makes it; every change
 * moves the asset's `updatedAt`, as Immich's trigger does for any write to the asset's row.
 */
export interface TestAssetChange {
  /** To the trash (`DELETE /assets` without force) or back (`POST /trash/restore/assets`). */
  readonly isTrashed?: boolean;
  /** Archive, timeline, hidden, locked (`PUT /assets` with `visibility`). */
  readonly visibility?: TestVisibility;
  /** A rename: the file moved in an external library (its path follows unless given). */
  readonly originalFileName?: string;
  readonly originalPath?: string;
  /** A capture-time edit (`PUT /assets/{id}` with `dateTimeOriginal`): local time follows. */
  readonly dateTimeOriginal?: string;
}

/** The whole state of a server, put back with {@linkcode ImmichServer.restore}. */
export interface ServerSnapshot {
  readonly brand: "ServerSnapshot";
}

/** An album. */
export interface TestAlbum {
  readonly id: string;
  readonly albumName: string;
}

/** One HTTP request the server answered (or dropped, status 0). The API key is never kept. */
export interface RecordedRequest {
  readonly method: string;
  /** Path relative to `/api`, e.g. `/stacks/…`; full path for non-API requests. */
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  /** The parsed JSON body, or undefined when there was none or it was not JSON. */
  readonly body: unknown;
  readonly status: number;
  /** The user the key belongs to, when the key was valid. */
  readonly userId?: string;
}

/**
 * Two write requests in flight at once that touch the same asset or stack. What a write
 * touches is taken from the server's state when it arrives and again when it is carried out:
 * the assets it lists or names, the stacks it changes and every member of a stack it deletes,
 * changes or merges (a listed primary brings its whole stack; a listed child leaves its stack).
 * Moving assets to or from the trash touches those assets alone.
 */
export interface WriteOverlap {
  /** The write that was in flight first, as `METHOD /path`. */
  readonly first: string;
  /** The write that arrived while it was. */
  readonly second: string;
  /** What both touch: `asset:<id>` or `stack:<id>`. */
  readonly key: string;
}

/** Every route that changes something, as `"METHOD /template"`. */
export const WRITE_ROUTES: readonly string[] = [
  "POST /stacks",
  "PUT /stacks/{id}",
  "PATCH /stacks/{id}",
  "DELETE /stacks",
  "DELETE /stacks/{id}",
  "DELETE /stacks/{id}/assets/{assetId}",
  "DELETE /assets",
  "POST /trash/restore/assets",
];

/**
 * The {@linkcode FaultOptions.routeLatencyMs} that holds every write route's answer back by
 * `ms`: a server whose writes are slow (a NAS under load), reads untouched.
 *
 * @param ms The added wait per write, in milliseconds.
 * @returns The table.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { writeLatency } from "./immich_server.ts";
 *
 * assert.equal(writeLatency(20)["POST /stacks"], 20);
 * assert.equal(writeLatency(20)["POST /search/metadata"], undefined);
 * ```
 */
export function writeLatency(ms: number): Record<string, number> {
  return Object.fromEntries(WRITE_ROUTES.map((route) => [route, ms]));
}

/**
 * A forced answer for one route: a status, or with `drop` a connection closed without answer.
 * Deno's `fetch` silently resends a request whose pooled keep-alive connection was closed
 * before any answer, so one dropped request may be seen twice here and never by the caller.
 */
export interface RouteFault {
  /** @default {500} */
  readonly status?: number;
  /** Close the connection without answering instead. */
  readonly drop?: boolean;
  /** Accept the request and never answer it (until the server closes), as a stuck server does. */
  readonly hang?: boolean;
  /** How many matching requests pass untouched before it applies. @default {0} */
  readonly skip?: number;
  /** How many requests it applies to. @default {forever} */
  readonly times?: number;
  /** @default {a status-appropriate text} */
  readonly message?: string;
  /**
   * Do the work first, then answer `status` (the client cannot know it succeeded). When the
   * work itself fails, its own answer is sent instead.
   */
  readonly afterWork?: boolean;
}

/** Search paging that breaks Immich's contract, for clients that must not trust it. */
export interface SearchPagingFault {
  /** Answer every search page with this `nextPage`, e.g. `"2"` forever. */
  readonly nextPage?: string;
  /** Answer every page with the items of page 1 (and `nextPage` the page after the asked one). */
  readonly repeatFirstPage?: boolean;
  /** How many search answers misbehave. @default {forever} */
  readonly times?: number;
}

/**
 * Fault injection; every rate is a probability in [0, 1] drawn from a generator seeded with
 * `seed`, so a given request sequence always meets the same faults.
 */
export interface FaultOptions {
  /** @default {1} */
  readonly seed?: number;
  /** Answer 500 without doing anything. */
  readonly error5xxRate?: number;
  /** Do the work, then answer 500 (the client cannot know it succeeded). */
  readonly error5xxAfterWorkRate?: number;
  /** Close the connection without any answer. */
  readonly dropRate?: number;
  /** Answer 429, with `Retry-After: retryAfterSeconds` when that is set. */
  readonly rate429?: number;
  readonly retryAfterSeconds?: number;
  /** Delay every answer by this much. */
  readonly latencyMs?: number;
  /**
   * `GET /stacks` (without `primaryAssetId`) answers 500 for a user with more stacks than this,
   * as Immich does when the answer grows too large to serialise (about 100 000 stacks).
   */
  readonly maxListedStacks?: number;
  /**
   * Delay the answers of some routes by this much more, by `"METHOD /template"` (e.g.
   * `"POST /stacks"`); {@linkcode writeLatency} makes the table for every write route.
   */
  readonly routeLatencyMs?: Readonly<Record<string, number>>;
  /** Forced answers by `"METHOD /path"`, the path concrete or as a template (`/stacks/{id}`). */
  readonly routes?: Readonly<Record<string, RouteFault>>;
  /** Misbehaving `POST /search/metadata` paging. */
  readonly searchPaging?: SearchPagingFault;
  /**
   * Called before each API request is answered (faults included), e.g. to upload an asset
   * between two search pages.
   */
  readonly beforeAnswer?: (request: { readonly method: string; readonly path: string }) => void;
  /**
   * How far the `Date` header runs ahead of the clock that sets `updatedAt` (negative: behind),
   * as when a reverse proxy with a clock of its own stamps it (nginx replaces Immich's `Date`).
   */
  readonly dateOffsetMs?: number;
}

/** A running test server. */
export interface ImmichServer extends AsyncDisposable {
  /** The base URL users set as API_URL: `http://127.0.0.1:<port>/api`. */
  readonly url: string;
  /** `http://127.0.0.1:<port>`; paths outside `/api` answer HTML with 200, as Immich's web app. */
  readonly origin: string;
  /** The imitated version. */
  readonly version: string;
  /** Adds a user. @throws {TypeError} When the id or email is taken. */
  addUser(input: TestUserInput): TestUser;
  /** Adds an API key for a user and returns its secret. @throws {TypeError} For an unknown user. */
  addKey(userId: string, options?: TestKeyOptions): string;
  /** Adds one asset. @throws {TypeError} For an unknown user, a taken id or a bad time. */
  addAsset(userId: string, input: TestAssetInput): TestAsset;
  /** Adds many assets at once (fast enough for 200 000). */
  addAssets(userId: string, inputs: readonly TestAssetInput[]): TestAsset[];
  /**
   * Changes an asset as the web app or a library scan would: trash, restore, visibility,
   * rename, capture time. Any change moves its `updatedAt`.
   */
  updateAsset(assetId: string, changes: TestAssetChange): void;
  /**
   * Deletes an asset for good, as Immich's deletion job does: its stack loses it, a stack left
   * with fewer than 2 members is deleted (its members' `updatedAt` move), a deleted cover hands
   * over to the next member (nothing moves).
   */
  deleteAsset(assetId: string): void;
  /** The web page's cover change (`PUT /stacks/{id}`): no asset's `updatedAt` moves. */
  setStackPrimary(userId: string, stackId: string, primaryAssetId: string): TestStack;
  /** `DELETE /stacks/{id}/assets/{assetId}`: the removed asset's `updatedAt` moves. */
  removeFromStack(userId: string, stackId: string, assetId: string): void;
  /** `DELETE /stacks/{id}`: every former member's `updatedAt` moves. */
  deleteStack(userId: string, stackId: string): void;
  /** An asset's `updatedAt` now, as search shows it. */
  updatedAt(assetId: string): string;
  /** The ids of a user's assets, oldest first. */
  assetIds(userId: string): string[];
  /** An asset's trash state and visibility now. */
  assetState(assetId: string): Pick<TestAsset, "isTrashed" | "visibility">;
  /**
   * The server's clock in ms since the epoch: it stamps `updatedAt` and the `Date` header (off
   * by {@linkcode FaultOptions.dateOffsetMs}, as a proxy's clock). It ticks 1 ms per change, so
   * answers are reproducible; {@linkcode advanceClock} lets time pass.
   */
  readonly now: number;
  /** Moves the clock forward, as the time between two passes. */
  advanceClock(ms: number): void;
  /** Copies every user's assets, stacks and albums and the clock. */
  snapshot(): ServerSnapshot;
  /** Puts back a snapshot of this server; requests and faults are left as they are. */
  restore(snapshot: ServerSnapshot): void;
  /**
   * Creates a stack with the merge rule of `POST /stacks`; the first id becomes primary.
   * @throws {TypeError} When an asset is not the user's or fewer than 2 ids are given.
   */
  addStack(userId: string, assetIds: readonly string[]): TestStack;
  /** Adds an album holding the given assets. */
  addAlbum(userId: string, name: string, assetIds: readonly string[]): TestAlbum;
  /** Shares `sharedByUserId`'s library with `sharedWithUserId` (shown in their timeline). */
  addPartner(sharedByUserId: string, sharedWithUserId: string): void;
  /** The user's stacks now, oldest first, each primary first. */
  stacks(userId: string): TestStack[];
  /** The user's assets now (in the trash or not), as added: their trash state and visibility. */
  assets(userId: string): TestAsset[];
  /** How many requests the server is working on now (waiting out latency included). */
  readonly inFlight: number;
  /**
   * Pairs of write requests that were in flight at the same time and touched the same asset or
   * stack, since start or {@linkcode resetWriteTracking}; see {@linkcode WriteOverlap}.
   */
  readonly writeOverlaps: readonly WriteOverlap[];
  /** The most write requests in flight at once, since start or the last reset. */
  readonly maxWritesInFlight: number;
  /** Forgets the overlaps and the maximum seen so far. */
  resetWriteTracking(): void;
  /** Every request answered since start or the last {@linkcode clearRequests}. */
  readonly requests: readonly RecordedRequest[];
  clearRequests(): void;
  /** Replaces the fault settings; `setFaults({})` turns faults off. */
  setFaults(faults: FaultOptions): void;
  close(): Promise<void>;
}

const PERMISSION_ALL = "all";
const DEFAULT_TIME = "2024-01-01T00:00:00.000Z";
/** Entity timestamps start here and tick by 1 ms per entity, so answers are reproducible. */
const CLOCK_START = Date.parse("2026-11-22T09:27:00.000Z");
const JSON_TYPE = "application/json; charset=utf-8";
const RAW_EXTENSIONS = new Set(["dng", "cr2", "cr3", "nef", "arw", "raf", "orf", "rw2"]);
const MIME_BY_EXTENSION: Readonly<Record<string, string>> = {
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  png: "image/png",
  heic: "image/heic",
  heif: "image/heif",
  gif: "image/gif",
  webp: "image/webp",
  tif: "image/tiff",
  tiff: "image/tiff",
  dng: "image/dng",
  cr2: "image/x-canon-cr2",
  cr3: "image/x-canon-cr3",
  nef: "image/x-nikon-nef",
  arw: "image/x-sony-arw",
  mp4: "video/mp4",
  mov: "video/quicktime",
  m4v: "video/x-m4v",
  webm: "video/webm",
};
const VISIBILITIES = ["archive", "timeline", "hidden", "locked"] as const;
const ASSET_TYPES = ["IMAGE", "VIDEO", "AUDIO", "OTHER"] as const;
const STACK_CHUNK = 200;
/** The sizes `GET /assets/{id}/thumbnail` serves (`original` only redirects, in Immich). */
const THUMBNAIL_SIZES = new Set(["thumbnail", "preview", "fullsize"]);

let thumbnailFiles: Uint8Array[] | undefined;

/**
 * The picture of an asset: one of the small landscapes of `testdata/thumbnails/` (real WebP
 * files, made with Chromium's canvas), chosen by the file name up to its first `~` or `.` (as
 * the default CRITERIA read it: `PXL_….RAW-01.MP.COVER.jpg` and `PXL_….RAW-02.ORIGINAL.dng` are
 * one shot) without the marks of edits and bursts, so that the photos of one shot look alike.
 */
function thumbnailOf(fileName: string): Uint8Array {
  thumbnailFiles ??= [...Deno.readDirSync(new URL("./testdata/thumbnails/", import.meta.url))]
    .map((entry) => entry.name).filter((name) => name.endsWith(".webp")).sort()
    .map((name) => Deno.readFileSync(new URL(`./testdata/thumbnails/${name}`, import.meta.url)));
  const shot = fileName.replace(/[~.].*$/, "").replace(/(_edited|_BURST\d+.*)$/i, "");
  let hash = 0;
  for (const char of shot) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return thumbnailFiles[hash % thumbnailFiles.length];
}
/** `Date.prototype.toISOString()` output, which needs no re-formatting. */
const CANONICAL_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

interface UserRec {
  readonly id: string;
  readonly name: string;
  readonly email: string;
  readonly isAdmin: boolean;
  readonly avatarColor: string;
  readonly createdAt: number;
}

interface KeyRec {
  readonly id: string;
  readonly userId: string;
  readonly name: string;
  readonly permissions: readonly string[];
  readonly createdAt: number;
}

interface AssetRec {
  readonly id: string;
  readonly ownerId: string;
  originalFileName: string;
  originalPath: string;
  readonly originalMimeType: string;
  readonly type: TestAssetType;
  fileCreatedAt: number;
  readonly fileModifiedAt: number;
  localDateTime: number;
  readonly createdAt: number;
  /** Moved by every change Immich records on the asset (see `touch`). */
  updatedAt: number;
  readonly isFavorite: boolean;
  visibility: TestVisibility;
  isTrashed: boolean;
  /** When the asset went to the trash; null when it is not there. */
  deletedAt: number | null;
  readonly livePhotoVideoId: string | null;
  readonly checksum: string;
  readonly thumbhash: string;
  readonly width: number;
  readonly height: number;
  readonly duration: string | null;
  readonly deviceId: string;
  readonly deviceAssetId: string;
  readonly fileSizeInByte: number;
  dateTimeOriginal: number | null;
  readonly make: string | null;
  readonly model: string | null;
  readonly lensModel: string | null;
  readonly exposureTime: string | null;
  readonly fNumber: number | null;
  readonly iso: number | null;
  readonly orientation: string | null;
  readonly timeZone: string | null;
}

interface AlbumRec {
  readonly id: string;
  readonly ownerId: string;
  readonly albumName: string;
  readonly assetIds: Set<string>;
  readonly createdAt: number;
}

type VersionMode = "legacy" | "visibility" | "v3";

interface Version {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  /** ≤1.132: isArchived/isVisible; 1.133–2.x: visibility, default timeline; 3.x: visibility. */
  readonly mode: VersionMode;
  /** v1/v2 error bodies `{message, error, statusCode, correlationId}`, class-validator texts. */
  readonly legacyErrors: boolean;
  /** `GET /api-keys/me` exists (v1.139+); before, the path is `GET /api-keys/{id}` with "me". */
  readonly hasApiKeyMe: boolean;
  /**
   * v3.2+: the searches also take the structured shape (`filter`, `orderBy`, `cursor`), which
   * excludes the flat fields 3.2 deprecated; search pages carry `nextCursor`, users
   * `clusterGroupId`.
   */
  readonly structuredSearch: boolean;
}

/** An HTTP error answer; `errors` holds zod issues of a validation failure. */
class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: readonly z.core.$ZodIssue[],
  ) {
    super(message);
  }
}

interface Ctx {
  readonly user: UserRec;
  readonly key: KeyRec;
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
  readonly body: unknown;
}

interface Answer {
  readonly status: number;
  readonly body: unknown;
  /** A chunked body instead of `body`, for answers too large to build as one string. */
  readonly stream?: AsyncIterable<string>;
  /** A binary body instead of `body` (a picture). */
  readonly bytes?: { readonly contentType: string; readonly data: Uint8Array };
}

interface Route {
  readonly method: string;
  readonly segments: readonly string[];
  /** `undefined`: public; `null`: any valid key; else the permission the key needs. */
  readonly permission: string | null | undefined;
  readonly handle: (ctx: Ctx) => Answer;
}

function parseVersion(text: string): Version {
  const match = /^v?(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (match === null) {
    throw new TypeError(
      `Cannot start the Immich test server: bad version: current value is ${text}`,
    );
  }
  const [major, minor, patch] = match.slice(1).map(Number);
  const mode: VersionMode = major >= 3
    ? "v3"
    : major === 2 || (major === 1 && minor >= 133)
    ? "visibility"
    : "legacy";
  return {
    major,
    minor,
    patch,
    mode,
    legacyErrors: major < 3,
    hasApiKeyMe: major > 1 || minor >= 139,
    structuredSearch: major > 3 || (major === 3 && minor >= 2),
  };
}

const CORRELATION_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
function correlationId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return [...bytes].map((b) => CORRELATION_ALPHABET[b % CORRELATION_ALPHABET.length]).join("");
}

/** Postgres' text form of a timestamptz, as `GET /stacks` shows it: `…T10:00:00.52+00:00`. */
function pgTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  const fraction = iso.slice(19, 23).replace(/\.?0+$/, "");
  return `${iso.slice(0, 19)}${fraction}+00:00`;
}

function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

function parseTime(text: string, what: string): number {
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) {
    throw new TypeError(`Cannot add asset as ${what} is not a time: current value is ${text}`);
  }
  return ms;
}

/** `GET /timeline/buckets`' month of a local time: `2024-05-01`. */
function monthOf(ms: number): string {
  return `${isoTime(ms).slice(0, 7)}-01`;
}

function dayOf(ms: number): string {
  return isoTime(ms).slice(0, 10);
}

function extensionOf(fileName: string): string {
  const dot = fileName.lastIndexOf(".");
  return dot < 0 ? "" : fileName.slice(dot + 1).toLowerCase();
}

/** A fake base64 SHA-1 (20 bytes) made from the id: unique per asset and cheap for 200 000. */
function fakeChecksum(id: string): string {
  return btoa(id.replaceAll("-", "").slice(0, 20));
}

const uuid = z.uuidv4();
const idParams = z.object({ id: uuid });
const stackAssetParams = z.object({ id: uuid, assetId: uuid });
const stackListQuery = z.object({ primaryAssetId: uuid.optional() });
const flag = z.enum(["true", "false"]).optional();
const timelineQuery = z.object({
  visibility: z.enum(VISIBILITIES).optional(),
  isTrashed: flag,
  withStacked: flag,
});
const createStackBody = z.object({ assetIds: z.array(uuid).min(2) });
const updateStackBody = z.object({ primaryAssetId: uuid.optional() });
const deleteStacksBody = z.object({ ids: z.array(uuid) });
const deleteAssetsBody = z.object({ ids: z.array(uuid), force: z.boolean().optional() });
const bulkIdsBody = z.object({ ids: z.array(uuid) });
const isoDateTime = z.string().refine((text) => !Number.isNaN(Date.parse(text)), {
  message: "Invalid input: expected ISO 8601 datetime string",
});

/**
 * The search body. Older servers used class-transformer, which turned `"5"` into 5 and
 * `"true"` into true; v3's zod pipe does not, so "numbers must be JSON numbers" only there.
 */
/** Immich 3.2's structured search: a body with one of these is searched the new way. */
const STRUCTURED_FIELDS = ["filter", "orderBy", "cursor"] as const;

/**
 * The flat search fields of the test server that 3.2 allows beside the structured ones: those it
 * did not deprecate, and those 3.x no longer reads at all (it drops them).
 */
const UNDEPRECATED_FIELDS = new Set(["size", "withExif", "withStacked", "isArchived", "isVisible"]);

/**
 * The search body of a version; from 3.2 the structured fields too, exclusive of the deprecated
 * flat ones as in Immich's `withShapeExclusivity` (server/src/dtos/search.dto.ts).
 */
function searchBodyOf(version: Version) {
  const flat = searchBody(version.legacyErrors);
  if (!version.structuredSearch) return flat;
  return flat.extend({
    filter: z.record(z.string(), z.unknown()).optional(),
    orderBy: z.object({ field: z.string().optional(), direction: z.string().optional() })
      .optional(),
    cursor: z.string().min(1).optional(),
  }).superRefine((body, ctx) => {
    const values = body as Record<string, unknown>;
    const shape = STRUCTURED_FIELDS.filter((field) => values[field] !== undefined);
    if (shape.length === 0) return;
    for (const field of Object.keys(flat.shape)) {
      if (values[field] === undefined || UNDEPRECATED_FIELDS.has(field)) continue;
      ctx.addIssue({
        code: "custom",
        path: [field],
        message: `Deprecated field ${field} cannot be combined with ${shape.join("/")}`,
      });
    }
  });
}

function searchBody(legacy: boolean) {
  const num = (schema: z.ZodNumber) =>
    legacy
      ? z.preprocess((v) => (typeof v === "string" && v.trim() !== "" ? Number(v) : v), schema)
      : schema;
  const bool = () =>
    legacy
      ? z.preprocess((v) => (v === "true" ? true : v === "false" ? false : v), z.boolean())
      : z.boolean();
  return z.object({
    page: num(z.number().int().min(1)).optional(),
    size: num(z.number().int().min(1).max(1000)).optional(),
    order: z.enum(["asc", "desc"]).optional(),
    id: uuid.optional(),
    type: z.enum(ASSET_TYPES).optional(),
    originalFileName: z.string().optional(),
    takenAfter: isoDateTime.optional(),
    takenBefore: isoDateTime.optional(),
    trashedAfter: isoDateTime.optional(),
    trashedBefore: isoDateTime.optional(),
    updatedAfter: isoDateTime.optional(),
    updatedBefore: isoDateTime.optional(),
    albumIds: z.array(uuid).optional(),
    withDeleted: bool().optional(),
    withExif: bool().optional(),
    withStacked: bool().optional(),
    isFavorite: bool().optional(),
    visibility: z.enum(VISIBILITIES).optional(),
    isArchived: bool().optional(),
    isVisible: bool().optional(),
  });
}

/** The class-validator sentence a v1/v2 server gives for a zod issue. */
function legacyMessage(issue: z.core.$ZodIssue): string {
  const name = String(issue.path[0] ?? "value");
  const each = issue.path.length > 1 ? `each value in ${name}` : name;
  switch (issue.code) {
    case "too_small":
      return issue.origin === "array"
        ? `${name} must contain at least ${issue.minimum} elements`
        : `${name} must not be less than ${issue.minimum}`;
    case "too_big":
      return `${name} must not be greater than ${issue.maximum}`;
    case "invalid_format":
      return issue.format === "uuid"
        ? `${each} must be a UUID`
        : `${each} must be a valid ISO 8601 date string`;
    case "invalid_value":
      return `${name} must be one of the following values: ${issue.values.join(", ")}`;
    case "invalid_type":
      if (issue.expected === "array") return `${name} must be an array`;
      if (issue.expected === "boolean") return `${name} must be a boolean value`;
      if (issue.expected === "number" || issue.expected === "int") {
        return `${name} must be an integer number`;
      }
      return `${name} must be a ${issue.expected}`;
    default:
      return `${each} ${issue.message}`;
  }
}

function validate<T>(schema: z.ZodType<T>, input: unknown): T {
  const result = schema.safeParse(input ?? {});
  if (!result.success) throw new ApiError(400, "Validation failed", result.error.issues);
  return result.data;
}

interface SearchFilter {
  readonly order: "asc" | "desc";
  readonly id?: string;
  readonly type?: TestAssetType;
  readonly originalFileName?: string;
  readonly takenAfter?: number;
  readonly takenBefore?: number;
  readonly trashedAfter?: number;
  readonly trashedBefore?: number;
  readonly updatedAfter?: number;
  readonly updatedBefore?: number;
  readonly albumIds?: readonly string[];
  readonly withDeleted: boolean;
  readonly withStacked?: boolean;
  readonly isFavorite?: boolean;
  readonly visibility?: TestVisibility;
  readonly isArchived?: boolean;
  readonly isVisible?: boolean;
}

interface CachedSearch {
  readonly assetGeneration: number;
  readonly stackGeneration: number;
  readonly assets: readonly AssetRec[];
}

const MAX_CACHED_SEARCHES = 64;

/**
 * Starts a test server imitating the given Immich version on 127.0.0.1.
 *
 * @param options Version and port.
 * @returns The running server; close it (or `await using` it) when done.
 * @throws {TypeError} When the version is not `major.minor.patch`.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { startImmichServer } from "./immich_server.ts";
 *
 * await using server = await startImmichServer();
 * const user = server.addUser({ name: "Ada" });
 * const key = server.addKey(user.id);
 * const response = await fetch(`${server.url}/users/me`, { headers: { "x-api-key": key } });
 * assert.equal((await response.json()).id, user.id);
 * ```
 */
export function startImmichServer(options: ImmichServerOptions = {}): Promise<ImmichServer> {
  const versionText = options.version ?? "3.1.0";
  const version = parseVersion(versionText);
  const users = new Map<string, UserRec>();
  const usersByEmail = new Map<string, UserRec>();
  const keys = new Map<string, KeyRec>();
  const assets = new Map<string, AssetRec>();
  const assetsByOwner = new Map<string, AssetRec[]>();
  const albums = new Map<string, AlbumRec>();
  const partnersOf = new Map<string, Set<string>>();
  const stores = new Map<string, StackStore>();
  const searchCache = new Map<string, CachedSearch>();
  const updated = new UpdatedIndex<AssetRec>();
  const requests: RecordedRequest[] = [];
  let assetGeneration = 0;
  let stackGeneration = 0;
  let clock = CLOCK_START;
  let faults: FaultOptions = {};
  let random = seededRandom(1);
  const routeFaultUses = new Map<string, number>();
  let searchPagingUses = 0;
  /** Pending latency waits, released at close so no connection task hangs. */
  const sleepers = new Map<ReturnType<typeof setTimeout>, () => void>();
  let closed = false;

  const tick = () => clock++;
  const idRandom = options.seed === undefined ? undefined : seededRandom(options.seed);
  /** A version 4 UUID, from the seed when there is one. */
  const newId = (): string => {
    if (idRandom === undefined) return crypto.randomUUID();
    const hex = Array.from({ length: 32 }, () => Math.floor(idRandom() * 16).toString(16));
    hex[12] = "4";
    hex[16] = "89ab"[Math.floor(idRandom() * 4)];
    const text = hex.join("");
    return `${text.slice(0, 8)}-${text.slice(8, 12)}-${text.slice(12, 16)}-${text.slice(16, 20)}-${
      text.slice(20)
    }`;
  };

  /**
   * Immich's trigger on the asset table: any write to an asset's row (its stack, trash state,
   * visibility, name, capture time) moves its `updatedAt` to the database's clock. Every change
   * this server makes to an asset goes through here; a cover change writes only the stack's
   * row and moves nothing.
   */
  function touch(asset: AssetRec | undefined): void {
    if (asset === undefined) return;
    asset.updatedAt = tick();
    updated.changed(asset);
    assetGeneration++;
  }

  function storeOf(userId: string): StackStore {
    let store = stores.get(userId);
    if (store === undefined) {
      store = new StackStore({
        newId,
        isTrashed: (assetId) => assets.get(assetId)?.isTrashed ?? false,
        isListed: (assetId) => listedMember(assets.get(assetId)),
        onMove: (assetId) => touch(assets.get(assetId)),
      });
      stores.set(userId, store);
    }
    return store;
  }

  function requireUser(userId: string, action: string): UserRec {
    const user = users.get(userId);
    if (user === undefined) {
      throw new TypeError(`Cannot ${action} for an unknown user: current value is ${userId}`);
    }
    return user;
  }

  // ---- setup (direct calls, never faulted) ----

  function addUser(input: TestUserInput): TestUser {
    const id = input.id ?? newId();
    const email = input.email ?? `${input.name.toLowerCase().replaceAll(/\s+/g, "")}@example.test`;
    if (users.has(id)) {
      throw new TypeError(`Cannot add user as the id is taken: current value is ${id}`);
    }
    if (usersByEmail.has(email)) {
      throw new TypeError(`Cannot add user as the email is taken: current value is ${email}`);
    }
    const colors = ["orange", "yellow", "green", "blue", "purple", "pink", "red", "gray"];
    const user: UserRec = {
      id,
      name: input.name,
      email,
      isAdmin: input.isAdmin ?? false,
      avatarColor: colors[users.size % colors.length],
      createdAt: tick(),
    };
    users.set(id, user);
    usersByEmail.set(email, user);
    return { id, name: user.name, email };
  }

  function addKey(userId: string, keyOptions: TestKeyOptions = {}): string {
    requireUser(userId, "add a key");
    const secret = keyOptions.secret ??
      btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))
        .replaceAll(/[^A-Za-z0-9]/g, "");
    if (keys.has(secret)) throw new TypeError("Cannot add key as the secret is taken");
    keys.set(secret, {
      id: crypto.randomUUID(),
      userId,
      name: keyOptions.name ?? "cli-all",
      permissions: [...(keyOptions.permissions ?? [PERMISSION_ALL])],
      createdAt: tick(),
    });
    return secret;
  }

  function makeAsset(owner: UserRec, input: TestAssetInput): AssetRec {
    const id = input.id ?? newId();
    if (assets.has(id)) {
      throw new TypeError(`Cannot add asset as the id is taken: current value is ${id}`);
    }
    const ext = extensionOf(input.originalFileName);
    const isRaw = RAW_EXTENSIONS.has(ext);
    const mime = input.originalMimeType ?? MIME_BY_EXTENSION[ext] ?? "application/octet-stream";
    const type = input.type ?? (mime.startsWith("video/") ? "VIDEO" : "IMAGE");
    const created = parseTime(
      input.fileCreatedAt ?? input.localDateTime ?? DEFAULT_TIME,
      "fileCreatedAt",
    );
    const local = input.localDateTime === undefined
      ? created
      : parseTime(input.localDateTime, "localDateTime");
    const modified = input.fileModifiedAt === undefined
      ? created
      : parseTime(input.fileModifiedAt, "fileModifiedAt");
    const taken = input.dateTimeOriginal === undefined
      ? local
      : input.dateTimeOriginal === null
      ? null
      : parseTime(input.dateTimeOriginal, "dateTimeOriginal");
    const now = tick();
    return {
      id,
      ownerId: owner.id,
      originalFileName: input.originalFileName,
      originalPath: input.originalPath ??
        `/data/upload/${owner.id}/${id.slice(0, 2)}/${id.slice(2, 4)}/${id}${
          ext === "" ? "" : `.${ext}`
        }`,
      originalMimeType: mime,
      type,
      fileCreatedAt: created,
      fileModifiedAt: modified,
      localDateTime: local,
      createdAt: now,
      updatedAt: now,
      isFavorite: input.isFavorite ?? false,
      visibility: input.visibility ?? "timeline",
      isTrashed: input.isTrashed ?? false,
      deletedAt: input.isTrashed === true ? now : null,
      livePhotoVideoId: input.livePhotoVideoId ?? null,
      checksum: input.checksum ?? fakeChecksum(id),
      thumbhash: "lBgKHYaYmIdvZ3h8iad4h9z3h0tf",
      width: input.width ?? 96,
      height: input.height ?? 64,
      duration: input.duration !== undefined
        ? input.duration
        : type === "VIDEO"
        ? "0:00:03.00000"
        : null,
      deviceId: input.deviceId ?? "stacksync-test",
      deviceAssetId: input.deviceAssetId ??
        `${input.originalFileName}-${input.fileSizeInByte ?? (isRaw ? 37296 : 2200)}`,
      fileSizeInByte: input.fileSizeInByte ?? (isRaw ? 37296 : 2200),
      dateTimeOriginal: taken,
      make: input.make !== undefined ? input.make : "Canon",
      model: input.model !== undefined ? input.model : "EOS R5",
      lensModel: input.lensModel ?? null,
      exposureTime: input.exposureTime ?? null,
      fNumber: input.fNumber ?? null,
      iso: input.iso ?? null,
      orientation: input.orientation !== undefined ? input.orientation : isRaw ? "1" : null,
      timeZone: input.timeZone !== undefined ? input.timeZone : isRaw ? null : "UTC",
    };
  }

  function toTestAsset(asset: AssetRec, input: TestAssetInput): TestAsset {
    // Formatting 400 000 dates costs more than the rest of addAssets(); reuse canonical input.
    const text = (given: string | undefined, ms: number) =>
      given !== undefined && CANONICAL_TIME.test(given) ? given : isoTime(ms);
    const created = input.fileCreatedAt ?? input.localDateTime;
    return {
      id: asset.id,
      ownerId: asset.ownerId,
      originalFileName: asset.originalFileName,
      originalPath: asset.originalPath,
      localDateTime: text(input.localDateTime ?? created, asset.localDateTime),
      fileCreatedAt: text(created, asset.fileCreatedAt),
      type: asset.type,
      visibility: asset.visibility,
      isTrashed: asset.isTrashed,
      checksum: asset.checksum,
    };
  }

  function addAssets(userId: string, inputs: readonly TestAssetInput[]): TestAsset[] {
    const owner = requireUser(userId, "add assets");
    const made = inputs.map((input) => makeAsset(owner, input));
    const seen = new Set<string>();
    for (const asset of made) {
      if (seen.has(asset.id)) {
        throw new TypeError(
          `Cannot add asset as the id is given twice: current value is ${asset.id}`,
        );
      }
      seen.add(asset.id);
    }
    let list = assetsByOwner.get(userId);
    if (list === undefined) {
      list = [];
      assetsByOwner.set(userId, list);
    }
    for (const asset of made) {
      assets.set(asset.id, asset);
      list.push(asset);
      updated.changed(asset);
    }
    assetGeneration++;
    return made.map((asset, i) => toTestAsset(asset, inputs[i]));
  }

  function ownedAsset(userId: string, assetId: string): AssetRec | undefined {
    const asset = assets.get(assetId);
    return asset?.ownerId === userId ? asset : undefined;
  }

  function addStack(userId: string, assetIds: readonly string[]): TestStack {
    requireUser(userId, "add a stack");
    if (assetIds.length < 2) {
      throw new TypeError(
        `Cannot add stack with fewer than 2 asset ids: current value is ${assetIds.length}`,
      );
    }
    for (const assetId of assetIds) {
      if (ownedAsset(userId, assetId) === undefined) {
        throw new TypeError(
          `Cannot add stack with an asset the user does not own: current value is ${assetId}`,
        );
      }
    }
    stackGeneration++;
    return storeOf(userId).create(assetIds);
  }

  function addAlbum(userId: string, name: string, assetIds: readonly string[]): TestAlbum {
    requireUser(userId, "add an album");
    for (const assetId of assetIds) {
      if (!assets.has(assetId)) {
        throw new TypeError(`Cannot add album with an unknown asset: current value is ${assetId}`);
      }
    }
    const album: AlbumRec = {
      id: newId(),
      ownerId: userId,
      albumName: name,
      assetIds: new Set(assetIds),
      createdAt: tick(),
    };
    albums.set(album.id, album);
    assetGeneration++;
    return { id: album.id, albumName: name };
  }

  function addPartner(sharedByUserId: string, sharedWithUserId: string): void {
    requireUser(sharedByUserId, "add a partner");
    requireUser(sharedWithUserId, "add a partner");
    let set = partnersOf.get(sharedWithUserId);
    if (set === undefined) {
      set = new Set();
      partnersOf.set(sharedWithUserId, set);
    }
    set.add(sharedByUserId);
    assetGeneration++;
  }

  function requireAsset(assetId: string, action: string): AssetRec {
    const asset = assets.get(assetId);
    if (asset === undefined) {
      throw new TypeError(`Cannot ${action} an unknown asset: current value is ${assetId}`);
    }
    return asset;
  }

  function updateAsset(assetId: string, changes: TestAssetChange): void {
    const asset = requireAsset(assetId, "update");
    if (changes.isTrashed !== undefined && changes.isTrashed !== asset.isTrashed) {
      asset.isTrashed = changes.isTrashed;
      asset.deletedAt = changes.isTrashed ? tick() : null;
    }
    if (changes.visibility !== undefined) asset.visibility = changes.visibility;
    if (changes.originalFileName !== undefined) {
      asset.originalFileName = changes.originalFileName;
      asset.originalPath = changes.originalPath ??
        `${
          asset.originalPath.slice(0, asset.originalPath.lastIndexOf("/") + 1)
        }${changes.originalFileName}`;
    } else if (changes.originalPath !== undefined) asset.originalPath = changes.originalPath;
    if (changes.dateTimeOriginal !== undefined) {
      const taken = parseTime(changes.dateTimeOriginal, "dateTimeOriginal");
      asset.dateTimeOriginal = taken;
      asset.localDateTime = taken;
      asset.fileCreatedAt = taken;
    }
    touch(asset);
  }

  function deleteAsset(assetId: string): void {
    const asset = requireAsset(assetId, "delete");
    storeOf(asset.ownerId).forget(assetId);
    assets.delete(assetId);
    updated.remove(asset);
    const list = assetsByOwner.get(asset.ownerId)!;
    list.splice(list.indexOf(asset), 1);
    for (const album of albums.values()) album.assetIds.delete(assetId);
    assetGeneration++;
    stackGeneration++;
  }

  /** Runs a stack change of the store for a known user, naming the stack in errors. */
  function changeStack<T>(userId: string, work: (store: StackStore) => T): T {
    requireUser(userId, "change a stack");
    const result = work(storeOf(userId));
    stackGeneration++;
    return result;
  }

  interface Snapshot extends ServerSnapshot {
    readonly assets: readonly AssetRec[];
    readonly stacks: ReadonlyMap<string, readonly StackRecord[]>;
    readonly albums: readonly AlbumRec[];
    readonly clock: number;
  }

  function snapshot(): ServerSnapshot {
    const copy: Snapshot = {
      brand: "ServerSnapshot",
      assets: [...assets.values()].map((asset) => ({ ...asset })),
      stacks: new Map([...stores].map(([userId, store]) => [userId, store.list()])),
      albums: [...albums.values()].map((album) => ({
        ...album,
        assetIds: new Set(album.assetIds),
      })),
      clock,
    };
    return copy;
  }

  function restore(taken: ServerSnapshot): void {
    const copy = taken as Snapshot;
    assets.clear();
    assetsByOwner.clear();
    for (const saved of copy.assets) {
      const asset = { ...saved };
      assets.set(asset.id, asset);
      let list = assetsByOwner.get(asset.ownerId);
      if (list === undefined) assetsByOwner.set(asset.ownerId, list = []);
      list.push(asset);
    }
    for (const userId of new Set([...stores.keys(), ...copy.stacks.keys()])) {
      storeOf(userId).restore(copy.stacks.get(userId) ?? []);
    }
    albums.clear();
    for (const album of copy.albums) {
      albums.set(album.id, { ...album, assetIds: new Set(album.assetIds) });
    }
    updated.reset(assets.values());
    clock = copy.clock;
    assetGeneration++;
    stackGeneration++;
  }

  // ---- JSON views (key order as recorded) ----

  function exifJson(asset: AssetRec) {
    const taken = asset.dateTimeOriginal === null ? null : pgTime(asset.dateTimeOriginal);
    return {
      make: asset.make,
      model: asset.model,
      exifImageWidth: asset.width,
      exifImageHeight: asset.height,
      fileSizeInByte: asset.fileSizeInByte,
      orientation: asset.orientation,
      dateTimeOriginal: taken,
      modifyDate: taken,
      timeZone: asset.timeZone,
      lensModel: asset.lensModel,
      fNumber: asset.fNumber,
      focalLength: null,
      iso: asset.iso,
      exposureTime: asset.exposureTime,
      latitude: null,
      longitude: null,
      city: null,
      state: null,
      country: null,
      description: "",
      projectionType: null,
      rating: null,
    };
  }

  function ownerJson(user: UserRec) {
    return {
      id: user.id,
      email: user.email,
      name: user.name,
      profileImagePath: "",
      avatarColor: user.avatarColor,
      profileChangedAt: pgTime(user.createdAt),
    };
  }

  interface AssetView {
    readonly time: (ms: number) => string;
    readonly exif: boolean;
    readonly tags: boolean;
    /** Present on `GET /assets/{id}` only. */
    readonly detail?: {
      readonly stack: { id: string; primaryAssetId: string; assetCount: number } | null;
    };
  }

  function assetJson(asset: AssetRec, view: AssetView): Record<string, unknown> {
    // Immich 3 no longer sends the device fields (recorded v3.1 answers have neither).
    const device = version.major < 3;
    const out: Record<string, unknown> = {
      id: asset.id,
      ...(device ? { deviceAssetId: asset.deviceAssetId } : {}),
      createdAt: view.time(asset.createdAt),
      ownerId: asset.ownerId,
      ...(device ? { deviceId: asset.deviceId } : {}),
    };
    if (view.detail !== undefined) out.owner = ownerJson(users.get(asset.ownerId)!);
    Object.assign(out, {
      libraryId: null,
      type: asset.type,
      originalPath: asset.originalPath,
      originalFileName: asset.originalFileName,
      originalMimeType: asset.originalMimeType,
      thumbhash: asset.thumbhash,
      fileCreatedAt: view.time(asset.fileCreatedAt),
      fileModifiedAt: view.time(asset.fileModifiedAt),
      localDateTime: view.time(asset.localDateTime),
      updatedAt: view.time(asset.updatedAt),
      isFavorite: asset.isFavorite,
      isArchived: asset.visibility === "archive",
      isTrashed: asset.isTrashed,
      visibility: asset.visibility,
      duration: asset.duration,
    });
    if (view.exif) out.exifInfo = exifJson(asset);
    out.livePhotoVideoId = asset.livePhotoVideoId;
    if (view.tags) out.tags = [];
    out.people = [];
    out.checksum = asset.checksum;
    if (view.detail !== undefined) out.stack = view.detail.stack;
    Object.assign(out, {
      isOffline: false,
      hasMetadata: true,
      duplicateId: null,
      resized: true,
      width: asset.width,
      height: asset.height,
      isEdited: false,
    });
    return out;
  }

  /**
   * `GET /stacks` and `GET /stacks/{id}` list only members that are not trashed and whose
   * visibility is timeline or archive (Immich's withDefaultVisibility).
   */
  function listedMember(asset: AssetRec | undefined): asset is AssetRec {
    return asset !== undefined && !asset.isTrashed &&
      (asset.visibility === "timeline" || asset.visibility === "archive");
  }

  /**
   * The `stack` of `GET /assets/{id}`: Immich builds it from the members other than the primary
   * that are not trashed and on the timeline, so it is null when there is none (a 1-asset stack,
   * recorded in 027, or one whose other members are all trashed, hidden or archived), and
   * `assetCount` counts those members plus the primary (recorded: 2 for a stack of three with
   * one member in the trash).
   */
  function assetStackView(stack: StackRecord | undefined) {
    if (stack === undefined) return null;
    const shown = stack.assetIds.filter((id) => {
      const member = assets.get(id);
      return id !== stack.primaryAssetId && member !== undefined && !member.isTrashed &&
        member.visibility === "timeline";
    });
    return shown.length === 0
      ? null
      : { id: stack.id, primaryAssetId: stack.primaryAssetId, assetCount: shown.length + 1 };
  }

  function stackJson(stack: StackRecord, tags: boolean) {
    const members = stack.assetIds.map((id) => assets.get(id)).filter(listedMember);
    return {
      id: stack.id,
      primaryAssetId: stack.primaryAssetId,
      assets: members.map((asset) => assetJson(asset, { time: pgTime, exif: true, tags })),
    };
  }

  // ---- search ----

  function toFilter(body: z.infer<ReturnType<typeof searchBody>>): SearchFilter {
    const base = {
      order: body.order ?? "desc",
      id: body.id,
      type: body.type,
      originalFileName: body.originalFileName?.toLowerCase(),
      takenAfter: body.takenAfter === undefined ? undefined : Date.parse(body.takenAfter),
      takenBefore: body.takenBefore === undefined ? undefined : Date.parse(body.takenBefore),
      trashedAfter: body.trashedAfter === undefined ? undefined : Date.parse(body.trashedAfter),
      trashedBefore: body.trashedBefore === undefined ? undefined : Date.parse(body.trashedBefore),
      updatedAfter: body.updatedAfter === undefined ? undefined : Date.parse(body.updatedAfter),
      updatedBefore: body.updatedBefore === undefined ? undefined : Date.parse(body.updatedBefore),
      albumIds: body.albumIds,
      // Immich searches the trash whenever a trash date bounds the search.
      withDeleted: (body.withDeleted ?? false) || body.trashedAfter !== undefined ||
        body.trashedBefore !== undefined,
      withStacked: body.withStacked,
      isFavorite: body.isFavorite,
    };
    // Each generation knows only its own fields; the others are stripped like unknown keys.
    if (version.mode === "legacy") {
      return { ...base, isArchived: body.isArchived, isVisible: body.isVisible };
    }
    return { ...base, visibility: body.visibility };
  }

  function visible(asset: AssetRec, filter: SearchFilter): boolean {
    switch (version.mode) {
      case "legacy": {
        const isVisible = asset.visibility !== "hidden" && asset.visibility !== "locked";
        return (filter.isArchived === undefined ||
          filter.isArchived === (asset.visibility === "archive")) &&
          (filter.isVisible === undefined || filter.isVisible === isVisible);
      }
      case "visibility":
        return asset.visibility === (filter.visibility ?? "timeline");
      case "v3":
        return filter.visibility === undefined
          ? asset.visibility !== "locked"
          : asset.visibility === filter.visibility;
    }
  }

  function searchAssets(userId: string, filter: SearchFilter): readonly AssetRec[] {
    const cacheKey = `${userId}\u0000${JSON.stringify(filter)}`;
    const stackGen = filter.withStacked === false ? stackGeneration : 0;
    const cached = searchCache.get(cacheKey);
    if (cached?.assetGeneration === assetGeneration && cached.stackGeneration === stackGen) {
      return cached.assets;
    }
    const owners = [userId, ...(partnersOf.get(userId) ?? [])];
    const albumSets = filter.albumIds?.map((id) => albums.get(id)!.assetIds);
    const found: AssetRec[] = [];
    // As Immich's index on updatedAt: a search for changes reads only what changed since.
    const changed = filter.updatedAfter === undefined
      ? undefined
      : Map.groupBy(updated.since(filter.updatedAfter), (asset) => asset.ownerId);
    for (const owner of owners) {
      const store = storeOf(owner);
      for (const asset of (changed ?? assetsByOwner).get(owner) ?? []) {
        if (!filter.withDeleted && asset.isTrashed) continue;
        if (!visible(asset, filter)) continue;
        if (filter.id !== undefined && asset.id !== filter.id) continue;
        if (filter.type !== undefined && asset.type !== filter.type) continue;
        if (filter.isFavorite !== undefined && asset.isFavorite !== filter.isFavorite) continue;
        if (filter.takenAfter !== undefined && asset.fileCreatedAt < filter.takenAfter) continue;
        if (filter.takenBefore !== undefined && asset.fileCreatedAt > filter.takenBefore) continue;
        if (
          filter.trashedAfter !== undefined &&
          (asset.deletedAt === null || asset.deletedAt < filter.trashedAfter)
        ) continue;
        if (
          filter.trashedBefore !== undefined &&
          (asset.deletedAt === null || asset.deletedAt > filter.trashedBefore)
        ) continue;
        if (filter.updatedAfter !== undefined && asset.updatedAt < filter.updatedAfter) continue;
        if (filter.updatedBefore !== undefined && asset.updatedAt > filter.updatedBefore) continue;
        if (
          filter.originalFileName !== undefined &&
          !asset.originalFileName.toLowerCase().includes(filter.originalFileName)
        ) continue;
        // Immich's inAlbums() wants the asset in every listed album.
        if (albumSets !== undefined && !albumSets.every((set) => set.has(asset.id))) continue;
        if (filter.withStacked === false && store.stackOf(asset.id) !== undefined) continue;
        found.push(asset);
      }
    }
    const sign = filter.order === "asc" ? 1 : -1;
    found.sort((a, b) =>
      sign * (a.fileCreatedAt - b.fileCreatedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    );
    if (searchCache.size >= MAX_CACHED_SEARCHES) searchCache.clear();
    searchCache.set(cacheKey, { assetGeneration, stackGeneration: stackGen, assets: found });
    return found;
  }

  // ---- routes ----

  const requireStackAccess = (ctx: Ctx, permission: string): StackRecord => {
    const stack = storeOf(ctx.user.id).get(ctx.params.id);
    if (stack === undefined) throw new ApiError(400, `Not found or no ${permission} access`);
    return stack;
  };

  const runStore = <T>(work: () => T): T => {
    try {
      return work();
    } catch (error) {
      if (error instanceof StackStoreError) throw new ApiError(400, error.message);
      throw error;
    }
  };

  const updateStack = (ctx: Ctx): Answer => {
    const { id } = validate(idParams, ctx.params);
    const body = validate(updateStackBody, ctx.body);
    const stack = requireStackAccess({ ...ctx, params: { id } }, "stack.update");
    if (body.primaryAssetId === undefined) return { status: 200, body: stackJson(stack, true) };
    const updated = runStore(() =>
      storeOf(ctx.user.id).updatePrimary(stack.id, body.primaryAssetId!)
    );
    stackGeneration++;
    return { status: 200, body: stackJson(updated, true) };
  };

  /** v3.2's `clusterGroupId` of each user, made at its first answer. */
  const clusterGroups = new Map<string, string>();
  const clusterGroupOf = (userId: string) => {
    if (!clusterGroups.has(userId)) clusterGroups.set(userId, newId());
    return clusterGroups.get(userId)!;
  };
  const userJson = (user: UserRec) => ({
    id: user.id,
    email: user.email,
    name: user.name,
    profileImagePath: "",
    avatarColor: user.avatarColor,
    profileChangedAt: isoTime(user.createdAt),
    storageLabel: user.isAdmin ? "admin" : null,
    shouldChangePassword: true,
    isAdmin: user.isAdmin,
    createdAt: isoTime(user.createdAt),
    deletedAt: null,
    updatedAt: isoTime(user.createdAt),
    oauthId: "",
    quotaSizeInBytes: null,
    quotaUsageInBytes: 0,
    status: "active",
    license: null,
    ...(version.structuredSearch ? { clusterGroupId: clusterGroupOf(user.id) } : {}),
  });

  const routes: Route[] = [
    {
      method: "GET",
      segments: ["server", "version"],
      permission: undefined,
      handle: () => ({
        status: 200,
        body: version.legacyErrors
          ? { major: version.major, minor: version.minor, patch: version.patch }
          : { major: version.major, minor: version.minor, patch: version.patch, prerelease: null },
      }),
    },
    {
      method: "GET",
      segments: ["server", "ping"],
      permission: undefined,
      handle: () => ({ status: 200, body: { res: "pong" } }),
    },
    {
      method: "GET",
      segments: ["users", "me"],
      permission: "user.read",
      handle: (ctx) => ({ status: 200, body: userJson(ctx.user) }),
    },
    {
      method: "GET",
      segments: ["api-keys", "me"],
      permission: null,
      handle: (ctx) => {
        // Before v1.139 there was no /api-keys/me: the path fell through to /api-keys/{id},
        // whose guard wants apiKey.read before its pipe refuses "me" as an id.
        if (!version.hasApiKeyMe) {
          const granted = ctx.key.permissions;
          if (!granted.includes(PERMISSION_ALL) && !granted.includes("apiKey.read")) {
            throw new ApiError(403, "Missing required permission: apiKey.read");
          }
          validate(idParams, { id: "me" });
        }
        return {
          status: 200,
          body: {
            id: ctx.key.id,
            name: ctx.key.name,
            createdAt: isoTime(ctx.key.createdAt),
            updatedAt: isoTime(ctx.key.createdAt),
            permissions: ctx.key.permissions,
          },
        };
      },
    },
    {
      method: "GET",
      segments: ["stacks"],
      permission: "stack.read",
      handle: (ctx) => {
        const query = validate(stackListQuery, ctx.query);
        const all = storeOf(ctx.user.id).list();
        const limit = faults.maxListedStacks;
        if (query.primaryAssetId === undefined && limit !== undefined && all.length > limit) {
          throw new ApiError(500, "Internal server error");
        }
        const stacks = query.primaryAssetId === undefined
          ? all
          : all.filter((stack) => stack.primaryAssetId === query.primaryAssetId);
        return { status: 200, body: undefined, stream: streamStacks(stacks) };
      },
    },
    {
      method: "POST",
      segments: ["stacks"],
      permission: "stack.create",
      handle: (ctx) => {
        const body = validate(createStackBody, ctx.body);
        if (body.assetIds.some((id) => ownedAsset(ctx.user.id, id) === undefined)) {
          throw new ApiError(400, "Not found or no asset.update access");
        }
        const stack = runStore(() => storeOf(ctx.user.id).create(body.assetIds));
        stackGeneration++;
        return { status: 201, body: stackJson(stack, false) };
      },
    },
    {
      method: "DELETE",
      segments: ["stacks"],
      permission: "stack.delete",
      handle: (ctx) => {
        const body = validate(deleteStacksBody, ctx.body);
        // Recorded bug (059): an empty list makes invalid SQL on the server.
        if (body.ids.length === 0) throw new ApiError(500, "Failed to delete stacks");
        const store = storeOf(ctx.user.id);
        if (body.ids.some((id) => store.get(id) === undefined)) {
          throw new ApiError(400, "Not found or no stack.delete access");
        }
        for (const id of new Set(body.ids)) store.delete(id);
        stackGeneration++;
        return { status: 204, body: undefined };
      },
    },
    {
      method: "GET",
      segments: ["stacks", ":id"],
      permission: "stack.read",
      handle: (ctx) => {
        const { id } = validate(idParams, ctx.params);
        return {
          status: 200,
          body: stackJson(requireStackAccess({ ...ctx, params: { id } }, "stack.read"), true),
        };
      },
    },
    { method: "PUT", segments: ["stacks", ":id"], permission: "stack.update", handle: updateStack },
    {
      method: "PATCH",
      segments: ["stacks", ":id"],
      permission: "stack.update",
      handle: updateStack,
    },
    {
      method: "DELETE",
      segments: ["stacks", ":id"],
      permission: "stack.delete",
      handle: (ctx) => {
        const { id } = validate(idParams, ctx.params);
        runStore(() => storeOf(ctx.user.id).delete(id));
        stackGeneration++;
        return { status: 204, body: undefined };
      },
    },
    {
      method: "DELETE",
      segments: ["stacks", ":id", "assets", ":assetId"],
      permission: "stack.update",
      handle: (ctx) => {
        const { id, assetId } = validate(stackAssetParams, ctx.params);
        runStore(() => storeOf(ctx.user.id).removeAsset(id, assetId));
        stackGeneration++;
        return { status: 204, body: undefined };
      },
    },
    {
      method: "POST",
      segments: ["search", "metadata"],
      permission: "asset.read",
      handle: (ctx) => {
        const body = searchRequest(ctx.user.id, ctx.body);
        const page = body.page ?? 1;
        const size = body.size ?? 250;
        const found = searchAssets(ctx.user.id, toFilter(body));
        const paging = faults.searchPaging;
        const misbehave = paging !== undefined &&
          (paging.times === undefined || searchPagingUses++ < paging.times);
        const start = misbehave && paging.repeatFirstPage === true ? 0 : (page - 1) * size;
        const items = found.slice(start, start + size);
        const nextPage = misbehave && paging.nextPage !== undefined
          ? paging.nextPage
          : misbehave && paging.repeatFirstPage === true
          ? String(page + 1)
          : start + size < found.length
          ? String(page + 1)
          : null;
        const view: AssetView = { time: isoTime, exif: body.withExif ?? false, tags: false };
        return {
          status: 200,
          body: {
            albums: { total: 0, count: 0, items: [], facets: [] },
            assets: {
              total: items.length,
              count: items.length,
              items: items.map((asset) => assetJson(asset, view)),
              facets: [],
              nextPage,
              // The flat shape pages by nextPage; the structured one by nextCursor.
              ...(version.structuredSearch ? { nextCursor: null } : {}),
            },
          },
        };
      },
    },
    {
      method: "POST",
      segments: ["search", "statistics"],
      permission: "asset.statistics",
      handle: (ctx) => {
        const body = searchRequest(ctx.user.id, ctx.body);
        // StatisticsSearchDto has no withDeleted or withStacked: only a trash date counts
        // trashed assets.
        const filter = toFilter({ ...body, withDeleted: undefined, withStacked: undefined });
        return { status: 200, body: { total: searchAssets(ctx.user.id, filter).length } };
      },
    },
    {
      method: "GET",
      segments: ["timeline", "buckets"],
      permission: "asset.read",
      handle: (ctx) => {
        const query = validate(timelineQuery, ctx.query);
        const counts = new Map<string, number>();
        for (const asset of timelineAssets(ctx.user.id, query)) {
          const bucket = monthOf(asset.localDateTime);
          counts.set(bucket, (counts.get(bucket) ?? 0) + 1);
        }
        const buckets = [...counts].sort(([a], [b]) => (a < b ? 1 : a > b ? -1 : 0));
        return {
          status: 200,
          body: buckets.map(([timeBucket, count]) => ({ timeBucket, count })),
        };
      },
    },
    {
      method: "GET",
      segments: ["timeline", "bucket"],
      permission: "asset.read",
      handle: (ctx) => {
        const query = validate(timelineQuery.extend({ timeBucket: z.string() }), ctx.query);
        const bucket = query.timeBucket.replace(/^[+-]/, "").slice(0, 10);
        const found = timelineAssets(ctx.user.id, query)
          .filter((asset) => monthOf(asset.localDateTime) === bucket)
          .sort((a, b) =>
            dayOf(b.localDateTime).localeCompare(dayOf(a.localDateTime)) ||
            b.fileCreatedAt - a.fileCreatedAt
          );
        return {
          status: 200,
          body: timelineColumns(found, query.withStacked === "true", ctx.user.id),
        };
      },
    },
    {
      method: "GET",
      segments: ["albums"],
      permission: "album.read",
      handle: (ctx) => ({
        status: 200,
        body: [...albums.values()].filter((album) => album.ownerId === ctx.user.id).map(albumJson),
      }),
    },
    {
      // Moves assets to the trash (moving updatedAt; a trashed asset is trashed again, with a
      // new trash date, as Immich does). Deleting for good is not modelled: stacksync never
      // asks for it, and a test that saw it must fail.
      method: "DELETE",
      segments: ["assets"],
      permission: "asset.delete",
      handle: (ctx) => {
        const body = validate(deleteAssetsBody, ctx.body);
        if (body.force === true) {
          throw new ApiError(400, "The test server does not delete assets for good: force true");
        }
        const owned = requireAssetDelete(ctx.user.id, body.ids);
        for (const asset of owned) {
          asset.isTrashed = true;
          asset.deletedAt = tick();
          touch(asset);
        }
        assetGeneration++;
        return { status: 204, body: undefined };
      },
    },
    {
      // Brings trashed assets back; the others are left as they are and still counted, as
      // Immich's answer counts the ids it was given.
      method: "POST",
      segments: ["trash", "restore", "assets"],
      permission: "asset.delete",
      handle: (ctx) => {
        const { ids } = validate(bulkIdsBody, ctx.body);
        if (ids.length === 0) return { status: 200, body: { count: 0 } };
        for (const asset of requireAssetDelete(ctx.user.id, ids)) {
          if (!asset.isTrashed) continue;
          asset.isTrashed = false;
          asset.deletedAt = null;
          touch(asset);
        }
        assetGeneration++;
        return { status: 200, body: { count: ids.length } };
      },
    },
    {
      method: "GET",
      segments: ["assets", ":id"],
      permission: "asset.read",
      handle: (ctx) => {
        const { id } = validate(idParams, ctx.params);
        const asset = assets.get(id);
        if (asset === undefined || !readableOwner(ctx.user.id, asset.ownerId)) {
          throw new ApiError(400, "Not found or no asset.read access");
        }
        const stackView = assetStackView(storeOf(asset.ownerId).stackOf(asset.id));
        return {
          status: 200,
          body: assetJson(asset, {
            time: isoTime,
            exif: true,
            tags: true,
            detail: { stack: stackView },
          }),
        };
      },
    },
    {
      method: "GET",
      segments: ["assets", ":id", "thumbnail"],
      permission: "asset.view",
      handle: (ctx) => {
        const { id } = validate(idParams, ctx.params);
        const asset = assets.get(id);
        if (asset === undefined || !readableOwner(ctx.user.id, asset.ownerId)) {
          throw new ApiError(400, "Not found or no asset.view access");
        }
        if (!THUMBNAIL_SIZES.has(ctx.query.size ?? "thumbnail")) {
          throw new ApiError(400, "May not request original file");
        }
        return {
          status: 200,
          body: undefined,
          bytes: { contentType: "image/webp", data: thumbnailOf(asset.originalFileName) },
        };
      },
    },
  ];

  /**
   * The user's own assets a timeline query shows: in the trash or not (`isTrashed`), of one
   * visibility or timeline and archive, and with `withStacked` no stack member but primaries.
   */
  function timelineAssets(
    userId: string,
    query: z.infer<typeof timelineQuery>,
  ): AssetRec[] {
    const trashed = query.isTrashed === "true";
    const store = storeOf(userId);
    return (assetsByOwner.get(userId) ?? []).filter((asset) => {
      if (asset.isTrashed !== trashed) return false;
      const shown = query.visibility === undefined
        ? asset.visibility === "timeline" || asset.visibility === "archive"
        : asset.visibility === query.visibility;
      if (!shown) return false;
      if (query.withStacked !== "true") return true;
      const stack = store.stackOf(asset.id);
      return stack === undefined || stack.primaryAssetId === asset.id;
    });
  }

  /**
   * `GET /timeline/bucket`'s columns (key order as recorded in 097). With `withStacked`, the
   * `stack` column holds `[stack id, members on the timeline and not in the trash]` as strings
   * for each asset in a stack, or null when no member counts.
   */
  function timelineColumns(found: readonly AssetRec[], withStacked: boolean, userId: string) {
    const column = <T>(value: (asset: AssetRec) => T) => found.map(value);
    const store = storeOf(userId);
    const localTime = (ms: number) => isoTime(ms).slice(0, 19);
    return {
      duration: column((asset) => asset.duration),
      id: column((asset) => asset.id),
      visibility: column((asset) => asset.visibility),
      isFavorite: column((asset) => asset.isFavorite),
      isImage: column((asset) => asset.type === "IMAGE"),
      isTrashed: column((asset) => asset.isTrashed),
      livePhotoVideoId: column((asset) => asset.livePhotoVideoId),
      fileCreatedAt: column((asset) => localTime(asset.fileCreatedAt)),
      localOffsetHours: column((asset) => (asset.localDateTime - asset.fileCreatedAt) / 3_600_000),
      createdAt: column((asset) => isoTime(asset.createdAt).slice(0, 23)),
      ownerId: column((asset) => asset.ownerId),
      projectionType: column(() => null),
      ratio: column((asset) => asset.height === 0 ? 1 : asset.width / asset.height),
      status: column(() => "active"),
      thumbhash: column((asset) => asset.thumbhash),
      city: column(() => null),
      country: column(() => null),
      ...(withStacked
        ? {
          stack: column((asset) => {
            const stack = store.stackOf(asset.id);
            if (stack === undefined) return null;
            const counted = stack.assetIds.filter((id) => {
              const member = assets.get(id);
              return member !== undefined && !member.isTrashed && member.visibility === "timeline";
            }).length;
            return counted === 0 ? null : [stack.id, String(counted)];
          }),
        }
        : {}),
    };
  }

  /** The assets, each the user's own (in the trash or not), as Immich's asset.delete check. */
  function requireAssetDelete(userId: string, ids: readonly string[]): AssetRec[] {
    const owned = [...new Set(ids)].map((id) => ownedAsset(userId, id));
    if (owned.some((asset) => asset === undefined)) {
      throw new ApiError(400, "Not found or no asset.delete access");
    }
    return owned as AssetRec[];
  }

  /** A search's body, validated, with every album it names readable by the user. */
  function searchRequest(userId: string, input: unknown) {
    const body = validate(searchBodyOf(version), input);
    if (STRUCTURED_FIELDS.some((field) => (body as Record<string, unknown>)[field] !== undefined)) {
      // stacksync sends the flat shape to every version: the structured one is not imitated.
      throw new ApiError(400, "The test server does not imitate the structured search of 3.2");
    }
    for (const albumId of body.albumIds ?? []) {
      if (!albumReadable(userId, albumId)) {
        throw new ApiError(400, "Not found or no album.read access");
      }
    }
    return body;
  }

  function readableOwner(userId: string, ownerId: string): boolean {
    return userId === ownerId || (partnersOf.get(userId)?.has(ownerId) ?? false);
  }

  function albumReadable(userId: string, albumId: string): boolean {
    return albums.get(albumId)?.ownerId === userId;
  }

  function albumJson(album: AlbumRec) {
    const members = [...album.assetIds].map((id) => assets.get(id)!).filter((a) => !a.isTrashed);
    const times = members.map((a) => a.fileCreatedAt);
    return {
      albumName: album.albumName,
      description: "",
      albumThumbnailAssetId: members[0]?.id ?? null,
      createdAt: isoTime(album.createdAt),
      updatedAt: isoTime(album.createdAt),
      id: album.id,
      ownerId: album.ownerId,
      owner: ownerJson(users.get(album.ownerId)!),
      albumUsers: [],
      shared: false,
      hasSharedLink: false,
      startDate: times.length === 0 ? null : isoTime(Math.min(...times)),
      endDate: times.length === 0 ? null : isoTime(Math.max(...times)),
      assets: [],
      assetCount: members.length,
      isActivityEnabled: true,
      order: "desc",
      lastModifiedAssetTimestamp: times.length === 0 ? null : isoTime(Math.max(...times)),
    };
  }

  async function* streamStacks(stacks: readonly StackRecord[]): AsyncIterable<string> {
    yield "[";
    for (let i = 0; i < stacks.length; i += STACK_CHUNK) {
      const part = stacks.slice(i, i + STACK_CHUNK).map((stack) =>
        JSON.stringify(stackJson(stack, false))
      );
      yield (i === 0 ? "" : ",") + part.join(",");
    }
    yield "]";
  }

  // ---- HTTP ----

  function matchRoute(method: string, segments: readonly string[]) {
    let pathMatched = false;
    for (const route of routes) {
      if (route.segments.length !== segments.length) continue;
      const params: Record<string, string> = {};
      const ok = route.segments.every((part, i) => {
        if (part.startsWith(":")) {
          params[part.slice(1)] = decodeURIComponent(segments[i]);
          return true;
        }
        return part === segments[i];
      });
      if (!ok) continue;
      pathMatched = true;
      if (route.method === method) return { route, params };
    }
    return pathMatched ? "method" as const : undefined;
  }

  function errorBody(
    status: number,
    message: string,
    id: string,
    errors?: readonly z.core.$ZodIssue[],
  ) {
    if (!version.legacyErrors) return errors === undefined ? { message } : { message, errors };
    return {
      message: errors === undefined ? message : errors.map(legacyMessage),
      error: REASONS[status] ?? "Error",
      statusCode: status,
      correlationId: id,
    };
  }

  function jsonResponse(
    status: number,
    body: unknown,
    id: string,
    extra: [string, string][] = [],
  ): RawResponse {
    const headers: [string, string][] = [
      ["x-powered-by", "Express"],
      ["x-correlation-id", id],
      ...extra,
    ];
    if (status === 204 || body === undefined) return { status, headers, body: null };
    return {
      status,
      headers: [...headers, ["content-type", JSON_TYPE]],
      body: JSON.stringify(body),
    };
  }

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        sleepers.delete(timer);
        resolve();
      }, ms);
      sleepers.set(timer, resolve);
    });
  }

  function routeFaultFor(
    method: string,
    path: string,
    template: string | undefined,
  ): RouteFault | undefined {
    const table = faults.routes;
    if (table === undefined) return undefined;
    // A path without parameters is its own template: count it once.
    const keys = new Set([`${method} ${path}`, `${method} ${template ?? path}`]);
    for (const key of keys) {
      const fault = table[key];
      if (fault === undefined) continue;
      const seen = routeFaultUses.get(key) ?? 0;
      routeFaultUses.set(key, seen + 1);
      const used = seen - (fault.skip ?? 0);
      if (used < 0 || (fault.times !== undefined && used >= fault.times)) continue;
      return fault;
    }
    return undefined;
  }

  function draw(rate: number | undefined): boolean {
    return rate !== undefined && rate > 0 && random() < rate;
  }

  function defaultMessage(status: number): string {
    if (status === 429) return "Too Many Requests";
    if (status >= 500) return "Internal server error";
    return "Bad Request";
  }

  let inFlight = 0;

  /** Write requests being worked on, with what each touches. */
  const writesInFlight = new Set<{ readonly label: string; readonly keys: Set<string> }>();
  const writeOverlaps: WriteOverlap[] = [];
  let maxWritesInFlight = 0;

  /**
   * Starts tracking one write request: what it touches now is compared with every write in
   * flight, and again (`recheck`) when it is carried out, as the state may have moved since.
   */
  function trackWrite(label: string, touched: () => Set<string>) {
    const entry = { label, keys: new Set<string>() };
    const check = () => {
      for (const key of touched()) {
        entry.keys.add(key);
        for (const other of writesInFlight) {
          if (other !== entry && other.keys.has(key)) {
            writeOverlaps.push({ first: other.label, second: label, key });
          }
        }
      }
    };
    check();
    writesInFlight.add(entry);
    maxWritesInFlight = Math.max(maxWritesInFlight, writesInFlight.size);
    return { recheck: check, done: () => writesInFlight.delete(entry) };
  }

  /** What a write touches: the assets it names, their stacks, and the members it moves. */
  function touchedBy(
    routeKey: string,
    matched: ReturnType<typeof matchRoute>,
    body: unknown,
    secret: string | undefined,
  ): Set<string> {
    const found = new Set<string>();
    const owner = secret === undefined ? undefined : keys.get(secret)?.userId;
    if (owner === undefined || matched === undefined || matched === "method") return found;
    const store = storeOf(owner);
    const wholeStack = (stack: StackRecord | undefined) => {
      if (stack === undefined) return;
      found.add(`stack:${stack.id}`);
      for (const id of stack.assetIds) found.add(`asset:${id}`);
    };
    const ids = (field: string): string[] => {
      const value = (body as Record<string, unknown> | undefined)?.[field];
      return Array.isArray(value) ? value.filter((id) => typeof id === "string") : [];
    };
    const { params } = matched;
    switch (routeKey) {
      case "POST /stacks":
        for (const id of ids("assetIds")) {
          found.add(`asset:${id}`);
          const stack = store.stackOf(id);
          if (stack === undefined) continue;
          // A listed primary brings its whole stack; a listed child leaves its stack.
          if (stack.primaryAssetId === id) wholeStack(stack);
          else found.add(`stack:${stack.id}`);
        }
        break;
      case "DELETE /stacks":
        for (const id of ids("ids")) wholeStack(store.get(id));
        break;
      case "DELETE /stacks/{id}/assets/{assetId}":
        found.add(`stack:${params.id}`);
        found.add(`asset:${params.assetId}`);
        break;
      case "DELETE /assets":
      case "POST /trash/restore/assets":
        // Immich changes the asset rows alone; their stacks stay as they are.
        for (const id of ids("ids")) found.add(`asset:${id}`);
        break;
      default:
        // PUT, PATCH and DELETE /stacks/{id}: the stack and every member.
        found.add(`stack:${params.id}`);
        wholeStack(store.get(params.id));
    }
    return found;
  }

  async function handle(request: RawRequest): Promise<RawResponse | "drop"> {
    inFlight++;
    try {
      const answer = await answerRequest(request);
      // Express dates every answer, or the proxy in front of it with its own clock.
      const date = new Date(clock + (faults.dateOffsetMs ?? 0)).toUTCString();
      return answer === "drop"
        ? answer
        : { ...answer, headers: [...answer.headers, ["date", date]] };
    } finally {
      inFlight--;
    }
  }

  async function answerRequest(request: RawRequest): Promise<RawResponse | "drop"> {
    const id = correlationId();
    const url = new URL(request.target, "http://127.0.0.1");
    const query = Object.fromEntries(url.searchParams);
    const isApi = url.pathname === "/api" || url.pathname.startsWith("/api/");
    const path = isApi ? url.pathname.slice(4) || "/" : url.pathname;
    const text = new TextDecoder().decode(request.body);
    let body: unknown = undefined;
    let badJson = false;
    if (text.trim() !== "") {
      try {
        body = JSON.parse(text);
      } catch {
        badJson = true;
      }
    }
    let userId: string | undefined;
    const record = (status: number) => {
      requests.push({
        method: request.method,
        path,
        query,
        body,
        status,
        ...(userId === undefined ? {} : { userId }),
      });
    };

    const segments = path.split("/").filter((part) => part !== "");
    const matched = isApi ? matchRoute(request.method, segments) : undefined;
    const template = matched !== undefined && matched !== "method"
      ? "/" +
        matched.route.segments.map((part) => (part.startsWith(":") ? `{${part.slice(1)}}` : part))
          .join("/")
      : undefined;
    const routeKey = `${request.method} ${template}`;
    const write = template !== undefined && WRITE_ROUTES.includes(routeKey) && !badJson
      ? trackWrite(
        `${request.method} ${path}`,
        () => touchedBy(routeKey, matched, body, request.headers.get("x-api-key")),
      )
      : undefined;
    try {
      const latency = (faults.latencyMs ?? 0) + (faults.routeLatencyMs?.[routeKey] ?? 0);
      if (latency > 0) await sleep(latency);
      if (closed) return "drop";
      if (isApi) faults.beforeAnswer?.({ method: request.method, path });
      write?.recheck();
      return await answerMatched();
    } finally {
      write?.done();
    }

    // Everything after the wait: faults, then the route.
    async function answerMatched(): Promise<RawResponse | "drop"> {
      const forced = routeFaultFor(request.method, path, template);
      if (forced?.drop === true || forced?.hang === true) {
        record(0);
        // The longest wait a timer can hold; close() releases it.
        if (forced.hang === true) await sleep(2 ** 31 - 1);
        return "drop";
      }
      if (forced !== undefined && forced.afterWork !== true) {
        const status = forced.status ?? 500;
        record(status);
        const extra: [string, string][] = status === 429 && faults.retryAfterSeconds !== undefined
          ? [["retry-after", String(faults.retryAfterSeconds)]]
          : [];
        return jsonResponse(
          status,
          errorBody(status, forced.message ?? defaultMessage(status), id),
          id,
          extra,
        );
      }
      if (draw(faults.dropRate)) {
        record(0);
        return "drop";
      }
      if (draw(faults.rate429)) {
        record(429);
        const extra: [string, string][] = faults.retryAfterSeconds === undefined
          ? []
          : [["retry-after", String(faults.retryAfterSeconds)]];
        return jsonResponse(429, errorBody(429, "Too Many Requests", id), id, extra);
      }
      if (draw(faults.error5xxRate)) {
        record(500);
        return jsonResponse(500, errorBody(500, "Internal server error", id), id);
      }

      if (!isApi) {
        record(200);
        return {
          status: 200,
          headers: [["x-powered-by", "Express"], ["content-type", "text/html; charset=utf-8"]],
          body: options.webBundle === false
            ? ""
            : '<!doctype html><html><head><title>Immich</title></head><body><div id="app"></div></body></html>',
        };
      }

      let answer: Answer;
      try {
        if (matched === undefined || matched === "method") {
          throw new ApiError(404, `Cannot ${request.method} /api${path}`);
        }
        const { route, params } = matched;
        let user: UserRec | undefined;
        let key: KeyRec | undefined;
        if (route.permission !== undefined) {
          const secret = request.headers.get("x-api-key");
          if (secret !== undefined) {
            key = keys.get(secret);
            if (key === undefined) throw new ApiError(401, "Invalid API key");
            user = users.get(key.userId)!;
            userId = user.id;
          } else if (request.headers.get("authorization")?.toLowerCase().startsWith("bearer ")) {
            throw new ApiError(401, "Invalid user token");
          } else {
            throw new ApiError(401, "Authentication required");
          }
          const permission = route.permission;
          if (
            permission !== null && !key.permissions.includes(PERMISSION_ALL) &&
            !key.permissions.includes(permission)
          ) {
            throw new ApiError(403, `Missing required permission: ${permission}`);
          }
        }
        if (badJson) throw new ApiError(400, "Invalid JSON body");
        answer = route.handle({ user: user!, key: key!, params, query, body });
      } catch (error) {
        // A bug in this server must surface as a 500 the test sees, not as a dropped connection.
        const apiError = error instanceof ApiError
          ? error
          : new ApiError(500, `Internal server error: ${error}`);
        record(apiError.status);
        return jsonResponse(
          apiError.status,
          errorBody(apiError.status, apiError.message, id, apiError.errors),
          id,
        );
      }
      if (forced?.afterWork === true) {
        const status = forced.status ?? 500;
        record(status);
        return jsonResponse(
          status,
          errorBody(status, forced.message ?? defaultMessage(status), id),
          id,
        );
      }
      if (draw(faults.error5xxAfterWorkRate)) {
        record(500);
        return jsonResponse(500, errorBody(500, "Internal server error", id), id);
      }
      record(answer.status);
      if (answer.bytes !== undefined) {
        return {
          status: answer.status,
          headers: [
            ["x-powered-by", "Express"],
            ["x-correlation-id", id],
            ["content-type", answer.bytes.contentType],
          ],
          body: answer.bytes.data,
        };
      }
      if (answer.stream !== undefined) {
        return {
          status: answer.status,
          headers: [["x-powered-by", "Express"], ["x-correlation-id", id], [
            "content-type",
            JSON_TYPE,
          ]],
          body: answer.stream,
        };
      }
      return jsonResponse(answer.status, answer.body, id);
    }
  }

  const raw: RawServer = listenHttp(options.port ?? 0, handle);
  const origin = `http://127.0.0.1:${raw.port}`;

  const close = async () => {
    if (closed) return;
    closed = true;
    for (const [timer, release] of sleepers) {
      clearTimeout(timer);
      release();
    }
    sleepers.clear();
    await raw.close();
  };

  const server: ImmichServer = {
    url: `${origin}/api`,
    origin,
    version: versionText,
    addUser,
    addKey,
    addAsset: (userId, input) => addAssets(userId, [input])[0],
    addAssets,
    updateAsset,
    deleteAsset,
    setStackPrimary: (userId, stackId, primaryAssetId) =>
      changeStack(userId, (store) => store.updatePrimary(stackId, primaryAssetId)),
    removeFromStack: (userId, stackId, assetId) =>
      changeStack(userId, (store) => store.removeAsset(stackId, assetId)),
    deleteStack: (userId, stackId) => changeStack(userId, (store) => store.delete(stackId)),
    updatedAt: (assetId) => isoTime(requireAsset(assetId, "read").updatedAt),
    assetIds: (userId) => (assetsByOwner.get(userId) ?? []).map((asset) => asset.id),
    assetState: (assetId) => {
      const { isTrashed, visibility } = requireAsset(assetId, "read");
      return { isTrashed, visibility };
    },
    get now() {
      return clock;
    },
    advanceClock: (ms) => {
      clock += ms;
    },
    snapshot,
    restore,
    addStack,
    addAlbum,
    addPartner,
    assets: (userId) => {
      requireUser(userId, "list assets");
      return (assetsByOwner.get(userId) ?? []).map((asset) =>
        toTestAsset(asset, {
          originalFileName: asset.originalFileName,
        })
      );
    },
    stacks: (userId) => {
      requireUser(userId, "list stacks");
      return storeOf(userId).list();
    },
    get inFlight() {
      return inFlight;
    },
    get writeOverlaps() {
      return writeOverlaps;
    },
    get maxWritesInFlight() {
      return maxWritesInFlight;
    },
    resetWriteTracking: () => {
      writeOverlaps.length = 0;
      maxWritesInFlight = writesInFlight.size;
    },
    get requests() {
      return requests;
    },
    clearRequests: () => {
      requests.length = 0;
    },
    setFaults: (next) => {
      faults = next;
      random = seededRandom(next.seed ?? 1);
      routeFaultUses.clear();
      searchPagingUses = 0;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
  return Promise.resolve(server);
}

/** What {@linkcode seedFixtureLibrary} made: per user, the user, an `all` key and asset ids. */
export interface FixtureLibrary {
  readonly admin: FixtureUser & {
    /** An admin key with only `["asset.read"]`, like `<ASSET_READ_ONLY_API_KEY>`. */
    readonly readOnlyKey: string;
  };
  readonly user2: FixtureUser;
}

/** One fixture user with its key and its 30 assets by file name. */
export interface FixtureUser {
  readonly user: TestUser;
  readonly key: string;
  readonly assetIds: Readonly<Record<string, string>>;
}

/**
 * Adds the library of the recorded fixtures: `admin@example.test` (admin) and
 * `user2@example.test`, each with an `all` key and the same 30 images (RAW+JPEG pairs, edits,
 * two bursts, singles, a screenshot without EXIF date), with the ids and times the live server
 * gave them, so recorded requests replay as they are.
 *
 * @param server A server without these users yet.
 * @returns The users, their keys, and asset ids by file name.
 * @throws {TypeError} When the fixture users already exist on `server`.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { seedFixtureLibrary, startImmichServer } from "./immich_server.ts";
 *
 * await using server = await startImmichServer();
 * const library = seedFixtureLibrary(server);
 * assert.equal(library.admin.assetIds["IMG_0001.jpg"], "c328d6e8-5867-45d6-af44-8141dfbc39a6");
 * assert.equal(Object.keys(library.user2.assetIds).length, 30);
 * ```
 */
export function seedFixtureLibrary(server: ImmichServer): FixtureLibrary {
  const seedUser = (who: "admin" | "user2", name: string, isAdmin: boolean): FixtureUser => {
    const user = server.addUser({
      id: FIXTURE_USER_IDS[who],
      name,
      email: `${who}@example.test`,
      isAdmin,
    });
    const key = server.addKey(user.id);
    const column = who === "admin" ? 2 : 3;
    const added = server.addAssets(
      user.id,
      FIXTURE_FILES.map((row) => {
        const taken = row[1];
        return taken === null
          ? {
            id: row[column] as string,
            originalFileName: row[0],
            fileCreatedAt: FIXTURE_SCREENSHOT_TIMES[who],
            make: null,
            model: null,
          }
          : { id: row[column] as string, originalFileName: row[0], fileCreatedAt: taken };
      }),
    );
    return {
      user,
      key,
      assetIds: Object.fromEntries(added.map((asset) => [asset.originalFileName, asset.id])),
    };
  };
  const admin = seedUser("admin", "Admin", true);
  const user2 = seedUser("user2", "User Two", false);
  const readOnlyKey = server.addKey(admin.user.id, {
    permissions: ["asset.read"],
    name: "cli-asset-read-only",
  });
  return { admin: { ...admin, readOnlyKey }, user2 };
}
