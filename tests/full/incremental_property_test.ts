/**
 * Incremental passes against full passes, over real HTTP on the Immich test server: random
 * libraries and settings (half by the default rules, half by criteria), a first pass, then rounds
 * of random server-side changes (uploads, some joining hand-made stacks, deletions, trash and
 * restore, archive and unarchive, hiding, hand-made stacks created, grown, emptied and deleted,
 * renames, capture-time edits, covers chosen by hand, a partner's uploads) and stacksync's own
 * `undo`, `restore` and `apply`, after each of which an incremental pass and a full pass of the
 * same server state must send the same writes. Some full passes read the stacks through the
 * timeline, as when `GET /stacks` fails.
 *
 * What is compared is what each pass carried out: its plan with each action as sent after the
 * fresh-ground check (docs/safety.md), which plans again a grow or a new cover on the stack read
 * just before the write. One difference is allowed, and only for stacks whose cover the test
 * chose by hand since the last full pass (which moves no asset's `updatedAt`, so only a full
 * pass sees it, docs/incremental.md): the full pass sets the group's parent back as the cover
 * where the incremental pass, which never read the stack again, finds it in sync. After each
 * real pass no stack that none of its actions names has changed, each action names only stacks
 * its group touches (so no asset of a stack that no group touches ends in another stack or
 * unstacked), and the server received exactly the writes of its carried-out plan. Each kind of
 * change must have changed the server at least once.
 *
 * The passes run in process (`runPass()`), the commands through `main()`; the incremental pass
 * is real (it writes, journals and keeps the cache), the full one a dry run on the same state,
 * which plans exactly as a real one. Minutes of work, so only `deno task test:full` runs it, every
 * case (`STACKSYNC_PROPERTY_CASES=all`); run alone, a seeded sample of the cases runs.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type LogRecord, reset } from "@logtape/logtape";
import { loadSettings, type Settings } from "../../src/config.ts";
import type { Action, Outcome, Plan } from "../../src/model.ts";
import { type PassRecord, runPass } from "../../src/run.ts";
import { openStateFolder } from "../../src/state/folder.ts";
import { recordLogs } from "../_logs.ts";
import { CRITERIA } from "../_e2e.ts";
import { runMain } from "../_undo_library.ts";
import {
  type ImmichServer,
  startImmichServer,
  type TestAssetInput,
  type TestStack,
} from "../immich_server.ts";
import { type Random, seededRandom } from "../_random.ts";
import { propertyCases } from "../_property_cases.ts";

/**
 * Every case; by default a sample of them runs (tests/_property_cases.ts). A range of seeds
 * (`1-160`) replays a case only after the cases before it, as the servers are shared.
 */
const CASES = 300;
const { seeds: SEEDS, share } = propertyCases(CASES, { sample: 30 });
const ROUNDS = 3;
/**
 * The seed of the servers' ids. Ids decide orders (of stacks, of search results), so other
 * seeds meet other paths; the test passed with seeds 1 to 10 as well.
 */
const IDS = 15;
const VERSIONS = ["3.1.0", "3.1.0", "3.1.0", "2.4.1", "1.132.3"] as const;
const START = Date.parse("2024-05-01T10:00:00.000Z");
const VARIANTS = [".jpg", ".dng", "_edited.jpg", "~2.jpg", ".mp4"];

/** One case: a user, its partner, their settings and what the generator may touch. */
interface Case {
  readonly userId: string;
  readonly partnerId?: string;
  readonly env: Record<string, string>;
  readonly random: Random;
  readonly shots: number;
  /** The case's STATE_DIR: cache, journals, a backup and a plan file. */
  readonly stateDir: string;
  /** Stacks whose cover the test chose by hand since the last full pass. */
  readonly handCovers: Set<string>;
}

function int(random: Random, n: number): number {
  return Math.floor(random() * n);
}

function pick<T>(random: Random, items: readonly T[]): T {
  return items[int(random, items.length)];
}

function chance(random: Random, p: number): boolean {
  return random() < p;
}

