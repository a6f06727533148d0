import { RELOAD } from "./store";
import type { AppError, CairnEvent, Transport } from "./types";

// Wire types of the MCP facade (app_mcp.go, backend/mcp; docs/MCP-API.md). The Go structs'
// json tags are the truth: optional fields are `omitempty` there.

/** "http" is Streamable HTTP, falling back to SSE on 400/404/405. */
export type McpTransport = "stdio" | "http" | "sse" | "builtin";

/**
 * One environment variable or HTTP header. A secret's value lives in the keyring: views
 * carry only `set` and `last4`; on input an empty `value` of a secret keeps the stored one.
 */
export interface McpVar {
  name: string;
  value?: string;
  secret?: boolean;
  set?: boolean;
  last4?: string;
}

/** A server as Settings edits it (backend/mcp.Server). `id` empty = add. */
export interface McpServer {
  id: string;
  name: string;
  transport: McpTransport;
  enabled: boolean;
  command?: string;
  args?: string[];
  env?: McpVar[];
  cwd?: string;
  url?: string;
  headers?: McpVar[];
  /** Directories offered as roots; none = no roots capability. */
  roots?: string[];
  /** 0 / absent = 30 s. */
  connectTimeoutMs?: number;
  /** 0 / absent = none beyond the chat's stop. */
  callTimeoutMs?: number;
  /**
   * Tools the server marks read-only run without asking (and in plan mode). Views always
   * carry it; on save, absent keeps the stored choice (on for a new server).
   */
  trustReadOnlyHints?: boolean;
  /**
   * Secrets Cairn moved out of the arguments, URL or plain values (a password in a URL,
   * --api-key=…, ?token=…) into the keyring; the texts hold {{cairn-secret:<name>}} where
   * each was. Views only; ignored on save.
   */
  credentials?: McpCredential[];
}

/** A credential kept in the keyring: whether it is stored and its last 4 characters. */
export interface McpCredential {
  name: string;
  set?: boolean;
  last4?: string;
}

/** One variable a stdio server's process starts with, by name only (GetMCPServerEnvironment). */
export interface McpEnvVar {
  name: string;
  /** inherited: Cairn's default set; config / secret: the server's configuration. */
  source: "inherited" | "config" | "secret";
}

/** "needs-sign-in": a remote server waits for the user to sign in (OAuth). */
export type McpState = "disabled" | "idle" | "starting" | "ready" | "error" | "needs-sign-in";

/** A remote server's sign-in (backend/mcp/oauth.Status): signed in, or a sign-in waiting. */
export interface McpOAuthStatus {
  /** A token for the server's current URL is stored. */
  signedIn: boolean;
  /** Access token expiry (unix ms). */
  expiresAt?: number;
  /** A refresh token is stored: the sign-in renews on its own. */
  renewable?: boolean;
  scopes?: string[];
  issuer?: string;
  /** A sign-in waits for the browser at `authUrl` until `pendingUntil` (unix ms). */
  pending?: boolean;
  authUrl?: string;
  pendingUntil?: number;
}

/** What AuthorizeMCPServer returns: the page to open, and whether Cairn opened it already. */
export interface McpSignInStart {
  serverId: string;
  authUrl: string;
  /** http://127.0.0.1:<port>/callback */
  redirectUri: string;
  /** Unix ms: the loopback listener gives up. */
  expiresAt: number;
  /** Cairn opened authUrl in the system browser (desktop build). */
  opened: boolean;
}

export interface McpServerInfo {
  name?: string;
  title?: string;
  version?: string;
  protocolVersion?: string;
}

export interface McpStatus {
  state: McpState;
  error?: AppError;
  /** Technical text of `error`. */
  reason?: string;
  /** Unix ms of the last change. */
  since: number;
  /** What is spoken now ("sse" after a fallback). */
  transport?: McpTransport;
  /** HTTP status of the initialize that caused the SSE fallback. */
  fallbackStatus?: number;
  serverInfo?: McpServerInfo;
  pid?: number;
  restarts?: number;
  /** Unix ms of the next automatic restart. */
  retryAt?: number;
  /** Remote servers: signed in, or a sign-in waiting. */
  oauth?: McpOAuthStatus;
}

/** "" = default: ask unless the server annotates the tool read-only. */
export type McpApproval = "" | "ask" | "allow";

export interface McpToolInfo {
  /** The server's own tool name (what SetMCPToolEnabled / SetMCPToolApproval take). */
  name: string;
  /** What the model calls. */
  wireName: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  /** Read-only in force: the server marks it so and its hints are trusted. */
  readOnly: boolean;
  /** The server marks it read-only (trusted or not). */
  readOnlyHint?: boolean;
  destructive: boolean;
  enabled: boolean;
  approval: McpApproval;
  /** What is in force. */
  needsApproval: boolean;
}

export interface McpServerView extends McpServer {
  status: McpStatus;
  tools: McpToolInfo[];
  /** Unix ms of the catalog; absent = never warmed. */
  cachedAt?: number;
  instructions?: string;
  /** SaveMCPServer only: values that look like credentials but could not be moved (mcp_credential_not_moved). */
  warnings?: AppError[];
}

/** ListMCPServers: the servers, stamped with topic `mcp`'s seq. */
export interface McpSnapshot {
  seq: number;
  servers: McpServerView[];
}

export interface McpLogLine {
  /** Unix ms. */
  time: number;
  stream: "stderr" | "event" | "server" | string;
  text: string;
}

export interface McpTestReport {
  ok: boolean;
  error?: AppError;
  transport?: McpTransport;
  fallbackStatus?: number;
  serverInfo: McpServerInfo;
  tools: string[] | null;
  durationMs: number;
  log: McpLogLine[] | null;
}

