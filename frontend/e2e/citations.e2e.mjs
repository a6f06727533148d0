// Citations and read pages in real Chromium. The model (fakeopenai's "cite" scenario)
// searches the web through a local SearXNG stand-in and answers citing the results by
// number ([1], [1, 2]) and as a Markdown link; the chips show each result's real host,
// its title on focus, the generic site icon (site icons are off by default, so nothing is
// fetched), and a click opens the result outside the app (the new tab's navigation is
// intercepted and answered locally). Every request the app's page makes goes to
// loopback. Then web_fetch reads a local article (127.0.0.1 allowed in Settings) through a
// redirect: the card shows the address read, the one asked for, the length and a preview
// whose remote image stays a placeholder; a private address is refused with the localized
// error and a way to open the page in the browser. Site icons: refused while off, and on,
// the guard refuses the loopback site, so the card keeps its generic icon.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, describe, test } from "node:test";
import { createSession, lastAssistant, saveFakeProvider, sendWithEnter, sessionHash, startFakeOpenAI, waitAssistantStatus, waitSessionState } from "./lib/chat.mjs";
import { SUITE_TIMEOUT_MS, locale, msg, openApp, screenshot, startServer, withContext } from "./lib/harness.mjs";

const en = { chat: locale("en", "chat"), errors: locale("en", "errors") };
const render = (template, params) => template.replace(/\{\{(\w+)\}\}/g, (_, k) => String(params[k]));

const RESULTS = [
  { url: "https://www.example.org/cairn", title: "Cairns of the world", content: "A cairn is a pile of stones.", engine: "bing", score: 1 },
  { url: "https://trails.example/markers", title: "Trail markers", content: "Cairns mark trails above the tree line.", engine: "bing", score: 0.9 },
];

/** Starts a server on 127.0.0.1; resolves to {origin, requests, stop}. */
function listen(handler) {
  const requests = [];
  const srv = createServer((req, res) => {
    requests.push(req.url);
    handler(req, res);
  });
  return new Promise((resolve) => {
    srv.listen(0, "127.0.0.1", () => {
      resolve({ origin: `http://127.0.0.1:${srv.address().port}`, requests, stop: () => new Promise((r) => srv.close(r)) });
    });
  });
}

/** A SearXNG instance's JSON answer with RESULTS. */
const startSearXNG = () =>
  listen((req, res) => {
    const q = new URL(req.url, "http://127.0.0.1").searchParams.get("q");
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ query: q, number_of_results: RESULTS.length, results: RESULTS, answers: [], suggestions: [], unresponsive_engines: [] }));
  });

const ARTICLE = `<!doctype html><html><head><meta charset="utf-8"><title>Building a cairn</title>
<meta property="og:site_name" content="Trail Notes"></head><body><nav>Home · About</nav><article>
<h1>Building a cairn</h1><p class="byline">By Ada Stone</p>
<p>A cairn is built from flat stones, the widest at the bottom.</p>
<p><img src="https://tracker.example/pixel.png?leak=conversation" alt="a tracking pixel"></p>
<p>${"Each stone rests on two below it, so the pile stands through winter storms. ".repeat(6)}</p>
<p>${"Walkers add a stone as they pass, and the pile grows over the years into a landmark. ".repeat(6)}</p>
</article></body></html>`;

/** A local site: /start redirects to /article, a readable page with a remote image. */
const startSite = () =>
  listen((req, res) => {
    if (req.url === "/start") {
      res.writeHead(302, { Location: "/article" });
      res.end();
      return;
    }
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end(ARTICLE);
  });

const loopback = (url) => {
  const u = new URL(url);
  return ["data:", "blob:", "about:"].includes(u.protocol) || u.hostname === "127.0.0.1" || u.hostname === "localhost" || u.hostname === "[::1]";
};

