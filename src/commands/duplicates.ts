/**
 * `stacksync duplicates [--format table|json]`: for each key's user, the photos that share file
 * name and capture time, and those with identical content (src/duplicates/find.ts). Reads only
 * (`GET /users/me`, the search); the report goes to standard output, the log to standard error.
 * A user that cannot be read is logged and left out of the report, and the command ends with
 * status 1; the format is described in docs/duplicates.md.
 *
 * @module
 */
import { getLogger } from "@logtape/logtape";
import { displayUrl } from "../shown_url.ts";
import { keyPermissionsOf } from "../api/permissions.ts";
import { type AssetSearch, assetSearchOf } from "../api/search.ts";
import type { Settings } from "../config.ts";
import { type DuplicatePhoto, type Duplicates, findDuplicates } from "../duplicates/find.ts";
import type { Asset, User } from "../model.ts";
import { watchSearch } from "../progress/hooks.ts";
import { NO_PROGRESS } from "../progress/show.ts";
import { plural } from "../reconcile/render.ts";
import { columns } from "./_table.ts";
import { sessionOf } from "./_client.ts";
import type { Command } from "./command.ts";

const logger = getLogger(["stacksync", "duplicates"]);

/** It reads the user and the photos, nothing else. */
const DUPLICATES_PERMISSIONS = ["user.read", "asset.read"];

/** The format name of `--format json`. */
export const DUPLICATES_FORMAT = "stacksync-duplicates";
/** Its version: a field is only ever added within a version. */
export const DUPLICATES_VERSION = 1;

/** One user's part of the report. */
export interface UserDuplicates extends Duplicates {
  readonly id: string;
  readonly name: string;
  /** How many photos were compared. */
  readonly photos: number;
}

/** The JSON report. */
export interface DuplicatesReport {
  readonly format: typeof DUPLICATES_FORMAT;
  readonly version: typeof DUPLICATES_VERSION;
  /** API_URL without credentials. */
  readonly server: string;
  /** What was compared: archived and trashed photos, videos. */
  readonly included: {
    readonly archived: boolean;
    readonly trashed: boolean;
    readonly videos: boolean;
  };
  readonly users: readonly UserDuplicates[];
}

function state(photo: DuplicatePhoto): string {
  return [photo.archived ? "archived" : "", photo.trashed ? "in the trash" : ""]
    .filter((word) => word !== "").join(", ");
}

/**
 * The report as text: per user, a line with the counts, then one block per group: what the
 * photos share and, one line each, their file name, capture time, id and state.
 *
 * @param users The users' duplicates.
 * @returns The lines.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { duplicatesTable } from "./duplicates.ts";
 *
 * const photo = (id: string) => ({
 *   id, originalFileName: "IMG_1.jpg", localDateTime: "2024-05-01T10:00:00.000Z",
 *   archived: false, trashed: id === "b",
 * });
 * const lines = duplicatesTable([{
 *   id: "u1", name: "Ada", photos: 3, sameContent: [],
 *   sameNameAndTime: [{ originalFileName: "IMG_1.jpg", localDateTime: "2024-05-01T10:00:00.000Z", photos: [photo("a"), photo("b")] }],
 * }]);
 * assert.equal(lines[0], "Ada: 1 group with the same file name and capture time, 0 groups with the same content, among 3 photos");
 * assert.equal(lines.at(-1), "               IMG_1.jpg  2024-05-01 10:00:00.000  b   in the trash");
 * ```
 */
export function duplicatesTable(users: readonly UserDuplicates[]): string[] {
  const lines: string[] = [];
  for (const user of users) {
    if (lines.length > 0) lines.push("");
    lines.push(
      `${user.name}: ${plural(user.sameNameAndTime.length, "group")} with the same file name ` +
        `and capture time, ${plural(user.sameContent.length, "group")} with the same content, ` +
        `among ${plural(user.photos, "photo")}`,
    );
    const groups = [
      ...user.sameNameAndTime.map((group) => ({ match: "name and time", photos: group.photos })),
      ...user.sameContent.map((group) => ({
        match: `content ${group.checksum}`,
        photos: group.photos,
      })),
    ];
    if (groups.length === 0) continue;
    const rows = [["MATCH", "FILE NAME", "CAPTURED (LOCAL)", "ID", "STATE"]];
    const starts = new Set<number>();
    for (const { match, photos } of groups) {
      starts.add(rows.length);
      photos.forEach((photo, i) =>
        rows.push([
          i === 0 ? match : "",
          photo.originalFileName,
          photo.localDateTime.replace("T", " ").replace(/(Z|[+-]\d\d:?\d\d)$/, ""),
          photo.id,
          state(photo),
        ])
      );
    }
    const laid = columns(rows);
    lines.push("", laid[0]);
    for (let i = 1; i < laid.length; i++) {
      if (starts.has(i) && i > 1) lines.push("");
      lines.push(laid[i]);
    }
  }
  return lines;
}

/** Reads one user's photos as the settings say and finds their duplicates. */
async function duplicatesOf(
  settings: Settings,
  client: AssetSearch,
  me: User,
): Promise<UserDuplicates> {
  const assets: Asset[] = [];
  for await (
    const page of client.searchAssets({
      withArchived: settings.withArchived,
      withDeleted: settings.withDeleted,
      includeVideos: settings.includeVideos,
      fields: ["checksum", "isArchived", "isTrashed"],
    })
  ) {
    for (const asset of page.assets) assets.push(asset);
  }
  return { id: me.id, name: me.name, photos: assets.length, ...findDuplicates(assets) };
}

/** Lists each user's duplicates; sends no write. */
export const duplicatesCommand: Command = (context) => {
  const { settings, options } = context;
  return Promise.resolve(async () => {
    const users: UserDuplicates[] = [];
    let failed = false;
    for (const [index, apiKey] of settings.apiKeys.entries()) {
      if (context.signal.aborted) break;
      let user = `user ${index + 1}`;
      const client = sessionOf(context, apiKey);
      try {
        await client.serverVersion();
        const keys = keyPermissionsOf(client);
        await keys.requirePermissions(DUPLICATES_PERMISSIONS);
        const me = await client.me();
        user = me.name;
        const search = watchSearch(assetSearchOf(client, keys), {
          progress: context.progress ?? NO_PROGRESS,
          user,
        });
        const found = await duplicatesOf(settings, search, me);
        users.push(found);
        logger.info(
          "Found {nameAndTime} groups with the same file name and capture time and {content} " +
            "with the same content among {photos} photos of {user}",
          {
            user,
            nameAndTime: found.sameNameAndTime.length,
            content: found.sameContent.length,
            photos: found.photos,
          },
        );
      } catch (error) {
        failed = true;
        const message = error instanceof Error ? error.message : String(error);
        logger.error("Skipping {user}: {error}", { user, error: message });
      } finally {
        client.close();
      }
    }
    if (options.format === "json") {
      const report: DuplicatesReport = {
        format: DUPLICATES_FORMAT,
        version: DUPLICATES_VERSION,
        server: displayUrl(settings.apiUrl),
        included: {
          archived: settings.withArchived,
          trashed: settings.withDeleted,
          videos: settings.includeVideos,
        },
        users,
      };
      context.stdout(`${JSON.stringify(report, null, 2)}\n`);
    } else {
      context.stdout(`${duplicatesTable(users).join("\n")}\n`);
    }
    return failed || context.signal.aborted ? "failed" : "ok";
  });
};
