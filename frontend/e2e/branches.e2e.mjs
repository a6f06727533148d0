// Kept versions in real Chromium against `cairn serve` and the fake OpenAI provider (its
// "history" scenario says how many turns a request carried, so the page shows which
// branch an answer was built from): regenerate keeps the earlier answer behind a "2 / 2"
// switcher, editing a question makes a new branch and the old one comes back with what
// followed it, the next turn builds on the chosen branch, and a search hit in a branch
// that is not shown opens that branch. At 1280x800 and 800x600.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createSession, lastAssistant, saveFakeProvider, sendWithEnter, sessionHash, startFakeOpenAI } from "./lib/chat.mjs";
import { SUITE_TIMEOUT_MS, openApp, screenshot, startServer, withContext } from "./lib/harness.mjs";

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

/** The bubbles' texts of the user messages shown. */
const questions = (page) => page.locator('[data-testid="message-user"] .message__bubble').allTextContents();

/** Waits until the last answer is complete and reads text (after a send or a switch). */
async function lastAnswerIs(page, text) {
  await page.waitForFunction((want) => {
    const all = document.querySelectorAll('[data-testid="message-assistant"]');
    const last = all[all.length - 1];
    return last?.getAttribute("data-status") === "complete" && last.textContent.includes(want);
  }, text);
}

const SIZES = [
  { width: 1280, height: 800 },
  { width: 800, height: 600 },
];

describe("branches: versions of answers and questions", { timeout: SUITE_TIMEOUT_MS }, () => {
  let server;
  let fake;
  let provider;

  before(async () => {
    [fake, server] = await Promise.all([startFakeOpenAI(), startServer()]);
    provider = await saveFakeProvider(server, fake, { name: "Fake", models: ["fake-history"] });
  });
  after(async () => {
    await Promise.all([server?.stop(), fake?.stop()]);
  });

  for (const size of SIZES) {
    const tag = `${size.width}x${size.height}`;
    test(`regenerate, edit, switch and search across branches at ${tag}`, async () => {
      const sess = await createSession(server, { providerId: provider.id, model: "fake-history", title: `Trip ${tag}` });
      await sendAndWait(server, sess.id, "one lighthouse");
      const first = await sendAndWait(server, sess.id, "two");
      const firstAnswer = first.messages[3].id;

      await withContext(
        async (ctx) => {
          const page = await openApp(ctx, server, { hash: sessionHash(sess.id) });
          await lastAnswerIs(page, "You said: two (after 2 turns)");

          // Regenerate: the new answer is version 2 of 2, the first one a click away.
          await lastAssistant(page).getByTestId("message-regenerate").click();
          await page.waitForFunction(() => {
            const all = document.querySelectorAll('[data-testid="message-assistant"]');
            return all[all.length - 1]?.querySelector('[data-testid="version-count"]')?.textContent === "2 / 2";
          });
          await lastAnswerIs(page, "You said: two");
          const second = await lastAssistant(page).getAttribute("data-message-id");
          assert.notEqual(second, firstAnswer);
          await screenshot(page, `branches-01-regenerated-${tag}`);
          await lastAssistant(page).getByTestId("version-prev").click();
          await page.locator(`[data-testid="message-assistant"][data-message-id="${firstAnswer}"]`).waitFor();
          assert.equal(await lastAssistant(page).getByTestId("version-count").textContent(), "1 / 2");
          await lastAssistant(page).getByTestId("version-next").click();
          await page.locator(`[data-testid="message-assistant"][data-message-id="${second}"]`).waitFor();

          // Edit the first question: a new branch; the old one stays behind its switcher.
          const firstQuestion = page.getByTestId("message-user").first();
          await firstQuestion.getByTestId("message-edit").click();
          await page.getByTestId("message-edit-input").fill("uno");
          await page.getByTestId("message-edit-save").click();
          await lastAnswerIs(page, "You said: uno (after 0 turns)");
          assert.deepEqual(await questions(page), ["uno"]);
          assert.equal(await page.getByTestId("message-user").getByTestId("version-count").textContent(), "2 / 2");
          await screenshot(page, `branches-02-edited-${tag}`);

          // The old branch comes back whole, with the regenerated answer still chosen,
          // and the next turn is built on it.
          await page.getByTestId("message-user").getByTestId("version-prev").click();
          await page.locator(`[data-testid="message-assistant"][data-message-id="${second}"]`).waitFor();
          assert.deepEqual(await questions(page), ["one lighthouse", "two"]);
          await sendWithEnter(page, "three");
          await lastAnswerIs(page, "You said: three (after 4 turns)");
          await screenshot(page, `branches-03-old-branch-continued-${tag}`);

          // Back on the edited branch, a search hit in the old one opens that branch.
          await page.getByTestId("message-user").first().getByTestId("version-next").click();
          await page.waitForFunction(() => document.querySelectorAll('[data-testid="message-user"]').length === 1);
          assert.deepEqual(await questions(page), ["uno"]);
          // Below 900 px the sidebar, search included, is a drawer: open it first.
          if (size.width < 900) await page.getByTestId("sidebar-toggle").click();
          await page.getByTestId("session-search").fill("lighthouse");
          const hit = page.locator(`[data-testid="message-hit"][data-message-id="${first.messages[0].id}"]`);
          await hit.waitFor();
          await hit.click();
          await page.locator(`[data-found] [data-message-id="${first.messages[0].id}"]`).waitFor();
          assert.deepEqual(await questions(page), ["one lighthouse", "two", "three"]);
          await screenshot(page, `branches-04-search-opened-branch-${tag}`);

          // The export keeps every branch and reads along the chosen path.
          const md = await server.result("ExportSession", sess.id, "md", { reasoning: false, labels: {} });
          const text = Buffer.from(md.data, "base64").toString("utf8");
          assert.match(text, /one lighthouse/);
          assert.doesNotMatch(text, /\buno\b/);
          assert.deepEqual(ctx.pageErrors, []);
        },
        { viewport: size },
      );
    });
  }
});
