// Knowledge bases in real Chromium: create a base whose embedding model is a local server
// on the OpenAI embeddings wire (loopback only), add a document through the file picker,
// watch it become ready, search it, attach it to a conversation from the composer, and a
// model (fakeopenai's "call" scenario) that calls kb_search gets the attached base: its
// card names the base and the passage's file, and its hit opens the guide in a viewer with
// the passage marked. A model that answers with its system prompt
// (the "system" scenario) shows the kb instruction naming the attached base only.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, describe, test } from "node:test";
import { createSession, lastAssistant, saveFakeProvider, sendWithEnter, sessionHash, startFakeOpenAI, storedAnswer, waitAssistantStatus, waitSessionState } from "./lib/chat.mjs";
import { SUITE_TIMEOUT_MS, locale, msg, openApp, screenshot, startServer, withContext } from "./lib/harness.mjs";

const en = { chat: locale("en", "chat"), settings: locale("en", "settings") };
const render = (template, params) => template.replace(/\{\{(\w+)\}\}/g, (_, k) => String(params[k]));

/** Bag-of-words vectors: texts sharing words are near. */
function bag(text, dims = 32) {
  const v = new Array(dims).fill(0);
  for (const w of text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean)) {
    let h = 2166136261;
    for (const c of w) h = Math.imul(h ^ c.codePointAt(0), 16777619) >>> 0;
    v[h % dims] += 1;
  }
  return v;
}

/** A local embeddings server; counts the texts it embedded. */
function startEmbeddings() {
  const seen = { texts: 0 };
  const srv = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      if (req.method !== "POST" || !req.url.endsWith("/embeddings")) {
        res.writeHead(404).end();
        return;
      }
      const { input, model } = JSON.parse(body);
      const texts = Array.isArray(input) ? input : [input];
      seen.texts += texts.length;
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ object: "list", model, data: texts.map((t, index) => ({ object: "embedding", index, embedding: bag(t) })) }));
    });
  });
  return new Promise((resolve) => {
    srv.listen(0, "127.0.0.1", () => {
      resolve({ url: `http://127.0.0.1:${srv.address().port}/v1`, seen, stop: () => new Promise((r) => srv.close(r)) });
    });
  });
}

const GUIDE = "# Garden guide\n\nTomatoes need full sun and regular watering.\n\n## Pests\n\nAphids are controlled with soapy water; ladybirds eat them too.\n";

