/**
 * `stacksync restore FILE [--exact] [--force]`: makes each key's user's stacks match a backup
 * file, through the same planner and applier as a run: the file's stacks are the groups, so a
 * stack already as in the file is not touched, a cover is changed in place, a missing member is
 * added with a grow, and a stack that conflicts is replaced. Stacks that hold none of the file's
 * stacked photos stay, unless `--exact`. A file from another server or of another user is
 * refused before anything is written, unless `--force`. DRY_RUN works; it is journaled, so a
 * restore can be undone.
 *
 * @module
 */
import { ApiError } from "../api/errors.ts";
import { displayUrl, serverKey } from "../shown_url.ts";
import { neededPermissions } from "../api/permissions.ts";
import { ConfigError } from "../config.ts";
import { runUsers, type UserWork } from "../run.ts";
import { type Backup, type BackupUser, parseBackup } from "../state/backup.ts";
import { sessionOf } from "./_client.ts";
import { locksOf, outcomeOf, planTargets } from "./_users.ts";
import {
  type Command,
  type CommandContext,
  journalingOf,
  readCommandFile,
  warnIfUnjournaled,
} from "./command.ts";

/** Reads and checks the file; every problem is a {@linkcode ConfigError}. */
async function readBackupFile(path: string): Promise<Backup> {
  const backup = await readCommandFile(path, "backup", parseBackup);
  for (const user of backup.users) {
    const seen = new Set<string>();
    for (const stack of user.stacks) {
      for (const { id } of stack.assets) {
        if (seen.has(id)) {
          throw new ConfigError(
            `Cannot restore ${path} as asset ${id} of ${user.name} is in two of its stacks`,
          );
        }
        seen.add(id);
      }
    }
  }
  return backup;
}

/**
 * The file's user for each key, by id; with `--force`, by name, or the file's only user. Keys
 * whose user cannot be read now are left to the pass, which reports them as any run does.
 *
 * @throws {ConfigError} For a key whose user the file does not hold.
 */
async function matchUsers(
  context: CommandContext,
  backup: Backup,
  path: string,
): Promise<Map<string, BackupUser>> {
  const { settings, options } = context;
  const matched = new Map<string, BackupUser>();
  for (const apiKey of settings.apiKeys) {
    const client = sessionOf(context, apiKey);
    try {
      const me = await client.me();
      const same = backup.users.find((user) => user.id === me.id);
      const forced = !options.force ? undefined : backup.users.find((u) => u.name === me.name) ??
        (backup.users.length === 1 ? backup.users[0] : undefined);
      const user = same ?? forced;
      if (user === undefined) {
        const held = backup.users.map((u) => u.name).join(", ") || "no user";
        throw new ConfigError(
          `Cannot restore ${path} for ${me.name} as it holds the stacks of ${held}: use that ` +
            "user's key, or give --force to restore them to this user",
        );
      }
      matched.set(me.id, user);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    } finally {
      client.close();
    }
  }
  return matched;
}

function restoreWork(context: CommandContext, users: ReadonlyMap<string, BackupUser>): UserWork {
  const { settings, options } = context;
  return {
    title: "Restore",
    permissions: neededPermissions({ dryRun: settings.dryRun }),
    async prepare(client, user, log) {
      const backup = users.get(user.id);
      if (backup === undefined) {
        throw new Error(`Cannot restore the stacks of ${user.name}: the file has none`);
      }
      const fileNames = new Map<string, string>();
      const stacks = await client.listStacks({ fileNames });
      const names = new Map(fileNames);
      const groups = backup.stacks.map((stack) => ({
        key: stack.id,
        assets: stack.assets.map(({ id, originalFileName }) => {
          if (originalFileName !== undefined && !names.has(id)) names.set(id, originalFileName);
          return { id, originalFileName: originalFileName ?? id };
        }),
      }));
      log.info("Restoring {stacks} stacks of {backup}", {
        stacks: groups.length,
        backup: backup.name,
      });
      const plan = await planTargets(client, stacks, groups, {
        fileNames: names,
        ...(options.exact ? { exactFor: "all" as const } : {}),
      }, log);
      return { plan, skippedAssets: {}, stacks: { stacks, fileNames } };
    },
  };
}

/** Makes the stacks match a backup file. */
export const restoreCommand: Command = async (context) => {
  const { settings, options } = context;
  const path = context.operand!;
  const backup = await readBackupFile(path);
  const server = displayUrl(settings.apiUrl);
  if (serverKey(backup.server) !== serverKey(server) && !options.force) {
    throw new ConfigError(
      `Cannot restore ${path} as it is a backup of ${backup.server}, not of API_URL: set ` +
        `API_URL to that server, or give --force if it is the same one: current value is ${server}`,
    );
  }
  const users = await matchUsers(context, backup, path);
  const journal = await journalingOf(context, "restore");
  return async () => {
    warnIfUnjournaled(settings);
    const reports = await runUsers(settings, restoreWork(context, users), {
      signal: context.signal,
      sleep: context.sleep,
      journal,
      locks: locksOf(context, "restore"),
      progress: context.progress,
    });
    return outcomeOf(reports, settings.apiKeys.length);
  };
};
