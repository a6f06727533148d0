// Approval (issue 5) in real Chromium: two tabs on one session, a real MCP tool that asks
// (server-everything's toggle-subscriber-updates is not annotated read-only), the dialog
// in both tabs, one decision closes both, the result (or the denial the model reads)
// shows in both; a decision that comes too late gets approval_already_decided, from the
// API and from the second tab's own dialog.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  createSession,
  importEverything,
  saveFakeProvider,
  sendWithEnter,
  sessionHash,
  startFakeOpenAI,
  storedAnswer,
  waitAssistantStatus,
  waitSessionState,
} from "./lib/chat.mjs";
import { SUITE_TIMEOUT_MS, locale, msg, openApp, screenshot, startServer, withContext } from "./lib/harness.mjs";

const en = { chat: locale("en", "chat"), errors: locale("en", "errors") };

/** server-everything's tool that changes state (readOnlyHint false): it asks by default. */
const TOOL = "toggle-subscriber-updates";
/** What the model is told to call (fakeopenai's "call" scenario: "NAME [JSON]"). */
const PROMPT = TOOL;

function render(template, params) {
  return template.replace(/\{\{(\w+)\}\}/g, (_, k) => String(params[k]));
}

describe("approval: one dialog in every tab, the first decision wins", { timeout: SUITE_TIMEOUT_MS }, () => {
  let server;
  let fake;
  let everything;
  let wire;
  let session;

  before(async () => {
    [fake, server] = await Promise.all([startFakeOpenAI(), startServer()]);
    everything = await importEverything(server);
    wire = everything.wire(TOOL);
    assert.equal(everything.info(TOOL).needsApproval, true, `${TOOL} must ask by default`);
    const provider = await saveFakeProvider(server, fake, { name: "Fake", models: ["fake-call"] });
    session = await createSession(server, { providerId: provider.id, title: "Approval e2e", toolsets: ["mcp"] });
  });
  after(async () => {
    await Promise.all([server?.stop(), fake?.stop()]);
  });

  /** Two tabs (pages of one context) on the session, both idle. */
  async function twoTabs(ctx) {
    const a = await openApp(ctx, server, { hash: sessionHash(session.id) });
    const b = await openApp(ctx, server, { hash: sessionHash(session.id) });
    for (const p of [a, b]) await waitSessionState(p, "idle");
    return [a, b];
  }

  /** Waits for the approval dialog of `wire` in a page and checks what it shows. */
  async function expectDialog(page) {
    const dialog = page.getByTestId("approval-dialog");
    await dialog.waitFor();
    assert.match(await dialog.innerText(), new RegExp(render(msg(en.chat, "approval.title"), { tool: `everything › ${TOOL}` }).replace(/[?]/g, "\\?")));
    assert.equal((await dialog.locator(".approval__tool code").innerText()).trim(), wire);
    assert.equal((await dialog.getByTestId("approval-args").textContent()).trim(), "{}");
    assert.match(await dialog.getByTestId("approval-context").innerText(), /Approval e2e/);
    await waitSessionState(page, "awaiting-approval");
    await page.waitForSelector(`[data-testid="tool-card"][data-tool="${wire}"][data-state="awaiting-approval"]`);
    return dialog;
  }

  /** Waits until the call's card in the n-th answer of a page has a state. */
  function waitCard(page, n, state) {
    return page.waitForFunction(
      ([i, w, st]) =>
        document.querySelectorAll('[data-testid="message-assistant"]')[i]?.querySelector(`[data-testid="tool-card"][data-tool="${w}"]`)?.getAttribute("data-state") === st,
      [n, wire, state],
    );
  }

  /** The one pending request (the API's view). */
  async function pendingRequest() {
    const { requests } = await server.result("ListPendingApprovals");
    assert.equal(requests.length, 1, `pending: ${JSON.stringify(requests)}`);
    assert.equal(requests[0].tool, wire);
    assert.equal(requests[0].sessionId, session.id);
    return requests[0];
  }

  /** The card of the n-th answer's call, opened, in a page. */
  async function openCard(page, n) {
    const card = page.getByTestId("message-assistant").nth(n).locator(`[data-testid="tool-card"][data-tool="${wire}"]`);
    if ((await card.locator(".tool-card__head").getAttribute("aria-expanded")) !== "true") {
      await card.locator(".tool-card__head").click();
    }
    return card;
  }

  const windowOf = (page) => page.evaluate(() => sessionStorage.getItem("cairn.windowId"));
  const messageCount = async () => (await server.result("GetSession", session.id)).messages.filter((m) => m.role === "assistant").length;

  test("approve in one tab: both dialogs close, the result shows in both, a late decision is refused", async () => {
    await withContext(async (ctx) => {
      const n = await messageCount();
      const [a, b] = await twoTabs(ctx);
      await sendWithEnter(a, PROMPT);
      const dialogs = [await expectDialog(a), await expectDialog(b)];
      const request = await pendingRequest();
      await screenshot(a, "approval-01-dialog-tab-a");
      await screenshot(b, "approval-02-dialog-tab-b");

      await dialogs[1].getByTestId("approval-allow").click();
      for (const [i, p] of [a, b].entries()) {
        await dialogs[i].waitFor({ state: "detached" });
        await waitCard(p, n, "done");
        await waitAssistantStatus(p, n, "complete");
        await waitSessionState(p, "idle");
        const answer = p.getByTestId("message-assistant").nth(n);
        assert.match(await answer.getByTestId("part-text").innerText(), /^The tool returned: Started simulated resource updated notifications/);
        const card = await openCard(p, n);
        assert.match(await card.getByTestId("tool-result").innerText(), /Started simulated resource updated notifications/);
        assert.match(await card.locator(".tool-card__approval").innerText(), new RegExp(msg(en.chat, "tools.decision.allow_once")));
      }
      await screenshot(a, "approval-03-allowed-tab-a");
      await screenshot(b, "approval-04-allowed-tab-b");

      // The call ran once; the decision is recorded as tab B's.
      const { message } = await storedAnswer(server, session.id);
      assert.equal(message.parts.filter((p) => p.type === "tool-result").length, 1);
      const windowB = await windowOf(b);
      // Too late: the request is decided, so any later decision is refused and says by whom.
      const late = await server.call("DecideApproval", request.id, "deny", "too late", "e2e-late");
      assert.notEqual(late.status, 200);
      assert.equal(late.body.error.code, "approval_already_decided");
      assert.equal(late.body.error.params.decision, "allow_once");
      assert.equal(late.body.error.params.window, windowB);
      assert.deepEqual((await server.result("ListPendingApprovals")).requests, []);
      assert.deepEqual(ctx.pageErrors, []);
    });
  });

  test("deny in one tab: both dialogs close, the model reads the denial, the card shows it in both", async () => {
    await withContext(async (ctx) => {
      const n = await messageCount();
      const [a, b] = await twoTabs(ctx);
      await sendWithEnter(b, PROMPT);
      const dialogs = [await expectDialog(a), await expectDialog(b)];
      await pendingRequest();

      const reason = "Not in this test, please";
      await dialogs[0].getByTestId("approval-reason").fill(reason);
      await dialogs[0].getByTestId("approval-deny").click();
      for (const [i, p] of [a, b].entries()) {
        await dialogs[i].waitFor({ state: "detached" });
        await waitCard(p, n, "error");
        await waitAssistantStatus(p, n, "complete");
        await waitSessionState(p, "idle");
        const answer = p.getByTestId("message-assistant").nth(n);
        // The fake model repeats the tool message it got: the denial with the reason.
        const text = await answer.getByTestId("part-text").innerText();
        assert.match(text, /^The tool returned: /);
        assert.ok(text.includes(reason), `the model did not get the reason: ${text}`);
        // An errored card opens by itself and shows the denial.
        const card = await openCard(p, n);
        assert.match(await card.locator(".tool-card__approval").innerText(), new RegExp(`${msg(en.chat, "tools.decision.deny")}[\\s\\S]*${reason}`));
        await card.getByTestId("error-view").waitFor();
      }
      await screenshot(a, "approval-05-denied-tab-a");
      await screenshot(b, "approval-06-denied-tab-b");
      const { message } = await storedAnswer(server, session.id);
      assert.deepEqual(message.parts.filter((p) => p.type.startsWith("tool-")).map((p) => p.type), ["tool-call", "tool-error"]);
      assert.deepEqual(ctx.pageErrors, []);
    });
  });

  test("a decision from the second tab that arrives after the first gets approval_already_decided", async () => {
    await withContext(async (ctx) => {
      const n = await messageCount();
      const [a, b] = await twoTabs(ctx);
      // Hold tab B's decision on the wire until tab A's has been applied.
      let release;
      const released = new Promise((r) => (release = r));
      let held = 0;
      await b.route("**/api/DecideApproval", async (route) => {
        held++;
        await released;
        await route.continue();
      });
      await sendWithEnter(a, PROMPT);
      const dialogs = [await expectDialog(a), await expectDialog(b)];
      const request = await pendingRequest();

      await dialogs[1].getByTestId("approval-deny").click(); // sent, held
      await b.waitForFunction(() => document.querySelector('[data-testid="approval-deny"]')?.disabled === true);
      await dialogs[0].getByTestId("approval-allow").click();
      // A's decision is applied: the event closes the dialog in both tabs.
      await dialogs[0].waitFor({ state: "detached" });
      await dialogs[1].waitFor({ state: "detached" });
      assert.equal(held, 1);
      release();

      const notice = b.getByTestId("approval-notice");
      await notice.waitFor();
      const error = notice.getByTestId("error-view");
      assert.equal(await error.getAttribute("data-error-code"), "approval_already_decided");
      // It says what was decided, from which window and when (the params the API returns).
      const late = await server.call("DecideApproval", request.id, "deny", "", "e2e-late");
      assert.equal(late.body.error.code, "approval_already_decided");
      assert.equal(late.body.error.params.window, await windowOf(a));
      assert.equal(late.body.error.params.decision, "allow_once");
      assert.equal((await error.locator(".error-view__text").innerText()).trim(), render(msg(en.errors, "approval_already_decided"), late.body.error.params));
      await screenshot(b, "approval-07-late-decision-tab-b");

      // A's allow stood: the tool ran (once) and both tabs show its result.
      for (const p of [a, b]) {
        await waitCard(p, n, "done");
        await waitAssistantStatus(p, n, "complete");
        const card = await openCard(p, n);
        assert.match(await card.getByTestId("tool-result").innerText(), /simulated resource/);
      }
      const { message } = await storedAnswer(server, session.id);
      assert.equal(message.parts.filter((p) => p.type === "tool-result").length, 1);
      assert.equal(await a.getByTestId("approval-notice").count(), 0, "tab A's decision was not refused");
      assert.deepEqual(ctx.pageErrors, []);
    });
  });
});
