import type {
  AppError,
  Attachment,
  AttachmentInput,
  ApprovalRequest,
  ToolEntry,
  CairnEvent,
  Message,
  Model,
  Part,
  Preset,
  Provider,
  ProviderInput,
  Session,
  SessionInput,
  SessionPatch,
  SessionSnapshot,
  Usage,
  Cost,
  Price,
} from "../api";

type Impl = (...args: unknown[]) => unknown;

function err(code: string, params: Record<string, unknown>, message: string): AppError {
  return { code, i18nKey: `errors.${code}`, params, message };
}

const utf16 = (s: string) => s.length;

export const PRESETS: Preset[] = [
  { id: "openai", name: "OpenAI", baseUrl: "https://api.openai.com/v1", needsKey: true, keyUrl: "https://platform.openai.com/api-keys", models: [model("gpt-4.1"), model("gpt-4.1-mini")], dialect: {}, reasoningControls: {} },
  {
    id: "deepseek",
    name: "DeepSeek",
    baseUrl: "https://api.deepseek.com/v1",
    needsKey: true,
    models: [model("deepseek-chat"), model("deepseek-reasoner", { reasoning: true })],
    dialect: { reasoningBack: "tool-calls", reasoning: "deepseek" },
    reasoningControls: { efforts: ["off", "low", "high", "max"] },
  },
  { id: "ollama", name: "Ollama", baseUrl: "http://127.0.0.1:11434/v1", needsKey: false, dialect: {}, reasoningControls: {} },
  { id: "custom", name: "Custom (OpenAI-compatible)", baseUrl: "", needsKey: false, dialect: {}, reasoningControls: {} },
];

export function model(id: string, over: Partial<Model> = {}): Model {
  return { id, contextWindow: 128000, supportsTools: true, vision: false, reasoning: false, source: "preset", ...over };
}

/** Drives one streaming answer the way backend/chat/run.go announces it. */
export class AnswerScript {
  private part: Part | null = null;
  private parts: Part[] = [];
  constructor(
    private readonly chat: FakeChat,
    readonly sessionId: string,
    readonly messageId: string,
  ) {}

  private msg(): Message {
    return this.chat.message(this.sessionId, this.messageId)!;
  }

  private append(p: Omit<Part, "id" | "messageId" | "index" | "round" | "createdAt" | "updatedAt">): Part {
    const now = Date.now();
    const part: Part = { id: this.chat.id("p"), messageId: this.messageId, index: this.parts.length, round: 0, createdAt: now, updatedAt: now, ...p };
    this.parts.push(part);
    this.msg().parts = [...(this.msg().parts ?? []), part];
    this.chat.publish(`session:${this.sessionId}`, "part:appended", { ...part, tool: part.tool && { ...part.tool } });
    return part;
  }

  private finishOpen() {
    if (this.part) {
      this.part.state = "done";
      this.chat.publish(`session:${this.sessionId}`, "part:updated", { ...this.part, tool: this.part.tool && { ...this.part.tool } });
      this.part = null;
    }
  }

  private stream(type: "text" | "reasoning", delta: string) {
    if (this.part && this.part.type === type) {
      const offset = utf16(this.part.text ?? "");
      this.part.text = (this.part.text ?? "") + delta;
      this.chat.publish(`session:${this.sessionId}`, "part:delta", {
        messageId: this.messageId,
        partId: this.part.id,
        index: this.part.index,
        field: "text",
        offset,
        text: delta,
      });
      return this;
    }
    this.finishOpen();
    this.part = this.append({ type, state: "streaming", text: delta });
    return this;
  }

  text(delta: string) {
    return this.stream("text", delta);
  }

  reasoning(delta: string) {
    return this.stream("reasoning", delta);
  }

