// Chat (issue 3) in real Chromium against `cairn serve` and the fake OpenAI provider
// (cmd/fakeopenai, which demands an API key here): a provider added and tested through
// Settings → Providers, Enter sends and streamed Markdown arrives (table, highlighted code
// with a working copy button, math), reasoning collapses, Stop and Esc keep what arrived,
// a wrong key shows a localized error whose action opens the providers (en and zh-CN),
// two tabs follow one stream live, and a tool round through a real MCP server.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  createSession,
  importEverything,
  lastAssistant,
  readStreamLog,
  recordStream,
  saveFakeProvider,
  sendWithEnter,
  sessionHash,
  startFakeOpenAI,
  storedAnswer,
  waitAssistantStatus,
  waitSessionState,
} from "./lib/chat.mjs";
import { SUITE_TIMEOUT_MS, locale, msg, openApp, screenshot, startServer, withContext } from "./lib/harness.mjs";

const en = { common: locale("en", "common"), settings: locale("en", "settings"), errors: locale("en", "errors"), chat: locale("en", "chat") };
const zh = { common: locale("zh-CN", "common"), settings: locale("zh-CN", "settings"), errors: locale("zh-CN", "errors"), chat: locale("zh-CN", "chat") };

const KEY = "sk-e2e-right-key-1234";
const WRONG_KEY = "sk-e2e-wrong-key-9999";

/** Fills an i18next template the way the app does. */
function render(template, params) {
  return template.replace(/\{\{(\w+)\}\}/g, (_, k) => String(params[k]));
}

/** The text of a template before its first {{variable}}. */
const prefixOf = (template) => template.split("{{")[0];

