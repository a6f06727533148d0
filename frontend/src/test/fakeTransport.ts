import type { AppError, Attachment, CairnEvent, PermissionMode, SearchProviderInfo, SecretsSnapshot, SettingSpec, SettingsSnapshot, Transport } from "../api";
import { TOOLSETS } from "./backend.generated";
import { FakeAssistants } from "./fakeAssistants";
import { FakeChat } from "./fakeChat";
import { FakeMcp } from "./fakeMcp";
import { FakePermissions } from "./fakePermissions";

type Impl = (...args: unknown[]) => unknown;

/** What ListToolsets answers: generated from backend/service.Capabilities() (`make gen`). */
export { TOOLSETS };

/** Mirrors backend/websearch.Providers() (ListSearchProviders). */
export const SEARCH_PROVIDERS: SearchProviderInfo[] = [
  { id: "tavily", name: "Tavily", secret: "websearch.tavily", endpoint: "https://api.tavily.com", parseLink: true },
  { id: "searxng", name: "SearXNG", endpoint: "", parseLink: false },
  { id: "brave", name: "Brave Search", secret: "websearch.brave", endpoint: "https://api.search.brave.com", parseLink: false },
  { id: "bing", name: "Bing", endpoint: "https://www.bing.com", parseLink: false },
];

/** What every fake backend answers unless a test scripts the method itself. */
const DEFAULTS: Record<string, Impl> = {
  ListToolsets: () => TOOLSETS.map((ts) => ({ ...ts })),
  ListSearchProviders: () => SEARCH_PROVIDERS.map((p) => ({ ...p })),
  ListPendingElicitations: () => ({ seq: 0, requests: [] }),
  GetSessionSkills: () => [],
  ListTasks: () => ({ seq: 0, tasks: [] }),
};

/** An in-memory Transport: scripted methods, events and reconnects pushed by the test. */
export class FakeTransport implements Transport {
  readonly kind = "fake" as const;
  readonly calls: Array<{ method: string; args: unknown[] }> = [];
  private readonly handlers = new Set<(ev: CairnEvent) => void>();
  private readonly reconnects = new Set<() => void>();

  constructor(public impl: Record<string, Impl> = {}) {}

  call<T>(method: string, ...args: unknown[]): Promise<T> {
    this.calls.push({ method, args });
    const f = this.impl[method] ?? DEFAULTS[method];
    if (!f) {
      const err: AppError = { code: "method_unknown", i18nKey: "errors.method_unknown", params: { method }, message: `no ${method}` };
      return Promise.reject(err);
    }
    return Promise.resolve().then(() => f(...args) as T);
  }

  subscribe(h: (ev: CairnEvent) => void): () => void {
    this.handlers.add(h);
    return () => this.handlers.delete(h);
  }

  onReconnect(h: () => void): () => void {
    this.reconnects.add(h);
    return () => this.reconnects.delete(h);
  }

  emit(ev: CairnEvent): void {
    for (const h of [...this.handlers]) h(ev);
  }

  reconnect(): void {
    for (const h of [...this.reconnects]) h();
  }

  get subscribers(): number {
    return this.handlers.size;
  }

  count(method: string): number {
    return this.calls.filter((c) => c.method === method).length;
  }
}

/** Mirrors backend/settings.Specs() (values trimmed where a test needs other limits). */
export const SPECS: SettingSpec[] = [
  { key: "general.language", type: "enum", default: "system", enum: ["system", "en", "zh-CN"], section: "general" },
  { key: "general.theme", type: "enum", default: "system", enum: ["system", "light", "dark"], section: "general" },
  { key: "chat.maxToolRounds", type: "int", default: 8, min: 1, max: 50, section: "general" },
  { key: "chat.defaultSystemPrompt", type: "string", default: "", maxLen: 20000, section: "general" },
  { key: "chat.sendOnEnter", type: "bool", default: true, section: "general" },
  { key: "chat.firstByteTimeout", type: "duration", default: "120s", minDuration: "1s", maxDuration: "1h", section: "general" },
  { key: "chat.streamIdleTimeout", type: "duration", default: "60s", minDuration: "1s", maxDuration: "1h", section: "general" },
  {
    key: "permissions.defaultMode",
    type: "enum",
    default: "default",
    enum: ["default", "acceptEdits", "auto", "plan", "bypassPermissions"],
    section: "permissions",
  },
];

