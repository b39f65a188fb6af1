/**
 * The idle limit of attempts in flight together: one shared timer, each attempt cut at its own
 * limit of silence, none kept once stopped (the test sanitizer fails on a timer left behind).
 */
import assert from "node:assert/strict";
import { watchIdle } from "../src/api/idle_watch.ts";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves when the controller aborts, with the time since `from`. */
function abortedAfter(controller: AbortController, from: number): Promise<number> {
  return new Promise((resolve) =>
    controller.signal.addEventListener("abort", () => resolve(performance.now() - from))
  );
}

Deno.test("watchIdle() cuts each attempt in flight after its own limit of silence, and no stopped one", async () => {
  const started = performance.now();
  const [silent, moving, long, stopped] = Array.from({ length: 4 }, () => new AbortController());
  const silentCut = abortedAfter(silent, started);
  const movingCut = abortedAfter(moving, started);
  const longWatch = watchIdle(long, 5_000);
  const silentWatch = watchIdle(silent, 60);
  const movingWatch = watchIdle(moving, 80);
  const stoppedWatch = watchIdle(stopped, 40);
  stoppedWatch.stop();
  movingWatch.answered();
  // The answer keeps moving for 200 ms, never 80 ms silent.
  for (let i = 0; i < 10; i++) {
    await pause(20);
    movingWatch.touch();
  }
  assert.equal(movingWatch.timedOut, undefined);
  assert.ok((await silentCut) >= 60);
  assert.equal(silentWatch.timedOut, "no answer");
  assert.ok((await movingCut) >= 280, "cut before 80 ms of silence after its last chunk");
  assert.equal(movingWatch.timedOut, "stalled");
  assert.equal(stopped.signal.aborted, false);
  assert.equal(long.signal.aborted, false);
  assert.equal(longWatch.timedOut, undefined);
  for (const watch of [silentWatch, movingWatch, longWatch]) watch.stop();
});
