/**
 * What the API key may do: the permissions a run needs ({@linkcode neededPermissions}), and the
 * preflight that names every missing one before any write, through `GET /api-keys/me` from
 * Immich v1.139 and by harmless probes before.
 *
 * @module
 */
import type { ApiKeyResponseDto } from "@immich/sdk";
import { z } from "zod";
import type { ServerVersion } from "../model.ts";
import type { Fits, Proven } from "./_dto.ts";
import { isAlbumId } from "./albums.ts";
import { PermanentError } from "./errors.ts";
import { type Session, versionText } from "./session.ts";

const apiKeySchema = z.object({ permissions: z.array(z.string()) });
const anything = z.unknown();

/** See {@linkcode Fits}: the answers this module reads. */
export type PermissionsDtoCompatibility = Proven<[
  Fits<ApiKeyResponseDto, z.input<typeof apiKeySchema>>,
]>;

/** A stack id that cannot exist (Immich makes random ones): the target of permission probes. */
const PROBE_STACK_ID = "00000000-0000-4000-8000-000000000000";

/** The first Immich version with `GET /api-keys/me`. */
const API_KEYS_ME = { major: 1, minor: 139 } as const;

/**
 * Requests that Immich answers 403 without the permission and 400 with it, changing nothing:
 * its guard checks the permission before anything reads the body or the id.
 */
const WRITE_PROBES: Readonly<
  Record<string, { method: "POST" | "PUT" | "DELETE"; path: string; body?: unknown }>
> = {
  "stack.create": { method: "POST", path: "/stacks", body: {} },
  "stack.update": { method: "PUT", path: `/stacks/${PROBE_STACK_ID}`, body: {} },
  "stack.delete": { method: "DELETE", path: `/stacks/${PROBE_STACK_ID}` },
  "asset.delete": { method: "DELETE", path: "/assets", body: {} },
};

/** Every permission a real run needs; `all` grants them all. */
export const REQUIRED_PERMISSIONS: readonly string[] = [
  "user.read",
  "asset.read",
  "stack.read",
  "stack.create",
  "stack.update",
  "stack.delete",
];

/**
 * The permission `POST /search/statistics` needs: optional, an incremental pass counts assets
 * with it and a key without it gets full passes.
 */
export const STATISTICS_PERMISSION = "asset.statistics";

/** The permissions of a dry run, which only reads. */
const READ_PERMISSIONS: readonly string[] = REQUIRED_PERMISSIONS.slice(0, 3);

/** What a run does that needs permissions; see {@linkcode neededPermissions}. */
export interface PermissionNeeds {
  /** A dry run only reads. */
  readonly dryRun: boolean;
  /** FILTER_ALBUM_IDS as given: album names (not ids) are resolved through `GET /albums`. */
  readonly albums?: readonly string[];
  /**
   * Whether it searches the assets (`asset.read`); a backup reads stacks only.
   * @default {true}
   */
  readonly searches?: boolean;
  /**
   * Whether it writes stacks (`stack.create`, `stack.update`, `stack.delete`).
   * @default {true}
   */
  readonly stacks?: boolean;
  /**
   * Whether it moves photos to or from the trash (`asset.delete`): fix-trash, or an undo of it.
   * @default {false}
   */
  readonly trash?: boolean;
}

/**
 * The permissions a run needs, so the preflight names every missing one before any write.
 *
 * @param needs Dry run or real, and the album filter.
 * @returns The permissions: the three reads, the stack writes unless dry, `asset.delete` for a
 * real move to or from the trash, and `album.read` when an album is given by name.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { neededPermissions } from "./permissions.ts";
 *
 * assert.deepEqual(neededPermissions({ dryRun: true, albums: ["Holidays"] }), [
 *   "user.read", "asset.read", "stack.read", "album.read",
 * ]);
 * assert.equal(neededPermissions({ dryRun: false }).length, 6);
 * assert.deepEqual(neededPermissions({ dryRun: true, searches: false }), ["user.read", "stack.read"]);
 * assert.deepEqual(neededPermissions({ dryRun: false, stacks: false, trash: true }), [
 *   "user.read", "asset.read", "stack.read", "asset.delete",
 * ]);
 * ```
 */
export function neededPermissions(needs: PermissionNeeds): string[] {
  const writes = !needs.dryRun && needs.stacks !== false;
  const needed = [...writes ? REQUIRED_PERMISSIONS : READ_PERMISSIONS]
    .filter((permission) => needs.searches !== false || permission !== "asset.read");
  if (!needs.dryRun && needs.trash === true) needed.push("asset.delete");
  if (needs.albums?.some((album) => !isAlbumId(album))) needed.push("album.read");
  return needed;
}