function nameOf(server: ImmichServer, userId: string, assetId: string): string {
  return server.assets(userId).find((asset) => asset.id === assetId)?.originalFileName ?? "";
}

function shotTime(shot: number): string {
  return new Date(START + shot * 60_000).toISOString();
}

/** A random library with stacks, trashed, archived and hidden assets, and random settings. */
function randomCase(server: ImmichServer, seed: number, stateDir: string): Case {
  const random = seededRandom(seed);
  const chance = (p: number) => random() < p;
  const user = server.addUser({ name: `Inc ${seed}`, email: `inc${seed}@example.test` });
  const key = server.addKey(user.id);
  const shots = 3 + int(random, 6);
  const inputs: TestAssetInput[] = [];
  for (let shot = 0; shot < shots; shot++) {
    const variants = VARIANTS.filter(() => chance(0.5));
    for (const variant of variants.length > 0 ? variants : [".jpg", ".dng"]) {
      inputs.push({
        originalFileName: `IMG_${1000 + shot}${variant}`,
        localDateTime: shotTime(shot),
      });
    }
  }
  for (let i = 0; i < int(random, 4); i++) {
    inputs.push({ originalFileName: `DSC_${2000 + i}.jpg`, localDateTime: shotTime(100 + i) });
  }
  const ids = server.addAssets(user.id, inputs).map((asset) => asset.id);
  const album = server.addAlbum(user.id, `Picked ${seed}`, ids.filter(() => chance(0.6)));
  for (let i = int(random, 5); i > 0; i--) {
    const members = Array.from({ length: 2 + int(random, 3) }, () => pick(random, ids));
    if (new Set(members).size >= 2) server.addStack(user.id, members);
  }
  for (const id of ids) {
    const roll = random();
    if (roll < 0.08) server.updateAsset(id, { isTrashed: true });
    else if (roll < 0.16) server.updateAsset(id, { visibility: "archive" });
    else if (roll < 0.2) server.updateAsset(id, { visibility: "hidden" });
  }
  let partnerId: string | undefined;
  if (chance(0.2)) {
    const partner = server.addUser({
      name: `Partner ${seed}`,
      email: `partner${seed}@example.test`,
    });
    server.addAssets(partner.id, [
      { originalFileName: "PXL_1.jpg", localDateTime: shotTime(0) },
      { originalFileName: "PXL_2.jpg", localDateTime: shotTime(1) },
    ]);
    server.addPartner(partner.id, user.id);
    partnerId = partner.id;
  }
  const env: Record<string, string> = {
    API_URL: server.url,
    API_KEY: key,
    // Half the cases by the default rules (docs/default-rules.md), half by criteria.
    ...(chance(0.5) ? { CRITERIA } : {}),
    LOG_LEVEL: "info",
    STATE_DIR: stateDir,
    INCLUDE_VIDEOS: String(chance(0.3)),
    WITH_ARCHIVED: String(chance(0.3)),
    WITH_DELETED: String(chance(0.25)),
    REPLACE_STACKS: String(chance(0.4)),
    REMOVE_SINGLE_ASSET_STACKS: String(chance(0.3)),
    ...(chance(0.15) ? { FILTER_ALBUM_IDS: album.id } : {}),
    ...(chance(0.15) ? { FILTER_TAKEN_AFTER: shotTime(int(random, 3)) } : {}),
  };
  return {
    userId: user.id,
    ...(partnerId === undefined ? {} : { partnerId }),
    env,
    random,
    shots,
    stateDir,
    handCovers: new Set(),
  };
}

/** The kinds of change the generator makes; each is counted so none goes untested. */
const KINDS = [
  "upload",
  "delete",
  "trash",
  "restore",
  "archive",
  "unarchive",
  "hide",
  "stack created",
  "stack grown",
  "stack emptied",
  "stack deleted",
  "rename",
  "capture time",
  "cover",
  "partner upload",
  "upload into a stack",
  "stacksync undo",
  "stacksync restore",
  "stacksync apply",
] as const;
type Kind = typeof KINDS[number];

