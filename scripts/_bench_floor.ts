/**
 * The floor of `deno task bench`: the stacksync Immich client doing only what every pass must
 * do, download and parse `GET /stacks` and every search page, with nothing grouped, planned or
 * logged. The pages are read as a pass with the default settings reads them: with the EXIF the
 * default rules read the camera from (`withCamera`). Reads API_URL and API_KEY; prints
 * `{"stacks", "assets"}` as one JSON line.
 *
 * @module
 */
import { createImmichClient } from "../src/api/immich.ts";

const client = createImmichClient({
  baseUrl: Deno.env.get("API_URL") ?? "",
  apiKey: Deno.env.get("API_KEY") ?? "",
});
try {
  const stacks = await client.listStacks();
  let assets = 0;
  const filter = {
    withArchived: false,
    withDeleted: false,
    includeVideos: false,
    withCamera: true,
  };
  for await (const page of client.searchAssets(filter)) assets += page.assets.length;
  console.log(JSON.stringify({ stacks: stacks.length, assets }));
} finally {
  client.close();
}
