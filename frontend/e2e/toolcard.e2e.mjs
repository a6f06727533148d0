// MCP tool cards in real Chromium: server-everything's get-tiny-image returns a PNG, the
// card shows it as a thumbnail loaded from the app's own origin (GetToolImage hands it over
// as a data: URL), a click shows it whole, and the page asks no other host for anything. The
// served Content-Security-Policy lets that data: URL and a blob: URL of it load, blocks an
// image from another origin, and reports nothing else. One of its resources, chosen in the
// composer's resource menu, goes with a message as a chip and reaches the model inline
// with its URI.
// A model whose context window is tiny, offered every tool of server-everything, gets the
// tool-cost notice first: the share it says is the stored one, its ways out fold every
// MCP tool (the setting turns on) and open Settings → MCP servers.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createSession, importEverything, sendWithEnter, sessionHash, startFakeOpenAI, storedAnswer, waitAssistantStatus, waitSessionState } from "./lib/chat.mjs";
import { SUITE_TIMEOUT_MS, locale, msg, openApp, screenshot, startServer, withContext } from "./lib/harness.mjs";

const en = { chat: locale("en", "chat") };

/** The image tool of server-everything (read-only: it runs without asking). */
const IMAGE_TOOL = "get-tiny-image";
/** A window so small that even folded tool definitions take more than the allowed share. */
const TINY_WINDOW = 1000;
/** A window so large that nothing is folded, so the model is offered the image tool itself. */
const WIDE_WINDOW = 1_000_000;

function render(template, params) {
  return template.replace(/\{\{(\w+)\}\}/g, (_, k) => String(params[k]));
}

/** Stores a provider for the fake with one model of the given window; resolves to the Provider. */
function saveProvider(server, fake, name, modelId, contextWindow) {
  return server.result("SaveProvider", {
    name,
    preset: "custom",
    baseUrl: fake.url,
    apiKey: "",
    models: [{ id: modelId, contextWindow, supportsTools: true, vision: false, reasoning: false, source: "manual" }],
    defaultModel: modelId,
  });
}

/** Records every request the pages of a context make; foreign() lists those to other hosts. */
function watchRequests(ctx, origin) {
  const urls = [];
  ctx.on("request", (r) => urls.push(r.url()));
  return {
    urls,
    foreign: () => urls.filter((u) => !u.startsWith(origin + "/") && !u.startsWith("data:") && !u.startsWith("blob:")),
  };
}

