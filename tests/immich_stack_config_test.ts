/**
 * Configurations written for immich-stack run as they are: each, through the real CLI, a dry run
 * that exits 0 with the groups immich-stack makes of the same library (worked out here from
 * immich-stack's own rules, in the comments; without CRITERIA, those of stacksync's default
 * rules), and one warning line per thing stacksync writes otherwise.
 */
import assert from "node:assert/strict";
import { mapLimited, runCli, spawnCli } from "./_cli.ts";
import { type ImmichServer, startImmichServer } from "./immich_server.ts";
import { propertyCases } from "./_property_cases.ts";

/** One configuration as an immich-stack user has it. */
interface ConfigCase {
  readonly name: string;
  /** The variables besides API_URL and API_KEY (the key may be given as `KEY`). */
  readonly env: Readonly<Record<string, string>>;
  readonly args?: readonly string[];
  /** The groups as `parent <- sorted members`, sorted; undefined when the log level hides them. */
  readonly groups?: readonly string[];
  /** The warning lines, in order. */
  readonly warnings: readonly (string | RegExp)[];
  /** Run against this Immich version. @default {"3.1.0"} */
  readonly version?: string;
}

const T1 = "2024-05-01T10:00:00.000Z";
const T2 = "2024-05-01T10:05:00.000Z";

/** RAW+JPEG pairs and an edit, a burst, a single; the second pair's RAW from another camera. */
function addLibrary(server: ImmichServer): { key: string } {
  const user = server.addUser({ name: "Ada" });
  const key = server.addKey(user.id, { secret: "sk-config-ada-5c1d" });
  const add = (name: string, time: string, deviceId = "pixel") =>
    server.addAsset(user.id, { originalFileName: name, localDateTime: time, deviceId });
  add("IMG_0001.jpg", T1);
  add("IMG_0001.dng", T1);
  add("IMG_0001_edited.jpg", T1);
  add("IMG_0002.jpg", T2);
  add("IMG_0002.dng", T2, "camera");
  add("BURST_0003_01.jpg", "2024-05-01T10:10:00.000Z");
  add("BURST_0003_02.jpg", "2024-05-01T10:10:00.300Z");
  add("DSC_0004.jpg", "2024-05-01T10:15:00.000Z");
  return { key };
}

/** immich-stack's default CRITERIA, as in its README. */
const DEFAULT_GROUPS = ["IMG_0001.jpg <- IMG_0001.dng", "IMG_0002.jpg <- IMG_0002.dng"];
/** The first shot with its edit, which PARENT_FILENAME_PROMOTE's "edit" makes the cover. */
const EDIT_COVER = "IMG_0001_edited.jpg <- IMG_0001.dng, IMG_0001.jpg";
/**
 * Without CRITERIA: stacksync's default rules, not immich-stack's (README, "Migrating from
 * immich-stack"), join the edit to its shot.
 */
const DEFAULT_RULES_GROUPS = [EDIT_COVER, ...DEFAULT_GROUPS.slice(1)];
/** With `_edited` split off too. */
const WITH_EDIT = JSON.stringify([
  { key: "originalFileName", split: { delimiters: ["~", ".", "_edited"], index: 0 } },
  { key: "localDateTime", delta: { milliseconds: 1000 } },
]);

