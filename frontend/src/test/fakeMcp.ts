import type {
  AppError,
  McpApproval,
  McpExport,
  McpImportEntry,
  McpImportReport,
  McpLogLine,
  McpServer,
  McpServerView,
  McpSignInStart,
  McpStatus,
  McpTestReport,
  McpToolInfo,
  McpVar,
} from "../api";

type Impl = (...args: unknown[]) => unknown;
type Publish = (topic: string, type: string, data: unknown) => void;

function err(code: string, params: Record<string, unknown>, message: string): AppError {
  return { code, i18nKey: `errors.${code}`, params, message };
}

export function mcpTool(name: string, over: Partial<McpToolInfo> = {}): McpToolInfo {
  const t: McpToolInfo = {
    name,
    wireName: `mcp__srv__${name}_0123456789abcdef0123`,
    description: `The ${name} tool.`,
    readOnly: false,
    readOnlyHint: false,
    destructive: false,
    enabled: true,
    approval: "",
    needsApproval: true,
    ...over,
  };
  t.needsApproval = needsApproval(t);
  return t;
}

const needsApproval = (t: McpToolInfo) => t.approval === "ask" || (t.approval === "" && !t.readOnly);

/**
 * An in-memory MCP manager with the facade's method names (app_mcp.go), publishing the
 * events of topic `mcp`. Secret values are kept here and never appear in a view.
 */
export class FakeMcp {
  private n = 0;
  servers: McpServerView[] = [];
  /** Each server's resources (ListMCPResources) with their text (AttachMCPResource). */
  resources = new Map<string, { uri: string; name: string; title?: string; description?: string; mimeType?: string; text: string }[]>();
  /** "<serverId>/<env|header>/<name>" → value (the keyring). */
  readonly secrets = new Map<string, string>();
  readonly logs = new Map<string, McpLogLine[]>();
  /** What TestMCPServer answers (default: ok with the server's tools). */
  testReport: ((s: McpServer) => McpTestReport) | null = null;
  /** Whether AuthorizeMCPServer says Cairn opened the page itself (the desktop build). */
  signInOpened = false;
  /** Servers saved from now on start in this state. */
  startState: McpStatus["state"] = "starting";
  /** What the next SaveMCPServer reports as values it could not move to the keyring. */
  nextSaveWarnings: AppError[] = [];

  constructor(
    private readonly publish: Publish,
    private readonly seq: () => number,
  ) {}

  private id() {
    this.n++;
    return `mcp${this.n}`;
  }

  /** A configured server (no events), for a test's starting point. */
  addServer(over: Partial<McpServerView> = {}): McpServerView {
    const s: McpServerView = {
      id: this.id(),
      name: "server",
      transport: "stdio",
      enabled: true,
      command: "node",
      args: ["server.js"],
      status: { state: "ready", since: 1, pid: 4242, serverInfo: { name: "srv", version: "1.0.0", protocolVersion: "2025-06-18" } },
      tools: [],
      cachedAt: 1,
      ...over,
    };
    this.servers.push(s);
    return s;
  }

  get(id: unknown): McpServerView {
    const s = this.servers.find((x) => x.id === id);
    if (!s) throw err("mcp_server_not_found", { server: String(id) }, `no server ${String(id)}`);
    return s;
  }

  private view(s: McpServerView): McpServerView {
    const mask = (kind: string, vs?: McpVar[]) =>
      vs?.map((v) => {
        if (!v.secret) return { name: v.name, value: v.value };
        const stored = this.secrets.get(`${s.id}/${kind}/${v.name}`);
        return { name: v.name, secret: true, set: stored !== undefined, last4: stored && stored.length >= 8 ? stored.slice(-4) : undefined };
      });
    return JSON.parse(JSON.stringify({ ...s, env: mask("env", s.env), headers: mask("header", s.headers) })) as McpServerView;
  }

  /** Publishes mcp:server for a server (after a test changed it). */
  changed(s: McpServerView): McpServerView {
    const v = this.view(s);
    this.publish("mcp", "mcp:server", v);
    return v;
  }

  setStatus(id: string, status: Partial<McpStatus>): void {
    const s = this.get(id);
    s.status = { ...s.status, since: Date.now(), ...status } as McpStatus;
    this.changed(s);
  }

  /** A log line: kept for GetMCPLogs and announced as mcp:log. */
  log(serverId: string, text: string, stream: McpLogLine["stream"] = "stderr", time = Date.now()): McpLogLine {
    const line = { time, stream, text };
    this.logs.set(serverId, [...(this.logs.get(serverId) ?? []), line]);
    this.publish("mcp", "mcp:log", { serverId, line });
    return line;
  }