/** The key lacks permissions the run needs; thrown before any write. */
export class MissingPermissionsError extends PermanentError {
  /** Every missing permission. */
  readonly missing: readonly string[];

  /**
   * @param missing The permissions the key lacks.
   * @param granted The permissions the key has, or the server version when it cannot list
   *   them (before v1.139) and each was probed.
   */
  constructor(missing: readonly string[], granted: readonly string[] | ServerVersion) {
    const current = !Array.isArray(granted)
      ? `Immich ${versionText(granted as ServerVersion)} refused a harmless request needing ` +
        "each (it lists a key's permissions only from v1.139)"
      : granted.length === 0
      ? "current permissions are none"
      : `current permissions are ${granted.join(", ")}`;
    super(
      `Cannot use the API key as it lacks the permissions ${missing.join(", ")}: ${current}`,
      {
        method: "GET",
        path: Array.isArray(granted) ? "/api-keys/me" : "/stacks",
        status: 200,
        serverMessage: `missing ${missing.join(", ")}`,
        attempt: 1,
      },
    );
    this.name = "MissingPermissionsError";
    this.missing = missing;
  }
}

/** What the key may do, as the server tells it. */
export interface KeyPermissions {
  /** `GET /api-keys/me`, cached: the key's permissions (v1.139+ only). */
  keyPermissions(): Promise<readonly string[]>;
  /**
   * Whether the key has a permission, as far as `GET /api-keys/me` said; undefined when it was
   * not asked (before v1.139, or before the preflight).
   */
  grants(permission: string): boolean | undefined;
  /**
   * The key's permissions when the server lists them (v1.139+, the preflight's answer reused),
   * else undefined: before v1.139 only a request needing a permission tells whether the key has it.
   */
  grantedPermissions(): Promise<readonly string[] | undefined>;
  /**
   * Checks the key's permissions: through `GET /api-keys/me` from v1.139, before that by
   * probing each stack write the run needs with a request that changes nothing.
   * @throws {MissingPermissionsError} Naming every missing permission at once.
   */
  requirePermissions(needed?: readonly string[]): Promise<void>;
}

/** Whether the server has `GET /api-keys/me`. */
function listsKeyPermissions(version: ServerVersion): boolean {
  return version.major > API_KEYS_ME.major ||
    (version.major === API_KEYS_ME.major && version.minor >= API_KEYS_ME.minor);
}

/**
 * The permissions part of the client.
 *
 * @param session The user's session.
 * @returns The key's permissions and the preflight.
 */
export function keyPermissionsOf(session: Session): KeyPermissions {
  let granted: readonly string[] | undefined;
  let permissions: Promise<readonly string[]> | undefined;
  const keys: KeyPermissions = {
    keyPermissions() {
      permissions ??= session.http.request("GET", "/api-keys/me", { schema: apiKeySchema })
        .then((key) => {
          granted = key.permissions;
          return key.permissions;
        });
      return permissions;
    },
    async grantedPermissions() {
      if (!listsKeyPermissions(await session.serverVersion())) return undefined;
      return await keys.keyPermissions();
    },
    grants(permission) {
      return granted === undefined
        ? undefined
        : granted.includes("all") || granted.includes(permission);
    },
    async requirePermissions(needed = REQUIRED_PERMISSIONS) {
      const version = await session.serverVersion();
      if (listsKeyPermissions(version)) {
        const granted = await keys.keyPermissions();
        if (granted.includes("all")) return;
        const missing = needed.filter((permission) => !granted.includes(permission));
        if (missing.length > 0) throw new MissingPermissionsError(missing, granted);
        return;
      }
      // No GET /api-keys/me: try each stack write the run needs in a form Immich refuses
      // after its permission guard. Reads need no probe: the pass reads before it writes.
      const missing: string[] = [];
      for (const permission of needed) {
        const probe = WRITE_PROBES[permission];
        if (probe === undefined) continue;
        try {
          await session.http.request(probe.method, probe.path, {
            body: probe.body,
            schema: anything,
          });
        } catch (error) {
          if (!(error instanceof PermanentError)) throw error;
          if (error.status === 403) missing.push(permission);
          else if (error.status !== 400) throw error;
        }
      }
      if (missing.length > 0) throw new MissingPermissionsError(missing, version);
    },
  };
  return keys;
}
