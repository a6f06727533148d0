// Background tasks in real Chromium against `cairn serve` and the machine's sandbox: the
// model (the local OpenAI-wire fake) starts a command with run_in_background; a second tab
// sees the Tasks button appear and the output grow live, stops the task there, and the first
// tab sees it stopped; the model's next answer starts with the notice that the task ended.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createSession, saveFakeProvider, sendWithEnter, sessionHash, startFakeOpenAI, waitAssistantStatus, waitSessionState } from "./lib/chat.mjs";
import { SUITE_TIMEOUT_MS, locale, msg, openApp, screenshot, startServer, withContext } from "./lib/harness.mjs";

const en = { chat: locale("en", "chat") };

describe("background tasks: start, follow live in two tabs, stop, notice", { timeout: SUITE_TIMEOUT_MS }, () => {
  let server;
  let fake;
  let session;

  before(async () => {
    [fake, server] = await Promise.all([startFakeOpenAI(), startServer()]);
    const provider = await saveFakeProvider(server, fake, { name: "Fake", models: ["fake-call"] });
    session = await createSession(server, { kind: "task", providerId: provider.id, title: "Background e2e" });
    const status = await server.result("GetSandboxStatus");
    if (status.level === "none") await server.result("SetSetting", "sandbox.unsandboxed", true);
  });
  after(async () => {
    await Promise.all([server?.stop(), fake?.stop()]);
  });

  test("a background command is followed and stopped from another tab", async () => {
    await withContext(async (ctx) => {
      const first = await openApp(ctx, server, { hash: sessionHash(session.id) });
      const second = await openApp(ctx, server, { hash: sessionHash(session.id) });
      await waitSessionState(first, "idle");
      await waitSessionState(second, "idle");
      assert.equal(await second.getByTestId("tasks-open").count(), 0);

      const command = "echo bg-e2e-start; sleep 0.5; echo bg-e2e-tick; sleep 120";
      await sendWithEnter(first, `sandbox_bash ${JSON.stringify({ command, run_in_background: true })}`);
      const dialog = first.getByTestId("approval-dialog");
      await dialog.waitFor();
      await dialog.getByTestId("approval-allow").click();
      await waitAssistantStatus(first, 0, "complete", 30_000);
      const card = first.getByTestId("message-assistant").nth(0).locator('[data-testid="tool-card"][data-tool="sandbox_bash"]');
      assert.equal(await card.getAttribute("data-state"), "done", await card.innerText());

      const open = second.getByTestId("tasks-open");
      await second.waitForSelector('[data-testid="tasks-open"][data-running="1"]', { timeout: 15_000 });
      assert.equal((await open.innerText()).trim(), msg(en.chat, "tasks.buttonRunning").replace("{{count}}", "1"));
      await open.click();
      const view = second.getByTestId("tasks-dialog");
      await view.waitFor();
      await second.waitForFunction(() => document.querySelector('[data-testid="task-output"]')?.textContent?.includes("bg-e2e-tick"), null, {
        timeout: 15_000,
      });
      assert.match(await view.getByTestId("task-item").innerText(), /echo bg-e2e-start/);
      await screenshot(second, "bgtasks-01-running");

      await view.getByTestId("task-stop").click();
      await second.waitForSelector('[data-testid="task-item"][data-state="stopped"]', { timeout: 15_000 });
      assert.equal(await view.getByTestId("task-stop").count(), 0);
      await first.waitForSelector('[data-testid="tasks-open"][data-running="0"]', { timeout: 15_000 });
      await screenshot(second, "bgtasks-02-stopped");
      await second.keyboard.press("Escape");

      // The next answer starts by telling the model the task ended; the window shows that line.
      await sendWithEnter(first, "sandbox_ls {}");
      await waitAssistantStatus(first, 1, "complete", 30_000);
      const notice = first.getByTestId("message-assistant").nth(1).locator('[data-testid="part-status"][data-kind="notice"]');
      await notice.waitFor();
      assert.match(await notice.innerText(), /echo bg-e2e-start/);
      const tasks = await server.result("ListTasks", session.id);
      assert.equal(tasks.tasks.length, 1);
      assert.equal(tasks.tasks[0].state, "stopped");
      assert.deepEqual(ctx.pageErrors, []);
    });
  });
});