const CASES: readonly ConfigCase[] = [
  {
    // immich-stack splits API_KEY at commas and drops empty entries.
    name: "API_KEY with a trailing comma",
    env: { API_KEY: "KEY," },
    groups: DEFAULT_RULES_GROUPS,
    warnings: [
      "Ignored an empty entry of API_KEY, as immich-stack does: separate the keys by single " +
      "commas, with none at the end",
    ],
  },
  {
    // logrus reads "warning" as warn: the dry run's lines are info, so only warnings show.
    name: "LOG_LEVEL=warning",
    env: { LOG_LEVEL: "warning" },
    warnings: ["Read LOG_LEVEL=warning as warn, as immich-stack does: write warn"],
  },
  { name: "LOG_LEVEL=fatal", env: { LOG_LEVEL: "fatal" }, warnings: [] },
  // Nothing is logged at panic, the warning included: immich-stack logs nothing either.
  { name: "LOG_LEVEL=panic", env: { LOG_LEVEL: "panic" }, warnings: [] },
  {
    // immich-stack's fix-trash example: `pattern` is no field, so the regex has no key and
    // applies nothing; the criterion is the file name without its extension, with no time.
    name: "CRITERIA with an unknown field (immich-stack's fix-trash example)",
    env: {
      CRITERIA: '[{"key":"originalFileName","regex":{"pattern":"BURST(\\\\d+)","index":1}}]',
    },
    groups: DEFAULT_GROUPS,
    warnings: [
      "Ignored CRITERIA [0].regex.pattern as immich-stack does: regex has no such field (it has " +
      "key, index, promote_index, promote_keys)",
      "Ignored CRITERIA [0].regex as immich-stack does: it has no key, the pattern it would match",
    ],
  },
  {
    // A typo: immich-stack ignores `spilt`, so `_edited` stays part of the name (the file name
    // without its extension is the value).
    name: "CRITERIA with a misspelt field",
    env: {
      CRITERIA: JSON.stringify([
        { key: "originalFileName", spilt: { delimiters: ["_edited"] } },
        { key: "localDateTime", delta: { milliseconds: 1000 } },
      ]),
    },
    groups: DEFAULT_GROUPS,
    warnings: [
      "Ignored CRITERIA [0].spilt as immich-stack does: a criterion has no such field (it has " +
      "key, split, regex, delta); did you mean split?",
    ],
  },
  {
    // Go reads `delta.seconds` as no field, so milliseconds is 0: equal times only.
    name: "CRITERIA with delta.seconds",
    env: { CRITERIA: '[{"key":"localDateTime","delta":{"seconds":1}}]' },
    groups: [EDIT_COVER, ...DEFAULT_GROUPS.slice(1)],
    warnings: [
      "Ignored CRITERIA [0].delta.seconds as immich-stack does: delta has no such field (it has " +
      "milliseconds)",
      "Read CRITERIA [0].delta without milliseconds as immich-stack does, as 0: only equal times " +
      'match; write "delta": {"milliseconds": 0}',
    ],
  },
  {
    // A misspelt `delimiters`: the split has none, so immich-stack never applied it.
    name: "CRITERIA with a misspelt field beside a missing one",
    env: { CRITERIA: '[{"key":"originalFileName","split":{"delimiter":["~"]}}]' },
    groups: DEFAULT_GROUPS,
    warnings: [
      "Ignored CRITERIA [0].split.delimiter as immich-stack does: split has no such field (it " +
      "has delimiters, index); did you mean delimiters?",
      "Ignored CRITERIA [0].split as immich-stack does: it has no delimiters",
    ],
  },
  {
    // immich-stack splits only file names and paths, and applies delta to times only.
    name: "split on a time key and delta on a file name",
    env: {
      CRITERIA: JSON.stringify([
        {
          key: "originalFileName",
          split: { delimiters: ["~", ".", "_edited"], index: 0 },
          delta: { milliseconds: 5 },
        },
        { key: "localDateTime", delta: { milliseconds: 1000 }, split: { delimiters: ["T"] } },
      ]),
    },
    groups: [EDIT_COVER, ...DEFAULT_GROUPS.slice(1)],
    warnings: [
      "Ignored CRITERIA [0].delta as immich-stack does: it applies delta to time keys only, not " +
      "originalFileName",
      "Ignored CRITERIA [1].split as immich-stack does: it splits text keys only, not " +
      "localDateTime",
    ],
  },
  {
    // Inside an expression immich-stack matches a time key's regex against the time it writes
    // (2024-05-01T10:00:00.000000000Z): only the first shot takes part.
    name: "regex on a time key in an expression, a boolean's regex ignored",
    env: {
      CRITERIA: JSON.stringify({
        mode: "advanced",
        expression: {
          operator: "AND",
          children: [
            { criteria: { key: "originalFileName", split: { delimiters: ["."], index: 0 } } },
            { criteria: { key: "localDateTime", regex: { key: "T10:00:" } } },
            {
              operator: "NOT",
              children: [{ criteria: { key: "isFavorite", regex: { key: "x" } } }],
            },
          ],
        },
      }),
    },
    groups: ["IMG_0001.jpg <- IMG_0001.dng"],
    warnings: [
      "Ignored CRITERIA expression.children[2].children[0].criteria.regex as immich-stack does: " +
      "it applies no regex to the boolean key isFavorite",
    ],
  },
  {
    // `delta` without milliseconds is 0 in immich-stack: equal times only (the burst splits).
    name: "delta without milliseconds",
    env: {
      CRITERIA: JSON.stringify([
        { key: "originalFileName", split: { delimiters: ["_0", "."], index: 0 } },
        { key: "localDateTime", delta: {} },
      ]),
    },
    groups: [EDIT_COVER, ...DEFAULT_GROUPS.slice(1)],
    warnings: [
      "Read CRITERIA [1].delta without milliseconds as immich-stack does, as 0: only equal times " +
      'match; write "delta": {"milliseconds": 0}',
    ],
  },
  {
    // Every id differs, so nothing groups (as in immich-stack).
    name: "CRITERIA key id",
    env: {
      CRITERIA: '[{"key":"originalFileName","split":{"delimiters":["."],"index":0}},{"key":"id"}]',
    },
    groups: [],
    warnings: [],
  },
  {
    // Immich 3 sends no deviceId: immich-stack reads it as empty and leaves it out of the key.
    name: "CRITERIA key deviceId against Immich 3",
    env: {
      CRITERIA: JSON.stringify([
        { key: "originalFileName", split: { delimiters: ["~", "."], index: 0 } },
        { key: "localDateTime", delta: { milliseconds: 1000 } },
        { key: "deviceId" },
      ]),
    },
    groups: DEFAULT_GROUPS,
    warnings: [],
  },
  {
    // Before v3 it does: the second pair's RAW came from another camera.
    name: "CRITERIA key deviceId against Immich 2",
    version: "2.4.1",
    env: {
      CRITERIA: JSON.stringify([
        { key: "originalFileName", split: { delimiters: ["~", "."], index: 0 } },
        { key: "deviceId" },
      ]),
    },
    groups: DEFAULT_GROUPS.slice(0, 1),
    warnings: [],
  },
  {
    // deviceAssetId is the file name and size: every photo has its own.
    name: "CRITERIA key deviceAssetId against Immich 2",
    version: "2.4.1",
    env: {
      CRITERIA:
        '[{"key":"originalFileName","split":{"delimiters":["."],"index":0}},{"key":"deviceAssetId"}]',
    },
    groups: [],
    warnings: [],
  },
  {
    // immich-stack reads an unmatched promote group as "": the unedited original is the cover.
    name: 'regex promote_keys ["", "edited", "edit"]',
    env: {
      CRITERIA: JSON.stringify([
        {
          key: "originalFileName",
          regex: {
            key: "^(IMG_\\d+)(?:_(edited|edit))?\\.",
            index: 1,
            promote_index: 2,
            promote_keys: ["", "edited", "edit"],
          },
        },
        { key: "localDateTime", delta: { milliseconds: 1000 } },
      ]),
    },
    groups: ["IMG_0001.jpg <- IMG_0001.dng, IMG_0001_edited.jpg", ...DEFAULT_GROUPS.slice(1)],
    warnings: [],
  },
  {
    // An empty flag clears immich-stack's list: no "edit" preference, .jpg then the name.
    name: '--parent-filename-promote=""',
    env: { CRITERIA: WITH_EDIT },
    args: ["--parent-filename-promote="],
    groups: ["IMG_0001.jpg <- IMG_0001.dng, IMG_0001_edited.jpg", ...DEFAULT_GROUPS.slice(1)],
    warnings: [],
  },
  {
    // The default list promotes the edit: what the empty flag above takes away.
    name: "the default PARENT_FILENAME_PROMOTE, for comparison",
    env: { CRITERIA: WITH_EDIT },
    groups: [EDIT_COVER, ...DEFAULT_GROUPS.slice(1)],
    warnings: [],
  },
  {
    // The address of Immich's web page: the API is one /api further.
    name: "API_URL without /api",
    env: { API_URL: "ORIGIN" },
    groups: DEFAULT_RULES_GROUPS,
    warnings: [
      /^API_URL http:\/\/127\.0\.0\.1:\d+ answers Immich's web page, not its API: using http:\/\/127\.0\.0\.1:\d+\/api; add \/api to API_URL$/,
    ],
  },
];