/** The user's own assets now, through the server's search (any visibility, trash included). */
async function assetsOf(server: ImmichServer, key: string, userId: string): Promise<string[]> {
  const ids: string[] = [];
  for (const visibility of ["timeline", "archive", "hidden"]) {
    for (let page = 1;; page++) {
      const response = await fetch(`${server.url}/search/metadata`, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: JSON.stringify({ visibility, withDeleted: true, page, size: 1000 }),
      });
      const body = await response.json();
      for (const item of body.assets.items) if (item.ownerId === userId) ids.push(item.id);
      if (body.assets.nextPage === null) break;
    }
  }
  return ids;
}

/**
 * Makes one random change and counts its kind in `seen` when it changed the server: a trash
 * picks an asset outside the trash, a restore one in it, an archive one outside the archive, an
 * unarchive one in it; a command counts when the user's stacks are not as they were.
 */
async function change(
  server: ImmichServer,
  test: Case,
  seen: Map<Kind, number>,
): Promise<void> {
  const { random, userId } = test;
  const ownIds = await assetsOf(server, test.env.API_KEY, userId);
  const stacks = server.stacks(userId);
  const kind = pick(random, KINDS);
  const any = () => pick(random, ownIds);
  const record = (): void => {
    seen.set(kind, (seen.get(kind) ?? 0) + 1);
  };
  /** Updates one asset `which` holds, at random, and counts it; with none, nothing changes. */
  const updateOne = (
    which: (state: ReturnType<ImmichServer["assetState"]>) => boolean,
    update: Parameters<ImmichServer["updateAsset"]>[1],
  ): void => {
    const candidates = ownIds.filter((id) => which(server.assetState(id)));
    if (candidates.length === 0) return;
    server.updateAsset(pick(random, candidates), update);
    record();
  };
  switch (kind) {
    case "upload": {
      const shot = int(random, test.shots + 1);
      server.addAsset(userId, {
        originalFileName: `IMG_${1000 + shot}${pick(random, VARIANTS)}`,
        localDateTime: shotTime(shot),
      });
      return record();
    }
    case "delete":
      if (ownIds.length === 0) return;
      server.deleteAsset(any());
      return record();
    case "trash":
      return updateOne((state) => !state.isTrashed, { isTrashed: true });
    case "restore":
      return updateOne((state) => state.isTrashed, { isTrashed: false });
    case "archive":
      return updateOne((state) => state.visibility !== "archive", { visibility: "archive" });
    case "unarchive":
      return updateOne((state) => state.visibility === "archive", { visibility: "timeline" });
    case "hide":
      return updateOne((state) => state.visibility !== "hidden", { visibility: "hidden" });
    case "stack created": {
      const members = [any(), any(), any()].slice(0, 2 + int(random, 2));
      if (ownIds.length < 2 || new Set(members).size < 2) return;
      server.addStack(userId, members);
      return record();
    }
    case "stack grown": {
      if (stacks.length === 0 || ownIds.length === 0) return;
      const stack = pick(random, stacks);
      const extra = any();
      if (stack.assetIds.includes(extra)) return;
      server.addStack(userId, [stack.primaryAssetId, extra]);
      return record();
    }
    case "stack emptied": {
      if (stacks.length === 0) return;
      const stack = pick(random, stacks);
      for (const id of stack.assetIds.slice(1)) server.removeFromStack(userId, stack.id, id);
      return record();
    }
    case "stack deleted":
      if (stacks.length === 0) return;
      server.deleteStack(userId, pick(random, stacks).id);
      return record();
    case "rename": {
      if (ownIds.length === 0) return;
      const shot = int(random, test.shots + 1);
      server.updateAsset(any(), {
        originalFileName: `IMG_${1000 + shot}${pick(random, VARIANTS)}`,
      });
      return record();
    }
    case "capture time": {
      if (ownIds.length === 0) return;
      const shot = int(random, test.shots + 1);
      server.updateAsset(any(), {
        dateTimeOriginal: new Date(Date.parse(shotTime(shot)) + int(random, 3) * 400)
          .toISOString(),
      });
      return record();
    }
    case "cover": {
      const candidates = stacks.filter((stack) => stack.assetIds.length > 1);
      if (candidates.length === 0) return;
      const stack = pick(random, candidates);
      const next = pick(random, stack.assetIds.slice(1));
      try {
        server.setStackPrimary(userId, stack.id, next);
        test.handCovers.add(stack.id);
      } catch {
        // A member Immich does not list (trashed, hidden) cannot become the cover.
        return;
      }
      record();
      // Half the time a new file of the old cover's shot follows, so that the next incremental
      // pass plans the stack from the cover it knows, which is not the cover.
      const shot = /^IMG_1(\d{3})/.exec(nameOf(server, userId, stack.primaryAssetId))?.[1];
      if (shot !== undefined && chance(random, 0.5)) {
        server.addAsset(userId, {
          originalFileName: `IMG_1${shot}${pick(random, VARIANTS)}`,
          localDateTime: shotTime(Number(shot)),
        });
      }
      return;
    }
    case "upload into a stack": {
      // A new file of a shot, put in a stack by hand through its cover (the merge rule).
      if (stacks.length === 0) return;
      const stack = pick(random, stacks);
      const shot = int(random, test.shots + 1);
      const added = server.addAsset(userId, {
        originalFileName: `IMG_${1000 + shot}${pick(random, VARIANTS)}`,
        localDateTime: shotTime(shot),
      });
      server.addStack(userId, [stack.primaryAssetId, added.id]);
      return record();
    }
    case "stacksync undo":
    case "stacksync restore":
    case "stacksync apply": {
      await command(kind, test);
      if (JSON.stringify(server.stacks(userId)) !== JSON.stringify(stacks)) record();
      return;
    }
    case "partner upload":
      if (test.partnerId === undefined) return;
      server.addAsset(test.partnerId, {
        originalFileName: `PXL_${100 + int(random, 100)}.jpg`,
        localDateTime: shotTime(int(random, 3)),
      });
      return record();
  }
}

