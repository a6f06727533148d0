// Web search in real Chromium: the model (fakeopenai's "call" scenario) calls web_search;
// the search goes to a local SearXNG stand-in (loopback only) and the card shows which
// provider answered and its results; with Tavily chosen and no key the card opens on its
// own with the localized error, whose button opens Settings → Web search.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, describe, test } from "node:test";
import { createSession, lastAssistant, saveFakeProvider, sendWithEnter, sessionHash, startFakeOpenAI, waitAssistantStatus, waitSessionState } from "./lib/chat.mjs";
import { SUITE_TIMEOUT_MS, locale, msg, openApp, screenshot, startServer, withContext } from "./lib/harness.mjs";

const en = { chat: locale("en", "chat"), common: locale("en", "common"), errors: locale("en", "errors"), settings: locale("en", "settings") };
const render = (template, params) => template.replace(/\{\{(\w+)\}\}/g, (_, k) => String(params[k]));

/** A SearXNG instance's JSON answer on 127.0.0.1, counting the searches it gets. */
function startSearXNG() {
  const queries = [];
  const srv = createServer((req, res) => {
    const u = new URL(req.url, "http://127.0.0.1");
    queries.push(u.searchParams.get("q"));
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({
      query: u.searchParams.get("q"),
      number_of_results: 1,
      results: [{ url: "https://example.org/cairn", title: "Cairns of the world", content: "A cairn is a pile of stones.", engine: "bing", score: 1 }],
      answers: [],
      suggestions: [],
      unresponsive_engines: [],
    }));
  });
  return new Promise((resolve) => {
    srv.listen(0, "127.0.0.1", () => {
      resolve({ url: `http://127.0.0.1:${srv.address().port}`, queries, stop: () => new Promise((r) => srv.close(r)) });
    });
  });
}

describe("web search: the card says who answered, and a missing key leads to its settings", { timeout: SUITE_TIMEOUT_MS }, () => {
  let server, fake, searx, session;
  before(async () => {
    [server, fake, searx] = await Promise.all([startServer(), startFakeOpenAI(), startSearXNG()]);
    await server.result("SetSetting", "websearch.provider", "searxng");
    await server.result("SetSetting", "websearch.endpoint.searxng", searx.url);
    const provider = await saveFakeProvider(server, fake, { name: "Fake", models: ["fake-call"] });
    session = await createSession(server, { providerId: provider.id, title: "Web search e2e", toolsets: ["web"] });
  });
  after(async () => {
    await Promise.all([server?.stop(), fake?.stop(), searx?.stop()]);
  });

  test("web_search through SearXNG, then Tavily without a key", async () => {
    await withContext(async (ctx) => {
      const page = await openApp(ctx, server, { hash: sessionHash(session.id) });
      await waitSessionState(page, "idle");
      await sendWithEnter(page, 'web_search {"query":"cairn stones"}');
      await waitAssistantStatus(page, 0, "complete");
      assert.deepEqual(searx.queries, ["cairn stones"]);
      const card = lastAssistant(page).locator('[data-testid="tool-card"][data-tool="web_search"]');
      assert.equal(await card.getAttribute("data-state"), "done");
      await card.locator(".tool-card__head").click();
      const result = card.getByTestId("web-search-result");
      await result.waitFor();
      assert.equal(await result.getByTestId("web-search-provider").innerText(), render(msg(en.chat, "tools.webSearch.answered"), { name: "SearXNG", count: 1 }));
      assert.equal(await result.getByRole("link").getAttribute("href"), "https://example.org/cairn");
      assert.match(await result.innerText(), /A cairn is a pile of stones\./);
      assert.match(await lastAssistant(page).innerText(), /Results from SearXNG for "cairn stones"/);
      await screenshot(page, "websearch-01-searxng");

      await server.result("SetSetting", "websearch.provider", "tavily");
      await sendWithEnter(page, 'web_search {"query":"cairn stones"}');
      await waitAssistantStatus(page, 1, "complete");
      const failed = lastAssistant(page).locator('[data-testid="tool-card"][data-tool="web_search"]');
      assert.equal(await failed.getAttribute("data-state"), "error");
      const error = failed.getByTestId("error-view"); // the card opened by itself
      await error.waitFor();
      assert.equal(await error.getAttribute("data-error-code"), "tavily_api_key_required");
      assert.match(await error.innerText(), new RegExp(msg(en.errors, "tavily_api_key_required").replace(/[.→]/g, ".")));
      await screenshot(page, "websearch-02-tavily-no-key");
      await error.getByRole("button", { name: render(msg(en.common, "errorView.openSettings"), { section: msg(en.settings, "sections.web-search.title") }) }).click();
      await page.waitForFunction(() => location.hash === "#/settings/web-search");
      await page.getByTestId("websearch-provider").waitFor();
      assert.equal(await page.getByTestId("setting-websearch.provider").inputValue(), "tavily");
      await page.getByTestId("secret-websearch.tavily").waitFor();
      await screenshot(page, "websearch-03-settings");
    });
  });
});
