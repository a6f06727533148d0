import { browserApi } from "./browser";
import { applyElicitationsEvent, ELICITATIONS_TOPIC, elicitationsApi, type PendingElicitations } from "./elicitations";
import { faviconsApi, imagesApi } from "./images";
import { applyApprovalsEvent, APPROVALS_TOPIC, approvalsApi, type PendingApprovals } from "./approvals";
import { applyMcpEvent, MCP_TOPIC, mcpApi, type McpSnapshot } from "./mcp";
import { applyRulesEvent, permissionsApi, type RuleList } from "./permissions";
import { applySessionsEvent, chatApi, createSessionStore, SESSIONS_TOPIC, type SessionList, type SessionSnapshot } from "./chat";
import { applyProvidersEvent, PROVIDERS_TOPIC, providersApi, type ProvidersSnapshot } from "./providers";
import { secretsApi, SECRETS_CHANGED, SECRETS_TOPIC, type SecretsSnapshot } from "./secrets";
import { settingsApi, SETTINGS_CHANGED, SETTINGS_TOPIC, type SettingsSnapshot } from "./settings";
import { RELOAD, TopicStore } from "./store";
import { systemApi } from "./system";
import { transferApi } from "./transfer";
import { websearchApi } from "./websearch";
import { kbApi } from "./kb";
import { skillsApi } from "./skills";
import { applyAssistantsEvent, ASSISTANTS_TOPIC, assistantsApi, type AssistantList } from "./assistants";
import { sandboxApi } from "./sandbox";
import { agentsApi } from "./agents";
import { tasksApi } from "./tasks";
import { applyToolsEvent, TOOLS_TOPIC, TOOLSETS_TOPIC, toolsApi, type ToolsetList, type ToolsSnapshot } from "./tools";
import type { CairnEvent, Transport } from "./types";

/**
 * Everything the UI talks to: typed domain wrappers over one transport, and one store per
 * topic the UI shows. Add a domain by writing `api/<domain>.ts` (a `<domain>Api(t)` factory
 * over `t.call(<facade method name>, ...args)`) and adding it here.
 */
export function createClient(transport: Transport) {
  const settings = settingsApi(transport);
  const secrets = secretsApi(transport);
  const system = systemApi(transport);
  const chat = chatApi(transport);
  const providers = providersApi(transport);
  const approvals = approvalsApi(transport);
  const elicitations = elicitationsApi(transport);
  const tools = toolsApi(transport);
  const mcp = mcpApi(transport);
  const permissions = permissionsApi(transport);
  const browser = browserApi(transport);
  const images = imagesApi(transport);
  const websearch = websearchApi(transport);
  const kb = kbApi(transport);
  const skills = skillsApi(transport);
  const assistants = assistantsApi(transport);
  const sessions = new SessionStores(transport, chat);
  return {
    transport,
    settings,
    secrets,
    system,
    chat,
    providers,
    approvals,
    /** MCP servers' questions to the user (elicitation forms). */
    elicitations,
    tools,
    mcp,
    permissions,
    /** Opens pages in the user's browser (system browser or a new tab). */
    browser,
    /** Remote images of answers, fetched by the backend when the user asks. */
    images,
    /** Site icons of search results, fetched by the backend while the user has them on. */
    favicons: faviconsApi(transport),
    /** Web search providers and Settings' test search. */
    websearch,
    /** Knowledge bases, their files and folders, search, sessions' attachments. */
    kb,
    /** Agent skills: the list, global and per-conversation switches, imports. */
    skills,
    /** Assistants: saved presets a conversation starts from. */
    assistants,
    /** Task mode: the sandbox's status and the task sessions' workspaces. */
    sandbox: sandboxApi(transport),
    /** Sub-agents: the run a tool call started, the types (built-in and the user's). */
    agents: agentsApi(transport),
    /** Background tasks of a session (sandbox_bash run_in_background, sub-agents). */
    tasks: tasksApi(transport),
    /** Conversation exports and imports, backups (app_transfer.go). */
    transfer: transferApi(transport),
    /** Stores of open sessions (topic `session:<id>`), shared by the views of this window. */
    sessions,
    stores: {
      settings: new TopicStore<SettingsSnapshot>(transport, {
        topic: SETTINGS_TOPIC,
        load: settings.get,
        apply: (state, ev) => applySettingsEvent(state, ev),
      }),
      secrets: new TopicStore<SecretsSnapshot>(transport, {
        topic: SECRETS_TOPIC,
        load: secrets.list,
        apply: (state, ev) => applySecretsEvent(state, ev),
      }),
      providers: new TopicStore<ProvidersSnapshot>(transport, {
        topic: PROVIDERS_TOPIC,
        load: providers.list,
        apply: applyProvidersEvent,
      }),
      tools: new TopicStore<ToolsSnapshot>(transport, {
        topic: TOOLS_TOPIC,
        load: tools.list,
        apply: applyToolsEvent,
      }),
      toolsets: new TopicStore<ToolsetList>(transport, {
        topic: TOOLSETS_TOPIC,
        load: async () => ({ seq: 0, toolsets: (await tools.listToolsets()) ?? [] }),
        apply: () => undefined,
      }),
      approvals: new TopicStore<PendingApprovals>(transport, {
        topic: APPROVALS_TOPIC,
        load: approvals.listPending,
        apply: applyApprovalsEvent,
      }),
      elicitations: new TopicStore<PendingElicitations>(transport, {
        topic: ELICITATIONS_TOPIC,
        load: elicitations.listPending,
        apply: applyElicitationsEvent,
      }),
      mcp: new TopicStore<McpSnapshot>(transport, {
        topic: MCP_TOPIC,
        load: mcp.list,
        apply: applyMcpEvent,
      }),
      permissionRules: new TopicStore<RuleList>(transport, {
        topic: APPROVALS_TOPIC,
        load: permissions.listRules,
        apply: applyRulesEvent,
      }),
      assistants: new TopicStore<AssistantList>(transport, {
        topic: ASSISTANTS_TOPIC,
        load: assistants.list,
        apply: applyAssistantsEvent,
      }),
      sessionList: new TopicStore<SessionList>(transport, {
        topic: SESSIONS_TOPIC,
        load: () => chat.listSessions(""),
        apply: applySessionsEvent,
      }),
    },
  };
}

