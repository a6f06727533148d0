// The location tool in real Chromium. The model (fakeopenai's "call" scenario) calls
// location_query; the map services are a local stand-in speaking Google Maps' and Amap's
// documented JSON (Geocoding, Places Text Search with a next_page_token, Directions; Amap's
// v3 geocode and v5 place search), reached through the location.endpoint.* settings.
// Without Amap's key a Chinese search fails on its card with the localized error and a
// button to Settings → Location, which shows the key guide. With the keys, the card lists
// the places (name, address, distance) and, for a route, its steps with distance and
// duration; its map link opens outside the app (the new tab's navigation is answered
// locally) and the app's page asks no other host for anything.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, describe, test } from "node:test";
import { createSession, saveFakeProvider, sendWithEnter, sessionHash, startFakeOpenAI, waitAssistantStatus, waitSessionState } from "./lib/chat.mjs";
import { SUITE_TIMEOUT_MS, locale, msg, openApp, screenshot, startServer, withContext } from "./lib/harness.mjs";

const en = { chat: locale("en", "chat"), errors: locale("en", "errors"), common: locale("en", "common"), settings: locale("en", "settings") };
const render = (template, params) => template.replace(/\{\{(\w+)\}\}/g, (_, k) => String(params[k]));

const place = (name, address, lat, lng) => ({ name, formatted_address: address, geometry: { location: { lat, lng } }, types: ["cafe"], place_id: name });

/** Google Maps' and Amap's answers; records each request's path and query. */
function startMaps() {
  const requests = [];
  const answers = {
    "/maps/api/geocode/json": () => ({ status: "OK", results: [place("", "Louvre Museum, Paris", 48.8606, 2.3376)] }),
    "/maps/api/place/textsearch/json": (q) =>
      q.get("pagetoken") === "page2"
        ? { status: "OK", results: [place("Café Kitsuné", "2 Pl. Colette, Paris", 48.8631, 2.3363)] }
        : { status: "OK", next_page_token: "page2", results: [place("Café Marly", "93 Rue de Rivoli, Paris", 48.8612, 2.3349)] },
    "/maps/api/directions/json": () => ({
      status: "OK",
      routes: [
        {
          legs: [
            {
              distance: { value: 3400 },
              duration: { value: 2700 },
              start_address: "Louvre Museum, Paris",
              end_address: "Eiffel Tower, Paris",
              start_location: { lat: 48.8606, lng: 2.3376 },
              end_location: { lat: 48.8584, lng: 2.2945 },
              steps: [
                { html_instructions: "Head <b>west</b> on <b>Quai François Mitterrand</b>", distance: { value: 1900 }, duration: { value: 1500 } },
                { html_instructions: "Turn <b>left</b> onto <b>Pont d'Iéna</b><div>Destination will be on the right</div>", distance: { value: 1500 }, duration: { value: 1200 } },
              ],
            },
          ],
        },
      ],
    }),
    "/v3/geocode/geo": () => ({ status: "1", info: "OK", infocode: "10000", geocodes: [{ formatted_address: "北京市朝阳区望京SOHO", location: "116.480881,39.989410", level: "兴趣点", citycode: "010" }] }),
    "/v5/place/around": () => ({
      status: "1",
      info: "OK",
      infocode: "10000",
      count: "1",
      pois: [{ name: "星巴克(望京SOHO店)", location: "116.481,39.990", address: "望京街10号", pname: "北京市", cityname: "北京市", adname: "朝阳区", distance: "120" }],
    }),
  };
  const srv = createServer((req, res) => {
    const u = new URL(req.url, "http://127.0.0.1");
    requests.push({ path: u.pathname, query: Object.fromEntries(u.searchParams) });
    const answer = answers[u.pathname];
    res.writeHead(answer ? 200 : 404, { "Content-Type": "application/json" });
    res.end(JSON.stringify(answer ? answer(u.searchParams) : { status: "NOT_FOUND" }));
  });
  return new Promise((resolve) => {
    srv.listen(0, "127.0.0.1", () => resolve({ origin: `http://127.0.0.1:${srv.address().port}`, requests, stop: () => new Promise((r) => srv.close(r)) }));
  });
}

