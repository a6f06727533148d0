// Foundation: `cairn serve` in real Chromium — the token, language, settings broadcast
// between tabs, 401 without the token, 403 for a foreign Origin/Host, and a localized
// validation error.
import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, describe, test } from "node:test";
import { SUITE_TIMEOUT_MS, locale, msg, openApp, screenshot, startServer, withContext } from "./lib/harness.mjs";

const en = { common: locale("en", "common"), settings: locale("en", "settings"), errors: locale("en", "errors") };
const zh = { common: locale("zh-CN", "common"), settings: locale("zh-CN", "settings"), errors: locale("zh-CN", "errors") };

const GENERAL = "#/settings/general";
const LANGUAGE = '[data-testid="setting-general.language"]';
const THEME = '[data-testid="setting-general.theme"]';
const MAX_ROUNDS = '[data-testid="setting-chat.maxToolRounds"]';
const SECTION_TITLE = "#settings-section-title";

/** The part of a message before {{reason}}, with {{key}} filled in. */
/** Fills an i18next template the way the app does, so the test expects the exact text. */
function render(template, params) {
  return template.replace(/\{\{(\w+)\}\}/g, (_, k) => String(params[k]));
}

/** A raw HTTP request, so the Host header can be anything (fetch does not allow that). */
function rawRequest(origin, { method = "GET", path = "/", headers = {}, body } = {}) {
  const u = new URL(origin);
  return new Promise((res, rej) => {
    const req = request({ host: u.hostname, port: u.port, method, path, headers }, (r) => {
      let text = "";
      r.setEncoding("utf8");
      r.on("data", (c) => (text += c));
      r.on("end", () => res({ status: r.statusCode, text }));
    });
    req.on("error", rej);
    req.end(body);
  });
}

