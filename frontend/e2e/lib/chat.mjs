// Helpers for the chat and approval suites: the fake OpenAI provider (backend/llm/llmtest's
// cmd/fakeopenai, built once per run), providers and sessions set up through the API
// where the UI is not what a test is about, server-everything imported as an MCP server,
// and small DOM helpers for messages and tool cards.
//
// Every fakeopenai a suite starts is stopped by its stop() (call it in after()); on exit
// any that is left is killed and the build directory removed.
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { ROOT } from "./harness.mjs";

const run = promisify(execFile);

/** Where the fake's URL must appear: its first stdout line. */
const START_TIMEOUT_MS = 15_000;
const BUILD_TIMEOUT_MS = 120_000;

/** The npm packages of the MCP tests (backend/mcp/testdata/npm) and server-everything in them. */
export const MCP_NPM_DIR = join(ROOT, "backend/mcp/testdata/npm");
export const EVERYTHING_JS = join(MCP_NPM_DIR, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");

const fakes = new Set();
let buildDir = null;
let buildPromise = null;

process.once("exit", () => {
  for (const p of fakes) {
    if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  }
  if (buildDir) rmSync(buildDir, { recursive: true, force: true });
});

/** Builds fakeopenai once per run into a temporary directory; resolves to the binary. */
export function buildFakeOpenAI() {
  if (!buildPromise) {
    const dir = mkdtempSync(join(tmpdir(), "cairn-e2e-fake-"));
    buildDir = dir;
    const bin = join(dir, "fakeopenai");
    buildPromise = run("go", ["build", "-o", bin, "./backend/llm/llmtest/cmd/fakeopenai"], {
      cwd: ROOT,
      env: { ...process.env, CGO_ENABLED: "0", GOFLAGS: process.env.GOFLAGS || "-mod=mod" },
      timeout: BUILD_TIMEOUT_MS,
    }).then(
      () => bin,
      (e) => {
        buildPromise = null;
        buildDir = null;
        rmSync(dir, { recursive: true, force: true });
        throw new Error(`go build fakeopenai failed: ${e.message}\n${e.stderr ?? ""}`);
      },
    );
  }
  return buildPromise;
}

/**
 * Starts fakeopenai (scenario "auto": the model name picks the scenario, e.g. fake-markdown,
 * fake-slow, fake-echo-tool, fake-call). With apiKey every request without that bearer key
 * gets a 401. Resolves to {url (ends in /v1), log(), stop()}.
 */
export async function startFakeOpenAI({ apiKey = "", scenario = "auto" } = {}) {
  const bin = await buildFakeOpenAI();
  const args = ["-scenario", scenario];
  if (apiKey) args.push("-api-key", apiKey);
  const proc = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] });
  fakes.add(proc);
  const stderr = [];
  createInterface({ input: proc.stderr }).on("line", (l) => stderr.push(l));
  const exited = new Promise((res) => proc.once("exit", (code, signal) => res({ code, signal })));
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill("SIGTERM");
      const timer = setTimeout(() => proc.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    }
    fakes.delete(proc);
  };
  const url = await new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`fakeopenai printed no URL in ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
    createInterface({ input: proc.stdout }).once("line", (l) => {
      clearTimeout(timer);
      if (/^http:\/\/\S+\/v1$/.test(l.trim())) res(l.trim());
      else rej(new Error(`fakeopenai's first line is not its URL: ${JSON.stringify(l)}`));
    });
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      rej(new Error(`fakeopenai exited (${code ?? signal}) before printing its URL:\n${stderr.join("\n")}`));
    });
  }).catch(async (e) => {
    await stop();
    throw e;
  });
  return { url, log: () => stderr.join("\n"), stop };
}

/** A model entry as the providers API takes it (manual, tools on). */
export function model(id) {
  return { id, contextWindow: 32768, supportsTools: true, vision: false, reasoning: false, source: "manual" };
}

/** Stores a provider for the fake through the API; resolves to the Provider. */
export function saveFakeProvider(server, fake, { name, apiKey = "", models = ["fake-echo"], defaultModel } = {}) {
  return server.result("SaveProvider", {
    name,
    preset: "custom",
    baseUrl: fake.url,
    apiKey,
    models: models.map(model),
    defaultModel: defaultModel ?? models[0],
  });
}

/** Creates a session through the API; resolves to the Session. */
export function createSession(server, input = {}) {
  return server.result("CreateSession", input);
}

/**
 * Makes sure backend/mcp/testdata/npm has its node_modules (the MCP tests install them on
 * first use too, through the same lock directory).
 */