/**
 * Runs one of stacksync's own commands through `main()`: `undo` of the latest run, `restore` of
 * the backup taken when the case began, or `plan` and then `apply` of its file. Each writes as
 * the CLI does, journal and cache included.
 */
async function command(
  kind: "stacksync undo" | "stacksync restore" | "stacksync apply",
  test: Case,
): Promise<void> {
  const file = (name: string) => join(test.stateDir, name);
  const steps = kind === "stacksync undo"
    ? [["undo"]]
    : kind === "stacksync restore"
    ? [["restore", file("backup.json")]]
    : [["plan", "--out", file("plan.json")], ["apply", file("plan.json")]];
  for (const args of steps) {
    const result = await runMain(args, test.env, test.stateDir);
    // Status 1 when a command leaves work undone, as it says: an undo a stack that changed since
    // the run, a restore or an apply a photo deleted for good since the backup or the plan.
    // Never a user skipped.
    assert.ok(result.code === 0 || result.code === 1, result.stdout);
    assert.ok(!result.lines.some((line) => /^Skipping /.test(String(line.msg))), result.stdout);
  }
}

/**
 * Stacks that kept their id and changed their cover: Immich hands the cover over when the cover
 * is deleted for good, which moves no asset's `updatedAt` either (docs/incremental.md).
 */
function coversHandedOver(before: readonly TestStack[], after: readonly TestStack[]): string[] {
  const old = new Map(before.map((stack) => [stack.id, stack.primaryAssetId]));
  return after.filter((stack) => old.has(stack.id) && old.get(stack.id) !== stack.primaryAssetId)
    .map((stack) => stack.id);
}

/**
 * What a pass carried out: its plan with each action as sent after the fresh-ground check, and
 * the stacks that check found in sync. No stack may have changed in another way between the
 * pass's read and its writes here: nothing else writes meanwhile.
 */
