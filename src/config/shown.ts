/**
 * What messages about settings may show: never a value or name that looks like an API key, nor
 * a key given.
 *
 * @module
 */

/**
 * True for text that may be an API key: Immich's are 40-odd letters and digits. Values that
 * look like one are never echoed, so that a key typed into the wrong setting stays unprinted.
 */
export function looksLikeKey(text: string): boolean {
  return /^[A-Za-z0-9_-]{16,}$/.test(text) && /[0-9]/.test(text) && /[A-Za-z]/.test(text);
}

/** Decides which values and names messages may show; see {@linkcode looksLikeKey}. */
export interface Shown {
  /** Whether the text may appear in a message. */
  readonly may: (text: string) => boolean;
  /** `: current value is "<text>"`, or why it is not shown. */
  readonly currentValue: (text: string) => string;
  /** A file path as a message names it. */
  readonly path: (path: string) => string;
}

/** What messages may show when `keys` were given as API keys. */
export function shownExcept(keys: readonly string[]): Shown {
  const may = (text: string) =>
    !looksLikeKey(text.trim()) && !keys.some((key) => key.length >= 4 && text.includes(key));
  return {
    may,
    currentValue: (text) =>
      may(text)
        ? `: current value is ${JSON.stringify(text)}`
        : ": the current value is not shown as it looks like an API key",
    path: (path) => may(path) ? path : "(name not shown as it looks like an API key)",
  };
}

/** The keys given in API_KEY or --api-key, wherever set, so that no message repeats them. */
export function givenKeys(texts: readonly (string | undefined)[]): string[] {
  return texts.flatMap((text) => text?.split(/[,\n]/).map((key) => key.trim()) ?? []);
}
