// Shared helpers for the end-to-end suites: one headless Chromium for the whole run, any
// number of `cairn serve` instances (each with its own data directory, extra env and
// flags), pages opened with the token, screenshots, and calls to the HTTP API from node.
// Everything started here is registered and stopped by cleanup(), which run.mjs calls
// after the last test (and on exit, as a last resort).
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
/** frontend/ */
export const FRONTEND = resolve(here, "../..");
/** The repository root. */
export const ROOT = resolve(FRONTEND, "..");
/** The CLI + serve binary `make cli` builds; CAIRN_BIN overrides it. */
export const CAIRN_BIN = process.env.CAIRN_BIN || join(ROOT, "bin/cairn");
/** Debian's chromium (installed by .ci/deps.sh); CHROMIUM overrides it. */
export const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
/** Screenshots and server logs land here. */
export const OUT = join(ROOT, "test-output/e2e");

/**
 * Flags for a quiet, reproducible headless Chromium. Playwright adds --headless itself and
 * gives every launch a fresh temporary --user-data-dir (it refuses the flag in args and
 * deletes the directory when the browser closes).
 */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-quic",
  "--no-first-run",
];

/** Pass as `{ timeout: SUITE_TIMEOUT_MS }` to describe(): a hung suite fails instead of hanging CI. */
export const SUITE_TIMEOUT_MS = 180_000;

const SERVE_LINE = /^Cairn is serving at (http:\/\/\S+)\s*$/;
const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 6_000;

/** Everything to stop at the end, newest first. */
const live = new Set();
let browserPromise = null;

mkdirSync(OUT, { recursive: true });

/** Reads a locale file, e.g. locale("zh-CN", "settings"), so tests follow wording changes. */
export function locale(lng, ns) {
  return JSON.parse(readFileSync(join(FRONTEND, "src/i18n/locales", lng, `${ns}.json`), "utf8"));
}

/** "a.b.c" lookup in a locale object; throws on a missing key so tests fail loudly. */
export function msg(obj, path) {
  const v = path.split(".").reduce((o, k) => (o == null ? undefined : o[k]), obj);
  if (typeof v !== "string") throw new Error(`locale key ${path} missing`);
  return v;
}

/** The one browser of the run, launched on first use. */
export function browser() {
  if (!browserPromise) {
    browserPromise = chromium
      .launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 30_000 })
      .then((b) => {
        live.add({ name: "chromium", stop: () => b.close() });
        return b;
      });
    // A failed launch must not be cached: the next caller gets the real error again.
    browserPromise.catch(() => {
      browserPromise = null;
    });
  }
  return browserPromise;
}

/**
 * Starts `cairn serve` on a fresh data directory and resolves once it printed its URL.
 * opts.env adds environment variables, opts.args adds flags after `serve`,
 * opts.globalArgs adds flags before it, opts.dataDir reuses a directory (kept afterwards).
 */