describe("knowledge: create, add, search, attach, and the kb_search card", { timeout: SUITE_TIMEOUT_MS }, () => {
  let server, fake, embed, session;
  before(async () => {
    [server, fake, embed] = await Promise.all([startServer(), startFakeOpenAI(), startEmbeddings()]);
    const provider = await saveFakeProvider(server, fake, { name: "Fake", models: ["fake-call"] });
    await saveFakeProvider(server, { url: embed.url }, { name: "Embed", models: ["bag"] });
    session = await createSession(server, { providerId: provider.id, title: "Knowledge e2e", toolsets: [] });
  });
  after(async () => {
    await Promise.all([server?.stop(), fake?.stop(), embed?.stop()]);
  });

  test("a document goes from picker to ready, is found, and the model's kb_search searches the attached base", async () => {
    await withContext(async (ctx) => {
      const page = await openApp(ctx, server, { hash: "#/settings/knowledge" });
      await page.getByTestId("knowledge-section").waitFor();
      await page.getByTestId("kb-create-name").fill("Garden");
      await page.getByTestId("kb-create-embedding").fill("Embed/bag");
      await page.getByTestId("kb-create-submit").click();
      await page.getByTestId("kb-title").filter({ hasText: "Garden" }).waitFor();

      await page.getByTestId("kb-file-input").setInputFiles({ name: "guide.md", mimeType: "text/markdown", buffer: Buffer.from(GUIDE) });
      const row = page.locator('[data-testid="kb-file"][data-name="guide.md"]');
      await row.waitFor();
      await page.waitForSelector('[data-testid="kb-file"][data-name="guide.md"][data-state="done"]', { timeout: 30_000 });
      assert.equal(await row.getByTestId("kb-file-state").innerText(), msg(en.settings, "knowledgeBases.files.state.done"));
      assert.ok(embed.seen.texts > 0, "the embedding server was asked");
      await screenshot(page, "knowledge-01-ready");

      await page.getByTestId("kb-search-input").fill("aphids soapy water");
      await page.getByTestId("kb-search-run").click();
      const hit = page.getByTestId("kb-hit").first();
      await hit.waitFor();
      assert.match(await hit.innerText(), /guide\.md/);
      assert.match(await hit.innerText(), /Aphids are controlled/);
      assert.equal(await hit.locator("mark").first().innerText(), "Aphids");
      await screenshot(page, "knowledge-02-search");

      await page.goto(`${server.origin}/${sessionHash(session.id)}`);
      await waitSessionState(page, "idle");
      await page.getByTestId("kb-attach").click();
      await page.getByTestId("kb-attach-Garden").check();
      await page.getByTestId("kb-attach").filter({ hasText: render(msg(en.chat, "kb.attachCount"), { count: 1 }) }).waitFor();
      const kbs = await server.result("ListKBs");
      assert.deepEqual(await server.result("GetSessionKBs", session.id), [kbs[0].id]);
      assert.ok((await server.result("GetSession", session.id)).session.toolsets.includes("kb"), "attaching turned the kb toolset on");
      await page.keyboard.press("Escape");

      await sendWithEnter(page, 'kb_search {"query":"aphids"}');
      await waitAssistantStatus(page, 0, "complete");
      const card = lastAssistant(page).locator('[data-testid="tool-card"][data-tool="kb_search"]');
      assert.equal(await card.getAttribute("data-state"), "done");
      await card.locator(".tool-card__head").click();
      await card.getByTestId("kb-search-result").waitFor();
      assert.equal(await card.getByTestId("kb-search-kbs").innerText(), render(msg(en.chat, "kb.searchedAttached"), { kbs: "Garden" }));
      const cardHit = card.getByTestId("kb-card-hit").first();
      assert.match(await cardHit.innerText(), /guide\.md/);
      await cardHit.locator("summary").click();
      assert.match(await cardHit.innerText(), /Aphids are controlled/);
      await screenshot(page, "knowledge-03-card");

      // The hit opens in its file: a dialog with the guide's text, the passage marked.
      await cardHit.getByTestId("kb-card-open").click();
      const viewer = page.getByRole("dialog", { name: "guide.md" });
      await viewer.waitFor();
      const marked = viewer.getByTestId("kb-viewer-hit");
      await marked.waitFor();
      assert.match(await marked.innerText(), /Aphids are controlled with soapy water/);
      assert.equal(await marked.locator("mark").first().innerText(), "Aphids");
      assert.match(await viewer.getByTestId("kb-viewer-text").innerText(), /Tomatoes need full sun/);
      assert.equal(await viewer.getByTestId("kb-viewer-open").count(), 0, "a browser window offers no Open file");
      await screenshot(page, "knowledge-04-viewer");
      await page.keyboard.press("Escape");
      await viewer.waitFor({ state: "detached" });
      assert.deepEqual(ctx.pageErrors, []);
    });
  });

  test("the kb toolset's instruction names the attached base only, every base once none is attached", async () => {
    const kitchen = await server.result("CreateKB", { name: "Kitchen" });
    await server.result("AddKBText", kitchen.id, "soup.md", "Tomato soup needs salt.");
    const sys = await saveFakeProvider(server, fake, { name: "FakeSystem", models: ["fake-system"] });
    const s2 = await createSession(server, { providerId: sys.id, title: "Instruction e2e", toolsets: ["kb"] });
    await withContext(async (ctx) => {
      const page = await openApp(ctx, server, { hash: sessionHash(s2.id) });
      await waitSessionState(page, "idle");
      await page.getByTestId("kb-attach").click();
      await page.getByTestId("kb-attach-Garden").check();
      await page.getByTestId("kb-attach").filter({ hasText: render(msg(en.chat, "kb.attachCount"), { count: 1 }) }).waitFor();
      await page.keyboard.press("Escape");
      await sendWithEnter(page, "Which knowledge bases do you see?");
      await waitAssistantStatus(page, 0, "complete");
      const attached = (await storedAnswer(server, s2.id)).text;
      assert.match(attached, /attached to this conversation/);
      assert.match(attached, /"Garden": 1 files: "guide\.md"/);
      assert.doesNotMatch(attached, /Kitchen|soup\.md/);

      await page.getByTestId("kb-attach").click();
      await page.getByTestId("kb-attach-Garden").uncheck();
      await page.keyboard.press("Escape");
      assert.deepEqual(await server.result("GetSessionKBs", s2.id), []);
      await sendWithEnter(page, "And now?");
      await waitAssistantStatus(page, 1, "complete");
      const all = (await storedAnswer(server, s2.id)).text;
      assert.match(all, /The user's knowledge bases/);
      assert.match(all, /"Garden"/);
      assert.deepEqual(ctx.pageErrors, []);
    });
  });
});
