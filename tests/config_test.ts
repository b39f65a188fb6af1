import assert from "node:assert/strict";
import {
  type CommandName,
  COMMANDS,
  ConfigError,
  DEFAULT_CRITERIA,
  describeSettings,
  helpText,
  loadSettings,
  OPTIONS,
  RESET_CONFIRMATION,
  SETTINGS,
  type Settings,
} from "../src/config.ts";
import { caseEnv, INVALID_CASES, VALID_ENV } from "./_config_cases.ts";

interface LoadInput {
  readonly env?: Readonly<Record<string, string>>;
  readonly args?: readonly string[];
  readonly files?: Readonly<Record<string, string>>;
}

function load(input: LoadInput): Settings {
  const command = loadSettings({
    args: input.args ?? [],
    env: input.env ?? VALID_ENV,
    version: "1.2.3",
    readTextFile: (path) => input.files?.[path],
  });
  assert.equal(command.kind, "run");
  return command.settings;
}

function without(env: Readonly<Record<string, string>>, name: string): Record<string, string> {
  const { [name]: _dropped, ...rest } = env;
  return rest;
}

type SettingKey = keyof typeof SETTINGS;

/** Settings that do not reach `Settings` as they are; they have tests of their own below. */
const INPUT_ONLY: readonly SettingKey[] = ["apiKey", "apiKeyFile", "envFile", "confirmResetStack"];

const DEFAULTS: Partial<Record<SettingKey, unknown>> = {
  runMode: "once",
  cronInterval: 86400,
  fullPassInterval: 86400,
  incrementalMaxChanges: 5000,
  requestTimeout: 120,
  dryRun: false,
  criteria: JSON.parse(DEFAULT_CRITERIA),
  withArchived: false,
  withDeleted: false,
  includeVideos: false,
  filterAlbumIds: undefined,
  filterTakenAfter: undefined,
  filterTakenBefore: undefined,
  parentFilenamePromote: ["cover", "edit", "crop", "hdr", "biggestNumber"],
  parentExtPromote: [".jpg", ".png", ".jpeg", ".heic", ".dng"],
  replaceStacks: false,
  removeSingleAssetStacks: false,
  resetStacks: false,
  maxStackDeletions: { percent: 10 },
  logLevel: "info",
  logFormat: "text",
  logFile: undefined,
  stateDir: undefined,
  journal: true,
  journalKeep: 30,
  journalKeepDays: 30,
  stackConcurrency: 4,
  preventSelfRekt: false,
  fixTrashAfterStacking: false,
  trashOrphanedRaws: false,
  rawOrphanExtensions: undefined,
  fixTrashMaxPercent: 10,
  fixTrashWholeGroup: false,
  planThumbnails: 5000,
};

interface ValueCase {
  readonly key: SettingKey;
  readonly raw: string;
  readonly expected: unknown;
  /** Other variables the value needs to be valid. */
  readonly needs?: Readonly<Record<string, string>>;
  /** The command that reads it, when `run` does not. */
  readonly command?: CommandName;
}