describe("foundation: cairn serve in Chromium", { timeout: SUITE_TIMEOUT_MS }, () => {
  let server;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await server?.stop();
  });

  test("opening the printed address with the token shows the ready app", async () => {
    await withContext(async (ctx) => {
      const page = await openApp(ctx, server);
      // The token moved from the address into the tab's session storage, and into no cookie.
      assert.ok(!page.url().includes("token="), `token still in the address: ${page.url()}`);
      assert.deepEqual(await ctx.cookies(), [], "the token must never be a cookie");
      assert.equal(await page.evaluate(() => sessionStorage.getItem("cairn.token")), server.token);
      await page.getByTestId("open-settings").waitFor();
      assert.equal(await page.getByTestId("open-settings").innerText(), msg(en.common, "sidebar.settings"));
      // A reload works on the kept token alone.
      await page.reload();
      await page.waitForSelector('body[data-ready="1"]');
      await screenshot(page, "01-ready");
      assert.deepEqual(ctx.pageErrors, []);
    });
  });

  test("switching the language to zh-CN and back changes the visible text", async () => {
    await withContext(async (ctx) => {
      const page = await openApp(ctx, server, { hash: GENERAL });
      const title = page.locator(SECTION_TITLE);
      const settingsLink = page.getByTestId("open-settings");
      assert.equal(await title.innerText(), msg(en.settings, "sections.general.title"));

      await page.selectOption(LANGUAGE, "zh-CN");
      await page.waitForSelector('html[lang="zh-CN"]');
      await page.waitForFunction(
        ([sel, want]) => document.querySelector(sel)?.textContent === want,
        [SECTION_TITLE, msg(zh.settings, "sections.general.title")],
      );
      assert.equal(await settingsLink.innerText(), msg(zh.common, "sidebar.settings"));
      assert.equal(await page.getByTestId("settings-nav-general").innerText(), msg(zh.settings, "sections.general.title"));
      await screenshot(page, "02-language-zh-CN");

      await page.selectOption(LANGUAGE, "en");
      await page.waitForSelector('html[lang="en"]');
      await page.waitForFunction(
        ([sel, want]) => document.querySelector(sel)?.textContent === want,
        [SECTION_TITLE, msg(en.settings, "sections.general.title")],
      );
      assert.equal(await settingsLink.innerText(), msg(en.common, "sidebar.settings"));
      await screenshot(page, "03-language-en");

      const stored = await server.result("GetSettings");
      assert.equal(stored.values["general.language"], "en");
      await server.result("SetSetting", "general.language", "system");
      await page.waitForFunction(() => document.querySelector('[data-testid="setting-general.language"]')?.value === "system");
      assert.deepEqual(ctx.pageErrors, []);
    });
  });

  test("a theme change in one tab shows in a second tab without a reload", async () => {
    await withContext(async (ctx) => {
      const a = await openApp(ctx, server, { hash: GENERAL });
      const b = await openApp(ctx, server, { hash: GENERAL });
      await b.evaluate(() => {
        window.__e2eSameDocument = true;
      });
      let bLoads = 0;
      b.on("load", () => bLoads++);
      assert.equal(await b.getAttribute("html", "data-theme"), "light");

      await a.selectOption(THEME, "dark");
      await b.waitForSelector('html[data-theme="dark"]');
      await b.waitForFunction((sel) => document.querySelector(sel)?.value === "dark", THEME);
      assert.equal(await b.evaluate(() => window.__e2eSameDocument), true, "tab B reloaded");
      await screenshot(a, "04-theme-tab-a");
      await screenshot(b, "05-theme-tab-b");

      // And back the other way: tab B changes it, tab A follows.
      await b.selectOption(THEME, "system");
      await a.waitForSelector('html[data-theme="light"]');
      await a.waitForFunction((sel) => document.querySelector(sel)?.value === "system", THEME);
      assert.equal(bLoads, 0, "tab B reloaded");
      assert.deepEqual(ctx.pageErrors, []);
    });
  });

  test("a request without the token gets 401; the page without it carries no data", async () => {
    const cases = [
      ["GET /api/health", server.fetch("/api/health")],
      ["POST /api/GetSettings", server.fetch("/api/GetSettings", { method: "POST", body: "[]", headers: { "Content-Type": "application/json" } })],
      ["GET /api/events", server.fetch("/api/events")],
      ["wrong bearer", server.fetch("/api/health", { headers: { Authorization: "Bearer not-the-token" } })],
      ["the token as a cookie", server.fetch("/api/health", { headers: { Cookie: `cairn_token=${server.token}` } })],
      ["wrong ?token=", server.fetch("/?token=not-the-token", { redirect: "manual" })],
    ];
    for (const [name, p] of cases) {
      const res = await p;
      assert.equal(res.status, 401, name);
      const text = await res.text();
      assert.ok(!text.includes(server.token), `${name}: the answer contains the token`);
      if (name.includes("/api/")) assert.equal(JSON.parse(text).error?.code, "unauthorized", name);
    }
    // The page itself needs no token (a reloaded tab has none in its address), but then it
    // carries no call's answer: the settings are data.
    await server.result("SetSetting", "chat.defaultSystemPrompt", "a private prompt");
    try {
      const bare = await server.fetch("/");
      assert.equal(bare.status, 200);
      assert.equal(bare.headers.get("set-cookie"), null);
      const html = await bare.text();
      assert.ok(!html.includes("a private prompt") && !html.includes('"GetSettings"'), "the page without the token carries data");
      const withToken = await (await server.fetch(`/?token=${server.token}`)).text();
      assert.ok(withToken.includes("a private prompt"), "the printed address carries the snapshot");
    } finally {
      await server.result("SetSetting", "chat.defaultSystemPrompt", "");
    }
    // The same requests with the token succeed, so the 401s above are about the token.
    assert.equal((await server.fetch("/api/health", { headers: server.authHeaders() })).status, 200);
    assert.equal((await server.call("GetSettings")).status, 200);

    // And in the browser: a new user agent without the token sees why, not the app.
    await withContext(async (ctx) => {
      const page = await ctx.newPage();
      const res = await page.goto(server.origin + "/");
      assert.equal(res?.status(), 200);
      await page.waitForFunction((want) => document.body.innerText.includes(want), msg(en.errors, "unauthorized"));
      assert.equal(await page.locator('body[data-ready="1"]').count(), 0);
      await screenshot(page, "06-no-token-401");
    });
  });

  test("a foreign Origin or Host is refused with 403", async () => {
    const port = new URL(server.origin).port;
    const post = (headers) =>
      server.fetch("/api/GetSettings", {
        method: "POST",
        body: "[]",
        headers: { ...server.authHeaders(), "Content-Type": "application/json", ...headers },
      });
    for (const origin of ["http://evil.example", `http://evil.example:${port}`, "http://127.0.0.1:1", "https://127.0.0.1:" + port, "null"]) {
      const res = await post({ Origin: origin });
      assert.equal(res.status, 403, `Origin ${origin}`);
      assert.equal((await res.json()).error?.code, "origin_rejected", `Origin ${origin}`);
    }
    // The page itself and the event stream refuse a foreign Origin too.
    assert.equal((await server.fetch("/", { headers: { ...server.authHeaders(), Origin: "http://evil.example" } })).status, 403);
    assert.equal((await server.fetch("/api/events", { headers: { ...server.authHeaders(), Origin: "http://evil.example" } })).status, 403);
    // DNS rebinding: the right token but a Host that is not this server.
    const rebound = await rawRequest(server.origin, {
      method: "POST",
      path: "/api/GetSettings",
      headers: { ...server.authHeaders(), Host: `evil.example:${port}`, "Content-Type": "application/json" },
      body: "[]",
    });
    assert.equal(rebound.status, 403, "foreign Host");
    // Control: this server's own Origin is accepted.
    assert.equal((await post({ Origin: server.origin })).status, 200, "own Origin");
  });

  test("an invalid setting value shows a localized error and is not stored", async () => {
    await withContext(async (ctx) => {
      const page = await openApp(ctx, server, { hash: GENERAL });
      const field = page.locator('[data-setting="chat.maxToolRounds"]');
      const error = field.locator('[data-testid="error-view"]');

      const enWant = render(msg(en.errors, "setting_out_of_range"), {
        key: msg(en.settings, "fields.chat.maxToolRounds.label"), min: 1, max: 100,
      });
      await page.fill(MAX_ROUNDS, "500");
      await page.press(MAX_ROUNDS, "Enter");
      await error.waitFor();
      assert.equal(await error.getAttribute("data-error-code"), "setting_out_of_range");
      const enText = await error.locator(".error-view__text").innerText();
      assert.equal(enText.trim(), enWant, "English error text");
      assert.equal(await page.inputValue(MAX_ROUNDS), "10", "the field went back to the stored value");
      await screenshot(page, "07-invalid-setting-en");

      // The same error in Chinese.
      await page.selectOption(LANGUAGE, "zh-CN");
      await page.waitForSelector('html[lang="zh-CN"]');
      const zhWant = render(msg(zh.errors, "setting_out_of_range"), {
        key: msg(zh.settings, "fields.chat.maxToolRounds.label"), min: 1, max: 100,
      });
      await page.fill(MAX_ROUNDS, "0");
      await page.press(MAX_ROUNDS, "Enter");
      await page.waitForFunction(
        ([want]) =>
          document
            .querySelector('[data-setting="chat.maxToolRounds"] [data-testid="error-view"] .error-view__text')
            ?.textContent?.trim() === want,
        [zhWant],
      );
      await screenshot(page, "08-invalid-setting-zh-CN");

      const stored = await server.result("GetSettings");
      assert.equal(stored.values["chat.maxToolRounds"], 10, "an invalid value was stored");
      await page.selectOption(LANGUAGE, "system");
      await page.waitForSelector('html[lang="en"]');
      assert.deepEqual(ctx.pageErrors, []);
    });
  });
});
