// Finding conversations (issue 22) in real Chromium against `cairn serve` and the fake
// OpenAI provider: a word deep in a long conversation and a two-character Chinese word
// are found by the sidebar search, the hit's snippet marks the match, and opening the hit
// lands on the message, scrolled into view and highlighted; an archived conversation is
// still found and the Archived view restores it.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createSession, saveFakeProvider, startFakeOpenAI } from "./lib/chat.mjs";
import { SUITE_TIMEOUT_MS, locale, msg, openApp, screenshot, startServer, withContext } from "./lib/harness.mjs";

const en = locale("en", "common");

/** Sends text through the API and waits until the answer has ended. */
async function sendAndWait(server, sessionId, text) {
  await server.result("SendMessage", sessionId, text, []);
  for (let i = 0; i < 200; i++) {
    const snap = await server.result("GetSession", sessionId);
    if (snap.state === "idle" && snap.messages.at(-1)?.status !== "streaming") return snap;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`the answer in ${sessionId} did not end`);
}

describe("findchat: message search, landing on the message, archive", { timeout: SUITE_TIMEOUT_MS }, () => {
  let server;
  let fake;
  let long;
  let targetId;

  before(async () => {
    [fake, server] = await Promise.all([startFakeOpenAI(), startServer()]);
    const provider = await saveFakeProvider(server, fake, { name: "Fake", models: ["fake-echo"] });
    long = await createSession(server, { providerId: provider.id, model: "fake-echo", title: "Long trip" });
    const snap = await sendAndWait(server, long.id, "The lighthouse keeper said 灯塔 lights stay on");
    targetId = snap.messages.find((m) => m.role === "user").id;
    for (let i = 0; i < 14; i++) await sendAndWait(server, long.id, `filler message number ${i} about nothing in particular`);
    const other = await createSession(server, { providerId: provider.id, model: "fake-echo", title: "Old notes" });
    await sendAndWait(server, other.id, "remember the zeppelin");
    await server.result("ArchiveSession", other.id, true);
  });
  after(async () => {
    await Promise.all([server?.stop(), fake?.stop()]);
  });

  for (const [query, mark] of [
    ["lighthouse", "lighthouse"],
    ["灯塔", "灯塔"],
  ]) {
    test(`searching “${query}” opens the conversation at the highlighted message`, async () => {
      await withContext(async (ctx) => {
        const page = await openApp(ctx, server);
        await page.getByTestId("session-search").fill(query);
        const hit = page.locator(`[data-testid="message-hit"][data-message-id="${targetId}"]`);
        await hit.waitFor();
        assert.equal(await hit.locator("mark").first().textContent(), mark);
        assert.match(await hit.textContent(), /Long trip/);
        await screenshot(page, `findchat-01-hits-${query === "灯塔" ? "zh" : "en"}`);
        await hit.click();
        const found = page.locator(`[data-found] [data-message-id="${targetId}"]`);
        await found.waitFor();
        // In view: the message list scrolled away from the end, to the message.
        await page.waitForFunction((id) => {
          const el = document.querySelector(`[data-message-id="${id}"]`);
          const list = document.querySelector('[data-testid="message-list"]');
          if (!el || !list) return false;
          const a = el.getBoundingClientRect();
          const b = list.getBoundingClientRect();
          return a.bottom > b.top && a.top < b.bottom && list.scrollTop + list.clientHeight < list.scrollHeight - 50;
        }, targetId);
        assert.match(page.url(), new RegExp(`#/session/${long.id}/${targetId}$`));
        await screenshot(page, `findchat-02-landed-${query === "灯塔" ? "zh" : "en"}`);
        assert.deepEqual(ctx.pageErrors, []);
      });
    });
  }

  test("an archived conversation is still found and the Archived view restores it", async () => {
    await withContext(async (ctx) => {
      const page = await openApp(ctx, server);
      const titles = () => page.locator('[data-testid="session-item"] .session-item__title').allTextContents();
      await page.getByTestId("archived-open").waitFor();
      assert.deepEqual(await titles(), ["Long trip"]);
      await page.getByTestId("session-search").fill("zeppelin");
      const hit = page.getByTestId("message-hit").first();
      await hit.waitFor();
      assert.match(await hit.textContent(), new RegExp(msg(en, "find.archivedBadge")));
      await page.getByTestId("session-search").fill("");
      await page.getByTestId("archived-open").click();
      await page.getByText(msg(en, "find.archived"), { exact: true }).waitFor();
      assert.deepEqual(await titles(), ["Old notes"]);
      // The row's actions show on hover or focus, as a pointer user reaches them.
      await page.getByTestId("session-item").first().hover();
      await page.getByTestId("session-more").click();
      await page.getByTestId("session-menu").waitFor();
      await screenshot(page, "findchat-03-archived-menu");
      await page.getByTestId("session-archive").click();
      await page.getByTestId("archived-back").click();
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="session-item"]').length === 2);
      assert.deepEqual((await titles()).sort(), ["Long trip", "Old notes"]);
      await screenshot(page, "findchat-04-restored");
      assert.deepEqual(ctx.pageErrors, []);
    });
  });
});