/** One non-default value per setting; each is given through a flag, the env and an env file. */
const VALUES: readonly ValueCase[] = [
  {
    key: "apiUrl",
    raw: "https://photos.example.com/immich/api/",
    expected: "https://photos.example.com/immich/api",
  },
  { key: "runMode", raw: "CRON", expected: "cron" },
  { key: "cronInterval", raw: "3600", expected: 3600 },
  { key: "fullPassInterval", raw: "3600", expected: 3600 },
  { key: "incrementalMaxChanges", raw: "100", expected: 100 },
  { key: "requestTimeout", raw: "30", expected: 30 },
  { key: "dryRun", raw: "yes", expected: true },
  {
    key: "criteria",
    raw: '[{"key":"originalFileName"}]',
    expected: [{ key: "originalFileName" }],
  },
  { key: "withArchived", raw: "TRUE", expected: true },
  { key: "withDeleted", raw: "1", expected: true },
  { key: "includeVideos", raw: "Yes", expected: true },
  { key: "filterAlbumIds", raw: "album-1, Holidays 2024", expected: ["album-1", "Holidays 2024"] },
  { key: "filterTakenAfter", raw: "2024-01-31", expected: "2024-01-31T00:00:00.000Z" },
  {
    key: "filterTakenBefore",
    raw: "2024-02-01T12:00:00+01:00",
    expected: "2024-02-01T11:00:00.000Z",
  },
  { key: "parentFilenamePromote", raw: "edit,sequence:4", expected: ["edit", "sequence:4"] },
  { key: "parentExtPromote", raw: ".dng,.jpg", expected: [".dng", ".jpg"] },
  { key: "replaceStacks", raw: "true", expected: true },
  { key: "removeSingleAssetStacks", raw: "true", expected: true },
  {
    key: "resetStacks",
    raw: "true",
    expected: true,
    needs: { CONFIRM_RESET_STACK: RESET_CONFIRMATION },
  },
  { key: "logLevel", raw: "DEBUG", expected: "debug" },
  { key: "logFormat", raw: "json", expected: "json" },
  { key: "logFile", raw: "/var/log/stacksync/run.log", expected: "/var/log/stacksync/run.log" },
  { key: "stateDir", raw: "/volume1/stacksync/state", expected: "/volume1/stacksync/state" },
  { key: "journal", raw: "no", expected: false },
  { key: "maxStackDeletions", raw: "50", expected: { count: 50 } },
  { key: "journalKeep", raw: "5", expected: 5 },
  { key: "journalKeepDays", raw: "0", expected: 0 },
  { key: "stackConcurrency", raw: "8", expected: 8 },
  { key: "preventSelfRekt", raw: "true", expected: true },
  { key: "fixTrashAfterStacking", raw: "true", expected: true },
  { key: "trashOrphanedRaws", raw: "true", expected: true },
  { key: "rawOrphanExtensions", raw: "dng, .NEF", expected: ["dng", ".NEF"] },
  { key: "fixTrashMaxPercent", raw: "2.5", expected: 2.5 },
  { key: "fixTrashWholeGroup", raw: "true", expected: true },
  { key: "planThumbnails", raw: "0", expected: 0, command: "plan" },
];

Deno.test("loadSettings() tables cover every declared setting", () => {
  const covered = [...INPUT_ONLY, ...VALUES.map((value) => value.key)].sort();
  assert.deepEqual(covered, Object.keys(SETTINGS).sort());
  assert.deepEqual(
    Object.keys(DEFAULTS).sort(),
    VALUES.map((value) => value.key).filter((key) => key !== "apiUrl").sort(),
  );
});

Deno.test("loadSettings() applies each setting's default", () => {
  const settings: Record<string, unknown> = load({});
  for (const [key, expected] of Object.entries(DEFAULTS)) {
    assert.deepEqual(settings[key], expected, key);
  }
  assert.deepEqual(settings.apiKeys, ["key-a"]);
});

Deno.test("loadSettings() reads each setting from a flag, the environment and an env file", async (t) => {
  for (const { key, raw, expected, needs, command } of VALUES) {
    const { env: name, flag } = SETTINGS[key];
    const base = { ...without(VALID_ENV, name), ...needs };
    const isSwitch = "switch" in SETTINGS[key];
    const args = command === undefined ? [] : [command];
    await t.step(`${name} from --${flag}`, () => {
      const given = isSwitch ? [expected ? `--${flag}` : `--no-${flag}`] : [`--${flag}`, raw];
      const settings = load({ env: base, args: [...args, ...given] });
      assert.deepEqual((settings as Record<string, unknown>)[key], expected);
    });
    await t.step(`${name} from the environment`, () => {
      const env = { ...base, [name]: raw };
      assert.deepEqual((load({ env, args }) as Record<string, unknown>)[key], expected);
    });
    await t.step(`${name} from an env file`, () => {
      const env = { ...base, ENV_FILE: "settings.env" };
      const files = { "settings.env": `# comment\n${name}='${raw}'\n` };
      assert.deepEqual((load({ env, files, args }) as Record<string, unknown>)[key], expected);
    });
  }
});

Deno.test("loadSettings() prefers flag over environment over env file over default", async (t) => {
  const cases = [
    { flag: "error", env: "warn", file: "debug", expected: "error" },
    { env: "warn", file: "debug", expected: "warn" },
    { file: "debug", expected: "debug" },
    { env: "", file: "debug", expected: "debug" },
    { expected: "info" },
  ];
  for (const { flag, env, file, expected } of cases) {
    await t.step(`flag ${flag} env ${env} file ${file} gives ${expected}`, () => {
      const settings = load({
        args: flag === undefined ? [] : [`--log-level=${flag}`],
        env: { ...VALID_ENV, ENV_FILE: "a.env", ...(env === undefined ? {} : { LOG_LEVEL: env }) },
        files: { "a.env": file === undefined ? "" : `LOG_LEVEL=${file}` },
      });
      assert.equal(settings.logLevel, expected);
    });
  }
  await t.step("--no-dry-run beats DRY_RUN=true", () => {
    assert.equal(
      load({ args: ["--no-dry-run"], env: { ...VALID_ENV, DRY_RUN: "true" } }).dryRun,
      false,
    );
  });
  await t.step("DRY_RUN=false beats the env file's true", () => {
    const env = { ...VALID_ENV, DRY_RUN: "false", ENV_FILE: "a.env" };
    assert.equal(load({ env, files: { "a.env": "DRY_RUN=true" } }).dryRun, false);
  });
});

