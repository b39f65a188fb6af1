/**
 * `deno task bench --only … --write` rewrites one part of BENCHMARKS.md and keeps the other as
 * it was: the parts are found by their headings.
 */
import assert from "node:assert/strict";
import { benchmarkParts, renderBenchmarks } from "../scripts/bench.ts";

const MACHINE = { cpus: 2, cpuModel: "Test CPU", memoryGiB: 4, deno: "2.9.6", os: "linux" };

Deno.test("benchmarkParts() finds each part, and a run of one part keeps the other", () => {
  const earlier = [
    "# Benchmarks",
    "",
    "## Targets",
    "",
    "- own figure",
    "",
    "_Measured by `deno task bench --write` on 2026-01-01._",
    "",
    "## Side by side with immich-stack",
    "",
    "- versus figure",
    "",
    "_Measured by `deno task bench --write` on 2026-01-01._",
    "",
    "<!-- notes: kept when deno task bench rewrites this file -->",
    "",
    "## Notes",
  ].join("\n");
  const parts = benchmarkParts(earlier);
  assert.match(
    parts.own ?? "",
    /^## Targets\n\n- own figure\n\n_Measured by .* 2026-01-01\._\n\n$/,
  );
  assert.match(parts.versus ?? "", /^## Side by side with immich-stack\n\n- versus figure\n/);
  assert.doesNotMatch(parts.versus ?? "", /Notes/);

  const text = renderBenchmarks([], {
    machine: MACHINE,
    command: "deno task bench --only versus --write",
    date: "2026-02-02",
    kept: { own: parts.own },
  });
  assert.match(
    text,
    /## Targets\n\n- own figure\n\n_Measured by `deno task bench --write` on 2026-01-01\._/,
  );
  assert.doesNotMatch(text, /versus figure/);
  assert.deepEqual(benchmarkParts("# Benchmarks\n"), {});
});
