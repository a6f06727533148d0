import type { McpLogLine, McpRootsMode, McpServer, McpServerInfo, McpServerView, McpTransport, McpVar } from "../api";

/** What a server runs or where it lives, in one line: `npx -y pkg` or the URL. */
export function describeTarget(s: McpServer): string {
  if (s.transport === "stdio") return [s.command ?? "", ...(s.args ?? []).map(quoteArg)].join(" ").trim();
  if (s.transport === "builtin") return s.name;
  return s.url ?? "";
}

function quoteArg(a: string): string {
  return a === "" || /[\s"'\\$`]/.test(a) ? JSON.stringify(a) : a;
}

/** "server-everything 2.0.0 · protocol 2025-06-18" (empty when nothing is known). */
export function serverInfoText(info: McpServerInfo | undefined | null): string {
  if (!info) return "";
  const name = info.title || info.name || "";
  const head = [name, info.version].filter(Boolean).join(" ");
  return [head, info.protocolVersion].filter(Boolean).join(" · ");
}

/** One editable row of env or headers. */
export interface VarDraft {
  key: number;
  name: string;
  value: string;
  secret: boolean;
  /** A secret value is stored (its value is never sent to the window). */
  stored: boolean;
  last4?: string;
}

/** The form's state; numbers are kept as typed text. */
export interface ServerDraft {
  id: string;
  name: string;
  transport: McpTransport;
  enabled: boolean;
  command: string;
  /** One argument per line. */
  args: string;
  cwd: string;
  env: VarDraft[];
  url: string;
  headers: VarDraft[];
  /** One directory per line. */
  roots: string;
  /** Which roots the server is offered; "" decides from its arguments. */
  rootsMode: McpRootsMode;
  /** stdio: run inside the operating system's sandbox. */
  sandbox: boolean;
  /** One folder (or domain) per line. */
  sandboxWrite: string;
  sandboxRead: string;
  sandboxDomains: string;
  /** Seconds, "" = default. */
  connectTimeout: string;
  callTimeout: string;
  /** Tools the server marks read-only run without asking. */
  trustReadOnlyHints: boolean;
}

let nextKey = 1;
export function newVar(over: Partial<VarDraft> = {}): VarDraft {
  return { key: nextKey++, name: "", value: "", secret: false, stored: false, ...over };
}

const varsToDraft = (vs: McpVar[] | undefined): VarDraft[] =>
  (vs ?? []).map((v) => newVar({ name: v.name, value: v.secret ? "" : (v.value ?? ""), secret: Boolean(v.secret), stored: Boolean(v.set), last4: v.last4 }));

const msToSeconds = (ms: number | undefined) => (ms && ms > 0 ? String(Math.round(ms / 100) / 10) : "");

export function toDraft(s?: McpServerView | McpServer): ServerDraft {
  return {
    id: s?.id ?? "",
    name: s?.name ?? "",
    transport: s?.transport ?? "stdio",
    enabled: s?.enabled ?? true,
    command: s?.command ?? "",
    args: (s?.args ?? []).join("\n"),
    cwd: s?.cwd ?? "",
    env: varsToDraft(s?.env),
    url: s?.url ?? "",
    headers: varsToDraft(s?.headers),
    roots: (s?.roots ?? []).join("\n"),
    rootsMode: s?.rootsMode ?? "",
    sandbox: s?.sandbox?.enabled ?? false,
    sandboxWrite: (s?.sandbox?.write ?? []).join("\n"),
    sandboxRead: (s?.sandbox?.read ?? []).join("\n"),
    sandboxDomains: (s?.sandbox?.domains ?? []).join("\n"),
    connectTimeout: msToSeconds(s?.connectTimeoutMs),
    callTimeout: msToSeconds(s?.callTimeoutMs),
    trustReadOnlyHints: s?.trustReadOnlyHints ?? true,
  };
}

const trim = (l: string) => l.trim();

const lines = (text: string) =>
  text
    .split("\n")
    .map((l) => l.replace(/\r$/, ""))
    .filter((l) => l.trim() !== "");

/** Seconds as typed → ms; "" → 0 (the default). Not a number → NaN (the form says so). */
export function secondsToMs(text: string): number {
  const v = text.trim();
  if (v === "") return 0;
  const n = Number(v.replace(",", "."));
  return Number.isFinite(n) && n >= 0 ? Math.round(n * 1000) : Number.NaN;
}

const draftVars = (vs: VarDraft[]): McpVar[] =>
  vs
    .filter((v) => v.name.trim() !== "" || v.value !== "")
    .map((v) => (v.secret ? { name: v.name.trim(), value: v.value, secret: true } : { name: v.name.trim(), value: v.value }));

/**
 * The Server to save or test. Fields of the other transport are left out (the backend
 * rejects a stdio server with a URL). A secret left empty keeps the stored value.
 */
export function fromDraft(d: ServerDraft): McpServer {
  const out: McpServer = { id: d.id, name: d.name.trim(), transport: d.transport, enabled: d.enabled, trustReadOnlyHints: d.trustReadOnlyHints };
  if (d.transport === "stdio") {
    out.command = d.command.trim();
    out.args = lines(d.args);
    out.env = draftVars(d.env);
    if (d.cwd.trim()) out.cwd = d.cwd.trim();
    const sandbox = { enabled: d.sandbox, write: lines(d.sandboxWrite).map(trim), read: lines(d.sandboxRead).map(trim), domains: lines(d.sandboxDomains).map(trim) };
    // Lists are kept while the sandbox is off, so turning it back on finds them.
    if (sandbox.enabled || sandbox.write.length || sandbox.read.length || sandbox.domains.length) out.sandbox = sandbox;
  } else if (d.transport === "http" || d.transport === "sse") {
    out.url = d.url.trim();
    out.headers = draftVars(d.headers);
  }
  const roots = lines(d.roots).map(trim);
  if (roots.length) out.roots = roots;
  if (d.rootsMode) out.rootsMode = d.rootsMode;
  const ct = secondsToMs(d.connectTimeout);
  const cl = secondsToMs(d.callTimeout);
  if (ct > 0) out.connectTimeoutMs = ct;
  if (cl > 0) out.callTimeoutMs = cl;
  return out;
}

/** Key of a log line, to drop lines that arrive both in GetMCPLogs and as an event. */
export const lineKey = (l: McpLogLine) => `${l.time}\u0000${l.stream}\u0000${l.text}`;

/** Lines loaded by GetMCPLogs, then those that arrived meanwhile and are not among them. */
export function mergeLines(loaded: McpLogLine[], arrived: McpLogLine[], max: number): McpLogLine[] {
  const seen = new Set(loaded.slice(-Math.max(arrived.length * 2, 50)).map(lineKey));
  const out = [...loaded, ...arrived.filter((l) => !seen.has(lineKey(l)))];
  return out.length > max ? out.slice(out.length - max) : out;
}

/** "10:04:05.123" in the user's time zone. */
export function clockTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}