  private validate(s: McpServer) {
    const name = (s.name ?? "").trim();
    if (!name) throw err("mcp_server_invalid", { reason: "the name is empty" }, "mcp: the name is empty");
    if (this.servers.some((x) => x.name === name && x.id !== s.id)) throw err("mcp_server_exists", { name }, `exists: ${name}`);
    const transport = s.transport || (s.url && !s.command ? "http" : "stdio");
    if (transport === "stdio" && !s.command?.trim()) throw err("mcp_server_invalid", { reason: "a stdio server needs a command" }, "no command");
    if ((transport === "http" || transport === "sse") && !/^https?:\/\/./.test(s.url ?? "")) {
      throw err("mcp_server_invalid", { reason: `"${s.url ?? ""}" is not an http(s) URL` }, "bad url");
    }
    return { name, transport };
  }

  private storeSecrets(id: string, kind: string, vs?: McpVar[]): McpVar[] | undefined {
    return vs?.map((v) => {
      if (!v.secret) return { name: v.name, value: v.value ?? "" };
      if (v.value) this.secrets.set(`${id}/${kind}/${v.name}`, v.value);
      return { name: v.name, secret: true };
    });
  }

  save(input: McpServer): McpServerView {
    const { name, transport } = this.validate(input);
    let s = input.id ? this.get(input.id) : undefined;
    const isNew = !s;
    if (!s) {
      s = { id: this.id(), name, transport, enabled: input.enabled, status: { state: "idle", since: Date.now() }, tools: [], rootsModeInEffect: "workspace" };
      this.servers.push(s);
    }
    const id = s.id;
    Object.assign(s, {
      name,
      transport,
      command: input.command,
      args: input.args,
      cwd: input.cwd,
      url: input.url,
      env: this.storeSecrets(id, "env", input.env),
      headers: this.storeSecrets(id, "header", input.headers),
      roots: input.roots,
      rootsMode: input.rootsMode,
      // As the backend decides the automatic mode: none when the arguments name a folder.
      rootsModeInEffect: input.rootsMode || (!input.roots?.length && (input.args ?? []).some((a) => a.startsWith("/")) ? "none" : "workspace"),
      sandbox: input.sandbox,
      connectTimeoutMs: input.connectTimeoutMs,
      callTimeoutMs: input.callTimeoutMs,
      trustReadOnlyHints: input.trustReadOnlyHints ?? s.trustReadOnlyHints ?? true,
    });
    if (isNew) s.enabled = input.enabled;
    s.status = { state: s.enabled ? this.startState : "disabled", since: Date.now() };
    const v = this.changed(s);
    if (this.nextSaveWarnings.length) {
      v.warnings = this.nextSaveWarnings;
      this.nextSaveWarnings = [];
    }
    return v;
  }

  test(input: McpServer): McpTestReport {
    if (this.testReport) return this.testReport(input);
    const stored = input.id ? this.servers.find((x) => x.id === input.id) : undefined;
    return {
      ok: true,
      transport: input.transport,
      serverInfo: { name: "srv", version: "1.0.0", protocolVersion: "2025-06-18" },
      tools: (stored?.tools ?? []).map((x) => x.name),
      durationMs: 120,
      log: [{ time: 1, stream: "event", text: "started" }],
    };
  }

  importJSON(json: string): McpImportReport {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch (e) {
      throw err("mcp_import_invalid", { message: String(e) }, "bad json");
    }
    const obj = parsed as Record<string, unknown>;
    const map = (obj.mcpServers ?? obj.servers ?? obj) as Record<string, Record<string, unknown>>;
    const report: McpImportReport = { entries: [], imported: 0, updated: 0, unchanged: 0, rejected: 0 };
    for (const [name, e] of Object.entries(map)) {
      const entry: McpImportEntry = { name, status: "imported" };
      try {
        const input: McpServer = {
          id: this.servers.find((x) => x.name === name)?.id ?? "",
          name,
          transport: e.url ? (e.type === "sse" ? "sse" : "http") : "stdio",
          enabled: true,
          command: e.command as string | undefined,
          args: e.args as string[] | undefined,
          url: e.url as string | undefined,
          env: Object.entries((e.env as Record<string, string>) ?? {}).map(([k, v]) => ({ name: k, value: v, secret: /key|token/i.test(k) })),
        };
        if (!input.command && !input.url) throw err("mcp_server_invalid", { reason: "an entry needs a command or a url" }, "neither");
        const existed = Boolean(input.id);
        const saved = this.save(input);
        entry.id = saved.id;
        entry.warnings = saved.warnings;
        entry.status = existed ? "updated" : "imported";
      } catch (x) {
        entry.status = "rejected";
        entry.error = x as AppError;
        entry.reason = (x as AppError).message;
      }
      report.entries.push(entry);
      if (entry.status === "imported") report.imported++;
      else if (entry.status === "updated") report.updated++;
      else report.rejected++;
    }
    return report;
  }

  exportJSON(): McpExport {
    const out: Record<string, unknown> = {};
    const withheld: string[] = [];
    for (const s of this.servers) {
      const env: Record<string, string> = {};
      for (const v of s.env ?? []) {
        env[v.name] = v.secret ? "" : (v.value ?? "");
        if (v.secret) withheld.push(`${s.name}: ${v.name}`);
      }
      out[s.name] = s.transport === "stdio" ? { command: s.command, args: s.args ?? [], env } : { url: s.url, type: s.transport };
    }
    return { json: JSON.stringify({ mcpServers: out }, null, 2), withheldSecrets: withheld.length ? withheld : undefined };
  }