Deno.test("loadSettings() finds the env file through --env-file, ENV_FILE or ./.env", async (t) => {
  const files = {
    ".env": "LOG_LEVEL=debug",
    "flag.env": "LOG_LEVEL=error",
    "named.env": "LOG_LEVEL=warn",
  };
  await t.step("./.env when present", () => {
    assert.equal(load({ files }).logLevel, "debug");
  });
  await t.step("nothing when ./.env is absent", () => {
    assert.equal(load({ files: {} }).logLevel, "info");
  });
  await t.step("ENV_FILE instead of ./.env", () => {
    assert.equal(load({ env: { ...VALID_ENV, ENV_FILE: "named.env" }, files }).logLevel, "warn");
  });
  await t.step("--env-file over ENV_FILE", () => {
    const env = { ...VALID_ENV, ENV_FILE: "named.env" };
    assert.equal(load({ env, args: ["--env-file", "flag.env"], files }).logLevel, "error");
  });
  await t.step("API_URL and API_KEY from the env file alone", () => {
    const settings = load({
      env: {},
      files: { ".env": "API_URL=http://immich:2283/api\nAPI_KEY=key-z\n" },
    });
    assert.deepEqual([settings.apiUrl, settings.apiKeys], ["http://immich:2283/api", ["key-z"]]);
  });
});

Deno.test("loadSettings() reads API keys from API_KEY, --api-key or API_KEY_FILE", async (t) => {
  const url = { API_URL: "http://immich:2283/api" };
  const cases = [
    { name: "API_KEY list", env: { ...url, API_KEY: "key-a, key-b" }, keys: ["key-a", "key-b"] },
    { name: "--api-key", env: url, args: ["--api-key", "key-c"], keys: ["key-c"] },
    { name: "--api-key over API_KEY", env: VALID_ENV, args: ["--api-key=key-c"], keys: ["key-c"] },
    { name: "key file, one per line", file: "key-a\nkey-b\n", keys: ["key-a", "key-b"] },
    { name: "key file, CRLF", file: "key-a\r\nkey-b\r\n", keys: ["key-a", "key-b"] },
    { name: "key file, commas", file: "key-a,key-b\nkey-c", keys: ["key-a", "key-b", "key-c"] },
    { name: "key file, no newline", file: "key-a", keys: ["key-a"] },
  ];
  for (const { name, env, args, file, keys } of cases) {
    await t.step(name, () => {
      const settings = file === undefined ? load({ env, args }) : load({
        env: { ...url, API_KEY_FILE: "/run/secrets/keys" },
        files: { "/run/secrets/keys": file },
      });
      assert.deepEqual(settings.apiKeys, keys);
    });
  }
  await t.step("--api-key-file", () => {
    const settings = load({ env: url, args: ["--api-key-file=k"], files: { k: "key-f\n" } });
    assert.deepEqual(settings.apiKeys, ["key-f"]);
  });
});

Deno.test("loadSettings() rejects each invalid configuration with its exact message", async (t) => {
  for (const invalid of INVALID_CASES) {
    await t.step(invalid.name, () => {
      assert.throws(
        () => load({ env: caseEnv(invalid), args: invalid.args, files: invalid.files }),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          assert.equal(error.message, invalid.message);
          return true;
        },
      );
    });
  }
});

Deno.test("loadSettings() never puts an API key in an error message", () => {
  const secret = "sEcReT-kEy-42";
  for (
    const input of <LoadInput[]> [
      { env: { ...VALID_ENV, API_KEY: `${secret},,x`, RUN_MODE: "bad" } },
      { env: { ...VALID_ENV, API_KEY: secret, RUN_MODE: "bad" } },
      { env: VALID_ENV, args: ["--api-key", secret, secret] },
      { env: { API_URL: "x", API_KEY: secret } },
    ]
  ) {
    assert.throws(() => load(input), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.ok(!error.message.includes(secret), error.message);
      return true;
    });
  }
});