  /** A complete tool call (arguments as one delta), started. */
  toolCall(callId: string, name: string, args: string) {
    this.finishOpen();
    const p = this.append({ type: "tool-call", state: "streaming", tool: { callId, name, arguments: "" } });
    this.chat.publish(`session:${this.sessionId}`, "part:delta", { messageId: this.messageId, partId: p.id, index: p.index, field: "arguments", offset: 0, text: args });
    p.tool!.arguments = args;
    p.state = "done";
    p.tool!.startedAt = Date.now();
    this.chat.publish(`session:${this.sessionId}`, "part:updated", { ...p, tool: { ...p.tool! } });
    return this;
  }

  toolEnd(callId: string, name: string, type: "tool-result" | "tool-error" | "tool-stopped", content: string, error?: AppError) {
    this.finishOpen();
    this.append({ type, state: "done", tool: { callId, name, content, error, durationMs: 420 } });
    return this;
  }

  /** Ends the answer: status, usage, error; session back to idle. */
  end(status: "complete" | "stopped" | "error" = "complete", opts: { usage?: Usage; cost?: Cost; error?: AppError } = {}) {
    this.finishOpen();
    if (opts.error) this.append({ type: "status", state: "done", status: { kind: "error", error: opts.error } });
    const m = this.msg();
    m.status = status;
    m.usage = opts.usage;
    m.cost = opts.cost;
    m.error = opts.error;
    const { parts: _parts, ...meta } = m;
    this.chat.publish(`session:${this.sessionId}`, "message:updated", meta);
    this.chat.setState(this.sessionId, "idle", this.messageId);
    this.chat.running.delete(this.sessionId);
  }
}

/**
 * An in-memory chat and provider backend with the facade's method names, publishing the
 * same events as backend/chat and backend/llm. Answers are driven by the test through
 * the AnswerScript returned by `answer(sessionId)` (or `onSend`).
 */
export class FakeChat {
  private n = 0;
  seqs = new Map<string, number>();
  sessions: Session[] = [];
  messages = new Map<string, Message[]>();
  providers: Provider[] = [];
  /** Keys the backend received (never sent back). */
  keys = new Map<string, string>();
  running = new Map<string, AnswerScript>();
  /** What SetModelPrice (a price) and ClearModelPrice (null) received, in order. */
  readonly priceCalls: { providerId: string; model: string; price: Price | null }[] = [];
  /** The message ids SelectBranch was called with, in order. */
  readonly selectedBranches: string[] = [];
  onSend: ((script: AnswerScript, text: string) => void) | null = null;
  /** Errors a method should throw next (e.g. SendMessage → no_provider_configured). */
  failNext = new Map<string, AppError>();
  /** The tool registry as ListTools shows it. */
  tools: ToolEntry[] = [];
  /** Approval requests (pending and decided). */
  approvals: ApprovalRequest[] = [];
  /** What SendMessage received, in order. */
  sent: { sessionId: string; text: string; attachments: AttachmentInput[] }[] = [];
  /** Stored attachments by id, with their bytes (base64) as uploaded. */
  uploads = new Map<string, { attachment: Attachment; data: string }>();
  private partial = new Map<string, string>();

  /** UploadAttachment: parts joined by upload id; the last one stores the file. */
  upload(name: string, uploadId: string, data: string, last: boolean): Record<string, unknown> {
    const id = uploadId || this.id("up");
    const joined = (this.partial.get(id) ?? "") + atob(data);
    if (!last) {
      this.partial.set(id, joined);
      return { uploadId: id };
    }
    this.partial.delete(id);
    const image = /\.(png|jpe?g|gif|webp)$/i.test(name);
    const lines = image ? 0 : joined.split("\n").length;
    const attachment: Attachment = {
      id: `${this.id("sha")}${"0".repeat(40)}`.slice(0, 64),
      name,
      size: joined.length,
      mime: image ? "image/png" : "text/plain",
      kind: image ? "image" : "document",
      lines,
      inline: !image && lines <= 400,
    };
    this.uploads.set(attachment.id!, { attachment, data: btoa(joined) });
    return { uploadId: id, attachment };
  }

