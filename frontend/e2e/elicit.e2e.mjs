// MCP elicitation in real Chromium: a chat's tool call (server-everything's
// trigger-elicitation-request) asks the user for input; the form shows in every tab of
// the session, a required field is checked, the first answer (a tab's, or another
// window's through the API) closes the form everywhere and reaches the server, whose
// result the model reads; a later answer gets elicitation_already_answered.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createSession, importEverything, saveFakeProvider, sendWithEnter, sessionHash, startFakeOpenAI, waitAssistantStatus, waitSessionState } from "./lib/chat.mjs";
import { SUITE_TIMEOUT_MS, locale, msg, openApp, screenshot, startServer, withContext } from "./lib/harness.mjs";

const en = { chat: locale("en", "chat"), errors: locale("en", "errors") };

/** server-everything's tool that asks for a form (registered only when Cairn offers elicitation). */
const TOOL = "trigger-elicitation-request";

function render(template, params) {
  return template.replace(/\{\{(\w+)\}\}/g, (_, k) => String(params[k]));
}

describe("elicitation: an MCP server's form in every tab, the first answer wins", { timeout: SUITE_TIMEOUT_MS }, () => {
  let server;
  let fake;
  let session;

  before(async () => {
    [fake, server] = await Promise.all([startFakeOpenAI(), startServer()]);
    const everything = await importEverything(server);
    everything.wire(TOOL); // offered: Cairn advertised the elicitation capability
    const provider = await saveFakeProvider(server, fake, { name: "Fake", models: ["fake-call"] });
    session = await createSession(server, { providerId: provider.id, title: "Elicitation e2e", toolsets: ["mcp"] });
    // No approval dialog in front of the form: this suite is about the form.
    await server.result("SetSessionPermissionMode", session.id, "bypassPermissions");
  });
  after(async () => {
    await Promise.all([server?.stop(), fake?.stop()]);
  });

  async function twoTabs(ctx) {
    const a = await openApp(ctx, server, { hash: sessionHash(session.id) });
    const b = await openApp(ctx, server, { hash: sessionHash(session.id) });
    for (const p of [a, b]) await waitSessionState(p, "idle");
    return [a, b];
  }

  async function expectForm(page) {
    const dialog = page.getByTestId("elicitation-dialog");
    await dialog.waitFor({ timeout: 30_000 });
    assert.equal(await dialog.getAttribute("role"), "dialog");
    assert.match(await dialog.locator(".dialog__title").innerText(), new RegExp(render(msg(en.chat, "elicit.title"), { server: "everything" })));
    assert.match(await dialog.getByTestId("elicitation-context").innerText(), /Elicitation e2e/);
    assert.match(await dialog.getByTestId("elicitation-message").innerText(), /Please provide inputs/);
    return dialog;
  }

  async function pendingQuestion() {
    const { requests } = await server.result("ListPendingElicitations");
    assert.equal(requests.length, 1, `pending: ${JSON.stringify(requests)}`);
    assert.equal(requests[0].sessionId, session.id);
    return requests[0];
  }

  const messageCount = async () => (await server.result("GetSession", session.id)).messages.filter((m) => m.role === "assistant").length;
  const windowOf = (page) => page.evaluate(() => sessionStorage.getItem("cairn.windowId"));

  async function expectAnswer(page, n, pattern) {
    await waitAssistantStatus(page, n, "complete", 30_000);
    const text = await page.getByTestId("message-assistant").nth(n).getByTestId("part-text").innerText();
    assert.match(text, pattern);
  }

  test("a tab fills in the form: required checked, both forms close, the server gets the values", async () => {
    await withContext(async (ctx) => {
      const n = await messageCount();
      const [a, b] = await twoTabs(ctx);
      await sendWithEnter(a, TOOL);
      const forms = [await expectForm(a), await expectForm(b)];
      const question = await pendingQuestion();
      await screenshot(a, "elicit-01-form-tab-a");

      // The required name is checked before anything is sent.
      await forms[0].getByTestId("elicitation-submit").click();
      await forms[0].getByTestId("elicitation-error-name").waitFor();
      assert.equal((await forms[0].getByTestId("elicitation-error-name").innerText()).trim(), msg(en.chat, "elicit.errors.required"));
      assert.equal((await server.result("ListPendingElicitations")).requests.length, 1);

      await forms[0].getByTestId("elicitation-field-name").fill("Grace Hopper");
      await forms[0].getByTestId("elicitation-field-check").check();
      await forms[0].getByTestId("elicitation-field-integer").fill("7");
      await screenshot(a, "elicit-02-filled-tab-a");
      await forms[0].getByTestId("elicitation-submit").click();
      for (const f of forms) await f.waitFor({ state: "detached" });
      for (const p of [a, b]) await expectAnswer(p, n, /User provided the requested information[\s\S]*Name: Grace Hopper[\s\S]*Favorite Integer: 7/);
      await screenshot(b, "elicit-03-answered-tab-b");

      const late = await server.call("AnswerElicitation", question.id, "decline", {}, "e2e-late");
      assert.notEqual(late.status, 200);
      assert.equal(late.body.error.code, "elicitation_already_answered");
      assert.equal(late.body.error.params.window, await windowOf(a));
      assert.deepEqual(ctx.pageErrors, []);
    });
  });

  test("typing meant for the composer decides nothing; another window's decline closes the form", async () => {
    await withContext(async (ctx) => {
      const n = await messageCount();
      const [a] = await twoTabs(ctx);
      await sendWithEnter(a, TOOL);
      const form = await expectForm(a);
      // The user was still typing when the form popped up: Enter and Space press nothing.
      await a.keyboard.type("still typing ");
      await a.keyboard.press("Enter");
      await a.keyboard.press("Tab");
      await a.keyboard.press("Enter");
      await a.keyboard.press(" ");
      const question = await pendingQuestion();
      assert.equal(question.status, "pending");

      await server.result("AnswerElicitation", question.id, "decline", {}, "e2e-other-window");
      await form.waitFor({ state: "detached" });
      await expectAnswer(a, n, /User declined/);
      await waitSessionState(a, "idle");
      assert.deepEqual(ctx.pageErrors, []);
    });
  });
});
