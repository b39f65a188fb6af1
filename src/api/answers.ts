/**
 * Reading a successful answer: its body chunk by chunk under the idle limit, then as validated
 * JSON or handed as a stream to a reader; an answer that is not the expected JSON (an HTML page,
 * bad JSON, the wrong shape, no body) becomes an {@linkcode InvalidResponseError}.
 *
 * @module
 */
import type { z } from "zod";
import { shownUrl } from "../shown_url.ts";
import { concat } from "./_json_array.ts";
import { InvalidResponseError } from "./errors.ts";
import { type Exchange, firstLine, looksLikeHtml } from "./failures.ts";
import type { IdleWatch } from "./idle_watch.ts";

/** An answer's body, read so that each chunk restarts the idle limit. */
export interface AnswerBody {
  /** The whole body as text (empty when there is none). */
  text(): Promise<string>;
  /** The body as a stream of chunks, for answers too large to hold as text; null when none. */
  stream(): ReadableStream<Uint8Array> | null;
}

/**
 * Consumes a streamed answer's body; throws what `invalid` makes for malformed content.
 *
 * @param body The answer's bytes.
 * @param invalid Makes the error of a malformed body from its message.
 */
export type BodyReader<T> = (
  body: ReadableStream<Uint8Array>,
  invalid: (message: string) => InvalidResponseError,
) => Promise<T>;

/** A successful answer, as a reader gets it. */
export interface Answer {
  readonly exchange: Exchange;
  readonly response: Response;
  /** Its body, under the idle limit. */
  readonly body: AnswerBody;
  readonly attempt: number;
  /** API_URL, for the message of an HTML page. */
  readonly baseUrl: string;
  /** Replaces every secret in a text from the server. */
  readonly redact: (text: string) => string;
}

/** What a reader made of an answer, and its text for the trace log. */
export interface ReadAnswer<T> {
  readonly value: T;
  readonly text: string;
}

const utf8 = new TextDecoder();

/**
 * Answers up to this size, announced by `content-length`, are read in one go: the idle limit then
 * bounds their whole transfer (256 KB within 120 s is 2 KB/s), and `response.text()` costs a
 * tenth of reading chunk by chunk, which tens of thousands of writes per run would feel.
 */
const SMALL_ANSWER_BYTES = 256 * 1024;

/**
 * Reads an answer's body, touching the idle limit at each chunk: `text()` chunk by chunk unless
 * the answer is small, `stream()` through a stream that touches as its consumer pulls.
 *
 * @param response The answer.
 * @param watch The attempt's idle limit.
 * @returns The body, to read once.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { answerBody } from "./answers.ts";
 *
 * const body = answerBody(new Response("[]"), { touch() {} });
 * assert.equal(await body.text(), "[]");
 * ```
 */
export function answerBody(response: Response, watch: Pick<IdleWatch, "touch">): AnswerBody {
  return {
    async text() {
      if (response.body === null) return "";
      const declared = Number(response.headers.get("content-length") ?? NaN);
      if (declared <= SMALL_ANSWER_BYTES) return await response.text();
      const reader = response.body.getReader();
      const chunks: Uint8Array[] = [];
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        watch.touch();
        chunks.push(chunk.value);
      }
      return utf8.decode(concat(chunks));
    },
    stream() {
      if (response.body === null) return null;
      const reader = response.body.getReader();
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          const chunk = await reader.read();
          if (chunk.done) return controller.close();
          watch.touch();
          controller.enqueue(chunk.value);
        },
        cancel: (reason) => reader.cancel(reason),
      }, { highWaterMark: 0 });
    },
  };
}

/** Options of {@linkcode readJson}. */
export interface ReadJsonOptions<T> {
  /**
   * A check of the answer without zod, for answers read once per write: when it holds, the
   * value is taken as it is (its extra fields kept); when not, `schema` decides and names what
   * is wrong. It must accept nothing that `schema` refuses.
   */
  readonly accepts?: (value: unknown) => value is T;
}