export async function ensureMCPPackages() {
  if (existsSync(EVERYTHING_JS)) return;
  const lock = join(MCP_NPM_DIR, ".install-lock");
  const deadline = Date.now() + 5 * 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (existsSync(EVERYTHING_JS)) return;
      const st = statSync(lock, { throwIfNoEntry: false });
      if (st && Date.now() - st.mtimeMs > 5 * 60_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error("timed out waiting for another npm install in " + MCP_NPM_DIR);
      await new Promise((r) => setTimeout(r, 200)); // another process installs; nothing to await
    }
  }
  try {
    if (!existsSync(EVERYTHING_JS)) {
      await run("npm", ["ci", "--no-audit", "--no-fund"], { cwd: MCP_NPM_DIR, timeout: 5 * 60_000 });
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Imports @modelcontextprotocol/server-everything (stdio) through ImportMCPServers, reads
 * its tool list (RefreshMCPServer connects it) and resolves to
 * {id, view, wire(name) → the tool's wire name, tools: ListTools()}.
 */
export async function importEverything(server, name = "everything") {
  await ensureMCPPackages();
  const json = JSON.stringify({ mcpServers: { [name]: { command: "node", args: [EVERYTHING_JS, "stdio"] } } });
  const report = await server.result("ImportMCPServers", json);
  const entry = report.entries.find((e) => e.name === name);
  if (!entry?.id) throw new Error(`ImportMCPServers did not import ${name}: ${JSON.stringify(report)}`);
  const view = await server.result("RefreshMCPServer", entry.id);
  if (view.status?.state !== "ready") throw new Error(`${name} is not ready after a refresh: ${JSON.stringify(view.status)}`);
  const tools = await server.result("ListTools");
  const byName = new Map(view.tools.map((t) => [t.name, t]));
  return {
    id: entry.id,
    view,
    tools,
    /** The wire name of one of the server's own tool names, checked against ListTools. */
    wire(toolName) {
      const t = byName.get(toolName);
      if (!t) throw new Error(`${name} has no tool ${toolName} (has ${[...byName.keys()].join(", ")})`);
      if (!tools.tools.some((x) => x.name === t.wireName)) {
        throw new Error(`ListTools lacks ${t.wireName}: ${tools.tools.map((x) => x.name).join(", ")}`);
      }
      return t.wireName;
    },
    info: (toolName) => byName.get(toolName),
  };
}

/** The `#/session/<id>` hash of a session. */
export const sessionHash = (id) => `#/session/${id}`;

/** The last assistant message of a page (a locator). */
export const lastAssistant = (page) => page.getByTestId("message-assistant").last();

/** Types text into the composer and presses Enter (which sends). */
export async function sendWithEnter(page, text) {
  const input = page.getByTestId("composer-input");
  await input.fill(text);
  await input.press("Enter");
}

/** Waits until the page's session view shows state (idle / streaming / awaiting-approval). */
export function waitSessionState(page, state, timeout = 15_000) {
  // a locator's wait holds no element handle (waitForSelector's would keep the view alive)
  return page.locator(`[data-testid="session-view"][data-state="${state}"]`).first().waitFor({ timeout });
}

/** Waits until the n-th (0-based) assistant message of the page has a status. */
export function waitAssistantStatus(page, index, status, timeout = 15_000) {
  return page.waitForFunction(
    ([i, s]) => document.querySelectorAll('[data-testid="message-assistant"]')[i]?.getAttribute("data-status") === s,
    [index, status],
    { timeout },
  );
}

/** The stored session (GetSession) with the last assistant message's text parts joined. */
export async function storedAnswer(server, sessionId) {
  const snap = await server.result("GetSession", sessionId);
  const msgs = snap.messages.filter((m) => m.role === "assistant");
  const last = msgs[msgs.length - 1];
  const text = (last?.parts ?? []).filter((p) => p.type === "text").map((p) => p.text ?? "").join("");
  return { snap, message: last, text };
}

/**
 * Records, from now on, every data-state the session view and the last text part take
 * and every length the streamed text had, so a test can tell a stream from a single
 * render. Read it with readStreamLog(page).
 */
export function recordStream(page) {
  return page.evaluate(() => {
    const log = { viewStates: [], lengths: [], partStates: [] };
    window.__e2eStream = log;
    const push = (arr, v) => {
      if (arr[arr.length - 1] !== v) arr.push(v);
    };
    const sample = () => {
      const view = document.querySelector('[data-testid="session-view"]');
      if (view) push(log.viewStates, view.getAttribute("data-state"));
      const msgs = document.querySelectorAll('[data-testid="message-assistant"]');
      const texts = msgs[msgs.length - 1]?.querySelectorAll('[data-testid="part-text"]') ?? [];
      const last = texts[texts.length - 1];
      if (last) {
        push(log.partStates, last.getAttribute("data-state"));
        push(log.lengths, last.textContent.length);
      }
    };
    new MutationObserver(sample).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
    sample();
  });
}

/** What recordStream saw so far. */
export function readStreamLog(page) {
  return page.evaluate(() => {
    const { viewStates, lengths, partStates } = window.__e2eStream;
    return { viewStates, lengths, partStates };
  });
}