function carriedOut(record: PassRecord, context: string): Plan {
  const actions: Action[] = [];
  const inSync = [...record.plan.inSync];
  for (const outcome of record.outcomes) {
    if (outcome.status === "skipped" && outcome.because === "in-sync") {
      const { action } = outcome;
      assert.ok(action.kind === "grow" || action.kind === "update-primary");
      inSync.push({ stackId: action.stackId, groupKey: action.context.groupKey ?? "" });
      continue;
    }
    assert.ok(
      outcome.status !== "failed" &&
        !(outcome.status === "skipped" && ["needs-replace", "changed"].includes(outcome.because)),
      `${context}: ${JSON.stringify(outcome)}`,
    );
    actions.push(outcome.action);
  }
  return { actions, inSync, needsReplace: record.plan.needsReplace };
}

/** The stack writes an action sends, as the test server records their routes. */
function writesOf(action: Action): string[] {
  switch (action.kind) {
    case "create":
    case "grow":
      return ["POST /stacks"];
    case "update-primary":
      return ["PUT /stacks/{id}"];
    case "delete":
      return ["DELETE /stacks/{id}"];
    case "replace":
      return [...action.deleteStackIds.map(() => "DELETE /stacks/{id}"), "POST /stacks"];
  }
}

/** The stacks an action names: those it changes or deletes. */
function namedStacks(action: Action): string[] {
  switch (action.kind) {
    case "create":
      return [...action.stackIds ?? []];
    case "replace":
      return [...action.stackIds];
    default:
      return [action.stackId];
  }
}

/**
 * Asserts that each action names only stacks its group touches (a member among its assets), or
 * is a deletion of a stack of one listed asset that REMOVE_SINGLE_ASSET_STACKS asks for.
 */
function touchedOnly(
  actions: readonly Action[],
  before: readonly TestStack[],
  env: Readonly<Record<string, string>>,
  context: string,
): void {
  const stacks = new Map(before.map((stack) => [stack.id, stack]));
  for (const action of actions) {
    if (action.kind === "delete") {
      // Its assets are the stack's own: the reason says whether a group asked for it.
      assert.equal(action.reason, "single-asset-stack", context);
      assert.equal(env.REMOVE_SINGLE_ASSET_STACKS, "true", context);
      continue;
    }
    const assets = new Set(action.assetIds);
    for (const id of namedStacks(action)) {
      const members = stacks.get(id)?.assetIds ?? [];
      assert.ok(
        members.some((member) => assets.has(member)),
        `${context}: ${action.kind} names stack ${id}, which its group does not touch`,
      );
    }
  }
}

/**
 * The full pass's plan as the incremental pass may see it: a new cover the full pass sets on a
 * stack whose cover was chosen by hand since the last full pass is, to an incremental pass that
 * did not read that stack again, a stack in sync.
 */
function unseenCovers(full: Plan, incremental: Plan, handCovers: ReadonlySet<string>): Plan {
  const inSync = new Set(incremental.inSync.map((entry) => entry.stackId));
  const unseen = (action: Action) =>
    action.kind === "update-primary" && handCovers.has(action.stackId) &&
    inSync.has(action.stackId);
  return {
    actions: full.actions.filter((action) => !unseen(action)),
    inSync: [
      ...full.inSync,
      ...full.actions.filter(unseen).map((action) => ({
        stackId: (action as { stackId: string }).stackId,
        groupKey: action.context.groupKey ?? "",
      })),
    ],
    needsReplace: full.needsReplace,
  };
}

/**
 * A plan as data to compare: what it does to which stacks and assets, and what it leaves. The
 * stacks in sync are compared as a set: the fresh-ground check finds some in sync after the
 * plan's order was made.
 */
