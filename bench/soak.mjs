// The soak benchmark's driver and sampler (bench/soak.sh builds what it needs and draws
// the plots). One `cairn serve --debug-stats` on a fresh data directory, fakeopenai as
// the model, server-everything and server-memory as MCP servers, and two tabs of one
// headless Chromium on the app, driven for --minutes at a bounded rate:
//   - a cycle (at most one every --cycle-s seconds): a new conversation; a streamed answer
//     of --tokens tokens sent from a tab's composer; Regenerate; tool rounds through both
//     servers: everything's echo (runs unasked), memory's read_graph (a result over
//     100 KB, which spills to tool-results/), memory's create_entities and
//     delete_entities and everything's toggle-simulated-logging (they ask: the dialog is
//     answered in one tab and must close in the other); a setting switched (theme every
//     cycle, language every third); the conversation before the last deleted, and its
//     spill folder must be gone when DeleteSession returns.
//   - once a minute, a burst: 20 conversations answering at once (streamed answers and
//     tool rounds through both servers), then deleted. Goroutines and open files are
//     read with the app quiet just before and 8 s after (node's idle keep-alive sockets
//     close after 4 s).
//   - every 30 s a sample: PSS and RSS of serve, of its children (the MCP servers) and of
//     Chromium (all processes, and the renderers); Go's heap in use and goroutines from
//     /api/debug/stats (read after a collection: the live heap); open files; the
//     database, WAL and MCP log sizes; files under tool-results/; events the bus dropped;
//     each tab's live JS heap and DOM nodes (CDP, after a collection).
// Writes CSVs and a JSON summary under --out, prints the summary table (Markdown) and
// exits 1 when a goal is missed, 2 when the run itself failed.
// `node bench/soak.mjs --report=DIR` prints the table again from a run's files.
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createInterface } from "node:readline";
import { cleanup, newContext, openApp, ROOT, startServer } from "../frontend/e2e/lib/harness.mjs";
import { MCP_NPM_DIR, EVERYTHING_JS, ensureMCPPackages, sessionHash } from "../frontend/e2e/lib/chat.mjs";

const opt = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const [k, ...v] = a.replace(/^--/, "").split("=");
    return [k, v.join("=")];
  }),
);
const OUT = resolve(opt.out ?? join(ROOT, "bench/out/soak"));
const MEMORY_JS = join(MCP_NPM_DIR, "node_modules/@modelcontextprotocol/server-memory/dist/index.js");

/** Goals (the issue's): growth after the warm-up, and what a burst may leave behind. */
const GOALS = {
  growthPct: 10,
  // After a burst the app must be back where it was: goroutines within this many of the
  // quiet count before it (a few come and go with the tabs' own requests), open files
  // within fdSlack.
  goroutineSlack: 8,
  fdSlack: 3,
};

// ---------------------------------------------------------------------------------------
// Processes and files

/** pid → ppid for every process now. */
function processTable() {
  const t = new Map();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      t.set(Number(d), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  return t;
}

/** root's descendants (not root). */
function descendants(root, table = processTable()) {
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, pp] of table) if (pp === out[i]) out.push(pid);
  return out.slice(1);
}

function cmdline(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    return "";
  }
}

/** Sum of Pss and Rss (KiB) over pids, from /proc/PID/smaps_rollup. */
function memory(pids) {
  let pss = 0;
  let rss = 0;
  for (const pid of pids) {
    try {
      const s = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
      pss += Number(/^Pss:\s+(\d+)/m.exec(s)?.[1] ?? 0);
      rss += Number(/^Rss:\s+(\d+)/m.exec(s)?.[1] ?? 0);
    } catch {
      // exited meanwhile
    }
  }
  return { pss, rss };
}

function openFiles(pid) {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return -1;
  }
}

/** Files and bytes under dir (recursively); 0 when it does not exist. */
function dirUsage(dir) {
  let files = 0;
  let bytes = 0;
  let dirs = 0;
  const walk = (d) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        dirs++;
        walk(p);
      } else {
        files++;
        try {
          bytes += statSync(p).size;
        } catch {
          // removed meanwhile
        }
      }
    }
  };
  walk(dir);
  return { files, bytes, dirs };
}