export type CairnClient = ReturnType<typeof createClient>;

/**
 * One store per open session, shared by every view of this window that shows it and
 * disposed when the last one lets go (retain returns the release).
 */
export class SessionStores {
  private readonly open = new Map<string, { store: TopicStore<SessionSnapshot>; refs: number }>();

  constructor(
    private readonly transport: Transport,
    private readonly chat: ReturnType<typeof chatApi>,
  ) {}

  /** The store of a session (created, not started, when none exists). */
  get(id: string): TopicStore<SessionSnapshot> {
    let e = this.open.get(id);
    if (!e) {
      e = { store: createSessionStore(this.transport, this.chat, id), refs: 0 };
      this.open.set(id, e);
    }
    return e.store;
  }

  /** Keeps a store alive and started until the returned function is called. */
  retain(store: TopicStore<SessionSnapshot>): () => void {
    const id = store.topic.slice("session:".length);
    let e = this.open.get(id);
    if (!e || e.store !== store) {
      e = { store, refs: 0 };
      this.open.set(id, e);
    }
    e.refs++;
    store.start();
    const entry = e;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      entry.refs--;
      if (entry.refs <= 0) {
        entry.store.dispose();
        if (this.open.get(id) === entry) this.open.delete(id);
      }
    };
  }

  /** Ids of the sessions with a live store (tests, diagnostics). */
  get ids(): string[] {
    return [...this.open.keys()];
  }
}

/** settings:changed carries the whole snapshot; other types on the topic change nothing. */
export function applySettingsEvent(state: SettingsSnapshot, ev: CairnEvent) {
  if (ev.type !== SETTINGS_CHANGED) return undefined;
  const d = ev.data as Partial<SettingsSnapshot> | undefined;
  if (d && typeof d.values === "object" && d.values !== null && Array.isArray(d.specs)) {
    return { ...state, ...d, seq: ev.seq } as SettingsSnapshot;
  }
  return RELOAD;
}

/** secrets:changed may carry the list; if it does not, the list is fetched again. */
export function applySecretsEvent(state: SecretsSnapshot, ev: CairnEvent) {
  if (ev.type !== SECRETS_CHANGED) return undefined;
  const d = ev.data as Partial<SecretsSnapshot> | undefined;
  if (d && Array.isArray(d.secrets)) return { ...state, ...d, seq: ev.seq } as SecretsSnapshot;
  return RELOAD;
}