export async function startServer(opts = {}) {
  if (!existsSync(CAIRN_BIN)) {
    throw new Error(`${CAIRN_BIN} not found: run \`make cli\` first (or set CAIRN_BIN)`);
  }
  const ownDir = !opts.dataDir;
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), "cairn-e2e-"));
  const args = ["--data-dir", dataDir, ...(opts.globalArgs ?? []), "serve", ...(opts.args ?? [])];
  const proc = spawn(CAIRN_BIN, args, {
    env: { ...process.env, CAIRN_SECRETS: "file", ...(opts.env ?? {}) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stdout = [];
  const stderr = [];
  createInterface({ input: proc.stderr }).on("line", (l) => stderr.push(l));
  const exited = new Promise((res) => proc.once("exit", (code, signal) => res({ code, signal })));

  const entry = {
    name: `cairn serve (pid ${proc.pid})`,
    kill: () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    },
    stop: async () => {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill("SIGTERM");
        const timer = setTimeout(() => proc.kill("SIGKILL"), STOP_TIMEOUT_MS);
        await exited;
        clearTimeout(timer);
      }
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  live.add(entry);

  const url = await new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`serve printed no URL in ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
    const rl = createInterface({ input: proc.stdout });
    rl.on("line", (l) => {
      stdout.push(l);
      if (stdout.length !== 1) return;
      clearTimeout(timer);
      const m = SERVE_LINE.exec(l);
      if (m) res(m[1]);
      else rej(new Error(`first stdout line of serve is not the URL: ${JSON.stringify(l)}`));
    });
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      rej(new Error(`serve exited (${code ?? signal}) before printing its URL:\n${stderr.join("\n")}`));
    });
  }).catch(async (e) => {
    await entry.stop();
    live.delete(entry);
    throw e;
  });

  const u = new URL(url);
  const token = u.searchParams.get("token");
  const origin = u.origin;
  const auth = { Authorization: `Bearer ${token}` };
  return {
    url,
    origin,
    token,
    dataDir,
    pid: proc.pid,
    /** Lines the server wrote to stderr so far (its log). */
    log: () => stderr.join("\n"),
    /** Plain fetch to a path of this server; no token unless you add it. */
    fetch: (path, init = {}) => fetch(origin + path, init),
    /** POST /api/<method> with the bearer token; resolves to {status, body}. */
    async call(method, ...params) {
      const res = await fetch(`${origin}/api/${method}`, {
        method: "POST",
        headers: { ...auth, "Content-Type": "application/json" },
        body: JSON.stringify(params),
      });
      const text = await res.text();
      let body;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = text;
      }
      return { status: res.status, body };
    },
    /** Same as call, but returns `result` and throws on an error status. */
    async result(method, ...params) {
      const { status, body } = await this.call(method, ...params);
      if (status !== 200) throw new Error(`${method} → ${status}: ${JSON.stringify(body)}`);
      return body && typeof body === "object" && "result" in body ? body.result : body;
    },
    authHeaders: () => ({ ...auth }),
    async stop() {
      await entry.stop();
      live.delete(entry);
    },
  };
}

/**
 * A new browser context (its own storage: a separate "window" of a separate user agent)
 * with uncaught page errors collected in ctx.pageErrors.
 */
export async function newContext(options = {}) {
  const b = await browser();
  const ctx = await b.newContext({
    locale: "en-US",
    colorScheme: "light",
    viewport: { width: 1200, height: 800 },
    ...options,
  });
  ctx.pageErrors = [];
  ctx.on("page", (p) => p.on("pageerror", (e) => ctx.pageErrors.push(`${p.url()}: ${e.message}`)));
  return ctx;
}

/**
 * Opens the server's token URL (the address `serve` printed, with `hash`) in a new page of
 * ctx and waits for body[data-ready="1"]. Every tab opens it: the page keeps the token in
 * its own session storage, nowhere another tab or server could read it.
 */
export async function openApp(ctx, server, { hash = "" } = {}) {
  const page = await ctx.newPage();
  const target = `${server.url}${hash}`;
  const res = await page.goto(target);
  try {
    await page.waitForSelector('body[data-ready="1"]', { timeout: 15_000 });
  } catch (e) {
    // Say what the page shows instead (a "not built" page, a 401, a boot error) and why.
    const text = (await page.locator("body").innerText().catch(() => "")).slice(0, 500);
    throw new Error(
      `${target} never became ready (HTTP ${res?.status()}): ${e.message}\npage text: ${text}\n` +
        `page errors: ${ctx.pageErrors?.join("; ") || "none"}\nserver log:\n${server.log?.() ?? ""}`,
    );
  }
  return page;
}

/** Saves a full-page PNG under test-output/e2e/<name>.png and returns its path. */
export async function screenshot(page, name) {
  const path = join(OUT, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Runs fn with a context that is closed afterwards, whatever happens. */
export async function withContext(fn, options) {
  const ctx = await newContext(options);
  try {
    return await fn(ctx);
  } finally {
    await ctx.close().catch(() => {});
  }
}

/** Stops every server and the browser; safe to call twice. */
export async function cleanup() {
  const all = [...live].reverse();
  live.clear();
  browserPromise = null;
  const results = await Promise.allSettled(all.map((e) => e.stop()));
  results.forEach((r, i) => {
    if (r.status === "rejected") console.error(`cleanup: ${all[i].name}: ${r.reason}`);
  });
}

// Last resort when the run is interrupted: no server outlives the runner. (Playwright
// kills its own browser on exit and on SIGINT/SIGTERM.)
process.once("exit", () => {
  for (const e of live) e.kill?.();
});