const size = (p) => {
  try {
    return statSync(p).size;
  } catch {
    return 0;
  }
};

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

// ---------------------------------------------------------------------------------------
// The fake model, built by soak.sh (--fake=BIN)

async function startFake(bin) {
  const proc = spawn(bin, ["-scenario", "auto"], { stdio: ["ignore", "pipe", "pipe"] });
  const url = await new Promise((res, rej) => {
    createInterface({ input: proc.stdout }).once("line", (l) => res(l.trim()));
    proc.once("exit", (c) => rej(new Error(`fakeopenai exited ${c}`)));
  });
  return { url, pid: proc.pid, stop: () => proc.kill("SIGTERM") };
}

// ---------------------------------------------------------------------------------------
// The run

/** A conversation's answers are done: the session idle, its last message not streaming. */
async function waitIdle(server, id, timeoutMs = 120_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const snap = await server.result("GetSession", id);
    const last = snap.messages[snap.messages.length - 1];
    if (snap.session.state === "idle" && last && last.role === "assistant" && last.status !== "streaming") return snap;
    if (Date.now() > until) throw new Error(`session ${id} not idle after ${timeoutMs} ms (state ${snap.session.state})`);
    await sleep(300);
  }
}

/** The tab shows the session, idle, with n answers, the last one complete. */
function waitTab(page, id, n, timeout = 90_000) {
  return page.waitForFunction(
    ([sid, count]) => {
      const view = document.querySelector(`[data-testid="session-view"][data-session-id="${sid}"]`);
      if (!view || view.getAttribute("data-state") !== "idle") return false;
      const msgs = view.querySelectorAll('[data-testid="message-assistant"]');
      return msgs.length === count && msgs[count - 1].getAttribute("data-status") === "complete";
    },
    [id, n],
    { timeout, polling: 250 },
  );
}

async function showSession(page, id) {
  await page.evaluate((h) => {
    location.hash = h;
  }, sessionHash(id));
  await page.waitForSelector(`[data-testid="session-view"][data-session-id="${id}"]`, { timeout: 60_000 });
}

async function sendFromTab(page, text) {
  const input = page.getByTestId("composer-input");
  await input.fill(text);
  await input.press("Enter");
}

/**
 * Sends text from `from`, waits for the approval dialog in both tabs, allows it in
 * `decider` and checks the other tab's dialog closes by itself (the decision's event).
 */
async function approvedRound(server, tabs, from, decider, id, text, n) {
  await sendFromTab(from, text);
  const dialogs = tabs.map((p) => p.getByTestId("approval-dialog"));
  await Promise.all(dialogs.map((d) => d.waitFor({ timeout: 90_000 })));
  const other = tabs.find((p) => p !== decider);
  await decider.getByTestId("approval-allow").click();
  await Promise.all(dialogs.map((d) => d.waitFor({ state: "detached", timeout: 60_000 })));
  await waitIdle(server, id);
  await Promise.all(tabs.map((p) => waitTab(p, id, n)));
  return other;
}

/** Sends text through the API and waits for the answer in both tabs. */
async function apiRound(server, tabs, id, text, n) {
  await server.result("SendMessage", id, text, []);
  await waitIdle(server, id);
  await Promise.all(tabs.map((p) => waitTab(p, id, n)));
}