export type McpImportStatus = "imported" | "updated" | "unchanged" | "rejected";

export interface McpImportEntry {
  name: string;
  status: McpImportStatus | string;
  id?: string;
  reason?: string;
  error?: AppError;
  /** Values that look like credentials but could not be moved (mcp_credential_not_moved). */
  warnings?: AppError[];
}

export interface McpImportReport {
  entries: McpImportEntry[];
  imported: number;
  updated: number;
  unchanged: number;
  rejected: number;
}

/** ExportMCPServers: `mcpServers` JSON; secret values left empty and listed ("<server>: <name>"). */
export interface McpExport {
  json: string;
  withheldSecrets?: string[];
}

export const MCP_TOPIC = "mcp";
export const McpEvents = {
  server: "mcp:server",
  removed: "mcp:server-removed",
  log: "mcp:log",
} as const;

/** Data of an `mcp:log` event. */
export interface McpLogEvent {
  serverId: string;
  line: McpLogLine;
}

/**
 * backend/mcp.Status tags its server info `json:"ServerInfo"` (capital S) while the
 * TestReport and the docs say `serverInfo`: accept both.
 */
export function normalizeServerView(v: McpServerView): McpServerView {
  const st = v.status as McpStatus & { ServerInfo?: McpServerInfo };
  if (st && st.ServerInfo && !st.serverInfo) {
    const { ServerInfo, ...rest } = st;
    return { ...v, status: { ...rest, serverInfo: ServerInfo }, tools: v.tools ?? [] };
  }
  return v.tools ? v : { ...v, tools: [] };
}

export function mcpApi(t: Transport) {
  const view = (p: Promise<McpServerView>) => p.then(normalizeServerView);
  return {
    list: () =>
      t.call<McpSnapshot>("ListMCPServers").then((s) => ({ ...s, servers: (s.servers ?? []).map(normalizeServerView) })),
    save: (server: McpServer) => view(t.call<McpServerView>("SaveMCPServer", server)),
    remove: (id: string) => t.call<void>("DeleteMCPServer", id),
    setEnabled: (id: string, enabled: boolean) => view(t.call<McpServerView>("SetMCPServerEnabled", id, enabled)),
    setToolEnabled: (id: string, tool: string, enabled: boolean) =>
      view(t.call<McpServerView>("SetMCPToolEnabled", id, tool, enabled)),
    setToolApproval: (id: string, tool: string, approval: McpApproval) =>
      view(t.call<McpServerView>("SetMCPToolApproval", id, tool, approval)),
    refresh: (id: string) => view(t.call<McpServerView>("RefreshMCPServer", id)),
    restart: (id: string) => view(t.call<McpServerView>("RestartMCPServer", id)),
    /** A failure to connect is `{ok:false, error}`, not a rejection. */
    test: (server: McpServer) => t.call<McpTestReport>("TestMCPServer", server),
    logs: (id: string) => t.call<McpLogLine[] | null>("GetMCPLogs", id).then((l) => l ?? []),
    /** The names (never values) of the variables a stdio server starts with. */
    environment: (id: string) => t.call<McpEnvVar[] | null>("GetMCPServerEnvironment", id).then((l) => l ?? []),
    importJSON: (json: string) => t.call<McpImportReport>("ImportMCPServers", json),
    exportJSON: () => t.call<McpExport>("ExportMCPServers"),
    /** Starts the OAuth sign-in; a second call cancels the first. Open `authUrl` unless `opened`. */
    authorize: (id: string) => t.call<McpSignInStart>("AuthorizeMCPServer", id),
    /** Stops a sign-in that waits for the browser. */
    cancelSignIn: (id: string) => view(t.call<McpServerView>("CancelMCPAuthorization", id)),
    /** Deletes the server's tokens (state needs-sign-in); the registration is kept. */
    signOut: (id: string) => view(t.call<McpServerView>("SignOutMCPServer", id)),
    /** Live log lines of one server (`mcp:log` on topic mcp); returns the unsubscribe. */
    watchLog: (serverId: string, onLine: (line: McpLogLine) => void) =>
      t.subscribe((ev) => {
        if (ev.topic !== MCP_TOPIC || ev.type !== McpEvents.log) return;
        const d = ev.data as McpLogEvent | undefined;
        if (d?.serverId === serverId && d.line) onLine(d.line);
      }),
    /** The event stream reconnected: log lines may have been missed, load them again. */
    onReconnect: (fn: () => void) => t.onReconnect(fn),
  };
}

export type McpApi = ReturnType<typeof mcpApi>;

/** mcp:server replaces (or adds) one server; mcp:server-removed drops it; log lines change nothing. */
export function applyMcpEvent(state: McpSnapshot, ev: CairnEvent): McpSnapshot | typeof RELOAD | undefined {
  switch (ev.type) {
    case McpEvents.server: {
      const v = ev.data as McpServerView | undefined;
      if (!v?.id) return RELOAD;
      const next = normalizeServerView(v);
      const i = state.servers.findIndex((s) => s.id === v.id);
      const servers = i < 0 ? [...state.servers, next] : state.servers.map((s, j) => (j === i ? next : s));
      return { ...state, seq: ev.seq, servers };
    }
    case McpEvents.removed: {
      const id = (ev.data as { id?: string } | undefined)?.id;
      if (!id) return RELOAD;
      return { ...state, seq: ev.seq, servers: state.servers.filter((s) => s.id !== id) };
    }
    default:
      return undefined;
  }
}
