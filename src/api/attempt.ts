/**
 * One attempt of a request: send it within API_URL's origin under the idle time limit, let a
 * write already sent finish at shutdown, read the answer or name the failure, and log the
 * exchange (docs/architecture.md, "Retries and time limits"). `http.ts` runs attempts through
 * the retry policy.
 *
 * @module
 */
import { getLogger } from "@logtape/logtape";
import { type Answer, answerBody } from "./answers.ts";
import { type Exchange, type FailureContext, statusError, transportError } from "./failures.ts";
import { watchIdle } from "./idle_watch.ts";
import { fetchWithinOrigin } from "./redirect.ts";

const logger = getLogger(["stacksync", "api"]);

/**
 * How long a write already sent may still wait for its answer after the shutdown signal, well
 * within the 2 s in which a stopped run ends.
 */
const WRITE_GRACE_MS = 1000;

/** What every attempt of one client shares. */
export interface AttemptContext extends FailureContext {
  /** The user's API key, sent as `x-api-key` to API_URL's origin only. */
  readonly apiKey: string;
  /** The pooled connections. */
  readonly client: Deno.HttpClient;
  /** Sees every answer, e.g. to read the server's clock. */
  readonly answered?: (response: Response) => void;
}

/** Reads a successful answer into its value and the text a trace log shows. */
export type AnswerReader<T> = (answer: Answer) => Promise<{ value: T; text: string }>;

/** Logs one exchange at debug, or at trace with its bodies (secrets redacted). */
function logExchange(
  exchange: Exchange,
  response: Response,
  timing: { readonly started: number; readonly context: AttemptContext },
  responseBody: () => string,
): void {
  const { started, context } = timing;
  const properties = {
    method: exchange.method,
    path: exchange.path,
    status: response.status,
    durationMs: context.now() - started,
    correlationID: response.headers.get("x-correlation-id") ?? undefined,
  };
  if (logger.isEnabledFor("trace")) {
    logger.trace("{method} {path} answered {status} in {durationMs} ms", {
      ...properties,
      requestBody: exchange.requestText === undefined
        ? undefined
        : context.redact(exchange.requestText),
      responseBody: context.redact(responseBody()),
    });
  } else {
    logger.debug("{method} {path} answered {status} in {durationMs} ms", properties);
  }
}

/**
 * Sends one attempt of `exchange` and reads its answer with `read`.
 *
 * A read stops at once on the shutdown signal; a write already sent gets {@linkcode WRITE_GRACE_MS}
 * for its answer, and an answer that has started is read to its end, so that a change the server
 * made is known as made rather than left in doubt.
 *
 * @param exchange The request, as sent on every attempt.
 * @param attempt The attempt's number, from 1, and how to read its answer, and the client's
 * shared context.
 * @returns The answer's value.
 * @throws {TransientError} A failure worth retrying (network, time-out, 5xx, 429).
 * @throws {PermanentError} Any other failure.
 */
export async function attemptOnce<T>(
  exchange: Exchange,
  attempt: { readonly number: number; readonly read: AnswerReader<T>; context: AttemptContext },
): Promise<T> {
  const { context, read } = attempt;
  const { signal } = context;
  if (signal?.aborted) throw signal.reason;
  const controller = new AbortController();
  const watch = watchIdle(controller, context.timeoutMs);
  let grace: ReturnType<typeof setTimeout> | undefined;
  const onShutdown = () => {
    const abort = () => controller.abort(signal?.reason);
    if (exchange.method === "GET") abort();
    else grace = setTimeout(abort, WRITE_GRACE_MS);
  };
  signal?.addEventListener("abort", onShutdown, { once: true });
  const headers: Record<string, string> = {
    "x-api-key": context.apiKey,
    "Accept": "application/json",
  };
  if (exchange.requestText !== undefined) headers["Content-Type"] = "application/json";
  const timing = { started: context.now(), context };
  try {
    const response = await fetchWithinOrigin(new URL(`${context.baseUrl}${exchange.path}`), {
      method: exchange.method,
      headers,
      body: exchange.requestText,
      client: context.client,
      signal: controller.signal,
    }, { exchange, attempt: attempt.number });
    watch.answered();
    context.answered?.(response);
    // The server has acted on a write whose answer has started: read it even at shutdown.
    if (exchange.method !== "GET") signal?.removeEventListener("abort", onShutdown);
    const body = answerBody(response, watch);
    if (!response.ok) {
      const text = await body.text();
      logExchange(exchange, response, timing, () => text);
      throw statusError({ exchange, response, text, attempt: attempt.number }, context);
    }
    const { baseUrl, redact } = context;
    const answer = { exchange, response, body, attempt: attempt.number, baseUrl, redact };
    const { value, text } = await read(answer);
    logExchange(exchange, response, timing, () => text);
    return value;
  } catch (error) {
    const timedOut = watch.timedOut;
    const failure = transportError({ exchange, error, timedOut, attempt: attempt.number }, context);
    // Releases the connection of an answer left unread.
    controller.abort(failure);
    throw failure;
  } finally {
    watch.stop();
    clearTimeout(grace);
    signal?.removeEventListener("abort", onShutdown);
  }
}
