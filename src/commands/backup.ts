/**
 * `stacksync backup [--out FILE]`: every stack of every key's user, with the members' file
 * names, in one JSON file (src/state/backup.ts). Without `--out` the file goes to
 * `STATE_DIR/backups/<time>.json`; `--out -` writes it to standard output (the log then goes to
 * standard error). Only `GET /users/me` and `GET /stacks` are read; nothing is written to
 * Immich. A user that cannot be read stops the backup: no file is better than a file that
 * silently lacks a user.
 *
 * @module
 */
import { getLogger } from "@logtape/logtape";
import { displayUrl } from "../shown_url.ts";
import { keyPermissionsOf, neededPermissions } from "../api/permissions.ts";
import { stacksOf } from "../api/stacks.ts";
import { backupText, type BackupUser, sortStacks, writeBackupFile } from "../state/backup.ts";
import { recordStack } from "../state/journal.ts";
import { sessionOf } from "./_client.ts";
import { type Command, stateFolderOf } from "./command.ts";
import { BACKUP_FILE, checkOwnFile } from "./_own_file.ts";

const logger = getLogger(["stacksync", "backup"]);

/** Writes every stack of every key's user to a backup file. */
export const backupCommand: Command = async (context) => {
  const { settings, options } = context;
  const folder = options.out === undefined ? await stateFolderOf(settings, true) : undefined;
  if (options.out !== undefined && options.out !== "-") {
    await checkOwnFile(options.out, BACKUP_FILE);
  }
  return async () => {
    const users: BackupUser[] = [];
    const createdAt = context.now().toISOString();
    for (const [index, apiKey] of settings.apiKeys.entries()) {
      let user = `user ${index + 1}`;
      const client = sessionOf(context, apiKey);
      try {
        await client.serverVersion();
        await keyPermissionsOf(client).requirePermissions(
          neededPermissions({ dryRun: true, searches: false }),
        );
        const me = await client.me();
        user = me.name;
        const fileNames = new Map<string, string>();
        const stacks = await stacksOf(client).listStacks({ fileNames });
        users.push({
          id: me.id,
          name: me.name,
          stacks: sortStacks(stacks.map((stack) => recordStack(stack, { fileNames }))),
        });
        logger.info("Read {count} stacks of {user}", { user, count: stacks.length });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        logger.error("Cannot back up {user}: {error}; no backup written", { user, error: message });
        return "failed";
      } finally {
        client.close();
      }
    }
    const backup = {
      createdAt,
      server: displayUrl(settings.apiUrl),
      stacksync: context.version,
      users,
    };
    const stacks = users.reduce((sum, user) => sum + user.stacks.length, 0);
    if (options.out === "-") {
      for (const piece of backupText(backup)) context.stdout(piece);
      logger.info("Wrote the backup of {stacks} stacks to standard output", { stacks });
      return "ok";
    }
    const path = options.out ?? await folder!.backupPath(context.now());
    try {
      await writeBackupFile(path, backup);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      logger.error("Cannot write the backup {path}: {error}", { path, error: message });
      return "failed";
    }
    logger.info("Wrote the backup of {stacks} stacks of {users} users to {path}", {
      stacks,
      users: users.length,
      path,
    });
    return "ok";
  };
};