function shape(plan: Plan) {
  return {
    actions: plan.actions.map((action) => ({
      kind: action.kind,
      reason: action.reason,
      assetIds: action.assetIds,
      ...("stackId" in action ? { stackId: action.stackId } : {}),
      ...("stackIds" in action ? { stackIds: action.stackIds } : {}),
      ...(action.kind === "replace" ? { deleteStackIds: action.deleteStackIds } : {}),
      ...(action.kind === "delete" ? { trashed: action.trashedAssetIds } : {}),
      removed: action.context.removed?.map(({ id, reason }) => ({ id, reason })),
      unseen: action.context.unseenStackIds,
    })),
    inSync: plan.inSync.map((entry) => `${entry.stackId} ${entry.groupKey}`).sort(),
    needsReplace: plan.needsReplace.map(({ stackIds, assetIds, reason }) => ({
      stackIds,
      assetIds,
      reason,
    })),
  };
}

function settingsOf(env: Record<string, string>, args: string[] = []): Settings {
  const command = loadSettings({ args, env, version: "0.0.0-test" });
  assert.equal(command.kind, "run");
  return (command as Extract<typeof command, { kind: "run" }>).settings;
}

/** What one pass in process planned and carried out, and its "… pass" line. */
interface Pass {
  readonly record: PassRecord;
  readonly kind: string;
  /** For an incremental pass: the groups it planned again, and the library's. */
  readonly region?: number;
  readonly groups?: number;
}

/** Runs one pass in process. */
async function pass(
  settings: Settings,
  options: { readonly full: boolean; readonly stateDir?: string },
): Promise<Pass> {
  // main() of the commands configures logging its own way: record this pass's anew.
  const records: LogRecord[] = await recordLogs("debug");
  let seen: PassRecord | undefined;
  const folder = options.stateDir === undefined || settings.dryRun
    ? undefined
    : await openStateFolder(options.stateDir, { write: true });
  await runPass(settings, {
    sleep: () => Promise.resolve(),
    observe: (record) => seen = record,
    ...(folder === undefined ? {} : {
      journal: {
        start: () =>
          folder.startRun({
            command: "run",
            server: settings.apiUrl,
            stacksync: "0.0.0-test",
            now: () => new Date(),
          }),
        finish: () => Promise.resolve(),
      },
    }),
    reading: {
      ...(options.stateDir === undefined ? {} : { stateDir: options.stateDir }),
      record: !settings.dryRun,
      ...(options.full ? { full: "--full" } : {}),
      now: () => Date.now(),
      version: "0.0.0-test",
    },
  });
  const line = records.find((record) => record.properties.pass !== undefined);
  assert.ok(seen !== undefined, "the pass planned nothing");
  const region = records.find((record) => record.message[0] === "Planning ");
  const groups = records.find((record) => record.message[0] === "Computed ");
  return {
    record: seen,
    kind: `${line?.properties.pass}: ${line?.properties.why ?? ""}`,
    ...(region === undefined ? {} : {
      region: region.properties.groups as number,
      groups: groups?.properties.groups as number,
    }),
  };
}

/**
 * The user's stack writes the server carried out, as `METHOD /stacks` or `METHOD /stacks/{id}`
 * (the permission probes before v1.139 are answered 400 and change nothing).
 */
function stackWrites(server: ImmichServer, userId: string): string[] {
  return server.requests
    .filter((r) =>
      r.userId === userId && r.method !== "GET" && r.path.startsWith("/stacks") &&
      r.status >= 200 && r.status < 300
    )
    .map((r) => `${r.method} ${r.path === "/stacks" ? "/stacks" : "/stacks/{id}"}`);
}

/** Whether the fresh-ground check sent an action other than the one planned. */
function replanned(record: PassRecord): number {
  return record.outcomes.filter((outcome: Outcome, i) => outcome.action !== record.plan.actions[i])
    .length;
}

