// Assistants and conversation settings in real Chromium against `cairn serve` and the fake
// model server's "params" scenario, which answers with what the request carried (system
// text, temperature, top-p, max tokens, how many messages): an assistant made in Settings
// and a built-in one start conversations whose requests carry their settings, the header
// names the assistant, a conversation's own settings change the next request, and the
// pages pass axe at 1280x800 and 800x600.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { after, before, describe, test } from "node:test";
import { createSession, saveFakeProvider, sendWithEnter, sessionHash, startFakeOpenAI, storedAnswer, waitAssistantStatus } from "./lib/chat.mjs";
import { SUITE_TIMEOUT_MS, openApp, screenshot, startServer, withContext } from "./lib/harness.mjs";

const WIDE = { viewport: { width: 1280, height: 800 } };
const SMALL = { viewport: { width: 800, height: 600 } };
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** axe's WCAG 2 A/AA violations on the page (evaluated over DevTools, so the CSP holds). */
async function violations(page) {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE);
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] }, resultTypes: ["violations"] });
    return r.violations.flatMap((v) => v.nodes.slice(0, 3).map((n) => `${v.id} ${n.target.join(" ")}`));
  });
}

/** Sends text, waits for the answer, and returns what the model saw (the params JSON). */
async function ask(page, server, text) {
  const id = await page.getByTestId("session-view").getAttribute("data-session-id");
  const before = await page.getByTestId("message-assistant").count();
  await sendWithEnter(page, text);
  await waitAssistantStatus(page, before, "complete");
  const { text: answer } = await storedAnswer(server, id);
  const m = /```json\n([\s\S]*?)\n```/.exec(answer);
  assert.ok(m, `the answer has the request's parameters: ${answer}`);
  return JSON.parse(m[1]);
}

async function inView(page, locator) {
  const box = await locator.boundingBox();
  const vp = page.viewportSize();
  return box !== null && box.y >= 0 && box.x >= 0 && box.y + box.height <= vp.height + 0.5 && box.x + box.width <= vp.width + 0.5;
}

