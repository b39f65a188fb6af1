/**
 * `stacksync fix-trash` end to end: the real CLI against the Immich test server, on a generated
 * library where the user put photos in the trash (JPEGs of RAW+JPEG pairs, edits, one copy of a
 * photo uploaded twice, JPEGs whose RAW is archived), then a second run, then `undo`; the
 * FIX_TRASH_MAX_PERCENT refusal and `--force`; orphaned RAW files; FIX_TRASH_AFTER_STACKING.
 * The expected photos are computed here from the library's own description, not by the planner.
 */
import assert from "node:assert/strict";
import { runMain } from "./_undo_library.ts";
import { type CliResult, runCli, spawnCli } from "./_cli.ts";
import { asset, CRITERIA, type Library, type LibraryAsset, startLibrary } from "./_e2e.ts";
import type { RecordedRequest } from "./immich_server.ts";
import { seededRandom } from "./_random.ts";

const START = Date.parse("2024-05-01T10:00:00.000Z");

/** A library, what the user put in the trash, and what fix-trash must add to it. */
interface TrashCase {
  readonly assets: readonly LibraryAsset[];
  /** Labels of the photos the user put in the trash. */
  readonly trashedByUser: ReadonlySet<string>;
  /** Labels of the photos fix-trash must move to the trash, no more, no fewer. */
  readonly expected: ReadonlySet<string>;
}

/**
 * Shots of a JPEG with a RAW and/or an edit, a minute apart; in some the user trashed the JPEG
 * (sometimes with the RAW archived) or the edit; one photo uploaded twice, one copy trashed;
 * singles, one of them trashed.
 */
function generatedCase(seed: number, shots: number): TrashCase {
  const random = seededRandom(seed);
  const assets: LibraryAsset[] = [];
  const trashedByUser = new Set<string>();
  const expected = new Set<string>();
  for (let shot = 0; shot < shots; shot++) {
    const time = new Date(START + shot * 60_000).toISOString();
    const base = `IMG_${1000 + shot}`;
    const others = [".dng", "_edited.jpg"].filter(() => random() < 0.7);
    const names = [`${base}.jpg`, ...(others.length > 0 ? others : [".dng"]).map((o) => base + o)];
    const fate = random();
    // What the user did: nothing, trashed the JPEG (its RAW perhaps archived), or the edit.
    const trashedName = fate < 0.45
      ? undefined
      : fate < 0.85 || !names.includes(`${base}_edited.jpg`)
      ? `${base}.jpg`
      : `${base}_edited.jpg`;
    const archiveRaw = trashedName !== undefined && fate > 0.7 && fate < 0.85;
    for (const name of names) {
      const trashed = name === trashedName;
      const archived = archiveRaw && name.endsWith(".dng");
      const more = trashed
        ? { isTrashed: true }
        : archived
        ? { visibility: "archive" as const }
        : undefined;
      assets.push(asset(name, time, name, more));
      if (trashed) trashedByUser.add(name);
      else if (trashedName !== undefined && !archived) expected.add(name);
    }
  }
  // Uploaded twice, 300 ms apart (a copy made by another app): the trashed copy is not followed.
  const copyTime = new Date(START - 60_000).toISOString();
  assets.push(
    asset("IMG_0999.jpg", copyTime, "IMG_0999.jpg (kept copy)"),
    asset("IMG_0999.jpg", new Date(START - 59_700).toISOString(), "IMG_0999.jpg (trashed copy)", {
      isTrashed: true,
    }),
    asset("IMG_0999.dng", copyTime),
    asset("IMG_0999_edited.jpg", copyTime),
  );
  trashedByUser.add("IMG_0999.jpg (trashed copy)");
  for (let i = 0; i < 5; i++) {
    const time = new Date(START + 86_400_000 + i * 60_000).toISOString();
    assets.push(
      asset(
        `DSC_${2000 + i}.jpg`,
        time,
        `DSC_${2000 + i}.jpg`,
        i === 0 ? { isTrashed: true } : undefined,
      ),
    );
    if (i === 0) trashedByUser.add("DSC_2000.jpg");
  }
  return { assets, trashedByUser, expected };
}

/** Labels of the user's photos in the trash now. */
function inTrash(library: Library): Set<string> {
  return new Set(
    library.server.assets(library.userId).filter((a) => a.isTrashed).map((a) =>
      library.labels.get(a.id)!
    ),
  );
}

