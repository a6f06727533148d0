// How a tab of `cairn serve` authenticates: the printed ?token= moves into the tab's
// session storage and every call and the event stream send it as a header. Nothing is a
// cookie, so another local web server the user opens (another port of the same host, which
// a browser would send a cookie to) receives no token; two `cairn serve` run side by side.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, describe, test } from "node:test";
import { SUITE_TIMEOUT_MS, openApp, screenshot, startServer, withContext } from "./lib/harness.mjs";

/** A local web server on another port of 127.0.0.1 that records every request it gets. */
function startSpy() {
  const requests = [];
  const srv = createServer((req, res) => {
    requests.push({ url: req.url, headers: req.headers });
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end("<!doctype html><title>another local server</title><p>hello</p>");
  });
  return new Promise((resolve) => {
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      resolve({ origin: `http://127.0.0.1:${port}`, requests, stop: () => new Promise((r) => srv.close(r)) });
    });
  });
}

describe("serve auth: the token stays with its tab", { timeout: SUITE_TIMEOUT_MS }, () => {
  let a, b, spy;
  before(async () => {
    [a, b, spy] = await Promise.all([startServer(), startServer(), startSpy()]);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop(), spy?.stop()]);
  });

  test("two serves on different ports work side by side; another local port receives no token", async () => {
    assert.notEqual(a.origin, b.origin);
    await withContext(async (ctx) => {
      const pa = await openApp(ctx, a);
      const pb = await openApp(ctx, b);
      // Each tab's event stream (fetch with the header) delivers its own server's events.
      await a.result("SetSetting", "general.theme", "dark");
      await pa.waitForSelector('html[data-theme="dark"]');
      assert.equal(await pb.getAttribute("html", "data-theme"), "light", "b followed a's setting");
      await b.result("SetSetting", "general.theme", "dark");
      await pb.waitForSelector('html[data-theme="dark"]');

      // Another server on this host, opened in the same browser, gets no token.
      const ps = await ctx.newPage();
      await ps.goto(`${spy.origin}/page?x=1`);
      await ps.waitForSelector("p");
      await ps.goto(`${spy.origin}/again`); // a second request, after the first set nothing
      assert.ok(spy.requests.length >= 2, `the spy saw ${spy.requests.length} requests`);
      for (const r of spy.requests) {
        assert.equal(r.headers.cookie, undefined, `${r.url}: a cookie reached another port`);
        const all = JSON.stringify(r);
        for (const tok of [a.token, b.token]) assert.ok(!all.includes(tok), `${r.url}: a token reached another port`);
      }
      assert.deepEqual(await ctx.cookies(), [], "the token must never be a cookie");
      assert.equal(await ps.evaluate(() => sessionStorage.length), 0);

      // Both tabs still work after a reload (the kept token), each with its own server.
      await pa.reload();
      await pa.waitForSelector('body[data-ready="1"]');
      await pb.reload();
      await pb.waitForSelector('body[data-ready="1"]');
      await a.result("SetSetting", "general.theme", "system");
      await pa.waitForSelector('html[data-theme="light"]');
      assert.equal(await pb.getAttribute("html", "data-theme"), "dark");
      await screenshot(pb, "serveauth-01-side-by-side");
      await b.result("SetSetting", "general.theme", "system");
      assert.deepEqual(ctx.pageErrors, []);
    });
  });
});