  /** A tool call that needs approval: a pending request, announced on `approvals`. */
  requestApproval(sessionId: string, over: Partial<ApprovalRequest> = {}): ApprovalRequest {
    const r: ApprovalRequest = {
      id: this.id("apr"),
      sessionId,
      callId: this.id("call"),
      tool: "sandbox_bash",
      namespace: "sandbox",
      args: { command: "make test" },
      touches: { commands: ["make test"] },
      readOnly: false,
      destructive: false,
      mode: "default",
      askReason: "Shell commands ask in the default mode.",
      askReasonCode: "",
      rules: [{ id: "", behavior: "allow", tool: "sandbox_bash", command: "make test", source: "", createdAt: 0, updatedAt: 0 }],
      status: "pending",
      createdAt: Date.now(),
      ...over,
    };
    this.approvals.push(r);
    this.publish("approvals", "approval:requested", r);
    return r;
  }

  constructor(
    private readonly broadcast: (ev: CairnEvent) => void,
    private readonly settingsSeq: () => number,
  ) {}

  id(prefix: string) {
    this.n++;
    return `${prefix}${this.n}`;
  }

  seq(topic: string) {
    return topic === "settings" ? this.settingsSeq() : (this.seqs.get(topic) ?? 0);
  }

  publish(topic: string, type: string, data: unknown) {
    if (topic === "settings") {
      this.broadcast({ topic, seq: -1, type, data }); // FakeBackend assigns settings seqs
      return;
    }
    const seq = (this.seqs.get(topic) ?? 0) + 1;
    this.seqs.set(topic, seq);
    this.broadcast({ topic, seq, type, data: JSON.parse(JSON.stringify(data)), time: Date.now() });
  }

  message(sessionId: string, id: string) {
    return this.messages.get(sessionId)?.find((m) => m.id === id);
  }

  session(id: string): Session {
    const s = this.sessions.find((x) => x.id === id);
    if (!s) throw err("session_not_found", {}, `no session ${id}`);
    return s;
  }

  setState(id: string, state: Session["state"], messageId?: string) {
    const s = this.session(id);
    s.state = state;
    this.publish(`session:${id}`, "session:state", { sessionId: id, state, messageId });
    this.publish("sessions", "sessions:upserted", s);
  }

  addSession(input: SessionInput & { messages?: Message[] } = {}): Session {
    const now = Date.now() + this.n;
    const s: Session = {
      id: this.id("s"),
      kind: input.kind ?? "chat",
      title: input.title ?? "",
      providerId: input.providerId ?? "",
      model: input.model ?? "",
      systemPrompt: input.systemPrompt ?? "",
      temperature: input.temperature ?? null,
      topP: input.topP ?? null,
      maxTokens: input.maxTokens ?? 0,
      contextMessages: input.contextMessages ?? 0,
      toolsets: input.toolsets ?? [],
      reasoning: input.reasoning ?? {},
      state: "idle",
      createdAt: now,
      updatedAt: now,
      activeAt: now,
      pinned: false,
      archived: false,
    };
    this.sessions.unshift(s);
    this.messages.set(s.id, input.messages ?? []);
    this.publish("sessions", "sessions:upserted", s);
    return s;
  }

  snapshot(id: string): SessionSnapshot {
    const s = this.session(id);
    return {
      seq: this.seq(`session:${id}`),
      session: { ...s },
      messages: JSON.parse(JSON.stringify(this.messages.get(id) ?? [])),
      state: s.state,
      editMode: "branch",
    };
  }

