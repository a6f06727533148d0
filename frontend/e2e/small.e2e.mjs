// A small window (800x600 and lower) in real Chromium: the sidebar and the Settings
// navigation are drawers (focus moves in, Esc closes and gives it back), nothing overflows
// sideways, and the approval dialog keeps its question and its buttons in view.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createSession, importEverything, saveFakeProvider, sendWithEnter, sessionHash, startFakeOpenAI, waitSessionState } from "./lib/chat.mjs";
import { SUITE_TIMEOUT_MS, openApp, screenshot, startServer, withContext } from "./lib/harness.mjs";

const SMALL = { viewport: { width: 800, height: 600 } };
const testid = (page) => page.evaluate(() => document.activeElement?.getAttribute("data-testid") ?? document.activeElement?.tagName);

/** Whether the element's box lies inside the viewport. */
async function inView(page, locator) {
  const box = await locator.boundingBox();
  const vp = page.viewportSize();
  return box !== null && box.y >= 0 && box.x >= 0 && box.y + box.height <= vp.height + 0.5 && box.x + box.width <= vp.width + 0.5;
}

async function noSidewaysScroll(page, what) {
  const [sw, w] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  assert.ok(sw <= w, `${what}: the page scrolls sideways (${sw} > ${w})`);
}

describe("small windows: drawers, no overflow, dialogs in view", { timeout: SUITE_TIMEOUT_MS }, () => {
  let server;
  let fake;
  let session;
  let callSession;

  before(async () => {
    [fake, server] = await Promise.all([startFakeOpenAI(), startServer()]);
    const provider = await saveFakeProvider(server, fake, { name: "Fake", models: ["fake-markdown", "fake-call"] });
    session = await createSession(server, { providerId: provider.id, model: "fake-markdown", title: "A conversation with a rather long title that must not push anything out of the header" });
    callSession = await createSession(server, { providerId: provider.id, model: "fake-call", title: "Approval", toolsets: ["mcp"] });
    await importEverything(server);
  });
  after(async () => {
    await Promise.all([server?.stop(), fake?.stop()]);
  });

  test("800x600: the sidebar is a drawer; a conversation opened from it gets the cursor", async () => {
    await withContext(async (ctx) => {
      const page = await openApp(ctx, server, { hash: "#/" });
      const sidebar = page.getByRole("complementary");
      const toggle = page.getByTestId("sidebar-toggle");
      assert.equal(await sidebar.isVisible(), false, "the sidebar is hidden in a small window");
      assert.equal(Math.round((await page.locator("#main").boundingBox()).width), 800, "the main pane takes the whole width");
      assert.equal(await toggle.getAttribute("aria-expanded"), "false");
      await toggle.click();
      await page.waitForFunction(() => document.activeElement?.closest("aside") !== null);
      assert.equal(await toggle.getAttribute("aria-expanded"), "true");
      await screenshot(page, "small-drawer-open");
      await page.keyboard.press("Escape");
      await page.waitForFunction(() => document.activeElement?.getAttribute("data-testid") === "sidebar-toggle");
      await sidebar.waitFor({ state: "hidden", timeout: 2000 }); // after its slide out

      await toggle.click();
      await page.getByTestId("session-item").filter({ hasText: "rather long title" }).click();
      await page.getByTestId("session-view").waitFor();
      await page.waitForFunction(() => document.activeElement?.getAttribute("data-testid") === "composer-input");
      await sidebar.waitFor({ state: "hidden", timeout: 2000 }); // opening a conversation closes the drawer
      await sendWithEnter(page, "Show me some Markdown");
      await waitSessionState(page, "idle");
      await noSidewaysScroll(page, "conversation");
      await screenshot(page, "small-conversation");
    }, SMALL);
  });

  test("800x600: the Settings navigation is a drawer that names the section", async () => {
    await withContext(async (ctx) => {
      const page = await openApp(ctx, server, { hash: "#/settings/general" });
      const toggle = page.getByTestId("settings-nav-toggle");
      await toggle.waitFor();
      assert.match(await toggle.innerText(), /General/);
      assert.equal(await page.getByTestId("settings-nav-about").isVisible(), false);
      assert.ok((await page.getByTestId("settings-section-general").boundingBox()).width > 700, "the section takes the width the navigation left");
      await toggle.click();
      await page.waitForFunction(() => document.activeElement?.closest("nav.settings__nav") !== null);
      await screenshot(page, "small-settings-nav");
      await page.getByTestId("settings-nav-about").click();
      await page.getByTestId("settings-section-about").waitFor();
      assert.equal(await testid(page), "H2", "the new section's heading has the focus");
      assert.equal(await page.getByTestId("settings-nav-about").isVisible(), false, "choosing a section closes the drawer");
      assert.match(await toggle.innerText(), /About/);
      for (const s of ["providers", "mcp", "permissions", "about"]) {
        await page.evaluate((h) => (location.hash = h), `#/settings/${s}`);
        await page.getByTestId(`settings-section-${s}`).waitFor();
        await noSidewaysScroll(page, `settings ${s}`);
      }
    }, SMALL);
  });

  test("800x420: the approval dialog keeps its question and its buttons in view", async () => {
    await withContext(async (ctx) => {
      const page = await openApp(ctx, server, { hash: sessionHash(callSession.id) });
      await sendWithEnter(page, "toggle-subscriber-updates");
      const dialog = page.getByTestId("approval-dialog");
      await dialog.waitFor();
      for (const height of [600, 420]) {
        await page.setViewportSize({ width: 800, height });
        assert.ok(await inView(page, dialog.locator(".dialog__title")), `the question is out of view at ${height} px`);
        assert.ok(await inView(page, page.getByTestId("approval-allow")), `Allow is out of view at ${height} px`);
        await screenshot(page, `small-approval-${height}`);
      }
      await page.getByTestId("approval-deny").click();
      await dialog.waitFor({ state: "detached" });
      await waitSessionState(page, "idle");
    }, SMALL);
  });
});
