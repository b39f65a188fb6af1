/**
 * `stacksync duplicates` end to end: the real CLI against the Immich test server on a generated
 * library with copies of both kinds (same file name and capture time; same content), near misses
 * that are no duplicates, archived and trashed copies, and a partner's copy; the expected groups
 * come from how the library was made.
 */
import assert from "node:assert/strict";
import { runCli } from "./_cli.ts";
import { findDuplicates } from "../src/duplicates/find.ts";
import type { Asset } from "../src/model.ts";
import { startImmichServer, type TestAssetInput } from "./immich_server.ts";
import { seededRandom } from "./_random.ts";

const START = Date.parse("2024-05-01T10:00:00.000Z");

interface Made {
  readonly inputs: TestAssetInput[];
  /** Groups of ids by kind, with archived and trashed copies or without. */
  readonly expected: (withOthers: boolean) => { nameAndTime: string[][]; content: string[][] };
}

/** Copies of both kinds among singles, near misses, and copies that are archived or trashed. */
function generated(seed: number): Made {
  const random = seededRandom(seed);
  const inputs: TestAssetInput[] = [];
  const nameGroups: { ids: string[]; other: boolean[] }[] = [];
  const contentGroups: { ids: string[]; other: boolean[] }[] = [];
  const add = (input: Omit<TestAssetInput, "id">): string => {
    const id = crypto.randomUUID();
    inputs.push({ ...input, id });
    return id;
  };
  const time = (minute: number, ms = 0) => new Date(START + minute * 60_000 + ms).toISOString();
  for (let i = 0; i < 40; i++) {
    add({ originalFileName: `DSC_${1000 + i}.jpg`, localDateTime: time(i) });
  }
  for (let g = 0; g < 6; g++) {
    // Same name and time, 2 or 3 uploads with their own content; the third may be archived or
    // in the trash.
    const name = `IMG_${2000 + g}.jpg`;
    const copies = 2 + Math.floor(random() * 2);
    const group = { ids: [] as string[], other: [] as boolean[] };
    for (let c = 0; c < copies; c++) {
      const other = c === 2;
      const state = !other ? {} : random() < 0.5 ? { visibility: "archive" as const } : {
        isTrashed: true,
      };
      group.ids.push(add({ originalFileName: name, localDateTime: time(100 + g), ...state }));
      group.other.push(other);
    }
    nameGroups.push(group);
    // Near misses: the same name 400 ms later, another name at the same time.
    add({ originalFileName: name, localDateTime: time(100 + g, 400) });
    add({ originalFileName: `IMG_${2000 + g}.JPG`, localDateTime: time(100 + g) });
  }
  for (let g = 0; g < 4; g++) {
    // Same content under other names and times.
    const checksum = btoa(`content-${seed}-${g}`.padEnd(20, "."));
    const group = { ids: [] as string[], other: [] as boolean[] };
    for (let c = 0; c < 2 + g % 2; c++) {
      group.ids.push(
        add({ originalFileName: `copy_${g}_${c}.jpg`, localDateTime: time(200 + c), checksum }),
      );
      group.other.push(false);
    }
    contentGroups.push(group);
  }
  // Both at once: the same upload twice, same content.
  const both = btoa("both-kinds-of-copy..");
  const twice = [0, 1].map(() =>
    add({ originalFileName: "IMG_3000.jpg", localDateTime: time(300), checksum: both })
  );
  nameGroups.push({ ids: twice, other: [false, false] });
  contentGroups.push({ ids: twice, other: [false, false] });
  const pick = (groups: { ids: string[]; other: boolean[] }[], withOthers: boolean) =>
    groups.map((g) => g.ids.filter((_, i) => withOthers || !g.other[i]).sort())
      .filter((ids) => ids.length > 1);
  return {
    inputs,
    expected: (withOthers) => ({
      nameAndTime: pick(nameGroups, withOthers),
      content: pick(contentGroups, withOthers),
    }),
  };
}

const sorted = (groups: string[][]) => groups.map((ids) => ids.join(",")).sort();