/** The groups of a dry run's JSON log: `parent <- sorted members`, sorted. */
function groupsOf(lines: readonly Record<string, unknown>[]): string[] {
  return lines.filter((line) => String(line.msg).startsWith("[DRY RUN] Would create stack"))
    .map((line) => {
      const [parent, ...members] = String(line.files).split(", ");
      return `${parent.replace(" (parent)", "")} <- ${members.sort().join(", ")}`;
    }).sort();
}

/** Every other configuration by default, every one in `deno task test:full`. */
const RUN = propertyCases(CASES.length, { sample: CASES.length / 2 }).seeds
  .map((seed) => CASES[seed - 1]);

Deno.test(`main.ts runs ${RUN.length} of ${CASES.length} immich-stack configurations as a dry run with immich-stack's groups and one warning per rewrite`, async () => {
  const servers = new Map<string, { server: ImmichServer; key: string }>();
  for (const version of new Set(RUN.map((c) => c.version ?? "3.1.0"))) {
    const server = await startImmichServer({ version });
    servers.set(version, { server, key: addLibrary(server).key });
  }
  try {
    await mapLimited(RUN, async (test) => {
      const { server, key } = servers.get(test.version ?? "3.1.0")!;
      const env: Record<string, string> = {
        API_URL: server.url,
        API_KEY: key,
        DRY_RUN: "true",
        LOG_FORMAT: "json",
      };
      for (const [name, value] of Object.entries(test.env)) {
        env[name] = value.replace("KEY", key).replace("ORIGIN", server.origin);
      }
      const result = await runCli({ env, args: test.args ?? [] });
      await Deno.remove(result.cwd, { recursive: true });
      assert.equal(result.code, 0, `${test.name}: ${result.stdout}${result.stderr}`);
      assert.equal(result.stderr, "", test.name);
      const lines = result.stdout.split("\n").filter((line) => line !== "").map((line) =>
        JSON.parse(line) as Record<string, unknown>
      );
      const warnings = lines.filter((line) => line.level === "warn").map((line) => line.msg);
      assert.equal(warnings.length, test.warnings.length, `${test.name}: ${warnings.join("\n")}`);
      test.warnings.forEach((expected, i) => {
        if (typeof expected === "string") assert.equal(warnings[i], expected, test.name);
        else assert.match(String(warnings[i]), expected, test.name);
      });
      if (test.groups !== undefined) {
        assert.deepEqual(groupsOf(lines), [...test.groups].sort(), test.name);
      }
      assert.ok(!result.stdout.includes(key), `${test.name}: the key was printed`);
    }, { limit: 2 });
  } finally {
    for (const { server } of servers.values()) await server.close();
  }
});

Deno.test("main.ts in cron mode reads CRON_INTERVAL=0 as a day between passes, as immich-stack does", async () => {
  await using server = await startImmichServer();
  const { key } = addLibrary(server);
  const cli = await spawnCli({
    env: {
      API_URL: server.url,
      API_KEY: key,
      DRY_RUN: "true",
      LOG_FORMAT: "json",
      RUN_MODE: "cron",
      CRON_INTERVAL: "0",
    },
  });
  const messages: string[] = [];
  try {
    for (;;) {
      const line = await cli.nextLine();
      assert.ok(line !== undefined, messages.join("\n"));
      messages.push(JSON.parse(line).msg);
      if (messages.at(-1)!.startsWith("Next pass in")) break;
    }
  } finally {
    cli.process.kill("SIGTERM");
  }
  const status = await cli.process.status;
  await cli.process.stderr.cancel();
  await Deno.remove(cli.cwd, { recursive: true });
  assert.equal(status.code, 0);
  assert.equal(messages.at(-1), "Next pass in 86400 s");
  assert.ok(messages.includes(
    "Read CRON_INTERVAL=0 as immich-stack does, a day between passes in cron mode: write 86400",
  ));
});