async function cycle(ctx, i) {
  const { server, tabs, providerId, dataDir, stats } = ctx;
  const [a, b] = i % 2 ? [tabs[1], tabs[0]] : tabs; // which tab sends and which decides alternates
  const s = await server.result("CreateSession", { providerId, model: "fake-stream", title: `Soak ${i}`, toolsets: ["mcp"] });
  ctx.sessions.push(s.id);
  await Promise.all(tabs.map((p) => showSession(p, s.id)));
  let n = 0;
  // A streamed answer of a few thousand tokens, sent from a tab; both see it whole.
  await sendFromTab(a, String(ctx.tokens));
  await waitIdle(server, s.id);
  await Promise.all(tabs.map((p) => waitTab(p, s.id, ++n)));
  const shown = await b.evaluate(() => [...document.querySelectorAll('[data-testid="part-text"]')].pop()?.textContent.length ?? 0);
  if (shown < ctx.tokens * 4 - 1) throw new Error(`tab shows ${shown} characters of a ${ctx.tokens * 4}-character answer`);
  // Regenerate: a second version in the same place.
  await server.result("Regenerate", s.id);
  await waitIdle(server, s.id);
  await Promise.all(tabs.map((p) => waitTab(p, s.id, n)));
  // Tool rounds through both servers.
  await server.result("UpdateSession", s.id, { model: "fake-call" });
  const entity = `soak-${i}`;
  const create = JSON.stringify({ entities: [{ name: entity, entityType: "soak", observations: [`cycle ${i}`] }] });
  await approvedRound(server, tabs, a, b, s.id, `create_entities ${create}`, ++n);
  await apiRound(server, tabs, s.id, `echo ${JSON.stringify({ message: `soak cycle ${i}` })}`, ++n);
  await apiRound(server, tabs, s.id, "read_graph", ++n);
  const snap = await server.result("GetSession", s.id);
  const spilled = snap.messages.flatMap((m) => m.parts ?? []).some((p) => p.type === "tool-result" && p.tool?.spillPath);
  if (!spilled) throw new Error("read_graph's result was not spilled to disk");
  stats.spilledSessions.add(s.id);
  await approvedRound(server, tabs, b, a, s.id, "toggle-simulated-logging", ++n);
  await approvedRound(server, tabs, a, b, s.id, `delete_entities ${JSON.stringify({ entityNames: [entity] })}`, ++n);
  // Settings: the theme every cycle, the language every third.
  await server.result("SetSetting", "general.theme", ["light", "dark", "system"][i % 3]);
  if (i % 3 === 0) await server.result("SetSetting", "general.language", (i / 3) % 2 ? "en" : "zh-CN");
  // Delete the conversation before this one: its spill folder must go with it.
  while (ctx.sessions.length > 2) await deleteSession(ctx, ctx.sessions.shift());
}

async function deleteSession(ctx, id) {
  await ctx.server.result("DeleteSession", id);
  ctx.stats.deleted++;
  if (ctx.stats.spilledSessions.delete(id)) {
    ctx.stats.spillDeleted++;
    if (existsSync(join(ctx.dataDir, "tool-results", id))) ctx.stats.spillLeft.push(id);
  }
}

/** The quiet figures before or after a burst: goroutines and open files of serve. */
async function quietFigures(ctx) {
  const st = await debugStats(ctx.server, false);
  return { goroutines: st.goroutines, fds: openFiles(ctx.server.pid) };
}

async function burst(ctx, k) {
  const { server, providerId } = ctx;
  await sleep(8_000);
  const before = await quietFigures(ctx);
  const t0 = Date.now();
  const kinds = [
    ["fake-stream", String(ctx.tokens)],
    ["fake-call", `echo ${JSON.stringify({ message: `burst ${k}` })}`],
    ["fake-call", "search_nodes " + JSON.stringify({ query: "soak" })],
    ["fake-stream", "500"],
  ];
  const ids = await Promise.all(
    Array.from({ length: 20 }, async (_, j) => {
      const [model, text] = kinds[j % kinds.length];
      const s = await server.result("CreateSession", { providerId, model, title: `Burst ${k}.${j}`, toolsets: ["mcp"] });
      await server.result("SendMessage", s.id, text, []);
      return s.id;
    }),
  );
  await Promise.all(ids.map((id) => waitIdle(server, id)));
  const ms = Date.now() - t0;
  await Promise.all(ids.map((id) => server.result("DeleteSession", id)));
  await sleep(8_000);
  const after = await quietFigures(ctx);
  return { before, after, ms };
}

