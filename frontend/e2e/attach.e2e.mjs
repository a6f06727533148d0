// Attachments in real Chromium against `cairn serve`: a log too long to inline is attached
// through the picker; the model (fakeopenai's "pager" scenario) is offered file_read and
// pages through it by the offsets each answer names, and its cards show the pages. An
// image picked for a vision model reaches it as an image part (the "vision" scenario says
// what it got); for a model without vision the send is refused before anything is stored.
// The chips preview the text and the image.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createSession, lastAssistant, model, sendWithEnter, sessionHash, startFakeOpenAI, waitAssistantStatus, waitSessionState } from "./lib/chat.mjs";
import { SUITE_TIMEOUT_MS, locale, msg, openApp, screenshot, startServer, withContext } from "./lib/harness.mjs";

const en = { chat: locale("en", "chat"), errors: locale("en", "errors") };
const render = (template, params) => template.replace(/\{\{(\w+)\}\}/g, (_, k) => String(params[k]));

const LOG = Array.from({ length: 450 }, (_, i) => `2026-12-02T04:${String(i % 60).padStart(2, "0")} event ${i + 1}`).join("\n") + "\n";
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

describe("attachments: a long file paged with file_read, an image sent as an image part", { timeout: SUITE_TIMEOUT_MS }, () => {
  let server, fake, provider;
  before(async () => {
    [server, fake] = await Promise.all([startServer(), startFakeOpenAI()]);
    provider = await server.result("SaveProvider", {
      name: "Fake",
      preset: "custom",
      baseUrl: fake.url,
      apiKey: "",
      models: [model("fake-pager"), { ...model("fake-vision"), vision: true }, model("fake-echo")],
      defaultModel: "fake-pager",
    });
  });
  after(async () => {
    await Promise.all([server?.stop(), fake?.stop()]);
  });

  test("the model pages through a large attachment with file_read offsets", async () => {
    const session = await createSession(server, { providerId: provider.id, model: "fake-pager", title: "Pager e2e" });
    await withContext(async (ctx) => {
      const page = await openApp(ctx, server, { hash: sessionHash(session.id) });
      await waitSessionState(page, "idle");
      await page.getByTestId("attach-input").setInputFiles({ name: "big.log", mimeType: "text/plain", buffer: Buffer.from(LOG) });
      await page.locator('[data-testid="attach-draft"][data-state="ready"]').waitFor();
      await sendWithEnter(page, "What happened in this log?");
      await waitAssistantStatus(page, 0, "complete", 30_000);

      const answer = lastAssistant(page);
      assert.match(await answer.innerText(), /I read all 450 lines of big\.log in 3 pages\./);
      const cards = answer.locator('[data-testid="tool-card"][data-tool="file_read"]');
      assert.equal(await cards.count(), 3);
      const stored = await server.result("GetSession", session.id);
      const calls = stored.messages[1].parts.filter((p) => p.type === "tool-call").map((p) => JSON.parse(p.tool.arguments));
      assert.deepEqual(calls, [{ file: "big.log" }, { file: "big.log", offset: 201 }, { file: "big.log", offset: 401 }]);
      const results = stored.messages[1].parts.filter((p) => p.type === "tool-result").map((p) => p.tool.content.split("\n")[0]);
      assert.deepEqual(results, ["big.log: lines 1-200 of 450", "big.log: lines 201-400 of 450", "big.log: lines 401-450 of 450"]);

      const chip = page.getByTestId("message-user").getByTestId("attachment-chip");
      assert.match(await chip.innerText(), /big\.log/);
      assert.match(await chip.innerText(), new RegExp(render(msg(en.chat, "attach.lines"), { count: 450 })));
      assert.match(await chip.innerText(), new RegExp(msg(en.chat, "attach.viaTools")));
      await screenshot(page, "attach-01-paged");
      await chip.click();
      const dialog = page.getByRole("dialog", { name: "big.log" });
      await dialog.waitFor();
      assert.match(await dialog.getByLabel(render(msg(en.chat, "attach.textLabel"), { name: "big.log" })).innerText(), /event 450/);
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });
      assert.deepEqual(ctx.pageErrors, []);
    });
  });

  test("an image reaches a vision model as an image part, and a model without vision refuses it before sending", async () => {
    const blind = await createSession(server, { providerId: provider.id, model: "fake-echo", title: "Blind e2e" });
    const seeing = await createSession(server, { providerId: provider.id, model: "fake-vision", title: "Vision e2e" });
    await withContext(async (ctx) => {
      const page = await openApp(ctx, server, { hash: sessionHash(blind.id) });
      await waitSessionState(page, "idle");
      await page.getByTestId("attach-input").setInputFiles({ name: "dot.png", mimeType: "image/png", buffer: PNG });
      await page.locator('[data-testid="attach-draft"][data-state="ready"]').waitFor();
      await sendWithEnter(page, "What is this?");
      const refusal = page.locator(".session__action-error");
      await refusal.waitFor();
      assert.equal(
        (await refusal.innerText()).split("\n")[0].trim(),
        render(msg(en.errors, "attachment_needs_vision"), { model: "fake-echo", name: "dot.png" }),
      );
      assert.equal((await server.result("GetSession", blind.id)).messages.length, 0, "nothing was stored");
      assert.equal(await page.getByTestId("attach-draft").count(), 1, "the draft stays for another model");
      await screenshot(page, "attach-02-refused");

      await page.goto(`${server.origin}/${sessionHash(seeing.id)}`);
      await waitSessionState(page, "idle");
      await page.getByTestId("attach-input").setInputFiles({ name: "dot.png", mimeType: "image/png", buffer: PNG });
      await page.locator('[data-testid="attach-draft"][data-state="ready"]').waitFor();
      await sendWithEnter(page, "What is this?");
      await waitAssistantStatus(page, 0, "complete");
      assert.match(await lastAssistant(page).innerText(), /I see 1 image\(s\): image\/png\./);
      const chip = page.getByTestId("message-user").getByTestId("attachment-chip");
      await chip.click();
      const img = page.getByRole("dialog", { name: "dot.png" }).getByRole("img", { name: "dot.png" });
      await img.waitFor();
      assert.match(await img.getAttribute("src"), /^data:image\/png;base64,/);
      await screenshot(page, "attach-03-image");
      assert.deepEqual(ctx.pageErrors, []);
    });
  });
});