function trashRequests(requests: readonly RecordedRequest[]): RecordedRequest[] {
  return requests.filter((r) =>
    (r.method === "DELETE" && r.path === "/assets") ||
    (r.method === "POST" && r.path === "/trash/restore/assets")
  );
}

/** Runs the CLI with JSON logs and removes its working folder. */
async function cli(args: readonly string[], env: Record<string, string>): Promise<CliResult> {
  const result = await runCli({ args, env: { LOG_FORMAT: "json", ...env } });
  await Deno.remove(result.cwd, { recursive: true });
  return result;
}

function jsonLines(result: CliResult): { level: string; msg: string; [key: string]: unknown }[] {
  return result.stdout.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
}

/** The settings of a fix-trash run on the library, its journal in `state`. */
function envOf(library: Library, state: string, extra: Record<string, string> = {}) {
  return {
    API_URL: library.server.url,
    API_KEY: library.key,
    CRITERIA,
    STATE_DIR: state,
    ...extra,
  };
}

async function withState<T>(work: (path: string) => Promise<T>): Promise<T> {
  const path = await Deno.makeTempDir({ prefix: "stacksync_fix_trash_" });
  try {
    return await work(path);
  } finally {
    await Deno.remove(path, { recursive: true });
  }
}

Deno.test("main.ts fix-trash moves exactly what follows the trash, then nothing, and undo brings it back", async () => {
  const test = generatedCase(16, 24);
  assert.ok(test.expected.size >= 8 && test.trashedByUser.size >= 8, "a library worth the test");
  await using library = asDisposable(await startLibrary(test.assets));
  await withState(async (state) => {
    const env = envOf(library, state, { FIX_TRASH_MAX_PERCENT: "60" });
    const first = await cli(["fix-trash"], env);
    assert.equal(first.code, 0, first.stdout + first.stderr);
    assert.deepEqual(inTrash(library), new Set([...test.trashedByUser, ...test.expected]));
    const moves = trashRequests(library.server.requests);
    assert.ok(moves.length > 0);
    for (const move of moves) assert.deepEqual((move.body as { force: unknown }).force, false);
    // Each line names the photos that went and the one in the trash they follow.
    const moved = jsonLines(first).filter((line) => line.msg.startsWith("Moved to the trash: "));
    assert.ok(
      moved.some((line) =>
        /^Moved to the trash: .*IMG_\d+\.dng.* \((it groups|they group) with IMG_\d+\.jpg, in the trash\)$/
          .test(line.msg)
      ),
      first.stdout,
    );
    // One photo groups, two or more group.
    for (const { msg } of moved) {
      const names = /^Moved to the trash: (.*?) \(/.exec(msg)?.[1].split(", ") ?? [];
      if (!msg.includes("in the trash)")) continue;
      assert.ok(msg.includes(names.length === 1 ? "(it groups with " : "(they group with "), msg);
    }

    library.server.clearRequests();
    const second = await cli(["fix-trash"], env);
    assert.equal(second.code, 0, second.stdout + second.stderr);
    assert.deepEqual(trashRequests(library.server.requests), []);
    assert.deepEqual(inTrash(library), new Set([...test.trashedByUser, ...test.expected]));

    const undo = await cli(["undo"], env);
    assert.equal(undo.code, 0, undo.stdout + undo.stderr);
    assert.deepEqual(inTrash(library), test.trashedByUser);
    const runs = await cli(["runs"], env);
    const row = runs.stdout.split("\n").find((line) => / fix-trash /.test(line));
    assert.match(row ?? "", new RegExp(` ${test.expected.size} +0 +0 +yes +yes, by \\d`));
  });
});

Deno.test("main.ts fix-trash refuses to move 11 % of the photos with one line, and --force moves them", async () => {
  // 11 RAW files follow their JPEG into the trash, among 100 photos outside it.
  const assets: LibraryAsset[] = [];
  for (let i = 0; i < 11; i++) {
    const time = new Date(START + i * 60_000).toISOString();
    assets.push(
      asset(`IMG_${1000 + i}.jpg`, time, `IMG_${1000 + i}.jpg`, { isTrashed: true }),
      asset(`IMG_${1000 + i}.dng`, time),
    );
  }
  for (let i = 0; i < 89; i++) {
    assets.push(
      asset(`DSC_${3000 + i}.jpg`, new Date(START + 3_600_000 + i * 60_000).toISOString()),
    );
  }
  await using library = asDisposable(await startLibrary(assets));
  await withState(async (state) => {
    const env = envOf(library, state);
    const refused = await cli(["fix-trash"], env);
    assert.equal(refused.code, 1, refused.stdout + refused.stderr);
    assert.deepEqual(trashRequests(library.server.requests), []);
    assert.equal(inTrash(library).size, 11);
    const errors = jsonLines(refused).filter((line) => line.level === "error");
    assert.equal(errors.length, 1, refused.stdout);
    assert.match(
      String(errors[0].error),
      /^Cannot move 11 photos to the trash as they are 11 % of the 100 photos of Ada outside the trash, more than FIX_TRASH_MAX_PERCENT \(10 %\): .*stacksync fix-trash --force/,
    );
    // The list to check is in the log.
    assert.equal(
      jsonLines(refused).filter((line) => line.msg.startsWith("[DRY RUN] Would move to the trash"))
        .length,
      11,
    );

    const forced = await cli(["fix-trash", "--force"], env);
    assert.equal(forced.code, 0, forced.stdout + forced.stderr);
    assert.equal(inTrash(library).size, 22);
  });
});

Deno.test("main.ts fix-trash with TRASH_ORPHANED_RAWS trashes RAW files left alone, but a stacked one or another extension", async () => {
  const t = (minute: number) => new Date(START + minute * 60_000).toISOString();
  await using library = asDisposable(
    await startLibrary([
      asset("IMG_1.dng", t(1)), // its JPEG is gone for good
      asset("IMG_2.dng", t(2)),
      asset("IMG_2.jpg", t(2), "IMG_2.jpg", { isTrashed: true }), // its JPEG is in the trash
      asset("IMG_3.dng", t(3)), // stacked by hand with a JPEG of another name
      asset("DSC_0003.jpg", t(3)),
      asset("IMG_4.nef", t(4)), // not among RAW_ORPHAN_EXTENSIONS
      asset("IMG_5.dng", t(5)), // has its JPEG
      asset("IMG_5.jpg", t(5)),
      asset("IMG_6.dng", t(6), "IMG_6.dng", { visibility: "archive" }), // archived
      asset("IMG_7.cr3", t(7)), // a group of RAW files only
      asset("IMG_7.dng", t(7)),
    ]),
  );
  library.server.addStack(library.userId, [library.ids["DSC_0003.jpg"], library.ids["IMG_3.dng"]]);
  await withState(async (state) => {
    const env = envOf(library, state, {
      TRASH_ORPHANED_RAWS: "true",
      RAW_ORPHAN_EXTENSIONS: "dng,.CR3,jpg",
      FIX_TRASH_MAX_PERCENT: "100",
    });
    const result = await cli(["fix-trash"], env);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.deepEqual(
      inTrash(library),
      new Set(["IMG_1.dng", "IMG_2.dng", "IMG_2.jpg", "IMG_7.cr3", "IMG_7.dng"]),
    );
    const warnings = jsonLines(result).filter((line) => line.level === "warn").map((l) => l.msg);
    assert.deepEqual(warnings, [
      'Ignored "jpg" of RAW_ORPHAN_EXTENSIONS: not a RAW extension; see stacksync fix-trash ' +
      "--help for the list",
    ]);
  });
});

Deno.test("main() with FIX_TRASH_AFTER_STACKING stacks, then follows the trash as a run of its own; a dry run moves nothing", async () => {
  const t = (minute: number) => new Date(START + minute * 60_000).toISOString();
  await using library = asDisposable(
    await startLibrary([
      asset("IMG_1.jpg", t(1)),
      asset("IMG_1.dng", t(1)),
      asset("IMG_2.jpg", t(2), "IMG_2.jpg", { isTrashed: true }),
      asset("IMG_2.dng", t(2)),
      asset("IMG_2_edited.jpg", t(2)),
    ]),
  );
  await withState(async (state) => {
    const env = {
      API_URL: library.server.url,
      API_KEY: library.key,
      CRITERIA,
      FIX_TRASH_AFTER_STACKING: "true",
      FIX_TRASH_MAX_PERCENT: "100",
    };
    const dry = await runMain([], { ...env, DRY_RUN: "true" }, state);
    assert.equal(dry.code, 0, dry.stdout);
    assert.deepEqual(trashRequests(library.server.requests), []);
    assert.ok(
      dry.lines.some((line) =>
        line.msg === "[DRY RUN] Would move to the trash: IMG_2_edited.jpg, IMG_2.dng (they group " +
            "with IMG_2.jpg, in the trash)"
      ),
      dry.stdout,
    );

    const real = await runMain([], env, state);
    assert.equal(real.code, 0, real.stdout);
    assert.equal(library.server.stacks(library.userId).length, 2);
    assert.deepEqual(inTrash(library), new Set(["IMG_2.jpg", "IMG_2.dng", "IMG_2_edited.jpg"]));
    const runs = await runMain(["runs"], {}, state);
    const commands = runs.stdout.split("\n").slice(1, -1).map((row) => row.split(/ {2,}/)[2]);
    assert.deepEqual(commands, ["run", "fix-trash"]);
    // The latest run, the fix-trash one, is undone first.
    assert.equal((await runMain(["undo"], env, state)).code, 0);
    assert.deepEqual(inTrash(library), new Set(["IMG_2.jpg"]));
    assert.equal(library.server.stacks(library.userId).length, 2);
  });
});

Deno.test("main.ts in cron mode with FIX_TRASH_AFTER_STACKING follows the trash after each pass", async () => {
  const t = new Date(START).toISOString();
  await using library = asDisposable(
    await startLibrary([
      asset("IMG_1.jpg", t, "IMG_1.jpg", { isTrashed: true }),
      asset("IMG_1.dng", t),
    ]),
  );
  await withState(async (state) => {
    const cli = await spawnCli({
      env: {
        API_URL: library.server.url,
        API_KEY: library.key,
        LOG_FORMAT: "json",
        STATE_DIR: state,
        RUN_MODE: "cron",
        CRON_INTERVAL: "3600",
        FIX_TRASH_AFTER_STACKING: "true",
        FIX_TRASH_MAX_PERCENT: "100",
      },
    });
    try {
      for (;;) {
        const line = await cli.nextLine();
        assert.ok(line !== undefined, cli.lines.join("\n"));
        if (JSON.parse(line).msg.startsWith("Next pass in")) break;
      }
    } finally {
      cli.process.kill("SIGTERM");
      await cli.process.status;
      await cli.process.stderr.cancel();
      await Deno.remove(cli.cwd, { recursive: true });
    }
    const messages = cli.lines.map((line) => JSON.parse(line).msg as string);
    assert.ok(
      messages.indexOf("Run finished: 1 user processed, 0 users skipped, 0 actions failed") <
        messages.indexOf("Fix-trash finished: 1 user processed, 0 users skipped, 0 actions failed"),
    );
    assert.deepEqual(inTrash(library), new Set(["IMG_1.jpg", "IMG_1.dng"]));
  });
});

/** A library that closes its server at the end of the test. */
function asDisposable(library: Library): Library & AsyncDisposable {
  return { ...library, [Symbol.asyncDispose]: () => library.server.close() };
}

/** Time alone, as the README's recipe for bursts: every frame of a burst is one group. */
const BURSTS = JSON.stringify([{ key: "localDateTime", delta: { milliseconds: 1000 } }]);

/**
 * A burst of five frames (three with their RAW), a RAW+JPEG pair with a second camera's photo of
 * the same second, a JPEG with its RAW and three edits, and an edit with its original; the user
 * trashed one frame, the pair's JPEG, the edited shot's JPEG and the lone edit. A hundred
 * photos of other days keep the library's share low.
 */
function shotsCase(): TrashCase {
  const at = (base: string, ms: number) => new Date(Date.parse(base) + ms).toISOString();
  const burst = "2024-05-01T10:00:00.000Z";
  const assets: LibraryAsset[] = [];
  for (let frame = 1; frame <= 5; frame++) {
    const time = at(burst, (frame - 1) * 300);
    assets.push(
      asset(`F${frame}.jpg`, time, `F${frame}.jpg`, frame === 2 ? { isTrashed: true } : undefined),
    );
    if (frame <= 3) assets.push(asset(`F${frame}.nef`, time));
  }
  const pair = "2024-05-01T11:00:00.000Z";
  assets.push(
    asset("IMG_1.jpg", pair, "IMG_1.jpg", { isTrashed: true }),
    asset("IMG_1.dng", pair),
    asset("DSC_0001.jpg", at(pair, 400)),
  );
  const edited = "2024-05-01T12:00:00.000Z";
  assets.push(
    asset("IMG_2.jpg", edited, "IMG_2.jpg", { isTrashed: true }),
    asset("IMG_2.dng", edited),
    asset("IMG_2_edited.jpg", edited),
    asset("IMG_2-Edit-2.jpg", edited),
    asset("IMG_E2.jpg", edited),
  );
  const lone = "2024-05-01T13:00:00.000Z";
  assets.push(
    asset("IMG_3.jpg", lone),
    asset("IMG_3_edited.jpg", lone, "IMG_3_edited.jpg", {
      isTrashed: true,
    }),
  );
  for (let i = 0; i < 100; i++) {
    assets.push(asset(`P_${1000 + i}.jpg`, at("2024-06-01T00:00:00.000Z", i * 3_600_000)));
  }
  return {
    assets,
    trashedByUser: new Set(["F2.jpg", "IMG_1.jpg", "IMG_2.jpg", "IMG_3_edited.jpg"]),
    expected: new Set([
      "F2.nef",
      "IMG_1.dng",
      "IMG_2.dng",
      "IMG_2_edited.jpg",
      "IMG_2-Edit-2.jpg",
      "IMG_E2.jpg",
      "IMG_3.jpg",
    ]),
  };
}

Deno.test("main.ts fix-trash with burst CRITERIA follows the trash to the same shot alone, and undo brings every move back", async () => {
  const test = shotsCase();
  await using library = asDisposable(await startLibrary(test.assets));
  await withState(async (state) => {
    const env = envOf(library, state, { CRITERIA: BURSTS, FIX_TRASH_MAX_PERCENT: "100" });
    const moved = await cli(["fix-trash"], env);
    assert.equal(moved.code, 0, moved.stdout + moved.stderr);
    assert.deepEqual(inTrash(library), new Set([...test.trashedByUser, ...test.expected]));
    assert.ok(
      jsonLines(moved).some((line) =>
        line.msg === "Moved to the trash: F2.nef (it groups with F2.jpg, in the trash)"
      ),
      moved.stdout,
    );
    const undo = await cli(["undo"], env);
    assert.equal(undo.code, 0, undo.stdout + undo.stderr);
    assert.deepEqual(inTrash(library), test.trashedByUser);
  });
});

Deno.test("main.ts fix-trash with FIX_TRASH_WHOLE_GROUP stops at a group beyond the shot, and --force takes the whole burst as immich-stack does", async () => {
  const test = shotsCase();
  await using library = asDisposable(await startLibrary(test.assets));
  await withState(async (state) => {
    const env = envOf(library, state, { CRITERIA: BURSTS, FIX_TRASH_WHOLE_GROUP: "true" });
    const refused = await cli(["fix-trash"], { ...env, FIX_TRASH_MAX_PERCENT: "60" });
    assert.equal(refused.code, 1, refused.stdout + refused.stderr);
    assert.deepEqual(trashRequests(library.server.requests), []);
    const errors = jsonLines(refused).filter((line) => line.level === "error");
    assert.deepEqual(errors.map((line) => line.error), [
      "Cannot move 6 photos of the group of F2.jpg to the trash as they are 86 % of its 7 " +
      "photos outside the trash and not the same shot as a photo in the trash, more than " +
      "FIX_TRASH_MAX_PERCENT (60 %): check the list above, then run stacksync fix-trash " +
      "--force, or raise FIX_TRASH_MAX_PERCENT",
    ]);

    const forced = await cli(["fix-trash", "--force"], env);
    assert.equal(forced.code, 0, forced.stdout + forced.stderr);
    const burst = ["F1.jpg", "F1.nef", "F2.nef", "F3.jpg", "F3.nef", "F4.jpg", "F5.jpg"];
    assert.deepEqual(
      inTrash(library),
      new Set([...test.trashedByUser, ...test.expected, ...burst, "DSC_0001.jpg"]),
    );
    assert.equal((await cli(["undo"], env)).code, 0);
    assert.deepEqual(inTrash(library), test.trashedByUser);
  });
});
