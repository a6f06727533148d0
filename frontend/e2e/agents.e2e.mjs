// Sub-agents in real Chromium: the parent (fakeopenai's "agent" scenario) hands a call of
// server-everything's toggle-subscriber-updates (not read-only: it asks) to a sub-agent
// named helper; the approval dialog opens in two tabs on the parent's conversation and
// says it comes from the sub-agent; allowing it in one tab closes both, and the parent's
// agent_run card shows the sub-agent's state, its tool card and its answer.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  createSession,
  importEverything,
  saveFakeProvider,
  sendWithEnter,
  sessionHash,
  startFakeOpenAI,
  waitAssistantStatus,
  waitSessionState,
} from "./lib/chat.mjs";
import { SUITE_TIMEOUT_MS, locale, msg, openApp, screenshot, startServer, withContext } from "./lib/harness.mjs";

const en = { chat: locale("en", "chat") };
const TOOL = "toggle-subscriber-updates";

describe("sub-agents: a child's approval in the parent's dialog, in every tab", { timeout: SUITE_TIMEOUT_MS }, () => {
  let server;
  let fake;
  let wire;
  let session;

  before(async () => {
    [fake, server] = await Promise.all([startFakeOpenAI(), startServer()]);
    const everything = await importEverything(server);
    wire = everything.wire(TOOL);
    const provider = await saveFakeProvider(server, fake, { name: "Fake", models: ["fake-agent"] });
    await server.result("SetModelPrice", provider.id, "fake-agent", { input: 10, output: 20, currency: "USD" });
    session = await createSession(server, { providerId: provider.id, title: "Agents e2e", toolsets: ["mcp", "agent"] });
  });
  after(async () => {
    await Promise.all([server?.stop(), fake?.stop()]);
  });

  test("the sub-agent asks in both tabs, one allows, the card shows the child's work", async () => {
    await withContext(async (ctx) => {
      const a = await openApp(ctx, server, { hash: sessionHash(session.id) });
      const b = await openApp(ctx, server, { hash: sessionHash(session.id) });
      for (const p of [a, b]) await waitSessionState(p, "idle");
      await sendWithEnter(a, TOOL);

      const from = msg(en.chat, "agent.from").replace("{{name}}", "helper");
      const dialogs = [];
      for (const p of [a, b]) {
        const dialog = p.getByTestId("approval-dialog");
        await dialog.waitFor();
        assert.equal((await dialog.getByTestId("approval-agent").innerText()).trim(), from);
        assert.equal((await dialog.locator(".approval__tool code").innerText()).trim(), wire);
        await waitSessionState(p, "awaiting-approval");
        dialogs.push(dialog);
      }
      const { requests } = await server.result("ListPendingApprovals");
      assert.equal(requests.length, 1);
      assert.equal(requests[0].sessionId, session.id);
      assert.equal(requests[0].agent.name, "helper");
      // The parent's card shows the sub-agent live, waiting.
      const view = a.locator('[data-testid="tool-card"][data-tool="agent_run"] [data-testid="agent-run"]');
      await view.waitFor();
      await screenshot(a, "agents-01-dialog-tab-a");
      await screenshot(b, "agents-02-dialog-tab-b");

      await dialogs[0].getByTestId("approval-allow").click();
      for (const [i, p] of [a, b].entries()) {
        await dialogs[i].waitFor({ state: "detached" });
        await waitAssistantStatus(p, 0, "complete");
        await waitSessionState(p, "idle");
        const card = p.locator('[data-testid="tool-card"][data-tool="agent_run"]');
        await p.waitForFunction(() => document.querySelector('[data-testid="agent-run"]')?.getAttribute("data-state") === "done");
        const child = card.getByTestId("agent-run");
        assert.match(await child.getByTestId("agent-run-text").innerText(), /Started simulated resource updated notifications/);
        assert.equal(await child.locator(`[data-testid="tool-card"][data-tool="${wire}"]`).getAttribute("data-state"), "done");
        // the child's rounds, 1000 prompt and 200 completion tokens each, at 10 / 20 per million
        assert.match(await child.getByTestId("agent-run-cost").innerText(), /^\$0\.0\d+$/);
        assert.match(await p.getByTestId("message-assistant").nth(0).getByTestId("part-text").last().innerText(), /^The tool returned: The tool returned: Started simulated/);
      }
      await screenshot(a, "agents-03-done");

      // The child's conversation is not listed, and opens from the card.
      const list = await server.result("ListSessions", "");
      assert.deepEqual(list.sessions.map((s) => s.id), [session.id]);
      await a.locator('[data-testid="agent-run-open"]').click();
      await a.getByTestId("session-parent").waitFor();
      assert.deepEqual(ctx.pageErrors, []);
    });
  });
});