  /** The error of a server that waits for a sign-in (its action starts one). */
  authRequired(s: McpServerView): AppError {
    return { ...err("mcp_auth_required", { server: s.name, serverId: s.id }, `mcp server ${s.name} needs a sign-in`), action: { kind: "mcp-sign-in", target: s.id } };
  }

  authorize(id: unknown): McpSignInStart {
    const s = this.get(id);
    const authUrl = `https://auth.example.com/authorize?client_id=cairn&state=${s.id}`;
    const expiresAt = Date.now() + 5 * 60_000;
    s.status = { ...s.status, oauth: { signedIn: false, pending: true, authUrl, pendingUntil: expiresAt } };
    this.log(s.id, "sign-in started: waiting for the browser", "event");
    this.changed(s);
    return { serverId: s.id, authUrl, redirectUri: "http://127.0.0.1:53682/callback", expiresAt, opened: this.signInOpened };
  }

  /** The browser came back: tokens stored, the server connects. */
  completeSignIn(id: string, oauth: Partial<McpStatus["oauth"]> = {}): void {
    const s = this.get(id);
    s.status = { state: "ready", since: Date.now(), oauth: { signedIn: true, expiresAt: Date.now() + 3_600_000, renewable: true, ...oauth } };
    this.changed(s);
  }

  /** The facade methods (app_mcp.go). */
  methods(): Record<string, Impl> {
    const tool = (id: unknown, name: unknown) => {
      const s = this.get(id);
      const t = s.tools.find((x) => x.name === name);
      if (!t) throw err("tool_not_found", { name: String(name) }, "no tool");
      return { s, t };
    };
    return {
      ListMCPServers: () => ({ seq: this.seq(), servers: this.servers.map((s) => this.view(s)) }),
      ListMCPResources: (id) => ({
        resources: (this.resources.get(this.get(id).id) ?? []).map(({ text: _text, ...r }) => r),
        templates: [],
      }),
      SaveMCPServer: (input) => this.save(input as McpServer),
      DeleteMCPServer: (id) => {
        const s = this.get(id);
        this.servers = this.servers.filter((x) => x !== s);
        for (const k of [...this.secrets.keys()]) if (k.startsWith(`${s.id}/`)) this.secrets.delete(k);
        this.publish("mcp", "mcp:server-removed", { id: s.id });
        return null;
      },
      SetMCPServerEnabled: (id, enabled) => {
        const s = this.get(id);
        s.enabled = Boolean(enabled);
        s.status = { state: s.enabled ? this.startState : "disabled", since: Date.now() };
        return this.changed(s);
      },
      SetMCPToolEnabled: (id, name, enabled) => {
        const { s, t } = tool(id, name);
        t.enabled = Boolean(enabled);
        return this.changed(s);
      },
      SetMCPToolApproval: (id, name, approval) => {
        const { s, t } = tool(id, name);
        t.approval = approval as McpApproval;
        t.needsApproval = needsApproval(t);
        return this.changed(s);
      },
      RefreshMCPServer: (id) => {
        const s = this.get(id);
        s.cachedAt = Date.now();
        return this.changed(s);
      },
      RestartMCPServer: (id) => {
        const s = this.get(id);
        s.status = { state: "ready", since: Date.now(), restarts: 0, pid: 5151 };
        this.log(s.id, "restart requested", "event");
        return this.changed(s);
      },
      TestMCPServer: (input) => this.test(input as McpServer),
      GetMCPLogs: (id) => [...(this.logs.get(this.get(id).id) ?? [])],
      GetMCPServerEnvironment: (id) => {
        const s = this.get(id);
        if (s.transport !== "stdio") return [];
        const own = (s.env ?? []).map((v) => ({ name: v.name, source: v.secret ? "secret" : "config" }));
        const inherited = ["HOME", "PATH", "USER"].filter((n) => !own.some((v) => v.name === n)).map((name) => ({ name, source: "inherited" }));
        return [...inherited, ...own].sort((a, b) => a.name.localeCompare(b.name));
      },
      ImportMCPServers: (json) => this.importJSON(String(json)),
      ExportMCPServers: () => this.exportJSON(),
      AuthorizeMCPServer: (id) => this.authorize(id),
      CancelMCPAuthorization: (id) => {
        const s = this.get(id);
        s.status = { ...s.status, oauth: undefined, since: Date.now() };
        return this.changed(s);
      },
      SignOutMCPServer: (id) => {
        const s = this.get(id);
        s.status = { state: "needs-sign-in", since: Date.now(), error: this.authRequired(s) };
        return this.changed(s);
      },
    };
  }
}

// re-export for tests that build views by hand
export type { McpServerView };