describe("assistants: presets to start from, conversation settings reach the model", { timeout: SUITE_TIMEOUT_MS }, () => {
  let server;
  let fake;
  let provider;

  before(async () => {
    [fake, server] = await Promise.all([startFakeOpenAI(), startServer()]);
    provider = await saveFakeProvider(server, fake, { name: "Fake", models: ["fake-params", "fake-echo"], defaultModel: "fake-params" });
  });
  after(async () => {
    await Promise.all([server?.stop(), fake?.stop()]);
  });

  test("1280x800: an assistant made in Settings starts a chat from the New chat menu, with all it says", async () => {
    await withContext(async (ctx) => {
      const page = await openApp(ctx, server, { hash: "#/settings/assistants" });
      const section = page.getByTestId("settings-section-assistants");
      await section.getByTestId("assistant-row").first().waitFor();
      assert.deepEqual(await section.getByTestId("assistant-row").evaluateAll((rs) => rs.map((r) => r.dataset.id)), ["translator", "writing-editor", "code-reviewer", "researcher"]);

      await page.getByTestId("assistant-new").click();
      const form = page.getByTestId("assistant-form");
      await form.getByTestId("assistant-name").fill("Haiku poet");
      await form.locator("label.assistant-icons__choice", { hasText: "🎨" }).click();
      assert.equal(await form.getByRole("radio", { name: "🎨" }).isChecked(), true);
      await form.getByTestId("assistant-instructions").fill("Answer in haiku form.");
      await form.getByTestId("assistant-provider").selectOption({ label: "Fake" });
      await form.getByTestId("assistant-model").selectOption("fake-params");
      await form.getByTestId("assistant-temperature-default").uncheck(); // 0.7
      await form.getByTestId("assistant-max-tokens").fill("222");
      await form.getByTestId("assistant-context-messages").fill("2");
      assert.deepEqual(await violations(page), [], "axe on the assistant form");
      await screenshot(page, "assistants-01-form");
      await form.getByTestId("assistant-save").click();
      await form.waitFor({ state: "detached" });
      const row = section.getByTestId("assistant-row").filter({ hasText: "Haiku poet" });
      await row.waitFor();
      assert.match(await row.innerText(), /Fake · fake-params/);
      assert.deepEqual(await violations(page), [], "axe on Settings → Assistants");
      await screenshot(page, "assistants-02-list");

      // New chat from the menu: arrow keys move, Enter starts.
      await page.getByTestId("new-chat-assistant").click();
      const menu = page.getByTestId("assistant-menu");
      await menu.waitFor();
      await page.waitForFunction(() => document.activeElement?.dataset.id === "translator");
      await page.keyboard.press("End");
      await page.keyboard.press("ArrowUp"); // the last item is "Manage assistants"
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), "🎨Haiku poet");
      assert.deepEqual(await violations(page), [], "axe with the New chat menu open");
      await screenshot(page, "assistants-03-menu");
      await page.keyboard.press("Enter");
      await page.getByTestId("session-view").waitFor();
      const badge = page.getByTestId("session-assistant");
      await badge.waitFor();
      assert.match(await badge.innerText(), /🎨[\s\S]*Haiku poet/);
      const first = await ask(page, server, "Write about autumn");
      assert.match(first.system, /Answer in haiku form\./);
      assert.equal(first.temperature, 0.7);
      assert.equal(first.top_p, null);
      assert.equal(first.max_tokens, 222);
      assert.equal(first.model, "fake-params");
      assert.equal(first.messages, 1);
      await ask(page, server, "Again");
      const third = await ask(page, server, "Once more");
      assert.equal(third.messages, 3, "two earlier messages and the question");
      await screenshot(page, "assistants-04-conversation");

      // A built-in one: its instructions and temperature, and its name in the header.
      await page.getByTestId("new-chat-assistant").click();
      await menu.locator('[data-id="translator"]').click();
      await page.waitForFunction(() => document.querySelector('[data-testid="session-assistant"]')?.dataset.id === "translator");
      const tr = await ask(page, server, "Guten Morgen");
      assert.match(tr.system, /professional translator/);
      assert.equal(tr.temperature, 0.3);
      assert.deepEqual(ctx.pageErrors, []);
    }, WIDE);
  });

  test("1280x800: a conversation's system prompt, temperature, top-p, max tokens and history reach the next request", async () => {
    const session = await createSession(server, { providerId: provider.id, model: "fake-params", title: "Settings e2e" });
    await withContext(async (ctx) => {
      const page = await openApp(ctx, server, { hash: sessionHash(session.id) });
      const plain = await ask(page, server, "First");
      assert.equal(plain.temperature, null);
      assert.equal(plain.max_tokens, 0);

      await page.getByTestId("session-settings-open").click();
      const dlg = page.getByTestId("session-settings");
      await dlg.getByTestId("session-system-prompt").fill("Reply tersely.");
      await dlg.getByLabel("Provider default").first().uncheck(); // the temperature's: 0.7
      const temp = dlg.getByTestId("session-temperature");
      await temp.focus();
      for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowRight");
      await dlg.getByTestId("session-top-p-default").uncheck(); // 1
      const topP = dlg.getByTestId("session-top-p");
      await topP.focus();
      for (let i = 0; i < 2; i++) await page.keyboard.press("ArrowLeft");
      await dlg.getByTestId("session-max-tokens").fill("100");
      await dlg.getByTestId("session-context-messages").fill("1");
      await screenshot(page, "assistants-05-session-settings");
      await dlg.getByTestId("session-settings-save").click();
      await dlg.waitFor({ state: "detached" });
      const changed = await ask(page, server, "Second");
      assert.match(changed.system, /Reply tersely\./);
      assert.equal(changed.temperature, 1);
      assert.equal(changed.top_p, 0.9);
      assert.equal(changed.max_tokens, 100);
      assert.equal(changed.messages, 2, "one earlier message and the question");

      // Back to the provider's default temperature: the next request leaves it out.
      await page.getByTestId("session-settings-open").click();
      await dlg.getByLabel("Provider default").first().check();
      await dlg.getByTestId("session-settings-save").click();
      await dlg.waitFor({ state: "detached" });
      const reset = await ask(page, server, "Third");
      assert.equal(reset.temperature, null);
      assert.equal(reset.top_p, 0.9);
      assert.deepEqual(ctx.pageErrors, []);
    }, WIDE);
  });

  test("800x600: the menu in the sidebar drawer, the header badge and the Settings page fit; axe in dark Chinese", async () => {
    await server.result("SetSetting", "general.theme", "dark");
    await server.result("SetSetting", "general.language", "zh-CN");
    try {
      await withContext(async (ctx) => {
        const page = await openApp(ctx, server, { hash: "#/" });
        await page.waitForFunction(() => document.documentElement.lang === "zh-CN" && document.documentElement.dataset.theme === "dark");
        await page.getByTestId("sidebar-toggle").click();
        const open = page.getByTestId("new-chat-assistant");
        await open.click();
        const menu = page.getByTestId("assistant-menu");
        await menu.waitFor();
        assert.ok(await inView(page, menu), "the menu is inside the window");
        assert.match(await menu.innerText(), /代码审查/);
        assert.deepEqual(await violations(page), [], "axe with the menu open in the drawer");
        await screenshot(page, "assistants-06-small-menu");
        await menu.locator('[data-id="code-reviewer"]').click();
        const badge = page.getByTestId("session-assistant");
        await badge.waitFor();
        assert.ok(await inView(page, badge), "the header's badge is in view");
        const [sw, w] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
        assert.ok(sw <= w, `the page scrolls sideways (${sw} > ${w})`);
        await screenshot(page, "assistants-07-small-conversation");

        await page.evaluate(() => (location.hash = "#/settings/assistants"));
        await page.getByTestId("settings-section-assistants").getByTestId("assistant-row").first().waitFor();
        await page.getByTestId("assistant-new").click();
        const form = page.getByTestId("assistant-form");
        await form.waitFor();
        assert.ok(await inView(page, form.getByTestId("assistant-save")), "the form's Save stays in view");
        assert.deepEqual(await violations(page), [], "axe on the form at 800x600");
        await screenshot(page, "assistants-08-small-form");
        await page.keyboard.press("Escape");
        await form.waitFor({ state: "detached" });
        assert.deepEqual(await violations(page), [], "axe on Settings → Assistants at 800x600");
        assert.deepEqual(ctx.pageErrors, []);
      }, SMALL);
    } finally {
      await server.result("SetSetting", "general.theme", "system");
      await server.result("SetSetting", "general.language", "system");
    }
  });
});