async function debugStats(server, gc) {
  const res = await fetch(`${server.origin}/api/debug/stats${gc ? "?gc=1" : ""}`, { headers: server.authHeaders() });
  if (!res.ok) throw new Error(`debug stats: ${res.status}`);
  return res.json();
}

const COLUMNS = [
  "t_s", "cycles", "bursts", "errors",
  "serve_pss_kib", "serve_rss_kib", "mcp_pss_kib", "mcp_rss_kib", "mcp_procs", "mcp_pids",
  "heap_inuse_b", "heap_alloc_b", "heap_sys_b", "heap_released_b", "live_heap_inuse_b", "live_heap_alloc_b", "goroutines", "fds",
  "db_b", "wal_b", "mcp_logs_b", "spill_files", "spill_dirs", "spill_b",
  "events_dropped", "event_subscribers", "event_topics", "event_streams",
  "chromium_pss_kib", "chromium_rss_kib", "renderer_pss_kib", "tab_a_js_heap_b", "tab_b_js_heap_b", "tab_a_dom_nodes", "tab_b_dom_nodes",
];

async function tabFigures(cdp) {
  try {
    await cdp.send("HeapProfiler.collectGarbage");
    const heap = await cdp.send("Runtime.getHeapUsage");
    const dom = await cdp.send("Memory.getDOMCounters");
    return { heap: heap.usedSize, nodes: dom.nodes };
  } catch {
    return { heap: -1, nodes: -1 };
  }
}

async function sample(ctx) {
  const { server, dataDir, t0 } = ctx;
  const table = processTable();
  const children = descendants(server.pid, table);
  const serveMem = memory([server.pid]);
  const mcpMem = memory(children);
  const own = new Set([process.pid, server.pid, ctx.fakePid, ...children]);
  const chromium = descendants(process.pid, table).filter((p) => !own.has(p));
  const chromiumMem = memory(chromium);
  const renderers = memory(chromium.filter((p) => cmdline(p).includes("--type=renderer")));
  const fds = openFiles(server.pid);
  const raw = await debugStats(server, false);
  const live = await debugStats(server, true);
  const spill = dirUsage(join(dataDir, "tool-results"));
  const [ta, tb] = await Promise.all(ctx.cdp.map(tabFigures));
  const row = {
    t_s: Math.round((Date.now() - t0) / 1000),
    cycles: ctx.stats.cycles,
    bursts: ctx.stats.bursts.length,
    errors: ctx.stats.errors.length,
    serve_pss_kib: serveMem.pss,
    serve_rss_kib: serveMem.rss,
    mcp_pss_kib: mcpMem.pss,
    mcp_rss_kib: mcpMem.rss,
    mcp_procs: children.length,
    mcp_pids: children.sort((x, y) => x - y).join(" "),
    heap_inuse_b: raw.heapInuse,
    heap_alloc_b: raw.heapAlloc,
    heap_sys_b: raw.heapSys,
    heap_released_b: raw.heapReleased,
    live_heap_inuse_b: live.heapInuse,
    live_heap_alloc_b: live.heapAlloc,
    goroutines: raw.goroutines,
    fds,
    db_b: size(join(dataDir, "cairn.db")),
    wal_b: size(join(dataDir, "cairn.db-wal")),
    mcp_logs_b: dirUsage(join(dataDir, "logs")).bytes,
    spill_files: spill.files,
    spill_dirs: spill.dirs,
    spill_b: spill.bytes,
    events_dropped: live.eventsDropped,
    event_subscribers: live.eventSubscribers,
    event_topics: live.eventTopics,
    event_streams: live.eventStreams,
    chromium_pss_kib: chromiumMem.pss,
    chromium_rss_kib: chromiumMem.rss,
    renderer_pss_kib: renderers.pss,
    tab_a_js_heap_b: ta.heap,
    tab_b_js_heap_b: tb.heap,
    tab_a_dom_nodes: ta.nodes,
    tab_b_dom_nodes: tb.nodes,
  };
  appendFileSync(join(OUT, "soak.csv"), COLUMNS.map((c) => row[c]).join(",") + "\n");
  const mib = (k) => (k / 1024).toFixed(1);
  process.stderr.write(
    `soak: ${row.t_s} s: cycles ${row.cycles}, bursts ${row.bursts}, errors ${row.errors}; serve PSS ${mib(row.serve_pss_kib)} MiB, live heap ${(row.live_heap_inuse_b / 2 ** 20).toFixed(1)} MiB, ` +
      `goroutines ${row.goroutines}, fds ${row.fds}, WAL ${(row.wal_b / 2 ** 20).toFixed(1)} MiB, spill files ${row.spill_files}, dropped ${row.events_dropped}; ` +
      `MCP ${row.mcp_procs} procs ${mib(row.mcp_pss_kib)} MiB; Chromium ${mib(row.chromium_pss_kib)} MiB, tabs JS ${(ta.heap / 2 ** 20).toFixed(1)}/${(tb.heap / 2 ** 20).toFixed(1)} MiB\n`,
  );
  return row;
}

