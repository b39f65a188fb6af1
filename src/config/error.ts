/**
 * The error of an invalid setting or command line.
 *
 * @module
 */

/** Thrown for any invalid setting; `main.ts` turns it into exit status 2. */
export class ConfigError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ConfigError";
  }
}
