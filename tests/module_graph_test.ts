/**
 * A pass with nothing to change loads only what it runs (docs/architecture.md, "Start-up"): the
 * modules `main.ts` loads for `run` reach grouping, planning, the full read, the changed-region
 * read and the trash only through `import()`, and `deno info` (the graph `deno compile` embeds)
 * still lists every one of them.
 */
import assert from "node:assert/strict";
import { relative } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";

const ROOT = fromFileUrl(new URL("../", import.meta.url));

/** What `main.ts` loads for `run` before the pass starts: itself and its `import()`s on that path. */
const RUN_ENTRIES = [
  "main.ts",
  "src/config.ts",
  "src/log.ts",
  "src/progress/show.ts",
  "src/commands/run.ts",
] as const;

/** The parts a pass loads only when it needs them; a path ending in `/` is a folder. */
const LOADED_WHEN_NEEDED = [
  "src/grouping/devices/",
  "src/grouping/group.ts",
  "src/reconcile/plan.ts",
  "src/reconcile/ground.ts",
  "src/reconcile/unlisted.ts",
  "src/run_plan.ts",
  "src/reading/full.ts",
  "src/reading/region_read.ts",
  "src/reading/regroup.ts",
  "src/reading/refresh.ts",
  "src/incremental/library.ts",
  "src/state/cache_library.ts",
  "src/state/cache_full_body.ts",
  "src/trash/apply.ts",
  "src/trash/plan.ts",
  "src/trash/render.ts",
] as const;

interface Dependency {
  readonly code?: { readonly specifier?: string };
  readonly isDynamic?: boolean;
}

interface GraphModule {
  readonly specifier: string;
  readonly dependencies?: readonly Dependency[];
}

/** The module graph of main.ts as `deno info --json` gives it, by path from the repository. */
async function moduleGraph(): Promise<Map<string, readonly Dependency[]>> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "main.ts"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const { modules } = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    modules: GraphModule[];
  };
  return new Map(modules.map((module) => [pathOf(module.specifier), module.dependencies ?? []]));
}

function pathOf(specifier: string): string {
  return specifier.startsWith("file:") ? relative(ROOT, fromFileUrl(specifier)) : specifier;
}

/** Every module reached from the entries through static imports, with the module that imports it. */
function staticallyReached(
  graph: Map<string, readonly Dependency[]>,
  entries: readonly string[],
): Map<string, string | undefined> {
  const importer = new Map<string, string | undefined>(entries.map((entry) => [entry, undefined]));
  const queue = [...entries];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const dependency of graph.get(next) ?? []) {
      const target = dependency.code?.specifier;
      if (target === undefined || dependency.isDynamic === true) continue;
      const path = pathOf(target);
      if (importer.has(path)) continue;
      importer.set(path, next);
      queue.push(path);
    }
  }
  return importer;
}

function chainOf(importer: Map<string, string | undefined>, path: string): string {
  const chain = [path];
  for (let at = importer.get(path); at !== undefined; at = importer.get(at)) chain.push(at);
  return chain.join(" <- ");
}

const matches = (path: string, part: string) =>
  part.endsWith("/") ? path.startsWith(part) : path === part;

Deno.test("a run reaches grouping, planning, the full read and the trash only through import()", async () => {
  const graph = await moduleGraph();
  for (const entry of RUN_ENTRIES) assert.ok(graph.has(entry), `${entry} is not in the graph`);
  const reached = staticallyReached(graph, RUN_ENTRIES);
  const loadedUpFront = [...reached.keys()].filter((path) =>
    LOADED_WHEN_NEEDED.some((part) => matches(path, part))
  );
  assert.deepEqual(loadedUpFront.map((path) => chainOf(reached, path)), []);
  // The graph `deno compile` embeds still holds each of them, through an import() with a literal.
  for (const part of LOADED_WHEN_NEEDED) {
    assert.ok([...graph.keys()].some((path) => matches(path, part)), `${part} is not in the graph`);
  }
  // Cannot pass without a real graph: the run's own modules are statically reached.
  assert.ok(reached.has("src/run.ts") && reached.has("src/reading/incremental.ts"));
});