/** Seeds server-memory's file with one large entity, so read_graph answers over 100 KB. */
function seedMemory(path) {
  const observations = Array.from({ length: 1500 }, (_, i) => `observation ${i} of the soak benchmark's large entity, padded to be long enough`);
  writeFileSync(path, JSON.stringify({ type: "entity", name: "soak-large", entityType: "fixture", observations }) + "\n");
}

async function setUp(minutes) {
  const fake = await startFake(opt.fake);
  const server = await startServer({ args: ["--debug-stats"] });
  const memFile = join(OUT, "memory.jsonl");
  seedMemory(memFile);
  await ensureMCPPackages();
  const cfg = {
    mcpServers: {
      everything: { command: "node", args: [EVERYTHING_JS, "stdio"] },
      memory: { command: "node", args: [MEMORY_JS], env: { MEMORY_FILE_PATH: memFile } },
    },
  };
  const report = await server.result("ImportMCPServers", JSON.stringify(cfg));
  for (const e of report.entries) {
    const view = await server.result("RefreshMCPServer", e.id);
    if (view.status?.state !== "ready") throw new Error(`${e.name} not ready: ${JSON.stringify(view.status)}`);
  }
  // A large window, so the MCP tools are offered directly (not folded behind tool_search).
  const model = (id) => ({ id, contextWindow: 1_000_000, supportsTools: true, vision: false, reasoning: false, source: "manual" });
  const provider = await server.result("SaveProvider", {
    name: "Fake",
    preset: "custom",
    baseUrl: fake.url,
    apiKey: "",
    models: ["fake-stream", "fake-call"].map(model),
    defaultModel: "fake-stream",
  });
  const bctx = await newContext();
  const tabs = [await openApp(bctx, server), await openApp(bctx, server)];
  const cdp = await Promise.all(tabs.map((p) => bctx.newCDPSession(p)));
  return {
    server,
    fake,
    fakePid: fake.pid,
    bctx,
    tabs,
    cdp,
    providerId: provider.id,
    dataDir: server.dataDir,
    sessions: [],
    tokens: Number(opt.tokens ?? 3000),
    minutes,
    stats: { cycles: 0, bursts: [], errors: [], deleted: 0, spilledSessions: new Set(), spillDeleted: 0, spillLeft: [] },
  };
}