Deno.test(`an incremental pass sends the writes of a full pass after random changes and commands, ${SEEDS.length} of ${CASES} seeded cases`, async () => {
  const servers = new Map<string, ImmichServer>();
  for (const version of new Set(VERSIONS)) {
    servers.set(version, await startImmichServer({ version, seed: IDS }));
  }
  const seen = new Map<Kind, number>();
  const kinds = new Map<string, number>();
  let compared = 0;
  let unseen = 0;
  let sentOtherwise = 0;
  let throughTimeline = 0;
  let partial = 0;
  try {
    for (const seed of SEEDS) {
      const server = servers.get(VERSIONS[seed % VERSIONS.length])!;
      const stateDir = await Deno.makeTempDir({ prefix: "stacksync_incremental_" });
      try {
        const test = randomCase(server, seed, stateDir);
        const real = settingsOf(test.env);
        const dry = settingsOf({ ...test.env, DRY_RUN: "true" });
        await pass(real, { full: false, stateDir });
        const backup = await runMain(
          ["backup", "--out", join(stateDir, "backup.json")],
          test.env,
          stateDir,
        );
        assert.equal(backup.code, 0, backup.stdout);
        for (let round = 1; round <= ROUNDS; round++) {
          server.advanceClock(pick(test.random, [0, 1000, 3_600_000]));
          const before = server.stacks(test.userId);
          for (let n = 1 + int(test.random, 5); n > 0; n--) await change(server, test, seen);
          for (const id of coversHandedOver(before, server.stacks(test.userId))) {
            test.handCovers.add(id);
          }
          // A full pass of the same state, some reading the stacks through the timeline.
          const timeline = server.version !== "1.132.3" && test.random() < 0.2;
          if (timeline) server.setFaults({ maxListedStacks: 0 });
          const full = await pass(dry, { full: true });
          server.setFaults({});
          const stacks = server.stacks(test.userId);
          server.clearRequests();
          const incremental = await pass(real, { full: false, stateDir });
          const context = `seed ${seed} round ${round} (${server.version}, ` +
            `${JSON.stringify(test.env)}${timeline ? ", the full pass through the timeline" : ""}` +
            `): ${incremental.kind}`;
          const kind = incremental.kind.split(":")[0];
          kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
          if (incremental.region !== undefined && incremental.region < incremental.groups!) {
            partial++;
          }
          const done = carriedOut(incremental.record, context);
          assert.deepEqual(
            stackWrites(server, test.userId).sort(),
            done.actions.flatMap(writesOf).sort(),
            context,
          );
          // A stack no action names is as it was, every member and the cover; and an action
          // names only stacks its group touches, or deletes one at REMOVE_SINGLE_ASSET_STACKS:
          // no asset of a stack that no group touches ends in another stack or unstacked.
          touchedOnly(done.actions, stacks, test.env, context);
          const named = new Set(done.actions.flatMap(namedStacks));
          const after = new Map(server.stacks(test.userId).map((stack) => [stack.id, stack]));
          for (const stack of stacks) {
            if (!named.has(stack.id)) assert.deepEqual(after.get(stack.id), stack, context);
          }
          const expected = unseenCovers(carriedOut(full.record, context), done, test.handCovers);
          if (expected.actions.length < full.record.plan.actions.length) unseen++;
          sentOtherwise += replanned(incremental.record);
          assert.deepEqual(shape(done), shape(expected), context);
          compared++;
          if (timeline) throughTimeline++;
          if (kind === "full") test.handCovers.clear();
        }
      } finally {
        await Deno.remove(stateDir, { recursive: true });
      }
    }
  } finally {
    reset();
    for (const server of servers.values()) await server.close();
  }
  for (const kind of KINDS) {
    assert.ok(
      (seen.get(kind) ?? 0) > 0,
      `no ${kind} changed the server: ${JSON.stringify([...seen])}`,
    );
  }
  assert.ok(compared >= SEEDS.length * ROUNDS, `only ${compared} rounds compared`);
  assert.ok(unseen > 0, "no round with a cover only a full pass sees");
  assert.ok(sentOtherwise > 0, "no action planned again on fresh ground");
  assert.ok(
    partial > 100 * share,
    `only ${partial} incremental passes planned part of the library`,
  );
  assert.ok(
    throughTimeline > 40 * share,
    `only ${throughTimeline} full passes through the timeline`,
  );
  assert.ok((kinds.get("incremental") ?? 0) > compared / 3, JSON.stringify([...kinds]));
});