Deno.test("loadSettings() answers --help and --version before reading any setting", () => {
  const read = (path: string) => {
    throw new Error(`read ${path}`);
  };
  const help = loadSettings({
    args: ["--help"],
    env: { RUN_MODE: "bad" },
    version: "1.2.3",
    readTextFile: read,
  });
  assert.deepEqual(help, { kind: "help", text: helpText() });
  const forms: [string[], string][] = [
    [["-h"], helpText()],
    [["help"], helpText()],
    [["--dry-run", "-h"], helpText()],
    [["help", "undo"], helpText("undo")],
    [["undo", "-h"], helpText("undo")],
    // Options may come before the command.
    [["--env-file", "prod.env", "undo", "--help"], helpText("undo")],
  ];
  for (const [args, text] of forms) {
    const answer = loadSettings({
      args,
      env: { RUN_MODE: "bad" },
      version: "1.2.3",
      readTextFile: read,
    });
    assert.deepEqual(answer, { kind: "help", text }, args.join(" "));
  }
  const version = loadSettings({
    args: ["--version"],
    env: {},
    version: "1.2.3",
    readTextFile: read,
  });
  assert.deepEqual(version, { kind: "version", text: "stacksync 1.2.3" });
});

Deno.test("helpText() lists every flag with its env name and default", () => {
  for (const declaration of Object.values(SETTINGS)) {
    // The global help shows run's settings; the others are in their command's help.
    const reader = declaration.commands.includes("run") ? undefined : declaration.commands[0];
    const text = helpText(reader);
    const line = text.split("\n").findIndex((row) =>
      row.trim().startsWith(`--${declaration.flag}`)
    );
    assert.ok(line >= 0, declaration.flag);
    const detail = text.split("\n")[line + 1];
    assert.ok(detail.includes(`${declaration.env}: ${declaration.help}`), detail);
    if ("default" in declaration) assert.ok(detail.endsWith(`[default: ${declaration.default}]`));
  }
});

Deno.test("describeSettings() lists the effective settings without any key", () => {
  const settings = load({ env: { ...VALID_ENV, API_KEY: "key-a,key-b" } });
  const described = describeSettings(settings);
  assert.equal(described.apiKeys, "2 keys");
  assert.equal(described.runMode, "once");
  assert.ok(!JSON.stringify(described).includes("key-a"));
});

