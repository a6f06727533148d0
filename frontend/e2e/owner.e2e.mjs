// One backend per data directory in real Chromium: with `cairn serve` and a tab open, a
// `cairn chat` from a terminal appears in the tab's sidebar and streams into the open
// conversation live, `cairn settings set` changes the tab at once, and an approval the
// terminal chat asks for is answered in the tab; the terminal sees who answered.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, before, describe, test } from "node:test";
import {
  createSession,
  importEverything,
  saveFakeProvider,
  sessionHash,
  startFakeOpenAI,
  waitAssistantStatus,
  waitSessionState,
} from "./lib/chat.mjs";
import { CAIRN_BIN, SUITE_TIMEOUT_MS, openApp, screenshot, startServer, withContext } from "./lib/harness.mjs";

/**
 * Runs `cairn <args>` on the server's data directory as a terminal would; resolves to
 * {code, stdout, stderr} when it exits. keepStdin leaves stdin open (a terminal nobody
 * types into) until the returned process's stdin is ended.
 */
function cairn(server, args, { keepStdin = false } = {}) {
  const proc = spawn(CAIRN_BIN, ["--data-dir", server.dataDir, ...args], {
    env: { ...process.env, CAIRN_SECRETS: "file", LANG: "en_US.UTF-8" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  if (!keepStdin) proc.stdin.end();
  let stdout = "";
  let stderr = "";
  proc.stdout.on("data", (b) => (stdout += b));
  proc.stderr.on("data", (b) => (stderr += b));
  const done = new Promise((res) => proc.once("exit", (code) => res({ code, stdout, stderr })));
  return { proc, done };
}

describe("owner: terminal commands are live in the tab", { timeout: SUITE_TIMEOUT_MS }, () => {
  let server;
  let fake;
  let provider;

  before(async () => {
    [fake, server] = await Promise.all([startFakeOpenAI(), startServer()]);
    provider = await saveFakeProvider(server, fake, { name: "Fake", models: ["fake-echo", "fake-call"] });
  });
  after(async () => {
    await Promise.all([server?.stop(), fake?.stop()]);
  });

  test("a terminal chat shows up in the sidebar and streams into the open conversation", async () => {
    await withContext(async (ctx) => {
      const page = await openApp(ctx, server);
      const first = await cairn(server, ["chat", "--provider", "Fake", "--model", "fake-echo", "hello from the terminal"]).done;
      assert.equal(first.code, 0, first.stderr);
      const id = /^session (\S+)$/m.exec(first.stderr)?.[1];
      assert.ok(id, first.stderr);
      const item = page.locator(`[data-testid="session-item"][data-session-id="${id}"]`);
      await item.waitFor({ timeout: 15_000 }); // no reload: the event reached the tab
      await screenshot(page, "owner-01-sidebar");

      await page.evaluate((h) => (location.hash = h), sessionHash(id));
      await waitSessionState(page, "idle");
      await waitAssistantStatus(page, 0, "complete");
      const second = cairn(server, ["chat", "--session", id, "and once more"]);
      await waitAssistantStatus(page, 1, "complete", 30_000);
      assert.equal((await second.done).code, 0);
      assert.match(await page.getByTestId("message-user").nth(1).innerText(), /and once more/);
      await screenshot(page, "owner-02-streamed");
      assert.deepEqual(ctx.pageErrors, []);
    });
  });

  test("cairn settings set changes the tab at once", async () => {
    await withContext(async (ctx) => {
      const page = await openApp(ctx, server);
      const r = await cairn(server, ["settings", "set", "general.theme", "dark"]).done;
      assert.equal(r.code, 0, r.stderr);
      await page.waitForFunction(() => document.documentElement.dataset.theme === "dark", null, { timeout: 15_000 });
      await screenshot(page, "owner-03-dark");
      await server.result("SetSetting", "general.theme", "system");
    });
  });

  test("an approval asked by a terminal chat is answered in the tab", async () => {
    const everything = await importEverything(server);
    const tool = "toggle-subscriber-updates";
    assert.equal(everything.info(tool).needsApproval, true);
    const session = await createSession(server, { providerId: provider.id, model: "fake-call", title: "Terminal approval", toolsets: ["mcp"] });
    await withContext(async (ctx) => {
      const page = await openApp(ctx, server, { hash: sessionHash(session.id) });
      await waitSessionState(page, "idle");
      const chat = cairn(server, ["chat", "--session", session.id, "--approve", "ask", tool], { keepStdin: true });
      const dialog = page.getByTestId("approval-dialog");
      await dialog.waitFor({ timeout: 30_000 });
      await screenshot(page, "owner-04-dialog");
      const windowId = await page.evaluate(() => sessionStorage.getItem("cairn.windowId"));
      await dialog.getByTestId("approval-allow").click();
      const r = await chat.done;
      chat.proc.stdin.end();
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /The tool returned: Started simulated resource updated notifications/);
      assert.match(r.stderr, new RegExp(`Answered in ${windowId}: allow_once`));
      await waitAssistantStatus(page, 0, "complete");
      await screenshot(page, "owner-05-allowed");
      assert.deepEqual(ctx.pageErrors, []);
    });
  });
});