/** Runs the cycles, the bursts and the sampler until the time is up. */
async function drive(ctx) {
  const end = ctx.t0 + ctx.minutes * 60_000;
  const cycleMs = Number(opt["cycle-s"] ?? 20) * 1000;
  let sampling = Promise.resolve();
  const rows = [];
  const tick = () => {
    sampling = sampling.then(() => sample(ctx).then((r) => rows.push(r))).catch((e) => ctx.stats.errors.push(`sample: ${e.message}`));
  };
  tick();
  const timer = setInterval(tick, 30_000);
  let nextBurst = ctx.t0 + 60_000;
  let i = 0;
  try {
    while (Date.now() < end) {
      const started = Date.now();
      try {
        await cycle(ctx, i);
        ctx.stats.cycles++;
      } catch (e) {
        ctx.stats.errors.push(`cycle ${i}: ${e.message.split("\n")[0]}`);
        process.stderr.write(`soak: cycle ${i} failed: ${e.message.split("\n")[0]}\n`);
        await recover(ctx);
      }
      i++;
      if (Date.now() >= nextBurst && Date.now() < end - 20_000) {
        try {
          const r = await burst(ctx, ctx.stats.bursts.length);
          r.t_s = Math.round((Date.now() - ctx.t0) / 1000);
          ctx.stats.bursts.push(r);
          appendFileSync(join(OUT, "soak-bursts.csv"), [r.t_s, r.ms, r.before.goroutines, r.after.goroutines, r.before.fds, r.after.fds].join(",") + "\n");
          process.stderr.write(`soak: burst ${ctx.stats.bursts.length} in ${r.ms} ms: goroutines ${r.before.goroutines} → ${r.after.goroutines}, fds ${r.before.fds} → ${r.after.fds}\n`);
        } catch (e) {
          ctx.stats.errors.push(`burst: ${e.message.split("\n")[0]}`);
          await recover(ctx);
        }
        nextBurst = Math.max(nextBurst + 60_000, Date.now() + 30_000);
      }
      const rest = cycleMs - (Date.now() - started);
      if (rest > 0) await sleep(Math.min(rest, Math.max(0, end - Date.now())));
    }
  } finally {
    clearInterval(timer);
    tick();
    await sampling;
  }
  return rows;
}

/** After a failed step: decide what still asks, so the next cycle starts clean. */
async function recover(ctx) {
  try {
    const { requests } = await ctx.server.result("ListPendingApprovals");
    for (const r of requests) await ctx.server.call("DecideApproval", r.id, "deny", "soak: recovering", "soak");
    for (const id of ctx.sessions) {
      const snap = await ctx.server.result("GetSession", id);
      if (snap.session.state !== "idle") await ctx.server.call("StopSession", id);
    }
  } catch (e) {
    ctx.stats.errors.push(`recover: ${e.message}`);
  }
}

// ---------------------------------------------------------------------------------------
// Summary

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function parseCSV(text) {
  const [head, ...lines] = text.trim().split("\n");
  const cols = head.split(",");
  return lines.filter(Boolean).map((l) => {
    const v = l.split(",");
    return Object.fromEntries(cols.map((c, i) => [c, c === "mcp_pids" ? v[i] : Number(v[i])]));
  });
}

/**
 * The summary: each figure with its goal. Windows: warm-up W = min(5 min, a fifth of the
 * run); growth compares the median of the samples in the window after the warm-up with
 * the median of the last window of the same length (min(5 min, a quarter of what is
 * left)).
 */