describe("chat: providers, streaming, stop, errors, tabs, tools", { timeout: SUITE_TIMEOUT_MS }, () => {
  let server;
  let fake;
  /** The provider the first test adds through the UI. */
  let provider;

  before(async () => {
    [fake, server] = await Promise.all([startFakeOpenAI({ apiKey: KEY }), startServer()]);
  });
  after(async () => {
    await Promise.all([server?.stop(), fake?.stop()]);
  });

  /** A session on the UI-added provider with the given model, opened in a new page of ctx. */
  async function openSession(ctx, modelId, extra = {}) {
    assert.ok(provider, "needs the provider the first test adds");
    const s = await createSession(server, { providerId: provider.id, model: modelId, ...extra });
    const page = await openApp(ctx, server, { hash: sessionHash(s.id) });
    await waitSessionState(page, "idle");
    return { session: s, page };
  }

  test("a provider added in Settings → Providers with a typed key passes the Test button", async () => {
    await withContext(async (ctx) => {
      const page = await openApp(ctx, server, { hash: "#/settings/providers" });
      await page.getByTestId("providers-empty").waitFor();
      await page.getByTestId("provider-add").click();
      await page.getByTestId("preset-custom").click();
      const form = page.getByTestId("provider-form");
      await form.getByTestId("provider-name").fill("Fake OpenAI");
      await form.getByTestId("provider-base-url").fill(fake.url);
      await form.getByTestId("provider-key").fill(KEY);

      // "Fetch models" stores the provider (with the key) and reads GET /v1/models.
      await form.getByTestId("provider-fetch-models").click();
      await form.locator('[data-testid="model-row"][data-model="fake-markdown"]').waitFor();
      assert.ok((await form.getByTestId("model-row").count()) >= 10, "the fake's models were listed");
      assert.equal(await form.getByTestId("provider-key").inputValue(), "", "the key field keeps no key");
      assert.equal(
        (await form.getByTestId("provider-key-status").innerText()).trim(),
        render(msg(en.settings, "providers.key.setLast4"), { last4: KEY.slice(-4) }),
      );
      await form.getByLabel(render(msg(en.settings, "providers.models.makeDefault"), { model: "fake-echo" })).check();
      await screenshot(page, "chat-01-provider-form");
      await form.getByTestId("provider-save").click();

      const card = page.getByTestId("provider-card");
      await card.getByTestId("provider-test").waitFor();
      assert.equal(await card.count(), 1);
      assert.equal(
        (await card.getByTestId("provider-key-badge").innerText()).trim(),
        render(msg(en.settings, "providers.key.setLast4"), { last4: KEY.slice(-4) }),
      );
      await card.getByTestId("provider-test").click();
      const ok = card.locator('[data-testid="provider-test-result"] .test-ok');
      await ok.waitFor();
      const okText = (await ok.innerText()).trim();
      const okPrefix = render(prefixOf(msg(en.settings, "providers.testOk")), {});
      assert.ok(okText.startsWith(okPrefix + "fake-echo"), `test result: ${okText}`);
      // The fake echoes ("You said: …"); the test request reads the first piece of it.
      const reply = /“(.+)”/.exec(okText)?.[1] ?? "";
      assert.ok(reply && "You said:".startsWith(reply.replace(/…$/, "")), `the fake's echo came back: ${okText}`);
      await screenshot(page, "chat-02-provider-test-ok");

      const { providers } = await server.result("ListProviders");
      assert.equal(providers.length, 1);
      provider = providers[0];
      assert.equal(provider.name, "Fake OpenAI");
      assert.equal(provider.baseUrl, fake.url);
      assert.equal(provider.keySet, true);
      assert.equal(provider.defaultModel, "fake-echo");
      assert.ok(!JSON.stringify(providers).includes(KEY), "ListProviders returned the key");
      assert.deepEqual(ctx.pageErrors, []);
    });
  });

  test("Enter sends and the answer streams in as Markdown: table, highlighted code with copy, math", async () => {
    assert.ok(provider, "needs the provider of the first test");
    await withContext(
      async (ctx) => {
        const page = await openApp(ctx, server, { hash: "#/settings/providers" });
        // A new chat from the sidebar follows the (only) provider; pick the model in its header.
        await page.getByTestId("new-chat").click();
        await waitSessionState(page, "idle");
        const view = page.getByTestId("session-view");
        const sessionId = await view.getAttribute("data-session-id");
        await page.getByTestId("session-model").selectOption("fake-markdown");
        await page.waitForFunction(() => document.querySelector('[data-testid="session-model"]')?.value === "fake-markdown");
        // The picker shows the choice at once; the backend stores it a moment later.
        let storedModel = "";
        for (let i = 0; i < 50 && storedModel !== "fake-markdown"; i++) {
          storedModel = (await server.result("GetSession", sessionId)).session.model;
          if (storedModel !== "fake-markdown") await new Promise((r) => setTimeout(r, 100));
        }
        assert.equal(storedModel, "fake-markdown");

        await recordStream(page);
        await sendWithEnter(page, "Show me a table, some Go and some math.");
        await page.getByTestId("message-user").filter({ hasText: "Show me a table" }).waitFor();
        await waitAssistantStatus(page, 0, "complete");
        await waitSessionState(page, "idle");
        assert.equal(await page.getByTestId("composer-input").inputValue(), "", "the draft was cleared");

        const log = await readStreamLog(page);
        assert.ok(log.viewStates.includes("streaming"), `view states: ${log.viewStates}`);
        assert.equal(log.viewStates.at(-1), "idle");
        assert.ok(log.partStates.includes("streaming") && log.partStates.at(-1) === "done", `part states: ${log.partStates}`);
        assert.ok(log.lengths.filter((n) => n > 0).length >= 3, `the text grew in steps: ${log.lengths}`);

        const answer = lastAssistant(page);
        const text = answer.getByTestId("part-text");
        await text.locator("h1", { hasText: "Cairn test answer" }).waitFor();
        // The GFM table.
        const table = text.locator("table");
        assert.deepEqual(await table.locator("th").allInnerTexts(), ["Tool", "Kind"]);
        assert.deepEqual(
          (await table.locator("tbody tr").allInnerTexts()).map((r) => r.replace(/\s+/g, " ").trim()),
          ["web_search web", "kb_search kb"],
        );
        // The code block: language label, highlighting (loaded on first use), copy.
        const code = text.locator('.code-block[data-lang="go"]');
        await code.locator("code.hljs").waitFor();
        assert.ok((await code.locator("code .hljs-keyword").count()) > 0, "Go keywords are highlighted");
        assert.equal((await code.locator(".code-block__lang").innerText()).trim(), "go");
        const copy = code.getByTestId("code-copy");
        assert.equal((await copy.innerText()).trim(), msg(en.chat, "code.copy"));
        await copy.click();
        await page.waitForFunction((want) => document.querySelector('[data-testid="code-copy"]')?.textContent?.trim() === want, msg(en.chat, "code.copied"));
        assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'func main() {\n\tfmt.Println("hello")\n}');
        // KaTeX math, inline and display.
        assert.equal(await text.getByTestId("math").count(), 2);
        assert.ok((await text.locator(".katex").count()) >= 2, "math rendered by KaTeX");
        // Usage, and the stored answer is what the page shows.
        await answer.getByTestId("message-usage").waitFor();
        const stored = await storedAnswer(server, sessionId);
        assert.equal(stored.message.status, "complete");
        assert.match(stored.text, /\| web_search \| web \|/);
        await screenshot(page, "chat-03-markdown");
        assert.deepEqual(ctx.pageErrors, []);
      },
      { permissions: ["clipboard-read", "clipboard-write"] },
    );
  });

  test("reasoning streams into a collapsible part that closes when done", async () => {
    await withContext(async (ctx) => {
      const { page } = await openSession(ctx, "fake-reasoning");
      await sendWithEnter(page, "What is the answer?");
      await waitAssistantStatus(page, 0, "complete");
      const answer = lastAssistant(page);
      const reasoning = answer.getByTestId("part-reasoning");
      await page.waitForSelector('[data-testid="part-reasoning"][data-state="done"]');
      assert.equal((await answer.getByTestId("part-text").innerText()).trim(), "The answer is 42.");
      // Done → collapsed, with the "Reasoning" label; a click opens and a second closes it.
      const toggle = reasoning.locator(".reasoning__toggle");
      assert.equal(await toggle.getAttribute("aria-expanded"), "false");
      assert.equal(await reasoning.locator(".reasoning__body").count(), 0);
      assert.match(await toggle.innerText(), new RegExp(`${msg(en.chat, "reasoning.done")}|${prefixOf(msg(en.chat, "reasoning.doneFor"))}`));
      await toggle.click();
      assert.equal(await toggle.getAttribute("aria-expanded"), "true");
      assert.match(await reasoning.locator(".reasoning__body").innerText(), /Let me think step by step\./);
      await screenshot(page, "chat-04-reasoning-open");
      await toggle.click();
      assert.equal(await toggle.getAttribute("aria-expanded"), "false");
      assert.equal(await reasoning.locator(".reasoning__body").count(), 0);
      assert.deepEqual(ctx.pageErrors, []);
    });
  });

  test("Stop (button or Esc) ends a slow stream: marked stopped, the text kept", async () => {
    await withContext(async (ctx) => {
      const { session, page } = await openSession(ctx, "fake-slow");
      const input = page.getByTestId("composer-input");
      const stops = [
        ["the Stop button", () => page.getByTestId("composer-stop").click()],
        ["Esc", async () => {
          await input.focus();
          await input.press("Escape");
        }],
      ];
      for (const [i, [how, stop]] of stops.entries()) {
        await sendWithEnter(page, `Talk slowly (${how}).`);
        await waitSessionState(page, "streaming");
        const answer = page.getByTestId("message-assistant").nth(i);
        // Wait for a few chunks, then stop.
        await page.waitForFunction(
          (n) => (document.querySelectorAll('[data-testid="message-assistant"]')[n]?.querySelector('[data-testid="part-text"]')?.textContent ?? "").length >= 33,
          i,
        );
        assert.equal(await answer.getAttribute("data-status"), "streaming");
        await stop();
        await waitAssistantStatus(page, i, "stopped");
        await waitSessionState(page, "idle");
        await answer.getByTestId("marker-stopped").waitFor();
        assert.equal((await answer.getByTestId("marker-stopped").innerText()).trim(), msg(en.chat, "message.stopped"));
        await page.getByTestId("composer-send").waitFor();

        const shown = (await answer.getByTestId("part-text").innerText()).trim();
        assert.match(shown, /^(slow token ?)+/, `${how}: kept text ${JSON.stringify(shown.slice(0, 60))}`);
        assert.ok(shown.length < "slow token ".repeat(300).length / 2, `${how}: the stream was not stopped early`);
        const stored = await storedAnswer(server, session.id);
        assert.equal(stored.message.status, "stopped", how);
        assert.equal(stored.text.trim(), shown, `${how}: what arrived is stored`);
        await screenshot(page, `chat-0${5 + i}-stopped-${i === 0 ? "button" : "esc"}`);
      }
      assert.deepEqual(ctx.pageErrors, []);
    });
  });

  test("a wrong API key shows a localized error whose action opens Settings → Providers (en, zh-CN)", async () => {
    const bad = await saveFakeProvider(server, fake, { name: "Wrong key", apiKey: WRONG_KEY, models: ["fake-markdown"] });
    try {
      await withContext(async (ctx) => {
        const session = await createSession(server, { providerId: bad.id });
        const page = await openApp(ctx, server, { hash: sessionHash(session.id) });
        await waitSessionState(page, "idle");
        const cases = [
          ["en", en, "chat-07-wrong-key-en"],
          ["zh-CN", zh, "chat-08-wrong-key-zh-CN"],
        ];
        for (const [i, [lng, L, shot]] of cases.entries()) {
          if (lng !== "en") {
            await server.result("SetSetting", "general.language", lng);
            await page.waitForSelector(`html[lang="${lng}"]`);
          }
          await sendWithEnter(page, `hello (${lng})`);
          await waitAssistantStatus(page, i, "error");
          const answer = page.getByTestId("message-assistant").nth(i);
          const error = answer.getByTestId("error-view");
          await error.waitFor();
          assert.equal(await error.count(), 1, "one error view per failed answer");
          assert.equal(await error.getAttribute("data-error-code"), "model_auth_failed");
          assert.equal((await error.locator(".error-view__text").innerText()).trim(), msg(L.errors, "model_auth_failed"));
          const action = error.getByRole("button", {
            name: render(msg(L.common, "errorView.openSettings"), { section: msg(L.settings, "sections.providers.title") }),
          });
          await screenshot(page, shot);
          await action.click();
          await page.getByTestId("providers-section").waitFor();
          assert.equal(new URL(page.url()).hash, "#/settings/providers");
          assert.equal((await page.locator("#settings-section-title").innerText()).trim(), msg(L.settings, "sections.providers.title"));
          // The provider with the bad key is listed there, its key set.
          await page.locator('[data-testid="provider-card"]', { hasText: "Wrong key" }).waitFor();
          // Back to the conversation through the sidebar.
          await page.locator(`[data-testid="session-item"][data-session-id="${session.id}"]`).click();
          await waitSessionState(page, "idle");
        }
        const stored = await storedAnswer(server, session.id);
        assert.equal(stored.message.status, "error");
        assert.equal(stored.message.error.code, "model_auth_failed");
        assert.deepEqual(stored.message.error.action, { kind: "open-settings", target: "providers" });
        assert.deepEqual(ctx.pageErrors, []);
      });
    } finally {
      await server.result("SetSetting", "general.language", "system");
      await server.result("DeleteProvider", bad.id);
    }
  });

  test("two tabs on one session see the same stream live; the second tab stops it", async () => {
    await withContext(async (ctx) => {
      const { session, page: a } = await openSession(ctx, "fake-slow");
      const b = await openApp(ctx, server, { hash: sessionHash(session.id) });
      await waitSessionState(b, "idle");
      await recordStream(b);

      await sendWithEnter(a, "Stream to both tabs.");
      // Tab B sees the user's message and the answer while it streams, growing.
      await b.getByTestId("message-user").filter({ hasText: "Stream to both tabs." }).waitFor();
      await waitSessionState(b, "streaming");
      const lengthIn = (n) => (p) =>
        p.waitForFunction(
          (min) => (document.querySelector('[data-testid="message-assistant"] [data-testid="part-text"]')?.textContent ?? "").length >= min,
          n,
        );
      await lengthIn(22)(b);
      await lengthIn(66)(b);
      await lengthIn(66)(a);
      assert.equal(await b.getByTestId("message-assistant").getAttribute("data-status"), "streaming");
      assert.equal(await a.getByTestId("message-assistant").getAttribute("data-status"), "streaming");
      await screenshot(a, "chat-09-two-tabs-a-streaming");
      await screenshot(b, "chat-10-two-tabs-b-streaming");

      // Tab B stops it; both show the same stopped answer.
      await b.getByTestId("composer-stop").click();
      for (const p of [a, b]) {
        await waitAssistantStatus(p, 0, "stopped");
        await waitSessionState(p, "idle");
        await p.getByTestId("marker-stopped").waitFor();
      }
      const log = await readStreamLog(b);
      assert.ok(log.lengths.filter((n) => n > 0).length >= 3, `tab B saw the text grow: ${log.lengths}`);
      assert.deepEqual(log.viewStates.slice(-2), ["streaming", "idle"]);
      const textA = (await a.getByTestId("part-text").innerText()).trim();
      const textB = (await b.getByTestId("part-text").innerText()).trim();
      assert.equal(textA, textB, "both tabs show the same text");
      assert.equal((await storedAnswer(server, session.id)).text.trim(), textA);
      assert.deepEqual(ctx.pageErrors, []);
    });
  });

  test("a tool round: the model calls server-everything's echo over MCP and the card shows the result", async () => {
    const everything = await importEverything(server);
    const echo = everything.wire("echo");
    assert.equal(everything.info("echo").needsApproval, false, "echo is read-only: it runs without asking");
    try {
      await withContext(async (ctx) => {
        const { session, page } = await openSession(ctx, "fake-echo-tool", { toolsets: ["mcp"] });
        await sendWithEnter(page, "hello from the e2e test");
        const card = page.locator(`[data-testid="tool-card"][data-tool="${echo}"]`);
        await card.waitFor();
        await page.waitForSelector(`[data-testid="tool-card"][data-tool="${echo}"][data-state="done"]`);
        await waitAssistantStatus(page, 0, "complete");
        const answer = lastAssistant(page);
        assert.equal((await answer.getByTestId("part-text").innerText()).trim(), "The tool returned: Echo: hello from the e2e test");
        // The card: server › tool, Done, and once opened the arguments and the result.
        assert.match(await card.locator(".tool-card__name").innerText(), /everything › echo/);
        assert.equal((await card.locator(".tool-state").innerText()).trim(), msg(en.chat, "tools.state.done"));
        await card.locator(".tool-card__head").click();
        const result = card.getByTestId("tool-result");
        await result.waitFor();
        // The MCP result is shown structured (its content blocks as JSON).
        assert.equal(await result.getAttribute("data-kind"), "json");
        assert.deepEqual(JSON.parse(await result.locator("pre").innerText()), {
          content: [{ type: "text", text: "Echo: hello from the e2e test" }],
        });
        assert.deepEqual(JSON.parse(await card.getByTestId("tool-args").textContent()), { message: "hello from the e2e test" });
        await screenshot(page, "chat-11-tool-round");

        const { message } = await storedAnswer(server, session.id);
        assert.deepEqual(
          message.parts.map((p) => p.type),
          ["tool-call", "tool-result", "text"],
        );
        assert.equal(message.parts[1].tool.content, "Echo: hello from the e2e test");
        assert.deepEqual(ctx.pageErrors, []);
      });
    } finally {
      await server.result("DeleteMCPServer", everything.id);
    }
  });
});
