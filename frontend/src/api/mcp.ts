import { RELOAD } from "./store";
import type * as wire from "./generated";
import type { CairnEvent, Transport } from "./types";

// Wire types of the MCP facade (app_mcp.go, backend/mcp; docs/MCP-API.md). The Go structs'
// json tags are the truth: optional fields are `omitempty` there.

export type McpTransport = wire.MCPTransport;
export type McpVar = wire.MCPVar;
export type McpServer = wire.MCPServer;
export type McpRootsMode = wire.MCPRootsMode;
export type McpServerSandbox = wire.MCPServerSandbox;
export type McpCredential = wire.MCPCredential;
export type McpEnvVar = wire.MCPEnvVar;
export type McpState = wire.MCPState;
export type McpOAuthStatus = wire.OAuthStatus;
export type McpSignInStart = wire.MCPSignInStart;
export type McpServerInfo = wire.MCPServerInfo;
export type McpStatus = wire.MCPStatus;
export type McpApproval = wire.PermissionApproval;
export type McpToolInfo = wire.MCPToolInfo;
export type McpServerView = wire.MCPServerView;
export type McpSnapshot = wire.MCPSnapshot;
export type McpLogLine = wire.MCPLogLine;
export type McpTestReport = wire.MCPTestReport;
export type McpPromptInfo = wire.MCPPromptInfo;
export type McpPromptArg = wire.MCPPromptArg;
export type McpPromptResult = wire.MCPPromptResult;
export type McpResourceList = wire.MCPResourceList;
export type McpResourceContent = wire.MCPResourceContent;

export type McpImportStatus = "imported" | "updated" | "unchanged" | "rejected";

export type McpImportEntry = wire.MCPImportEntry;
export type McpImportReport = wire.MCPImportReport;
export type McpExport = wire.MCPExport;

export const MCP_TOPIC = "mcp";
export const McpEvents = {
  server: "mcp:server",
  removed: "mcp:server-removed",
  log: "mcp:log",
  resourcesChanged: "mcp:resources-changed",
  promptsChanged: "mcp:prompts-changed",
} as const;

export type McpLogEvent = wire.MCPLogEvent;

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
    /** A server's resources and resource templates, read live (connects it). */
    resources: (id: string) => t.call<McpResourceList>("ListMCPResources", id),
    /** One resource by URI (a tool card's resource link). */
    readResource: (id: string, uri: string) =>
      t.call<McpResourceContent[] | null>("ReadMCPResource", id, uri).then((l) => l ?? []),
    /** Reads a resource into the attachment store for the next message (the composer's
     * resource menu); send the answer with its source among the message's attachments. */
    attachResource: (id: string, uri: string, name: string) => t.call<wire.ChatAttachment>("AttachMCPResource", id, uri, name),
    /** A server's prompts with their arguments (the composer's / menu). */
    prompts: (id: string) =>
      t.call<McpPromptInfo[] | null>("ListMCPPrompts", id).then((l) => (l ?? []).map((p) => ({ ...p, arguments: p.arguments ?? [] }))),
    /** A prompt filled with its arguments: its messages. */
    getPrompt: (id: string, name: string, args: Record<string, string>) =>
      t.call<McpPromptResult>("GetMCPPrompt", id, name, args).then((r) => ({ ...r, messages: r.messages ?? [] })),
    /** A server announced new resources or prompts (notifications/…/list_changed). */
    watchLists: (onChange: (serverId: string, kind: "resources" | "prompts") => void) =>
      t.subscribe((ev) => {
        if (ev.topic !== MCP_TOPIC) return;
        const id = (ev.data as { id?: string } | undefined)?.id;
        if (!id) return;
        if (ev.type === McpEvents.promptsChanged) onChange(id, "prompts");
        if (ev.type === McpEvents.resourcesChanged) onChange(id, "resources");
      }),
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