/**
 * A small stand-in for the Go backend: settings validated like the real ones, a `settings`
 * topic seq, broadcasts to every FakeTransport connected to it (= every window).
 */
export class FakeBackend {
  seq = 0;
  values: Record<string, unknown> = {};
  specs: SettingSpec[];
  secrets: SecretsSnapshot["secrets"] = [
    { name: "websearch.tavily", set: false, known: true },
    { name: "websearch.brave", set: true, last4: "9f2a", known: true },
  ];
  secretBackend: SecretsSnapshot["backend"] = "file";
  readonly windows: FakeTransport[] = [];
  readyCalls: string[] = [];
  /** Whether Ready says this is the desktop window (which saves files through SaveTextFile). */
  desktop = false;
  /** What the desktop save dialog answers: a path, or "" for cancel. */
  savePath = "/home/u/Downloads/export.json";
  /** Files saved through SaveTextFile: name suggested, content written. */
  saves: { name: string; content: string }[] = [];
  doctorOK = true;
  /** What GetBackendOwner answers: the process that owns the data directory. */
  owner = { kind: "serve", pid: 4242, since: Date.UTC(2026, 11, 1, 22, 30), windows: 2, clients: 1 };
  /** Sessions, messages and providers (the chat facade). */
  readonly chat: FakeChat;
  /** MCP servers (app_mcp.go), events on topic `mcp`. */
  readonly mcp: FakeMcp;
  /** Rules, session modes, the rule tester, the audit log and resume (app_approval.go). */
  readonly permissions: FakePermissions;
  /** Assistants (app_assistants.go), events on topic `assistants`. */
  readonly assistants: FakeAssistants;

  constructor(specs: SettingSpec[] = SPECS) {
    this.specs = specs;
    for (const s of specs) this.values[s.key] = s.default;
    this.chat = new FakeChat(
      (ev) => {
        if (ev.topic === "settings") this.publish(ev.type, ev.data);
        else for (const w of this.windows) w.emit(ev);
      },
      () => this.seq,
    );
    this.mcp = new FakeMcp(
      (topic, type, data) => this.chat.publish(topic, type, data),
      () => this.chat.seq("mcp"),
    );
    this.assistants = new FakeAssistants(this.chat);
    this.permissions = new FakePermissions(this.chat, () => String(this.values["permissions.defaultMode"] ?? "default") as PermissionMode);
  }

  snapshot(): SettingsSnapshot {
    return { seq: this.seq, values: { ...this.values }, specs: this.specs };
  }

  /** Like secrets.SetKnown / DeleteKnown: only the known keys, else secret_name_unknown. */
  knownSecret(name: unknown): SecretsSnapshot["secrets"][number] {
    const s = this.secrets.find((x) => x.name === name && x.known);
    if (s) return s;
    const known = this.secrets.filter((x) => x.known).map((x) => x.name).join(", ");
    throw appErr("secret_name_unknown", { name: String(name), known }, `${String(name)} is not a secret Settings manage`);
  }

  secretsSnapshot(): SecretsSnapshot {
    return {
      seq: this.seq,
      backend: this.secretBackend,
      keyringAvailable: this.secretBackend === "keyring",
      ...(this.secretBackend === "file" ? { note: "chosen with CAIRN_SECRETS=file", noteKey: "forced" } : {}),
      note: this.secretBackend === "file" ? "no Secret Service on the session bus" : undefined,
      secrets: this.secrets.map((s) => ({ ...s })),
    };
  }

  publish(type: string, data: unknown): void {
    this.seq++;
    const ev: CairnEvent = { topic: "settings", seq: this.seq, type, data, time: Date.now() };
    for (const w of this.windows) w.emit(ev);
  }