  /** Starts an answer the test drives. */
  start(
    sessionId: string,
    text: string | null,
    hideFrom?: number,
    files: AttachmentInput[] = [],
  ): { script: AnswerScript; result: Record<string, unknown> } {
    const s = this.session(sessionId);
    if (this.running.has(sessionId)) throw err("session_busy", {}, "busy");
    if (this.providers.length === 0) throw err("no_provider_configured", {}, "no provider");
    const list = this.messages.get(sessionId)!;
    const result: Record<string, unknown> = { sessionId };
    // Like the backend, a new version hides the rest of the path (this fake keeps only
    // the path) and names the version it replaces among its siblings.
    let replaced: string | undefined;
    if (hideFrom !== undefined) {
      const gone = list.splice(hideFrom).map((m) => m.id);
      replaced = gone[0];
      if (gone.length) {
        result.hiddenMessageIds = gone;
        this.publish(`session:${sessionId}`, "messages:hidden", { sessionId, messageIds: gone });
      }
    }
    const now = Date.now();
    let seq = list[list.length - 1]?.seq ?? 0;
    if (text !== null) {
      const um: Message = { id: this.id("m"), sessionId, seq: ++seq, role: "user", status: "complete", parts: [], createdAt: now, updatedAt: now };
      um.parts = text ? [{ id: this.id("p"), messageId: um.id, index: 0, round: 0, type: "text", state: "done", text, createdAt: now, updatedAt: now }] : [];
      for (const f of files) {
        const attachment: Attachment = f.error
          ? { name: f.name, size: f.size ?? 0, error: f.error }
          : { ...this.uploads.get(f.id ?? "")!.attachment, name: f.name, ...(f.source ? { source: f.source } : {}) };
        um.parts.push({ id: this.id("p"), messageId: um.id, index: um.parts.length, round: 0, type: "attachment", state: "done", attachment, createdAt: now, updatedAt: now });
      }
      if (replaced) um.siblingIds = [replaced, um.id];
      list.push(um);
      result.userMessageId = um.id;
      this.publish(`session:${sessionId}`, "message:appended", um);
      if (!s.title) {
        s.title = text.split("\n")[0]!.slice(0, 60);
      }
    }
    const am: Message = { id: this.id("m"), sessionId, seq: ++seq, role: "assistant", status: "streaming", model: "gpt-4.1", parts: [], createdAt: now, updatedAt: now };
    if (replaced && text === null) am.siblingIds = [replaced, am.id];
    list.push(am);
    result.assistantMessageId = am.id;
    this.publish(`session:${sessionId}`, "message:appended", am);
    s.updatedAt = now;
    s.activeAt = now;
    this.publish(`session:${sessionId}`, "session:updated", s);
    const script = new AnswerScript(this, sessionId, am.id);
    this.running.set(sessionId, script);
    this.setState(sessionId, "streaming", am.id);
    if (text !== null) this.onSend?.(script, text);
    return { script, result };
  }

  /** The answer now running in a session. */
  answer(sessionId: string): AnswerScript {
    const a = this.running.get(sessionId);
    if (!a) throw new Error(`no answer running in ${sessionId}`);
    return a;
  }

  private providerSnapshot() {
    return { seq: this.settingsSeq(), providers: this.providers.map((p) => ({ ...p })) };
  }

  private fail(method: string) {
    const e = this.failNext.get(method);
    if (e) {
      this.failNext.delete(method);
      throw e;
    }
  }

  private flag(id: string, f: Partial<Pick<Session, "pinned" | "archived">>) {
    const s = this.session(id);
    Object.assign(s, f);
    this.publish(`session:${s.id}`, "session:updated", s);
    this.publish("sessions", "sessions:upserted", s);
    return { ...s };
  }

  /** SearchMessages over the fake's text parts: case-insensitive substring, the whole text as the snippet. */
  private search(query: string) {
    const q = query.trim().toLowerCase();
    const hits = [];
    for (const s of this.sessions) {
      for (const m of this.messages.get(s.id) ?? []) {
        const text = (m.parts ?? []).filter((p) => p.type === "text").map((p) => p.text ?? "").join("");
        const at = q ? text.toLowerCase().indexOf(q) : -1;
        if (at < 0) continue;
        const snippet = [
          { text: text.slice(0, at) },
          { text: text.slice(at, at + q.length), mark: true },
          { text: text.slice(at + q.length) },
        ].filter((sp) => sp.text);
        hits.push({ sessionId: s.id, sessionTitle: s.title, sessionKind: s.kind, archived: s.archived, messageId: m.id, role: m.role, createdAt: m.createdAt, snippet });
      }
    }
    return { query, hits };
  }

