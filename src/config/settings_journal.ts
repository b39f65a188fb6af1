/**
 * The settings of the state folder and the journals kept in it.
 *
 * @module
 */
import { EVERY_COMMAND, JOURNALING, WRITING_COMMANDS } from "./commands.ts";
import { declare } from "./declaration.ts";
import { bool, positiveWhole, text, wholeNumber } from "./values.ts";

/** The state folder, and the journals of the runs kept there. */
export const JOURNAL_SETTINGS = {
  stateDir: declare({
    env: "STATE_DIR",
    flag: "state-dir",
    commands: EVERY_COMMAND,
    schema: text,
    help: "Folder of the journals and backups; default $XDG_STATE_HOME/stacksync, else " +
      "~/.local/state/stacksync",
  }),
  journal: declare({
    env: "JOURNAL",
    flag: "journal",
    commands: WRITING_COMMANDS,
    default: "true",
    schema: bool,
    switch: true,
    help: "Record every write in STATE_DIR so that stacksync undo can put it back; " +
      "false runs without, and cannot be undone",
  }),
  journalKeep: declare({
    env: "JOURNAL_KEEP",
    flag: "journal-keep",
    commands: JOURNALING,
    default: "30",
    schema: positiveWhole(),
    help: "How many recorded runs to keep whatever their age; older journals are deleted " +
      "once they are also older than JOURNAL_KEEP_DAYS",
  }),
  journalKeepDays: declare({
    env: "JOURNAL_KEEP_DAYS",
    flag: "journal-keep-days",
    commands: JOURNALING,
    default: "30",
    schema: wholeNumber,
    help: "Keep every recorded run younger than this many days, besides the last JOURNAL_KEEP",
  }),
} as const;