describe("toolcard: MCP tool images, resources attached to a message and the tool-cost notice", { timeout: SUITE_TIMEOUT_MS }, () => {
  let server, fake, everything;
  before(async () => {
    [server, fake] = await Promise.all([startServer(), startFakeOpenAI()]);
    everything = await importEverything(server);
  });
  after(async () => {
    await Promise.all([server?.stop(), fake?.stop()]);
  });

  test("the image of an MCP tool shows on its card from the app's own origin; a click enlarges it", async () => {
    const wire = everything.wire(IMAGE_TOOL);
    assert.equal(everything.info(IMAGE_TOOL).needsApproval, false, `${IMAGE_TOOL} is read-only`);
    const provider = await saveProvider(server, fake, "Fake wide", "fake-call", WIDE_WINDOW);
    const session = await createSession(server, { providerId: provider.id, title: "Tool image e2e", toolsets: ["mcp"] });
    await withContext(async (ctx) => {
      const requests = watchRequests(ctx, server.origin);
      const blocked = new Map();
      ctx.on("requestfailed", (r) => blocked.set(r.url(), r.failure()?.errorText));
      await ctx.addInitScript(() => {
        window.__cspViolations = [];
        document.addEventListener("securitypolicyviolation", (e) => window.__cspViolations.push({ directive: e.effectiveDirective, blocked: e.blockedURI }));
      });
      const page = await openApp(ctx, server, { hash: sessionHash(session.id) });
      await waitSessionState(page, "idle");
      await sendWithEnter(page, IMAGE_TOOL);
      await waitAssistantStatus(page, 0, "complete");
      const card = page.getByTestId("message-assistant").last().locator(`[data-testid="tool-card"][data-tool="${wire}"]`);
      await page.waitForSelector(`[data-testid="tool-card"][data-tool="${wire}"][data-state="done"]`);
      if ((await card.locator(".tool-card__head").getAttribute("aria-expanded")) !== "true") {
        await card.locator(".tool-card__head").click();
      }

      // The stored result names the saved image; the card describes it with its size.
      const { message } = await storedAnswer(server, session.id);
      const result = message.parts.find((p) => p.type === "tool-result");
      const ref = result?.tool?.images?.[0];
      assert.ok(ref?.file, `the result has no saved image: ${JSON.stringify(result)}`);
      assert.ok(ref.width > 0 && ref.height > 0, `the saved image has no size: ${JSON.stringify(ref)}`);
      const thumb = card.getByTestId("tool-image");
      await thumb.locator("img").waitFor();
      const src = await thumb.locator("img").getAttribute("src");
      assert.match(src, /^data:image\/png;base64,/);
      // The thumbnail really decoded (a broken data: URL has no natural size).
      assert.ok(await thumb.locator("img").evaluate((img) => img.complete && img.naturalWidth > 0));
      const caption = await card.locator(".tool-images__item figcaption").innerText();
      assert.ok(caption.startsWith(`${ref.width} × ${ref.height} px`), `caption: ${caption}`);
      assert.equal(await thumb.getAttribute("aria-label"), render(msg(en.chat, "tools.image.open"), { n: 1, what: caption }));
      assert.ok(requests.urls.some((u) => u === `${server.origin}/api/GetToolImage`), "GetToolImage was not asked");
      await screenshot(page, "toolcard-01-thumbnail");

      // The served policy lets the image's data: URL and a blob: URL of the same bytes load,
      // and nothing from another origin (here the fake model's loopback server).
      const other = `${new URL(fake.url).origin}/pixel.png`;
      const probe = await page.evaluate(
        async ({ src, other }) => {
          const load = (url) =>
            new Promise((done) => {
              const img = new Image();
              img.onload = () => done(img.naturalWidth > 0);
              img.onerror = () => done(false);
              img.src = url;
            });
          const bytes = Uint8Array.from(atob(src.slice(src.indexOf(",") + 1)), (c) => c.charCodeAt(0));
          const blobURL = URL.createObjectURL(new Blob([bytes], { type: "image/png" }));
          const out = { data: await load(src), blob: await load(blobURL), other: await load(other) };
          URL.revokeObjectURL(blobURL);
          await new Promise((r) => setTimeout(r, 50)); // the violation event is queued after the error
          return out;
        },
        { src, other },
      );
      assert.deepEqual(probe, { data: true, blob: true, other: false });
      // (Chromium may report one blocked load more than once.)
      const violations = () => page.evaluate(() => [...new Set(window.__cspViolations.map((v) => `${v.directive} ${v.blocked}`))]);
      assert.deepEqual(await violations(), [`img-src ${other}`], "the policy blocked something else, or not the other origin");
      // Chromium announces the request and fails it before it reaches the network.
      assert.equal(blocked.get(other), "csp", "the other origin's image was not blocked by the policy");

      await thumb.click();
      const dialog = page.getByTestId("tool-image-full");
      await dialog.waitFor();
      const full = dialog.getByTestId("tool-image-full-img");
      await full.waitFor();
      assert.match(await full.getAttribute("src"), /^data:image\/png;base64,/);
      assert.equal(await full.evaluate((img) => img.naturalWidth), ref.width);
      assert.equal(await full.getAttribute("alt"), msg(en.chat, "tools.image.title"));
      assert.ok(await dialog.innerText().then((t) => t.includes(ref.path)), "the dialog does not name the saved file");
      await screenshot(page, "toolcard-02-enlarged");
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });

      assert.deepEqual(await violations(), [`img-src ${other}`], "the enlarged image broke the policy");
      assert.deepEqual(requests.foreign().filter((u) => u !== other), [], "the page asked another host");
      assert.deepEqual(ctx.pageErrors, []);
    });
  });

  test("a resource of an MCP server is attached from the composer's resource menu and reaches the model with its URI", async () => {
    const provider = await saveProvider(server, fake, "Fake echo", "fake-echo", WIDE_WINDOW);
    const session = await createSession(server, { providerId: provider.id, title: "Resource e2e" });
    const list = await server.result("ListMCPResources", everything.id);
    const doc = list.resources.find((r) => r.uri.startsWith("demo://resource/static/document/"));
    assert.ok(doc, `no static document among ${JSON.stringify(list.resources.map((r) => r.uri))}`);
    const [content] = await server.result("ReadMCPResource", everything.id, doc.uri);
    const line = content.text.split("\n").map((l) => l.trim()).find(Boolean);
    await withContext(async (ctx) => {
      const requests = watchRequests(ctx, server.origin);
      const page = await openApp(ctx, server, { hash: sessionHash(session.id) });
      await waitSessionState(page, "idle");
      const button = page.getByTestId("resource-button");
      assert.equal(await button.getAttribute("aria-label"), msg(en.chat, "resources.button"));
      await button.click();
      const menu = page.getByTestId("resource-menu");
      await menu.waitFor();
      const search = menu.getByTestId("resource-search");
      assert.ok(await search.evaluate((el) => el === document.activeElement), "the search field has no focus");
      await search.fill(doc.uri);
      const item = menu.locator(`[data-testid="resource-item"][data-uri="${doc.uri}"]`);
      await item.waitFor();
      assert.equal(await menu.getByTestId("resource-item").count(), 1, "the search did not narrow the list to the one URI");
      await screenshot(page, "toolcard-05-resource-menu");
      await item.click();
      await menu.waitFor({ state: "detached" });
      const draft = page.getByTestId("attach-draft");
      await page.waitForSelector('[data-testid="attach-draft"][data-state="ready"]');
      assert.equal(await draft.getAttribute("title"), render(msg(en.chat, "attach.source"), { server: "everything", uri: doc.uri }));

      await sendWithEnter(page, "What does it say?");
      await waitAssistantStatus(page, 0, "complete");
      const chip = page.getByTestId("message-user").last().getByTestId("attachment-chip");
      await chip.waitFor();
      assert.equal(await chip.getAttribute("data-source"), doc.uri);
      assert.ok((await chip.innerText()).includes("everything"), "the chip does not name the server");
      await screenshot(page, "toolcard-06-resource-chip");

      // The stored part keeps the source; the model read the text inline with the URI.
      const { snap, text } = await storedAnswer(server, session.id);
      const user = snap.messages.filter((m) => m.role === "user").pop();
      const part = user.parts.find((p) => p.type === "attachment");
      assert.deepEqual(part?.attachment?.source, { serverId: everything.id, server: "everything", uri: doc.uri });
      assert.ok(text.includes(`uri="${doc.uri}"`) && text.includes('mcp_server="everything"'), `the model was not told the URI: ${text.slice(0, 400)}`);
      assert.ok(text.includes(line), `the model did not read the resource's text (${line}): ${text.slice(0, 400)}`);
      assert.ok(requests.urls.includes(`${server.origin}/api/AttachMCPResource`), "AttachMCPResource was not asked");
      assert.deepEqual(requests.foreign(), [], "the page asked another host");
      assert.deepEqual(ctx.pageErrors, []);
    });
  });

  test("a tiny context window with many tools shows the tool-cost notice and its ways out", async () => {
    const provider = await saveProvider(server, fake, "Fake tiny", "fake-echo", TINY_WINDOW);
    const session = await createSession(server, { providerId: provider.id, title: "Tool cost e2e", toolsets: ["mcp"] });
    await withContext(async (ctx) => {
      const requests = watchRequests(ctx, server.origin);
      const page = await openApp(ctx, server, { hash: sessionHash(session.id) });
      await waitSessionState(page, "idle");
      await sendWithEnter(page, "hello");
      await waitAssistantStatus(page, 0, "complete");

      const { message } = await storedAnswer(server, session.id);
      const cost = message.parts.find((p) => p.type === "status" && p.status?.kind === "tool-cost")?.status?.toolCost;
      assert.ok(cost, `no tool-cost part: ${JSON.stringify(message.parts.map((p) => p.type))}`);
      assert.equal(cost.window, TINY_WINDOW);
      assert.equal(cost.windowKnown, true);
      assert.ok(cost.percent > cost.limit, `percent ${cost.percent} is not above the limit ${cost.limit}`);
      // server-everything's many tools were folded behind tool search, and still the rest is too much.
      assert.ok(cost.folded > 0, `nothing was folded: ${JSON.stringify(cost)}`);
      assert.ok(cost.tools > 0, `no tools: ${JSON.stringify(cost)}`);

      const notice = page.locator('[data-testid="part-status"][data-kind="tool-cost"]');
      await notice.waitFor();
      const n = (v) => new Intl.NumberFormat("en-US").format(v);
      const text = render(msg(en.chat, "status.toolCost.text"), { ...cost, tokens: n(cost.tokens), window: n(cost.window) });
      assert.equal((await notice.locator("p").innerText()).trim(), text);
      assert.equal((await notice.getByTestId("tool-cost-fold").innerText()).trim(), msg(en.chat, "status.toolCost.foldAll"));
      assert.equal((await notice.getByTestId("tool-cost-servers").innerText()).trim(), msg(en.chat, "status.toolCost.servers"));
      assert.equal(await notice.getByTestId("tool-cost-window").count(), 0, "the window is known: no way out to set it");
      await screenshot(page, "toolcard-03-tool-cost");

      // Fold every MCP tool: the setting turns on and the notice says so.
      await notice.getByTestId("tool-cost-fold").click();
      await notice.getByTestId("tool-cost-folded").waitFor();
      assert.equal((await notice.getByTestId("tool-cost-folded").innerText()).trim(), msg(en.chat, "status.toolCost.folded"));
      assert.equal((await server.result("GetSettings")).values["chat.foldAllTools"], true);
      await server.result("SetSetting", "chat.foldAllTools", false);

      // Turn servers off: Settings → MCP servers opens.
      await notice.getByTestId("tool-cost-servers").click();
      await page.getByTestId("settings-section-mcp").waitFor();
      assert.equal(await page.evaluate(() => location.hash), "#/settings/mcp");
      await screenshot(page, "toolcard-04-mcp-settings");
      assert.deepEqual(requests.foreign(), [], "the page asked another host");
      assert.deepEqual(ctx.pageErrors, []);
    });
  });
});