export function summarize(rows, bursts, meta) {
  const total = meta.minutes * 60;
  const warm = Math.min(300, total / 5);
  const win = Math.min(300, (total - warm) / 4);
  const first = rows.filter((r) => r.t_s >= warm && r.t_s <= warm + win);
  const last = rows.filter((r) => r.t_s >= total - win);
  const growth = (col) => {
    const a = median(first.map((r) => r[col]));
    const b = median(last.map((r) => r[col]));
    return { a, b, pct: ((b - a) / a) * 100 };
  };
  const out = [];
  let missed = false;
  const add = (measure, value, goal, ok) => {
    if (ok === false) missed = true;
    out.push(`| ${measure} | ${value} | ${goal} | ${ok === undefined ? "info" : ok ? "met" : "MISSED"} |`);
  };
  const mib = (x) => `${(x / 1024).toFixed(1)} MiB`;
  const mibB = (x) => `${(x / 2 ** 20).toFixed(1)} MiB`;
  const g = (col, fmt, label, goal) => {
    const r = growth(col);
    add(label, `${fmt(r.a)} → ${fmt(r.b)} (${r.pct >= 0 ? "+" : ""}${r.pct.toFixed(1)} %)`, goal ? `< ${GOALS.growthPct} %` : "", goal ? r.pct < GOALS.growthPct : undefined);
  };
  g("serve_pss_kib", mib, "Cairn (serve) PSS", true);
  g("serve_rss_kib", mib, "Cairn (serve) RSS", false);
  g("live_heap_inuse_b", mibB, "Go heap in use (live, after a collection)", true);
  g("heap_inuse_b", mibB, "Go heap in use (as sampled)", false);
  g("mcp_pss_kib", mib, "MCP servers' PSS (2 node processes)", false);
  g("chromium_pss_kib", mib, "Chromium PSS (all processes)", false);
  g("tab_a_js_heap_b", mibB, "tab A live JS heap", false);
  g("tab_b_js_heap_b", mibB, "tab B live JS heap", false);
  g("tab_a_dom_nodes", (x) => String(Math.round(x)), "tab A DOM nodes", false);

  const measured = bursts.filter((b) => b.t_s >= warm);
  const base = measured[0]?.before;
  if (base) {
    const worstG = Math.max(...measured.map((b) => b.after.goroutines - b.before.goroutines));
    const worstF = Math.max(...measured.map((b) => b.after.fds - b.before.fds));
    const driftG = Math.max(...measured.map((b) => b.after.goroutines)) - base.goroutines;
    const driftF = Math.max(...measured.map((b) => b.after.fds)) - base.fds;
    add(
      `goroutines after each of ${measured.length} bursts of 20 (quiet, 8 s after)`,
      `first quiet ${base.goroutines}; after a burst at most +${worstG} over the count before it, at most +${driftG} over the first`,
      `≤ +${GOALS.goroutineSlack}`,
      worstG <= GOALS.goroutineSlack && driftG <= GOALS.goroutineSlack,
    );
    add(
      "open files after each burst",
      `first quiet ${base.fds}; after a burst at most +${worstF} over the count before it, at most +${driftF} over the first`,
      `≤ +${GOALS.fdSlack}`,
      worstF <= GOALS.fdSlack && driftF <= GOALS.fdSlack,
    );
  } else {
    add("bursts after the warm-up", "none ran", "≥ 1", false);
  }
  add(
    "deleted conversations' spill folders",
    `${meta.spillDeleted - meta.spillLeft.length} of ${meta.spillDeleted} removed with their conversation; ${rows.at(-1)?.spill_files ?? "?"} files left at the end (for the ${meta.sessionsAlive} conversations kept)`,
    "all removed",
    meta.spillDeleted > 0 && meta.spillLeft.length === 0,
  );
  const half = rows.filter((r) => r.t_s >= warm);
  const mid = warm + (total - warm) / 2;
  const walFirst = Math.max(...half.filter((r) => r.t_s < mid).map((r) => r.wal_b));
  const walSecond = Math.max(...half.filter((r) => r.t_s >= mid).map((r) => r.wal_b));
  add(
    "WAL size (largest in the first / second half after the warm-up)",
    `${mibB(walFirst)} / ${mibB(walSecond)}`,
    "second ≤ first + 1 MiB",
    walSecond <= walFirst + 2 ** 20,
  );
  g("db_b", mibB, "database file", false);
  g("mcp_logs_b", mibB, "MCP server logs (logs/)", false);
  const pidSets = new Set(rows.filter((r) => r.t_s > 0).map((r) => r.mcp_pids));
  add("MCP server processes", `${pidSets.size === 1 ? "the same" : `${pidSets.size} different`} pid set in every sample (${rows.at(-1)?.mcp_pids})`, "never restarted", pidSets.size === 1);
  add("MCP processes left after serve stopped", meta.leftBehind.length ? meta.leftBehind.join(" ") : "none", "none", meta.leftBehind.length === 0);
  const dropped = rows.at(-1)?.events_dropped ?? NaN;
  add("events dropped (bus deliveries lost to a full buffer)", String(dropped), "0", dropped === 0);
  const subs = new Set(rows.filter((r) => r.t_s >= warm).map((r) => r.event_subscribers));
  add("bus subscriptions open", [...subs].sort((a, b) => a - b).join(", "), "", undefined);
  const topics = growth("event_topics");
  add("topics the bus keeps a seq for", `${topics.a} → ${topics.b}`, "", undefined);
  const failedShare = meta.errors.length / Math.max(1, meta.cycles + meta.errors.length);
  add("driver: cycles / bursts / failed steps", `${meta.cycles} / ${bursts.length} / ${meta.errors.length}`, "failed ≤ 5 %", failedShare <= 0.05);
  return {
    missed,
    table: [
      `Soak: ${meta.minutes} min, warm-up ${warm / 60} min; growth = median of the samples in minutes ${warm / 60}–${(warm + win) / 60} vs the last ${win / 60} min.`,
      "",
      "| measure | value | goal | |",
      "| --- | --- | --- | --- |",
      ...out,
    ].join("\n"),
  };
}