const loopback = (url) => {
  const u = new URL(url);
  return ["data:", "blob:", "about:"].includes(u.protocol) || u.hostname === "127.0.0.1" || u.hostname === "localhost";
};

/** Sends a location_query call for the "call" scenario and opens its card. */
async function callTool(page, index, args) {
  await sendWithEnter(page, `location_query ${JSON.stringify(args)}`);
  await waitAssistantStatus(page, index, "complete", 30_000);
  const card = page.getByTestId("message-assistant").nth(index).locator('[data-testid="tool-card"][data-tool="location_query"]');
  await card.waitFor();
  if ((await card.locator(".tool-card__head").getAttribute("aria-expanded")) !== "true") await card.locator(".tool-card__head").click();
  return card;
}

describe("location: the card shows places and a route from a local maps stand-in", { timeout: SUITE_TIMEOUT_MS }, () => {
  let server, fake, maps, provider;
  before(async () => {
    [server, fake, maps] = await Promise.all([startServer(), startFakeOpenAI(), startMaps()]);
    await server.result("SetSetting", "location.endpoint.google", maps.origin);
    await server.result("SetSetting", "location.endpoint.amap", maps.origin);
    await server.result("SetSecret", "maps.google", "google-test-key");
    provider = await saveFakeProvider(server, fake, { name: "Fake", models: ["fake-call"] });
  });
  after(async () => {
    await Promise.all([server?.stop(), fake?.stop(), maps?.stop()]);
  });

  test("a missing key fails on the card with the way to Settings → Location and its key guide", async () => {
    const session = await createSession(server, { providerId: provider.id, model: "fake-call", title: "Location key e2e", toolsets: ["location"] });
    await withContext(async (ctx) => {
      const page = await openApp(ctx, server, { hash: sessionHash(session.id) });
      await waitSessionState(page, "idle");
      const card = await callTool(page, 0, { action: "search_places", location: "望京SOHO", query: "咖啡" });
      assert.equal(await card.getAttribute("data-state"), "error");
      const err = card.getByTestId("error-view");
      assert.equal(await err.getAttribute("data-error-code"), "location_key_required");
      assert.equal(await err.locator(".error-view__text").innerText(), render(msg(en.errors, "location_key_required"), { provider: "Amap" }));
      assert.equal(maps.requests.length, 0, "nothing was sent without the key");
      await screenshot(page, "location-01-key-missing");
      await err.getByRole("button", { name: render(msg(en.common, "errorView.openSettings"), { section: msg(en.settings, "sections.location.title") }) }).click();
      await page.waitForURL(/#\/settings\/location$/);
      const guide = page.getByTestId("location-key-guide");
      await guide.locator("summary").click();
      assert.match(await guide.getByTestId("location-guide-amap").innerText(), /Web Service/);
      await page.getByTestId("secret-maps.amap").waitFor();
      assert.equal(await page.getByTestId("secret-websearch.tavily").count(), 0, "the page lists only the maps' keys");
      await screenshot(page, "location-02-settings");
      assert.deepEqual(ctx.pageErrors, []);
    });
  });

  test("places with address and distance (Google, two pages; Amap in GCJ-02), and a walking route whose map opens outside the app", async () => {
    await server.result("SetSecret", "maps.amap", "amap-test-key");
    maps.requests.length = 0;
    const session = await createSession(server, { providerId: provider.id, model: "fake-call", title: "Location e2e", toolsets: ["location"] });
    await withContext(async (ctx) => {
      const remote = [];
      await ctx.route("**/*", (route) => {
        const url = route.request().url();
        if (loopback(url)) return route.continue();
        remote.push(url);
        return route.fulfill({ status: 200, contentType: "text/plain", body: "intercepted by the test" });
      });
      const page = await openApp(ctx, server, { hash: sessionHash(session.id) });
      const appRequests = [];
      page.on("request", (r) => appRequests.push(r.url()));
      await waitSessionState(page, "idle");

      let card = await callTool(page, 0, { action: "search_places", location: "Louvre", query: "cafe" });
      let result = card.getByTestId("location-result");
      assert.equal(await result.getAttribute("data-provider"), "google");
      assert.equal(await result.getByTestId("location-provider").innerText(), render(msg(en.chat, "tools.location.placesBy"), { name: "Google Maps", count: 2 }));
      const places = result.getByTestId("location-place");
      assert.equal(await places.count(), 2);
      assert.match(await places.nth(0).innerText(), /Café Marly · 93 Rue de Rivoli, Paris · 2\d\d m/);
      assert.match(await places.nth(1).innerText(), /Café Kitsuné · 2 Pl\. Colette, Paris · 294 m/);
      const searches = maps.requests.filter((r) => r.path === "/maps/api/place/textsearch/json");
      assert.deepEqual(searches.map((r) => r.query.pagetoken ?? ""), ["", "page2"]);
      assert.equal(searches[0].query.radius, "5000");
      assert.equal(searches[0].query.key, "google-test-key");
      await screenshot(page, "location-03-places");

      card = await callTool(page, 1, { action: "search_places", location: "望京SOHO", query: "咖啡" });
      result = card.getByTestId("location-result");
      assert.equal(await result.getAttribute("data-provider"), "amap");
      assert.match(await result.innerText(), /GCJ-02/);
      assert.match(await result.getByTestId("location-place").innerText(), /星巴克\(望京SOHO店\) · 北京市北京市朝阳区望京街10号 · 120 m/);
      assert.match(await result.getByTestId("location-link-amap").getAttribute("href"), /^https:\/\/uri\.amap\.com\/marker\?/);

      card = await callTool(page, 2, { action: "get_directions", location: "Louvre", destination: "Eiffel Tower", mode: "walking" });
      result = card.getByTestId("location-result");
      assert.equal(await result.getByTestId("location-route-summary").innerText(), "Walking · 3.4 km · 45 min");
      const steps = result.getByTestId("location-step");
      assert.equal(await steps.count(), 2);
      assert.equal(await steps.nth(0).innerText(), "Head west on Quai François Mitterrand · 1.9 km");
      assert.equal(await steps.nth(1).innerText(), "Turn left onto Pont d'Iéna Destination will be on the right · 1.5 km");
      const directions = maps.requests.find((r) => r.path === "/maps/api/directions/json");
      assert.deepEqual([directions.query.origin, directions.query.destination, directions.query.mode], ["Louvre", "Eiffel Tower", "walking"]);
      await screenshot(page, "location-04-route");

      const link = result.getByTestId("location-link-google").first();
      const href = await link.getAttribute("href");
      assert.equal(href, "https://www.google.com/maps/dir/?api=1&destination=48.858400%2C2.294500&origin=48.860600%2C2.337600&travelmode=walking");
      const appURL = page.url();
      const popup = ctx.waitForEvent("page");
      await link.click();
      const tab = await popup;
      await tab.waitForURL(href);
      assert.match(await tab.locator("body").innerText(), /intercepted by the test/);
      assert.equal(page.url(), appURL, "the app's window stayed where it was");
      assert.equal(await tab.evaluate(() => window.opener), null, "the opened page has no handle on the app");
      await tab.close();
      assert.deepEqual(remote, [href], "only the clicked map left loopback (and was answered by the test)");
      assert.deepEqual(appRequests.filter((u) => !loopback(u)), [], "the app's page asked a remote host");
      assert.deepEqual(ctx.pageErrors, []);
    });
  });
});
