// Task mode in real Chromium against `cairn serve` and the machine's real sandbox: a task
// session whose model (the local OpenAI-wire fake) writes a file, edits it and runs it with
// sandbox_bash, each after the user approves it in the dialog, which shows the change as a
// diff (or that a write changes nothing) and the exact command; the header shows the workspace and a badge with the level the
// probe found, whose popover says what holds; each card says the level its call ran at.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createSession, saveFakeProvider, sendWithEnter, sessionHash, startFakeOpenAI, waitAssistantStatus, waitSessionState } from "./lib/chat.mjs";
import { SUITE_TIMEOUT_MS, locale, msg, openApp, screenshot, startServer, withContext } from "./lib/harness.mjs";

const en = { chat: locale("en", "chat") };

describe("task mode: write, edit and run a file in the sandbox after approval", { timeout: SUITE_TIMEOUT_MS }, () => {
  let server;
  let fake;
  let session;
  let status;

  before(async () => {
    [fake, server] = await Promise.all([startFakeOpenAI(), startServer()]);
    const provider = await saveFakeProvider(server, fake, { name: "Fake", models: ["fake-call"] });
    session = await createSession(server, { kind: "task", providerId: provider.id, title: "Task e2e" });
    status = await server.result("GetSandboxStatus");
    if (status.level === "none") await server.result("SetSetting", "sandbox.unsandboxed", true);
  });
  after(async () => {
    await Promise.all([server?.stop(), fake?.stop()]);
  });

  /** Sends one call, approves it in the dialog after checking what the dialog shows, and waits for the card. */
  async function approvedCall(page, n, tool, args, check) {
    await sendWithEnter(page, `${tool} ${JSON.stringify(args)}`);
    const dialog = page.getByTestId("approval-dialog");
    await dialog.waitFor();
    assert.equal((await dialog.locator(".approval__tool code").innerText()).trim(), tool);
    await check(dialog);
    await dialog.getByTestId("approval-allow").click();
    await dialog.waitFor({ state: "detached" });
    await waitAssistantStatus(page, n, "complete", 30_000);
    await waitSessionState(page, "idle");
    const card = page.getByTestId("message-assistant").nth(n).locator(`[data-testid="tool-card"][data-tool="${tool}"]`);
    assert.equal(await card.getAttribute("data-state"), "done", `${tool}: ${await card.innerText()}`);
    assert.equal(await card.getByTestId("tool-card-level").getAttribute("data-level"), status.level);
    return card;
  }

  const diffLines = async (dialog, cls) =>
    (await dialog.getByTestId("approval-diff").locator(`.${cls}`).allInnerTexts()).map((l) => l.trim());

  test("the header shows the workspace and the level; write, edit, run go through approval", async () => {
    await withContext(async (ctx) => {
      const page = await openApp(ctx, server, { hash: sessionHash(session.id) });
      await waitSessionState(page, "idle");
      const badge = page.getByTestId("sandbox-badge");
      await badge.waitFor();
      assert.equal(await badge.getAttribute("data-level"), status.level);
      assert.match(await badge.innerText(), new RegExp(msg(en.chat, `sandbox.level.${status.level}`)));
      const ws = await server.result("GetSessionWorkspace", session.id);
      assert.equal(await page.getByTestId("task-workspace").getAttribute("data-path"), ws.path);
      await badge.click();
      const pop = page.getByTestId("sandbox-popover");
      await pop.waitFor();
      assert.equal(await pop.locator("li[data-area]").count(), status.holds.length);
      await screenshot(page, "task-01-badge-popover");
      await page.keyboard.press("Escape");

      await approvedCall(page, 0, "sandbox_write", { path: "hello.sh", content: "echo hello from the task\n" }, async (dialog) => {
        // previewed in the sandbox: a new file, all added
        assert.deepEqual(await diffLines(dialog, "diff-add"), ["+ echo hello from the task"]);
        assert.match(await dialog.getByTestId("approval-diff-notes").innerText(), new RegExp(msg(en.chat, "approval.diff.created")));
        await screenshot(page, "task-02-write-diff");
      });
      await approvedCall(page, 1, "sandbox_edit", { path: "hello.sh", old_string: "hello", new_string: "hi" }, async (dialog) => {
        // the edit's line as it is in the file and as it will be, not just the two words
        assert.deepEqual(await diffLines(dialog, "diff-del"), ["- echo hello from the task"]);
        assert.deepEqual(await diffLines(dialog, "diff-add"), ["+ echo hi from the task"]);
        assert.deepEqual(await diffLines(dialog, "diff-hunk"), ["@@ -1 +1 @@"]);
      });
      assert.equal(readFileSync(join(ws.path, "hello.sh"), "utf8"), "echo hi from the task\n");
      await approvedCall(page, 2, "sandbox_bash", { command: "sh hello.sh" }, async (dialog) => {
        assert.deepEqual((await dialog.getByTestId("approval-command").allInnerTexts()).map((c) => c.trim()), ["sh hello.sh"]);
      });
      const answer = await page.getByTestId("message-assistant").nth(2).getByTestId("part-text").innerText();
      assert.match(answer, /hi from the task/);
      assert.match(answer, new RegExp(`sandbox: ${status.level}`));
      await screenshot(page, "task-03-ran");
      await approvedCall(page, 3, "sandbox_write", { path: "hello.sh", content: "echo hi from the task\n" }, async (dialog) => {
        // what the file already holds: said so, no lines shown as added
        assert.equal((await dialog.getByTestId("approval-diff-notes").innerText()).trim(), msg(en.chat, "approval.diff.unchanged"));
        assert.equal(await dialog.getByTestId("approval-diff").count(), 0);
      });

      // another window (here the API) chooses a new workspace: this tab's header follows
      const moved = realpathSync(mkdtempSync(join(tmpdir(), "cairn-e2e-ws-")));
      await server.result("SetSessionWorkspace", session.id, moved);
      await page.waitForFunction((p) => document.querySelector('[data-testid="task-workspace"]')?.getAttribute("data-path") === p, moved, { timeout: 10_000 }).then((h) => h.dispose());
    });
  });
});
