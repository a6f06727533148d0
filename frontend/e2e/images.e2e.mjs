// Remote images in answers: an answer's Markdown image pointing at a local web server
// (which counts what it is asked) is a placeholder naming the host; the page asks that
// server for nothing while it shows the answer, after a reload, or when a script of the
// page tries (the Content-Security-Policy forbids it); a click has the backend fetch it,
// whose address guard refuses a loopback address, so even then nothing arrives.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, describe, test } from "node:test";
import { createSession, lastAssistant, saveFakeProvider, sendWithEnter, sessionHash, startFakeOpenAI, waitAssistantStatus, waitSessionState } from "./lib/chat.mjs";
import { SUITE_TIMEOUT_MS, locale, msg, openApp, screenshot, startServer, withContext } from "./lib/harness.mjs";

const en = { chat: locale("en", "chat"), errors: locale("en", "errors") };

/** A local web server that counts every request it gets, and answers with a PNG. */
function startPixelServer() {
  const requests = [];
  const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64");
  const srv = createServer((req, res) => {
    requests.push(req.url);
    res.writeHead(200, { "Content-Type": "image/png" });
    res.end(png);
  });
  return new Promise((resolve) => {
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      resolve({ origin: `http://127.0.0.1:${port}`, requests, stop: () => new Promise((r) => srv.close(r)) });
    });
  });
}

describe("images: a remote image in an answer loads nothing by itself", { timeout: SUITE_TIMEOUT_MS }, () => {
  let server, fake, pixel;
  before(async () => {
    [server, fake, pixel] = await Promise.all([startServer(), startFakeOpenAI(), startPixelServer()]);
  });
  after(async () => {
    await Promise.all([server?.stop(), fake?.stop(), pixel?.stop()]);
  });

  test("the placeholder names the host; zero requests until the click, and the guard refuses loopback after it", async () => {
    const provider = await saveFakeProvider(server, fake, { name: "Fake", models: ["fake-echo"] });
    const session = await createSession(server, { providerId: provider.id, title: "Images e2e" });
    const leak = `${pixel.origin}/pixel.png?leak=the-whole-conversation`;
    await withContext(async (ctx) => {
      const page = await openApp(ctx, server, { hash: sessionHash(session.id) });
      await waitSessionState(page, "idle");
      // fake-echo answers "You said: <the message>": the answer carries the image.
      await sendWithEnter(page, `A chart: ![chart](${leak}) and [run](javascript:alert(document.domain))`);
      await waitAssistantStatus(page, 0, "complete");
      const answer = lastAssistant(page);
      const placeholder = answer.getByTestId("md-image-placeholder");
      await placeholder.waitFor();
      assert.equal(await placeholder.getAttribute("data-host"), "127.0.0.1");
      assert.match(await placeholder.innerText(), new RegExp(msg(en.chat, "markdown.image.from").replace("{{host}}", "127\\.0\\.0\\.1")));
      assert.equal(await answer.locator("img").count(), 0);
      assert.equal(await answer.locator('a[href^="javascript:"]').count(), 0);
      assert.equal(await answer.getByTestId("md-link-inert").innerText(), "run");
      await screenshot(page, "images-01-placeholder");
      assert.deepEqual(pixel.requests, [], "shown: the page asked the image's server");

      // Even a script of the page could not load it: the policy allows data: and blob: only.
      const blocked = await page.evaluate(
        (src) =>
          new Promise((resolve) => {
            const img = new Image();
            img.onload = () => resolve("loaded");
            img.onerror = () => resolve("blocked");
            img.src = src;
          }),
        `${pixel.origin}/by-script.png`,
      );
      assert.equal(blocked, "blocked");

      await page.reload();
      await waitAssistantStatus(page, 0, "complete");
      await lastAssistant(page).getByTestId("md-image-placeholder").waitFor();
      assert.deepEqual(pixel.requests, [], "reloaded: the page asked the image's server");

      // The click asks the backend, whose address guard loads from public addresses only.
      await lastAssistant(page).getByTestId("md-image-load").click();
      const error = lastAssistant(page).getByTestId("md-image-error");
      await error.waitFor();
      assert.equal(
        (await error.innerText()).trim(),
        msg(en.errors, "image_address_refused").replace("{{host}}", "127.0.0.1"),
      );
      assert.equal(await lastAssistant(page).locator("img").count(), 0);
      await screenshot(page, "images-02-refused");
      assert.deepEqual(pixel.requests, [], "after the click: a loopback address was fetched");
      assert.deepEqual(ctx.pageErrors, []);
    });
  });
});