describe("citations: chips link to the results, open outside the app, and load nothing remote", { timeout: SUITE_TIMEOUT_MS }, () => {
  let server, fake, searx, site, provider;
  before(async () => {
    [server, fake, searx, site] = await Promise.all([startServer(), startFakeOpenAI(), startSearXNG(), startSite()]);
    await server.result("SetSetting", "websearch.provider", "searxng");
    await server.result("SetSetting", "websearch.endpoint.searxng", searx.origin);
    await server.result("SetSetting", "webfetch.allowedHosts", "127.0.0.1");
    provider = await saveFakeProvider(server, fake, { name: "Fake", models: ["fake-cite", "fake-call"] });
  });
  after(async () => {
    await Promise.all([server?.stop(), fake?.stop(), searx?.stop(), site?.stop()]);
  });

  test("the answer's citations are chips; a click opens the result in a new tab, never the app", async () => {
    const session = await createSession(server, { providerId: provider.id, model: "fake-cite", title: "Citations e2e", toolsets: ["web"] });
    await withContext(async (ctx) => {
      const remote = []; // requests to other hosts: answered here, never sent
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
      await sendWithEnter(page, "cairn stones");
      await waitAssistantStatus(page, 0, "complete");
      assert.deepEqual(searx.requests.map((u) => new URL(u, "http://x").searchParams.get("q")), ["cairn stones"]);

      const text = lastAssistant(page).getByTestId("part-text");
      const chips = text.getByTestId("citation");
      assert.equal(await chips.count(), 4); // [1], [1, 2] and the link [1](…)
      const hosts = await chips.evaluateAll((els) => els.map((e) => e.getAttribute("data-host")));
      assert.deepEqual(hosts, ["example.org", "example.org", "trails.example", "example.org"]);
      assert.equal(await text.locator("img").count(), 0, "site icons are off: nothing but the generic icon");
      assert.equal(await text.getByTestId("site-icon-generic").count(), 4);

      const first = chips.first().getByRole("link");
      assert.equal(await first.getAttribute("href"), "https://www.example.org/cairn");
      assert.equal(await first.getAttribute("aria-label"), render(msg(en.chat, "citation.label"), { n: 1, host: "example.org" }));
      const tip = chips.first().getByTestId("citation-tip");
      assert.equal(await tip.isVisible(), false);
      await first.focus();
      await tip.waitFor({ state: "visible" });
      assert.match(await tip.innerText(), /Cairns of the world\s+example\.org/);
      await screenshot(page, "citations-01-chips");

      const appURL = page.url();
      const popup = ctx.waitForEvent("page");
      await first.click();
      const tab = await popup;
      await tab.waitForURL("https://www.example.org/cairn");
      assert.match(await tab.locator("body").innerText(), /intercepted by the test/);
      assert.equal(page.url(), appURL, "the app's window stayed where it was");
      assert.equal(await tab.evaluate(() => window.opener), null, "the opened page has no handle on the app");
      await tab.close();

      assert.deepEqual(remote, ["https://www.example.org/cairn"], "only the clicked result left loopback (and was answered by the test)");
      assert.deepEqual(appRequests.filter((u) => !loopback(u)), [], "the app's page asked a remote host");
      assert.deepEqual(ctx.pageErrors, []);
    });
  });

  test("web_fetch: the card shows the page read after a redirect; a private address offers the browser", async () => {
    const session = await createSession(server, { providerId: provider.id, model: "fake-call", title: "Read page e2e", toolsets: ["web"] });
    // Site icons are off by default: the backend refuses to fetch one, sending nothing.
    const off = await server.call("FetchFavicon", `${site.origin}/article`);
    assert.equal(off.status, 409);
    assert.equal(off.body.error.code, "favicons_off");
    // On, the icon of this page's site is asked through the address guard, which refuses
    // loopback (allowed hosts are the fetcher's, not the icons'): the card keeps its globe.
    await server.result("SetSetting", "websearch.favicons", true);
    const refused = await server.call("FetchFavicon", `${site.origin}/article`);
    assert.equal(refused.body.error.code, "image_address_refused");
    await withContext(async (ctx) => {
      const remote = [];
      await ctx.route("**/*", (route) => {
        const url = route.request().url();
        if (loopback(url)) return route.continue();
        remote.push(url);
        return route.abort();
      });
      const page = await openApp(ctx, server, { hash: sessionHash(session.id) });
      await waitSessionState(page, "idle");
      await sendWithEnter(page, `web_fetch {"url":"${site.origin}/start"}`);
      await waitAssistantStatus(page, 0, "complete");
      const card = lastAssistant(page).locator('[data-testid="tool-card"][data-tool="web_fetch"]');
      assert.equal(await card.getAttribute("data-state"), "done");
      await card.locator(".tool-card__head").click();
      const result = card.getByTestId("web-fetch-result");
      await result.waitFor();
      assert.equal((await result.getByTestId("web-fetch-link").innerText()).trim(), "Building a cairn");
      assert.match(await result.getByTestId("web-fetch-site").innerText(), /Trail Notes · 127\.0\.0\.1/);
      assert.equal(await result.getByTestId("web-fetch-url").innerText(), `${site.origin}/article`);
      assert.equal(await result.getByTestId("web-fetch-requested").innerText(), `${site.origin}/start`);
      assert.match(await result.getByTestId("web-fetch-length").innerText(), /\d+ characters · [\d.]+ KB fetched/);
      const preview = result.getByTestId("web-fetch-preview");
      await preview.locator("summary").click();
      assert.match(await preview.innerText(), /flat stones, the widest at the bottom/);
      assert.equal(await preview.locator("img").count(), 0);
      assert.equal(await preview.getByTestId("md-image-placeholder").getAttribute("data-host"), "tracker.example");
      await screenshot(page, "citations-02-web-fetch");
      assert.equal(await result.getByTestId("site-icon-generic").count(), 1);
      assert.deepEqual(site.requests, ["/start", "/article"], "only the page was asked, never its /favicon.ico");

      await sendWithEnter(page, 'web_fetch {"url":"http://127.0.0.2:9/admin"}');
      await waitAssistantStatus(page, 1, "complete");
      const failed = lastAssistant(page).locator('[data-testid="tool-card"][data-tool="web_fetch"]');
      assert.equal(await failed.getAttribute("data-state"), "error");
      const error = failed.getByTestId("error-view"); // opened by itself
      await error.waitFor();
      assert.equal(await error.getAttribute("data-error-code"), "fetch_blocked_address");
      const way = failed.getByTestId("web-fetch-open");
      assert.equal((await way.innerText()).trim(), render(msg(en.chat, "tools.webFetch.openInBrowser"), { host: "127.0.0.2" }));
      assert.equal(await way.getAttribute("href"), "http://127.0.0.2:9/admin");
      await screenshot(page, "citations-03-web-fetch-refused");
      assert.deepEqual(remote, []);
      assert.deepEqual(ctx.pageErrors, []);
    });
    await server.result("SetSetting", "websearch.favicons", false);
  });
});