/**
 * Reads a JSON answer and validates it; an empty answer (204) is validated as `undefined`.
 *
 * @param answer The answer.
 * @param schema What it must be.
 * @param options A check without zod that may spare the schema.
 * @returns The validated value, and the text for the trace log.
 * @throws {InvalidResponseError} For an HTML page, text that is not JSON, or the wrong shape.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { answerBody, readJson } from "./answers.ts";
 *
 * const response = Response.json({ major: 3 });
 * const read = await readJson({
 *   exchange: { method: "GET", path: "/server/version" },
 *   response,
 *   body: answerBody(response, { touch() {} }),
 *   attempt: 1,
 *   baseUrl: "http://immich:2283/api",
 *   redact: (text) => text,
 * }, z.object({ major: z.number() }));
 * assert.deepEqual(read.value, { major: 3 });
 * ```
 */
export async function readJson<T>(
  answer: Answer,
  schema: z.ZodType<T>,
  options: ReadJsonOptions<T> = {},
): Promise<ReadAnswer<T>> {
  const { exchange: { method, path }, response } = answer;
  const text = await answer.body.text();
  const contentType = response.headers.get("content-type");
  // An Immich without its web bundle answers outside /api with an empty text/html page.
  if (looksLikeHtml(text, contentType)) throw htmlError(answer);
  let parsed: unknown = undefined;
  if (text.trim() !== "") {
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      const detail = answer.redact(firstLine((error as Error).message));
      throw invalidResponse(answer, detail)(
        `Cannot parse the answer of ${method} ${path} as JSON: ${detail}`,
      );
    }
  }
  if (options.accepts?.(parsed) === true) return { value: parsed, text };
  const result = schema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    const detail = `${issue?.path.join(".") || "(root)"}: ${issue?.message}`;
    throw invalidResponse(answer, detail)(
      `Cannot use the answer of ${method} ${path} as it does not have the expected ` +
        `shape: ${detail}`,
    );
  }
  return { value: result.data, text };
}

/**
 * Hands a streamed answer's body to its reader.
 *
 * @param answer The answer.
 * @param read Consumes the body.
 * @returns What the reader returned; the trace log names the body instead of copying it.
 * @throws {InvalidResponseError} For an HTML page, an empty answer, or what the reader rejects.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { answerBody, readStream } from "./answers.ts";
 *
 * const response = new Response("[1,2]");
 * const read = await readStream({
 *   exchange: { method: "GET", path: "/stacks" },
 *   response,
 *   body: answerBody(response, { touch() {} }),
 *   attempt: 1,
 *   baseUrl: "http://immich:2283/api",
 *   redact: (text) => text,
 * }, async (body) => (await new Response(body).text()).length);
 * assert.equal(read.value, 5);
 * ```
 */
export async function readStream<T>(answer: Answer, read: BodyReader<T>): Promise<ReadAnswer<T>> {
  const { exchange: { method, path }, response } = answer;
  if (looksLikeHtml("", response.headers.get("content-type"))) throw htmlError(answer);
  const chunks = answer.body.stream();
  if (chunks === null) {
    throw invalidResponse(answer, "empty answer")(
      `Cannot use the answer of ${method} ${path} as it is empty`,
    );
  }
  const value = await read(chunks, invalidResponse(answer, "malformed body"));
  // Streamed answers can be hundreds of megabytes: trace names them instead of copying.
  return { value, text: "(streamed body)" };
}

function invalidResponse(answer: Answer, serverMessage: string) {
  const { exchange, response, attempt } = answer;
  return (message: string) =>
    new InvalidResponseError(message, {
      method: exchange.method,
      path: exchange.path,
      status: response.status,
      serverMessage,
      correlationId: response.headers.get("x-correlation-id") ?? undefined,
      attempt,
    });
}

function htmlError(answer: Answer) {
  const { exchange } = answer;
  const hint = /\/api\/*$/.test(URL.parse(answer.baseUrl)?.pathname ?? "")
    ? "a web page answers at API_URL though it ends in /api: check its path, and the proxy " +
      "in front of Immich if there is one"
    : "API_URL probably lacks /api";
  return invalidResponse(answer, "HTML page")(
    `Cannot use the answer of ${exchange.method} ${exchange.path} as it is an HTML page, ` +
      `not JSON (${hint}): current value is ${shownUrl(answer.baseUrl)}`,
  );
}