function report(dir) {
  const rows = parseCSV(readFileSync(join(dir, "soak.csv"), "utf8"));
  const bursts = existsSync(join(dir, "soak-bursts.csv"))
    ? readFileSync(join(dir, "soak-bursts.csv"), "utf8")
        .trim()
        .split("\n")
        .slice(1)
        .filter(Boolean)
        .map((l) => {
          const [t_s, ms, bg, ag, bf, af] = l.split(",").map(Number);
          return { t_s, ms, before: { goroutines: bg, fds: bf }, after: { goroutines: ag, fds: af } };
        })
    : [];
  const meta = JSON.parse(readFileSync(join(dir, "soak-meta.json"), "utf8"));
  const { table, missed } = summarize(rows, bursts, meta);
  console.log(table);
  if (meta.errors.length) console.log(`\nFailed steps: ${meta.errors.slice(0, 10).join("; ")}${meta.errors.length > 10 ? " …" : ""}`);
  return missed;
}

async function main() {
  if (opt.report) {
    process.exitCode = report(resolve(opt.report)) ? 1 : 0;
    return;
  }
  const minutes = Number(opt.minutes ?? 60);
  if (!opt.fake) throw new Error("--fake=PATH (fakeopenai) missing");
  mkdirSync(OUT, { recursive: true });
  writeFileSync(join(OUT, "soak.csv"), COLUMNS.join(",") + "\n");
  writeFileSync(join(OUT, "soak-bursts.csv"), "t_s,ms,goroutines_before,goroutines_after,fds_before,fds_after\n");
  let ctx;
  try {
    ctx = await setUp(minutes);
    ctx.t0 = Date.now();
    process.stderr.write(`soak: serve pid ${ctx.server.pid}, data ${ctx.dataDir}; driving for ${minutes} min\n`);
    await drive(ctx);
  } catch (e) {
    process.stderr.write(`soak: the run failed: ${e.stack}\n${ctx?.server?.log?.().split("\n").slice(-30).join("\n") ?? ""}\n`);
    await cleanup();
    ctx?.fake.stop();
    process.exitCode = 2;
    return;
  }
  const mcpPids = descendants(ctx.server.pid);
  await ctx.bctx.close().catch(() => {});
  await cleanup(); // stops serve (SIGTERM) and the browser
  ctx.fake.stop();
  await sleep(3_000);
  const leftBehind = mcpPids.filter(alive).map((p) => `${p} (${cmdline(p).slice(0, 60)})`);
  const meta = {
    minutes,
    tokens: ctx.tokens,
    cycles: ctx.stats.cycles,
    errors: ctx.stats.errors,
    deleted: ctx.stats.deleted,
    spillDeleted: ctx.stats.spillDeleted,
    spillLeft: ctx.stats.spillLeft,
    sessionsAlive: ctx.sessions.length,
    leftBehind,
  };
  writeFileSync(join(OUT, "soak-meta.json"), JSON.stringify(meta, null, 2) + "\n");
  process.exitCode = report(OUT) ? 1 : 0;
}

await main();