  /** A new window (transport) on this backend. */
  window(): FakeTransport {
    const t = new FakeTransport({
      ...this.chat.methods(),
      ...this.mcp.methods(),
      ...this.permissions.methods(),
      ...this.assistants.methods(),
      // Like service.AttachMCPResource: the resource read into the attachment store.
      AttachMCPResource: (id, uri, name) => {
        const server = this.mcp.get(id);
        const r = (this.mcp.resources.get(server.id) ?? []).find((x) => x.uri === uri);
        if (!r) throw appErr("mcp_request_failed", { server: server.name, what: `resources/read ${String(uri)}`, message: "not found" }, "not found");
        const up = this.chat.upload(`${String(name)}.txt`, "", btoa(r.text), true) as { attachment: Attachment };
        return { ...up.attachment, source: { serverId: server.id, server: server.name, uri: r.uri } };
      },
      Ready: (id) => {
        this.readyCalls.push(String(id));
        return {
          version: "0.1.0",
          commit: "abc1234",
          goVersion: "go1.26.8",
          platform: "linux/amd64",
          dataDir: "/home/u/.config/cairn",
          desktop: this.desktop,
        };
      },
      SaveTextFile: (name, content) => {
        if (!this.desktop) throw appErr("file_save_failed", { path: String(name), message: "not the desktop window" }, "no dialog");
        if (this.savePath) this.saves.push({ name: String(name), content: String(content) });
        return this.savePath;
      },
      GetSettings: () => this.snapshot(),
      SetSetting: (key, value) => this.set(String(key), value),
      ListSecrets: () => this.secretsSnapshot(),
      SetSecret: (name, value) => {
        const s = this.knownSecret(name);
        if (!value) throw appErr("secret_empty", {}, "empty");
        s.set = true;
        s.last4 = String(value).slice(-4);
        this.publish("secrets:changed", null);
        return null;
      },
      DeleteSecret: (name) => {
        const s = this.knownSecret(name);
        s.set = false;
        delete s.last4;
        this.publish("secrets:changed", null);
        return null;
      },
      GetBackendOwner: () => ({ ...this.owner }),
      Doctor: () => ({
        ok: this.doctorOK,
        version: { version: "0.1.0", commit: "abc1234", goVersion: "go1.26.8", platform: "linux/amd64" },
        dataDir: "/home/u/.config/cairn",
        dbVersion: 1,
        keyring: this.secretBackend,
        checks: [
          { name: "data_dir", ok: true, required: true, detail: "/home/u/.config/cairn" },
          { name: "database", ok: this.doctorOK, required: true, detail: this.doctorOK ? "schema 1" : "schema 9 is newer" },
          {
            name: "keyring",
            ok: false,
            detail: "keys stored in a local file, not the system keyring (/home/u/.config/cairn/secrets.json): no Secret Service",
            texts: [
              { key: "keyringFile", params: { path: "/home/u/.config/cairn/secrets.json" } },
              { key: "keyringFileNote", params: { note: "no Secret Service" } },
            ],
          },
          { name: "path:npx", ok: true, detail: "/usr/bin/npx", texts: [{ key: "pathFound", params: { path: "/usr/bin/npx" } }] },
          { name: "path:uvx", ok: false, detail: "exec: \"uvx\": executable file not found in $PATH", texts: [{ key: "pathMissing", params: { tool: "uvx" } }] },
        ],
      }),
    });
    this.windows.push(t);
    return t;
  }

  set(key: string, value: unknown): SettingsSnapshot {
    const spec = this.specs.find((s) => s.key === key);
    if (!spec) throw appErr("setting_unknown", { key }, `unknown setting ${key}`);
    if (spec.type === "enum" && !spec.enum?.includes(String(value))) {
      throw appErr("setting_invalid", { key, reason: `must be one of ${spec.enum?.join(", ")}` }, "bad enum");
    }
    if (spec.type === "int") {
      if (typeof value !== "number" || !Number.isInteger(value)) {
        throw appErr("setting_invalid", { key, reason: "not an integer" }, "bad int");
      }
      if ((spec.min !== undefined && value < spec.min) || (spec.max !== undefined && value > spec.max)) {
        throw appErr("setting_invalid", { key, reason: `must be between ${spec.min} and ${spec.max}` }, "out of range");
      }
    }
    if (spec.type === "string" && spec.maxLen !== undefined && String(value).length > spec.maxLen) {
      throw appErr("setting_invalid", { key, reason: "too long" }, "too long");
    }
    if (spec.type === "duration" && !/^\s*(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+\s*$/.test(String(value))) {
      throw appErr("setting_not_duration", { key, reason: "expected a duration such as 90s or 2m" }, "bad duration");
    }
    if (spec.type === "bool" && typeof value !== "boolean") {
      throw appErr("setting_invalid", { key, reason: "not a boolean" }, "bad bool");
    }
    this.values[key] = value;
    this.publish("settings:changed", this.snapshot());
    return this.snapshot();
  }
}

export function appErr(code: string, params: Record<string, unknown>, message: string): AppError {
  return { code, i18nKey: `errors.${code}`, params, message };
}