  /** The facade methods (app_chat.go). */
  methods(): Record<string, Impl> {
    return {
      ListSessions: (q) => {
        const query = String(q ?? "").toLowerCase();
        return {
          seq: this.seq("sessions"),
          sessions: this.sessions.filter((s) => s.title.toLowerCase().includes(query)).map((s) => ({ ...s })),
        };
      },
      CreateSession: (input) => {
        this.fail("CreateSession");
        const inp = input as SessionInput;
        const empty = inp.reuseEmpty
          ? this.sessions.find((s) => s.kind === (inp.kind ?? "chat") && !s.title && !s.archived && !this.messages.get(s.id)?.length)
          : undefined;
        if (empty) return { ...empty };
        return { ...this.addSession(inp) };
      },
      PinSession: (id, pinned) => this.flag(String(id), { pinned: Boolean(pinned) }),
      ArchiveSession: (id, archived) => this.flag(String(id), { archived: Boolean(archived) }),
      SearchMessages: (q) => this.search(String(q)),
      UpdateSession: (id, patch) => {
        const s = this.session(String(id));
        const p = patch as SessionPatch;
        if (p.title !== undefined) s.title = p.title;
        if (p.providerId !== undefined) {
          if (p.providerId !== s.providerId && p.model === undefined) s.model = "";
          s.providerId = p.providerId;
        }
        if (p.model !== undefined) s.model = p.model;
        if (p.systemPrompt !== undefined) s.systemPrompt = p.systemPrompt;
        if (p.resetTemperature) s.temperature = null;
        else if (p.temperature !== undefined) s.temperature = p.temperature;
        if (p.resetTopP) s.topP = null;
        else if (p.topP !== undefined) s.topP = p.topP;
        if (p.maxTokens !== undefined) s.maxTokens = p.maxTokens;
        if (p.contextMessages !== undefined) s.contextMessages = p.contextMessages;
        if (p.toolsets !== undefined) s.toolsets = [...p.toolsets].sort();
        if (p.reasoning !== undefined) s.reasoning = { ...p.reasoning };
        s.updatedAt = Date.now();
        this.publish(`session:${s.id}`, "session:updated", s);
        this.publish("sessions", "sessions:upserted", s);
        return { ...s };
      },
      RenameSession: (id, title) => this.methods().UpdateSession!(id, { title }),
      DeleteSession: (id) => {
        const s = this.session(String(id));
        this.sessions = this.sessions.filter((x) => x !== s);
        this.messages.delete(s.id);
        this.running.delete(s.id);
        this.publish(`session:${s.id}`, "session:deleted", { sessionId: s.id });
        this.publish("sessions", "sessions:removed", { sessionId: s.id });
        return null;
      },
      GetSession: (id) => this.snapshot(String(id)),
      SendMessage: (id, text, attachments) => {
        this.fail("SendMessage");
        const files = (attachments ?? []) as AttachmentInput[];
        if (!String(text).trim() && files.length === 0) throw err("invalid_argument", { message: "the message is empty" }, "empty");
        this.sent.push({ sessionId: String(id), text: String(text), attachments: files });
        return this.start(String(id), String(text), undefined, files).result;
      },
      UploadAttachment: (name, uploadId, data, last) => {
        this.fail("UploadAttachment");
        return this.upload(String(name), String(uploadId), String(data), Boolean(last));
      },
      GetAttachmentPreview: (id) => {
        const u = this.uploads.get(String(id));
        if (!u) throw err("attachment_not_found", { name: String(id) }, "gone");
        const a = u.attachment;
        return a.kind === "image"
          ? { id: a.id, kind: a.kind, mime: a.mime, dataUrl: `data:${a.mime};base64,${u.data}` }
          : { id: a.id, kind: a.kind, mime: a.mime, text: atob(u.data) };
      },
      StopSession: (id) => {
        this.running.get(String(id))?.end("stopped");
        return null;
      },
      Regenerate: (id) => {
        const list = this.messages.get(String(id)) ?? [];
        let last = -1;
        list.forEach((m, i) => m.role === "user" && (last = i));
        if (last < 0) throw err("message_not_found", {}, "no user message");
        return this.start(String(id), null, last + 1).result;
      },
      EditAndResend: (id, messageId, text) => {
        const list = this.messages.get(String(id)) ?? [];
        const i = list.findIndex((m) => m.id === messageId);
        if (i < 0) throw err("message_not_found", {}, "no message");
        return { ...this.start(String(id), String(text), i).result, editMode: "branch" };
      },
      SelectBranch: (id, messageId) => {
        this.selectedBranches.push(String(messageId));
        return this.snapshot(String(id));
      },
      ListTools: () => ({ seq: this.seq("tools"), tools: this.tools.map((x) => ({ ...x })) }),
      SetToolEnabled: (name, enabled) => {
        const tool = this.tools.find((x) => x.name === name);
        if (!tool) throw err("tool_not_found", { name }, "no tool");
        tool.enabled = Boolean(enabled);
        this.publish("tools", "tools:prefs", { name, enabled: tool.enabled });
        return null;
      },
      ListPendingApprovals: () => ({ seq: this.seq("approvals"), requests: this.approvals.filter((r) => r.status === "pending") }),
      DecideApproval: (id, decision, reason, window) => {
        const r = this.approvals.find((x) => x.id === id);
        if (!r) throw err("approval_not_found", {}, "no request");
        if (r.status !== "pending") {
          throw err("approval_already_decided", { decision: r.decision, window: r.window, decidedAt: "2026-01-01T10:00:00Z", tool: r.tool }, "already decided");
        }
        r.status = decision === "deny" ? "denied" : "allowed";
        r.decision = decision as ApprovalRequest["decision"];
        r.decisionReason = String(reason ?? "");
        r.window = String(window ?? "");
        this.publish("approvals", "approval:decided", r);
        return { ...r };
      },
      ListProviderPresets: () => PRESETS,
      ListProviders: () => this.providerSnapshot(),
      SaveProvider: (input) => {
        const inp = input as ProviderInput;
        if (!inp.name?.trim()) throw err("provider_invalid", { reason: "the name must be 1 to 64 printable characters" }, "bad name");
        const preset = PRESETS.find((p) => p.id === (inp.preset || "custom"))!;
        const baseUrl = (inp.baseUrl || preset.baseUrl).replace(/\/+$/, "");
        if (!/^https?:\/\/./.test(baseUrl)) throw err("provider_invalid", { reason: `"${baseUrl}" is not an http(s) URL` }, "bad url");
        let p = this.providers.find((x) => x.id === inp.id);
        // As the backend: the stored key does not follow the base URL to another host unasked.
        const origin = (u: string) => {
          try {
            const x = new URL(u);
            return `${x.protocol}//${x.host}`;
          } catch {
            return u;
          }
        };
        if (p?.keySet && !inp.apiKey && !inp.clearKey && !inp.keepKey && origin(p.baseUrl) !== origin(baseUrl)) {
          throw err("provider_key_host_changed", { name: p.name, from: origin(p.baseUrl), to: origin(baseUrl) }, "host moved");
        }
        const now = Date.now();
        if (!p) {
          p = { id: this.id("prov"), name: "", preset: preset.id, baseUrl, models: [], defaultModel: "", needsKey: preset.needsKey, keySet: false, dialect: {}, reasoningControls: {}, createdAt: now, updatedAt: now };
          if (preset.reasoningControls) p.reasoningControls = preset.reasoningControls;
          this.providers.push(p);
        }
        p.name = inp.name.trim();
        p.baseUrl = baseUrl;
        p.models = inp.models ?? p.models;
        p.defaultModel = inp.defaultModel || p.models[0]?.id || "";
        if (inp.apiKey) {
          this.keys.set(p.id, inp.apiKey);
          p.keySet = true;
          p.keyLast4 = inp.apiKey.length >= 8 ? inp.apiKey.slice(-4) : undefined;
        } else if (inp.clearKey) {
          this.keys.delete(p.id);
          p.keySet = false;
          delete p.keyLast4;
        }
        if (inp.headers) {
          // As the backend: a secret header's value goes to the key store, never back.
          const before = p.headers ?? [];
          p.headers = inp.headers.map((h) => {
            const secret = Boolean(h.secret) || /auth|key|token|secret/i.test(h.name);
            if (!secret) return { name: h.name, value: h.value };
            if (h.value) this.keys.set(`${p!.id}.header.${h.name}`, h.value);
            return { name: h.name, secret, set: Boolean(h.value) || Boolean(before.find((b) => b.name === h.name)?.set) };
          });
        }
        p.proxy = inp.proxy || p.proxy || "system";
        this.publish("settings", "providers:changed", { seq: 0, providers: this.providers });
        return { ...p };
      },
      DeleteProvider: (id) => {
        this.providers = this.providers.filter((p) => p.id !== id);
        this.publish("settings", "providers:changed", { seq: 0, providers: this.providers });
        return null;
      },
      FetchModels: (id) => {
        const p = this.providers.find((x) => x.id === id);
        if (!p) throw err("provider_not_found", { name: id }, "no provider");
        const manual = p.models.filter((m) => m.source === "manual");
        p.models = [...manual, model("fetched-a", { source: "fetched" }), model("fetched-b", { source: "fetched", vision: true })];
        p.defaultModel ||= p.models[0]!.id;
        this.publish("settings", "providers:changed", { seq: 0, providers: this.providers });
        return { ...p };
      },
      SetModelPrice: (id, modelId, price) => {
        const p = this.providers.find((x) => x.id === id);
        if (!p) throw err("provider_not_found", { name: id }, "no provider");
        const pr = price as Price;
        if (![pr.input, pr.output, pr.cachedInput ?? 0].every((v) => typeof v === "number" && v >= 0 && v <= 10000)) {
          throw err("price_invalid", { value: String(pr.output), max: 10000 }, "bad price");
        }
        if (pr.currency && !/^[A-Z]{3}$/.test(pr.currency)) throw err("price_currency_invalid", { currency: `"${pr.currency}"` }, "bad currency");
        this.priceCalls.push({ providerId: String(id), model: String(modelId), price: pr });
        p.models = p.models.map((m) => (m.id === modelId ? { ...m, price: { ...pr, currency: pr.currency || "USD", source: "user" } } : m));
        this.publish("settings", "providers:changed", { seq: 0, providers: this.providers });
        return { ...p };
      },
      ClearModelPrice: (id, modelId) => {
        const p = this.providers.find((x) => x.id === id);
        if (!p) throw err("provider_not_found", { name: id }, "no provider");
        this.priceCalls.push({ providerId: String(id), model: String(modelId), price: null });
        p.models = p.models.map((m) => (m.id === modelId ? { ...m, price: m.listPrice ? { ...m.listPrice, source: "provider" } : undefined } : m));
        this.publish("settings", "providers:changed", { seq: 0, providers: this.providers });
        return { ...p };
      },
      TestProvider: (id, m) => {
        const p = this.providers.find((x) => x.id === id);
        if (!p) throw err("provider_not_found", { name: id }, "no provider");
        if (p.needsKey && !p.keySet) return { ok: false, model: m, latencyMs: 0, error: err("provider_key_missing", { name: p.name }, "no key") };
        if (this.keys.get(p.id) === "bad-key-123") {
          return { ok: false, model: m, latencyMs: 0, error: { ...err("model_auth_failed", {}, "401 Unauthorized"), action: { kind: "open-settings", target: "providers" } } };
        }
        return { ok: true, model: m || p.defaultModel, latencyMs: 321, reply: "OK" };
      },
    };
  }
}
