/**
 * What one setting declares: its variable, flag, default, help, schema and the commands that
 * read it.
 *
 * @module
 */
import type { z } from "zod";
import type { CommandName } from "./commands.ts";

/** One declared setting. */
export interface SettingDeclaration<T> {
  /** Environment variable name. */
  readonly env: string;
  /** The subcommands that read it; the others ignore its variable and refuse its flag. */
  readonly commands: readonly CommandName[];
  /** Long command-line flag, without the leading `--`. */
  readonly flag: string;
  /** Default as raw text, parsed like any other value; undefined = no default. */
  readonly default?: string;
  /** One-line help, shown by `--help` and in the README. */
  readonly help: string;
  /** Parses the raw text into the setting's value. */
  readonly schema: z.ZodType<unknown, string>;
  /** A boolean switch: `--flag` means true and `--no-flag` false. */
  readonly switch?: boolean;
  /** The value is a secret: never printed, never logged. */
  readonly secret?: boolean;
  /**
   * An empty flag value (`--flag=""`) is a value, as in immich-stack, instead of counting as
   * unset like an empty variable.
   */
  readonly emptyFlagClears?: boolean;
  /**
   * A limit on what a pass may do rather than a rule of what it plans: a plan file does not record
   * it, as applying a reviewed plan is consent.
   */
  readonly guard?: true;
  /**
   * How an error about this setting starts, where immich-stack users know a wording of their own.
   * @default {"Invalid <ENV> (--<flag>)"}
   */
  readonly errorTitle?: string;
}

/** Keeps each declaration's exact type, so {@linkcode Settings} knows defaults and value types. */
export function declare<const D extends SettingDeclaration<unknown>>(declaration: D): D {
  return declaration;
}
