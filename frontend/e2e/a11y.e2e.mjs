// Accessibility in real Chromium: axe-core (WCAG 2 A and AA rules, text contrast included)
// on every main screen, in both themes and both languages, with a conversation that has
// Markdown, code and a tool card in it; and the global keyboard shortcuts.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { after, before, describe, test } from "node:test";
import { createSession, saveFakeProvider, sendWithEnter, sessionHash, startFakeOpenAI, waitSessionState } from "./lib/chat.mjs";
import { SUITE_TIMEOUT_MS, openApp, screenshot, startServer, withContext } from "./lib/harness.mjs";

// Evaluated through the DevTools protocol, which the page's CSP (script-src 'self') does not
// govern, so the app is checked under its real policy.
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** The screens a user spends time on. */
const SCREENS = [
  ["home", "#/"],
  ["conversation", null], // the session made in before()
  ["settings-general", "#/settings/general"],
  ["settings-providers", "#/settings/providers"],
  ["settings-assistants", "#/settings/assistants"],
  ["settings-web-search", "#/settings/web-search"],
  ["settings-knowledge", "#/settings/knowledge"],
  ["settings-mcp", "#/settings/mcp"],
  ["settings-tools", "#/settings/tools"],
  ["settings-permissions", "#/settings/permissions"],
  ["settings-about", "#/settings/about"],
];

/** axe's violations on the page, as lines a failure can print. */
async function violations(page) {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE);
  const found = await page.evaluate(async () => {
    const r = await window.axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] }, resultTypes: ["violations"] });
    return r.violations.map((v) => ({ id: v.id, nodes: v.nodes.slice(0, 4).map((n) => `${n.target.join(" ")}: ${n.failureSummary?.split("\n").slice(1, 2).join("")}`) }));
  });
  return found.flatMap((v) => v.nodes.map((n) => `${v.id} ${n}`));
}

describe("a11y: axe-core on every main screen, both themes, both languages", { timeout: SUITE_TIMEOUT_MS * 2 }, () => {
  let server;
  let fake;
  let session;

  before(async () => {
    [fake, server] = await Promise.all([startFakeOpenAI(), startServer()]);
    const provider = await saveFakeProvider(server, fake, { name: "Fake", models: ["fake-markdown"] });
    session = await createSession(server, { providerId: provider.id, title: "Accessibility" });
    await withContext(async (ctx) => {
      const page = await openApp(ctx, server, { hash: sessionHash(session.id) });
      await sendWithEnter(page, "Show me some Markdown");
      await waitSessionState(page, "idle");
    });
  });
  after(async () => {
    await Promise.all([server?.stop(), fake?.stop()]);
  });

  for (const theme of ["light", "dark"]) {
    for (const lang of ["en", "zh-CN"]) {
      test(`${theme}, ${lang}: no violations`, async () => {
        await server.result("SetSetting", "general.theme", theme);
        await server.result("SetSetting", "general.language", lang);
        await withContext(async (ctx) => {
          const problems = [];
          // One tab for all screens: the settings change reaches it live, and each screen is
          // a hash change, as a user moves through the app.
          const page = await openApp(ctx, server);
          await page.waitForFunction(([t, l]) => document.documentElement.dataset.theme === t && document.documentElement.lang === l, [theme, lang]);
          for (const [name, hash] of SCREENS) {
            await page.evaluate((h) => (location.hash = h), hash ?? sessionHash(session.id));
            if (name === "conversation") await page.getByTestId("message-assistant").first().waitFor();
            else if (name.startsWith("settings-")) await page.locator(`[data-testid="settings-section-${name.slice(9)}"]`).waitFor();
            else await page.getByTestId("session-view").waitFor({ state: "detached" });
            await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]')).catch(() => {});
            for (const v of await violations(page)) problems.push(`${name}: ${v}`);
            if (lang === "en") await screenshot(page, `a11y-${theme}-${name}`);
          }
          assert.deepEqual(problems, [], `axe found:\n${problems.join("\n")}`);
        });
      });
    }
  }

  test("the shortcuts: new chat focuses the composer, Ctrl+K the search, ? lists them all", async () => {
    await server.result("SetSetting", "general.language", "en");
    await withContext(async (ctx) => {
      const page = await openApp(ctx, server, { hash: "#/settings/general" });
      await page.keyboard.press("Control+Shift+O");
      await page.getByTestId("session-view").waitFor();
      await page.waitForFunction(() => document.activeElement?.getAttribute("data-testid") === "composer-input");
      await page.keyboard.press("Control+k");
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("data-testid")), "session-search");
      await page.getByTestId("open-settings").focus();
      await page.keyboard.press("Shift+?");
      const dialog = page.getByTestId("shortcuts-dialog");
      await dialog.waitFor();
      assert.equal(await dialog.locator("[data-shortcut]").count(), 7);
      assert.deepEqual(await violations(page), []);
      await screenshot(page, "a11y-shortcuts");
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("data-testid")), "open-settings");
    });
  });
});