Deno.test("main.ts duplicates lists exactly the copies of both kinds, as JSON and as a table, and writes nothing", async () => {
  await using server = await startImmichServer();
  const user = server.addUser({ name: "Ada" });
  const key = server.addKey(user.id);
  const made = generated(7);
  server.addAssets(user.id, made.inputs);
  // A partner's copy of one of Ada's photos is not Ada's duplicate.
  const partner = server.addUser({ name: "Bo" });
  server.addAsset(partner.id, {
    originalFileName: "IMG_2000.jpg",
    localDateTime: made.inputs.find((i) => i.originalFileName === "IMG_2000.jpg")!.localDateTime,
  });
  server.addPartner(partner.id, user.id);
  const env = { API_URL: server.url, API_KEY: key, LOG_FORMAT: "json" };

  for (const withOthers of [false, true]) {
    const extra: Record<string, string> = withOthers
      ? { WITH_ARCHIVED: "true", WITH_DELETED: "true" }
      : {};
    const result = await runCli({
      args: ["duplicates", "--format", "json"],
      env: { ...env, ...extra },
    });
    await Deno.remove(result.cwd, { recursive: true });
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout);
    assert.equal(report.format, "stacksync-duplicates");
    assert.equal(report.version, 1);
    assert.deepEqual(report.included, { archived: withOthers, trashed: withOthers, videos: false });
    const [ada] = report.users;
    const ids = (groups: { photos: { id: string }[] }[]) =>
      groups.map((g) => g.photos.map((p) => p.id).sort());
    const expected = made.expected(withOthers);
    assert.deepEqual(sorted(ids(ada.sameNameAndTime)), sorted(expected.nameAndTime));
    assert.deepEqual(sorted(ids(ada.sameContent)), sorted(expected.content));
    // The log went to standard error, one JSON line each.
    assert.ok(result.stderr.split("\n").filter((l) => l !== "").every((l) => JSON.parse(l)));
  }

  const table = await runCli({ args: ["duplicates"], env });
  await Deno.remove(table.cwd, { recursive: true });
  assert.equal(table.code, 0, table.stderr);
  const lines = table.stdout.split("\n");
  const expected = made.expected(false);
  assert.equal(
    lines[0],
    `Ada: ${expected.nameAndTime.length} groups with the same file name and capture time, ` +
      `${expected.content.length} groups with the same content, among ${
        made.inputs.filter((i) => i.visibility === undefined && i.isTrashed === undefined).length
      } photos`,
  );
  for (const ids of [...expected.nameAndTime, ...expected.content]) {
    for (const id of ids) assert.ok(lines.some((line) => line.includes(id)), id);
  }
  assert.equal(
    lines.filter((line) => line.startsWith("name and time ")).length,
    expected.nameAndTime.length,
  );
  assert.equal(lines.filter((line) => line.startsWith("content ")).length, expected.content.length);

  const written = server.requests.filter((r) =>
    r.method !== "GET" && !(r.method === "POST" && r.path === "/search/metadata")
  );
  assert.deepEqual(written, []);
});

Deno.test("findDuplicates() compares capture times to the millisecond and names exactly", () => {
  const photo = (id: string, name: string, time: string) =>
    ({ id, originalFileName: name, localDateTime: time }) as Asset;
  const found = findDuplicates([
    photo("a", "IMG_1.jpg", "2024-05-01T10:00:00.000Z"),
    photo("b", "IMG_1.jpg", "2024-05-01T12:00:00.000+02:00"),
    photo("c", "IMG_1.jpg", "2024-05-01T10:00:00.001Z"),
    photo("d", "img_1.jpg", "2024-05-01T10:00:00.000Z"),
    photo("e", "IMG_2.jpg", "not a time"),
    photo("f", "IMG_2.jpg", "not a time"),
  ]);
  assert.deepEqual(found.sameNameAndTime.map((g) => g.photos.map((p) => p.id)), [
    ["a", "b"],
    ["e", "f"],
  ]);
  assert.deepEqual(found.sameContent, []);
});