Deno.test("loadSettings() refuses an env file that is not UTF-8 text, naming the line", async () => {
  const path = await Deno.makeTempFile({ suffix: ".env" });
  try {
    // "é" in Latin-1 on line 2: decoding it as UTF-8 would change the value without a word.
    await Deno.writeFile(
      path,
      new Uint8Array([...new TextEncoder().encode("# x\nA="), 0xe9, 0x0a]),
    );
    assert.throws(
      () => loadSettings({ args: ["--env-file", path], env: VALID_ENV, version: "1.2.3" }),
      { name: "ConfigError", message: `Cannot read env file ${path}: not UTF-8 text (line 2)` },
    );
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("loadSettings() takes the first argument as the command, run when there is none", async (t) => {
  const command = (args: readonly string[], env: Readonly<Record<string, string>> = VALID_ENV) => {
    const loaded = loadSettings({ args, env, version: "1.2.3", readTextFile: () => undefined });
    assert.equal(loaded.kind, "run");
    return loaded.kind === "run" ? loaded : assert.fail();
  };
  await t.step("none or run", () => {
    assert.equal(command([]).command, "run");
    assert.equal(command(["run", "--dry-run"]).settings.dryRun, true);
  });
  await t.step("undo with a run id and --force", () => {
    const undo = command(["undo", "20261123", "--force"]);
    assert.deepEqual([undo.command, undo.operand, undo.options], [
      "undo",
      "20261123",
      { exact: false, force: true, full: false },
    ]);
  });
  await t.step("run --full", () => {
    assert.equal(command(["--full"]).options.full, true);
    assert.equal(command(["run", "--full"]).options.full, true);
  });
  await t.step("restore with its file and --exact", () => {
    const restore = command(["restore", "--exact", "backup.json"]);
    assert.deepEqual([restore.operand, restore.options.exact], ["backup.json", true]);
  });
  await t.step("backup --out", () => {
    assert.equal(command(["backup", "--out", "-"]).options.out, "-");
  });
  await t.step("plan --out, --html and --embed-thumbnails", () => {
    const plan = command(["plan", "--out", "p.json", "--html", "p.html", "--embed-thumbnails"]);
    assert.deepEqual([plan.command, plan.options], ["plan", {
      out: "p.json",
      html: "p.html",
      embedThumbnails: true,
      exact: false,
      force: false,
      full: false,
    }]);
  });
  await t.step("apply with its file and --force", () => {
    const apply = command(["apply", "plan-approved.json", "--force", "--dry-run"]);
    assert.deepEqual(
      [apply.operand, apply.options.force, apply.settings.dryRun],
      ["plan-approved.json", true, true],
    );
  });
  await t.step("plan reads the settings that shape a plan, apply does not", () => {
    const env = { ...VALID_ENV, REPLACE_STACKS: "true", CRITERIA: "not json" };
    assert.throws(() => command(["plan"], env), ConfigError);
    const apply = command(["apply", "plan.json"], env);
    assert.equal(apply.settings.replaceStacks, false);
  });
  await t.step("a command ignores the variables of settings it does not read", () => {
    const env = { ...VALID_ENV, CRITERIA: "not json", RUN_MODE: "daily", RESET_STACKS: "true" };
    const undo = command(["undo"], env);
    assert.equal(undo.settings.runMode, "once");
    assert.equal(undo.settings.resetStacks, false);
    assert.throws(() => command([], env), ConfigError);
  });
  await t.step("runs needs no server", () => {
    const runs = command(["runs"], { STATE_DIR: "/var/lib/stacksync" });
    assert.deepEqual([runs.settings.apiUrl, runs.settings.apiKeys], ["", []]);
    assert.equal(runs.settings.stateDir, "/var/lib/stacksync");
  });
});

Deno.test("loadSettings() puts STATE_DIR under XDG_STATE_HOME, else under HOME", () => {
  const stateDir = (env: Record<string, string>) => {
    const loaded = loadSettings({
      args: ["runs"],
      env,
      version: "1.2.3",
      readTextFile: () => undefined,
    });
    return loaded.kind === "run" ? loaded.settings.stateDir : assert.fail();
  };
  assert.equal(stateDir({ XDG_STATE_HOME: "/x/state", HOME: "/home/ada" }), "/x/state/stacksync");
  assert.equal(stateDir({ HOME: "/home/ada" }), "/home/ada/.local/state/stacksync");
  // XDG wants an absolute path; a relative one is ignored.
  assert.equal(
    stateDir({ XDG_STATE_HOME: "state", HOME: "/home/ada" }),
    "/home/ada/.local/state/stacksync",
  );
  assert.equal(stateDir({ HOME: "/home/ada", STATE_DIR: "/srv/s" }), "/srv/s");
  assert.equal(stateDir({}), undefined);
});

Deno.test("helpText() of a command lists its own flags and the settings it reads, and no others", () => {
  for (const name of Object.keys(COMMANDS) as CommandName[]) {
    const text = helpText(name);
    assert.ok(text.startsWith(`stacksync ${name}: ${COMMANDS[name].summary}\n`), name);
    for (const declaration of Object.values(SETTINGS)) {
      const listed = text.includes(`      ${declaration.env}: `);
      assert.equal(listed, declaration.commands.includes(name), `${name} ${declaration.env}`);
    }
    for (const option of Object.values(OPTIONS)) {
      const listed = text.split("\n").some((line) => line.startsWith(`  --${option.flag}`));
      assert.equal(
        listed,
        (option.commands as readonly string[]).includes(name),
        `${name} ${option.flag}`,
      );
    }
  }
  assert.match(helpText("restore"), /^Usage: stacksync restore FILE \[options\]$/m);
  assert.match(helpText("undo"), /^Usage: stacksync undo \[RUN_ID\] \[options\]$/m);
  // The list of commands: one column of names, at least two spaces from the summaries.
  const block = helpText().split("\n\n").find((part) => part.startsWith("Commands:"))!;
  const rows = block.split("\n").slice(1);
  assert.equal(rows.length, Object.keys(COMMANDS).length + 1);
  const starts = rows.map((row) => /^ {2}\S+(?: \[command\])? {2,}(?=\S)/.exec(row)?.[0].length);
  assert.deepEqual(new Set(starts), new Set([starts[0]]), block);
  assert.ok(starts[0] !== undefined, block);
  assert.match(block, /^ {2}fix-trash {2,}Move to the trash the rest of the shot/m);
});
