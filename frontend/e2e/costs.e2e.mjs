// Tokens and cost in real Chromium against `cairn serve` and the fake OpenAI provider,
// whose "usage" scenario reports 1,200 prompt tokens (1,000 cached), 300 completion
// tokens (100 reasoning) and whose model list prices fake-usage the way OpenRouter does
// (USD 2 / 0.50 cached / 8 per million): the answer shows its tokens and its cost at the
// provider's list price, the header the conversation's total; a price edited in
// Settings → Providers changes both, and the next answer adds up. At 1280x800 and
// 800x600.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createSession, lastAssistant, saveFakeProvider, sendWithEnter, sessionHash, startFakeOpenAI } from "./lib/chat.mjs";
import { SUITE_TIMEOUT_MS, openApp, screenshot, startServer, withContext } from "./lib/harness.mjs";

const SIZES = [
  { width: 1280, height: 800 },
  { width: 800, height: 600 },
];

/** Waits until the page shows `count` complete answers, the last with a usage line. */
async function answersDone(page, count) {
  await page.waitForFunction((n) => {
    const all = document.querySelectorAll('[data-testid="message-assistant"]');
    return all.length === n && all[n - 1].getAttribute("data-status") === "complete" && all[n - 1].querySelector('[data-testid="message-usage"]');
  }, count);
}

/** Waits until an element's text is want (the page reloads costs after a price change). */
async function textIs(page, selector, want) {
  try {
    await page.waitForFunction(([s, w]) => document.querySelector(s)?.textContent?.trim() === w, [selector, want], { timeout: 10_000 });
  } catch (e) {
    const got = await page.locator(selector).first().textContent().catch(() => null);
    throw new Error(`${selector}: want ${JSON.stringify(want)}, got ${JSON.stringify(got)} (${e.message})`);
  }
}

/** Nothing in the view is wider than the window (no sideways scrolling). */
async function noOverflow(page, what) {
  const wide = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(wide <= 0, `${what}: the page is ${wide}px wider than the window`);
}

describe("costs: tokens and cost of answers", { timeout: SUITE_TIMEOUT_MS }, () => {
  let server;
  let fake;
  let provider;

  before(async () => {
    [fake, server] = await Promise.all([startFakeOpenAI(), startServer()]);
    provider = await saveFakeProvider(server, fake, { name: "Fake", models: ["fake-usage"] });
    provider = await server.result("FetchModels", provider.id); // the list price comes with the list
    const m = provider.models.find((x) => x.id === "fake-usage");
    assert.equal(m?.price?.source, "provider", "fake-usage is priced by the provider's list");
  });
  after(async () => {
    await Promise.all([server?.stop(), fake?.stop()]);
  });

  for (const size of SIZES) {
    const tag = `${size.width}x${size.height}`;
    test(`an answer's tokens and cost, the total, and an edited price at ${tag}`, async () => {
      const sess = await createSession(server, { providerId: provider.id, model: "fake-usage", title: `Costs ${tag}` });
      await withContext(
        async (ctx) => {
          const page = await openApp(ctx, server, { hash: sessionHash(sess.id) });
          await sendWithEnter(page, "How much was that?");
          await answersDone(page, 1);
          const usage = lastAssistant(page).getByTestId("message-usage");
          assert.match(await usage.textContent(), /^1,500 tokens · 1,200 in \(1,000 cached\) · 300 out \(100 reasoning\)/);
          await textIs(page, '[data-testid="message-cost"]', "$0.0033 (At the provider's list price)");
          assert.equal(await lastAssistant(page).getByTestId("message-cost").getAttribute("title"), "At the provider's list price");
          await textIs(page, '[data-testid="session-total-tokens"]', "1.5K tokens");
          await textIs(page, '[data-testid="session-total-cost"]', "· $0.0033");
          await noOverflow(page, "the conversation");
          await screenshot(page, `costs-01-answer-${tag}`);

          // Settings → Providers: the price, where it comes from, edited.
          await page.evaluate(() => (location.hash = "#/settings/providers"));
          const prices = page.getByTestId("model-prices");
          await prices.locator("summary").click();
          const row = page.locator('[data-testid="price-row"][data-model="fake-usage"]');
          await row.getByTestId("price-source").filter({ hasText: "Provider's list" }).waitFor();
          assert.equal(await row.getByTestId("price-cached").textContent(), "$0.50");
          await row.getByTestId("price-edit").click();
          const dialog = page.getByTestId("price-dialog");
          await dialog.waitFor();
          await dialog.getByTestId("price-input-field").fill("3");
          await dialog.getByTestId("price-output-field").fill("10");
          await dialog.getByTestId("price-cached-field").fill("0.5");
          await screenshot(page, `costs-02-price-dialog-${tag}`);
          await dialog.getByTestId("price-save").click();
          await dialog.waitFor({ state: "detached" });
          await row.getByTestId("price-source").filter({ hasText: "Yours" }).waitFor();
          assert.equal(await row.getByTestId("price-input").textContent(), "$3.00");
          await noOverflow(page, "the prices");
          await screenshot(page, `costs-03-prices-${tag}`);

          // Back in the conversation the answer costs what the new price says, and the
          // next one adds to the total.
          await page.evaluate((h) => (location.hash = h), sessionHash(sess.id));
          await textIs(page, '[data-testid="message-cost"]', "$0.0041 (At your price for this model)");
          await textIs(page, '[data-testid="session-total-cost"]', "· $0.0041");
          await sendWithEnter(page, "And now?");
          await answersDone(page, 2);
          await textIs(page, '[data-testid="session-total-cost"]', "· $0.0082");
          await textIs(page, '[data-testid="session-total-tokens"]', "3K tokens");
          await noOverflow(page, "two answers");
          await screenshot(page, `costs-04-total-${tag}`);
          assert.deepEqual(ctx.pageErrors, []);
        },
        { viewport: size },
      );
      // The next size starts from the provider's list price again.
      await server.result("ClearModelPrice", provider.id, "fake-usage");
    });
  }
});
