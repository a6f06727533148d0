import { APPROVALS_TOPIC, type PermissionRule } from "./approvals";
import { RELOAD } from "./store";
import type { CairnEvent, Transport } from "./types";

// Wire types of the permissions half of the approval facade (app_approval.go,
// backend/approval rules.go / audit.go, backend/permission): modes, rules, the rule
// tester and the audit log. Rule and mode changes are announced on topic `approvals`.

export const PERMISSION_MODES = ["default", "acceptEdits", "plan", "bypassPermissions"] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];
/** The setting that holds the global default mode. */
export const DEFAULT_MODE_KEY = "permissions.defaultMode";

export function isPermissionMode(v: unknown): v is PermissionMode {
  return typeof v === "string" && (PERMISSION_MODES as readonly string[]).includes(v);
}

/** A session's mode: its own (`own`), or the global default it follows. */
export interface SessionPermissionMode {
  sessionId: string;
  mode: PermissionMode | string;
  own: boolean;
}

/** Every stored rule, stamped with the approvals topic's seq. */
export interface RuleList {
  seq: number;
  rules: PermissionRule[];
}

export const PermissionEvents = {
  rules: "permission:rules",
  mode: "permission:mode",
} as const;

/** A call to test the rules against (backend/approval.Sample). */
export interface PermissionSample {
  /** Wire name; a registered tool brings its own flags. */
  tool: string;
  args?: unknown;
  sessionId?: string;
  /** "" = the session's (or the default). */
  mode?: PermissionMode | "";
  readOnly?: boolean;
  destructive?: boolean;
  needsApproval?: boolean;
  /** A rule being edited, tested as if saved (replacing the stored one with its id). */
  rule?: PermissionRule;
  /** Test the draft rule alone, without the stored rules. */
  only?: boolean;
}

export interface PermissionVerdict {
  behavior: "allow" | "deny" | "ask" | string;
  /** user_temporary, user_permanent, user_reject, hook or config. */
  source: string;
  reason: string;
  ruleId?: string;
  /** Allow rules that no longer apply because the MCP tool changed. */
  staleRules?: string[];
}

export interface ResolvedPath {
  raw: string;
  abs?: string;
  real?: string;
}

export interface SimpleCommand {
  assigns?: string[];
  words: string[];
  literal: boolean;
  nested?: boolean;
}

export interface ShellLine {
  source: string;
  parseError?: string;
  commands: SimpleCommand[] | null;
  top: SimpleCommand[] | null;
  /** Constructs that run more than the top-level commands show. */
  hidden?: string[];
  writes?: string[];
}

export interface PermissionTool {
  name: string;
  namespace: string;
  readOnly: boolean;
  destructive: boolean;
  needsApproval: boolean;
  fingerprint?: string;
}

/** TestPermissionRule: the verdict with what it was based on. */
export interface PermissionTestResult {
  verdict: PermissionVerdict;
  paths?: ResolvedPath[];
  shell?: ShellLine[];
  insideWorkspace: boolean;
  tool: PermissionTool;
  mode: PermissionMode | string;
  /** False when the tool is not registered and the sample's flags were used. */
  registered: boolean;
  /** The tested draft rule decided. */
  ruleDecides: boolean;
}

/** One decision of the audit log (backend/approval.AuditEntry). */
export interface AuditEntry {
  id: number;
  /** Unix ms. */
  at: number;
  requestId?: string;
  sessionId?: string;
  sessionTitle?: string;
  callId?: string;
  tool: string;
  argsSummary: string;
  /** allow_once, allow_session, allow_always, deny, auto_allow, auto_deny, cancelled, interrupted, resumed. */
  decision: string;
  behavior: string;
  source: string;
  window?: string;
  /** English text: for export and search, and what entries from before codes show. */
  reason?: string;
  /** Why, for every locale: chat approval.reasons.<code> or settings permissions.audit.reasons.<code>. */
  reasonCode?: string;
  reasonParams?: Record<string, string>;
  ruleId?: string;
  mode?: string;
}

/** Filters of the audit log; empty fields filter nothing. */
export interface AuditQuery {
  text?: string;
  sessionId?: string;
  tool?: string;
  decision?: string;
  source?: string;
  since?: number;
  until?: number;
  /** Only decisions a person made (or that ended a request). */
  userOnly?: boolean;
  /** Page backwards: entries older than this id (AuditPage.next). */
  before?: number;
}

/** Newest first; `next` is the `before` of the next page (absent = no more). */
export interface AuditPage {
  entries: AuditEntry[];
  next?: number;
}

/** A file to save (ExportApprovalAudit). */
export interface AuditExport {
  fileName: string;
  mimeType: string;
  content: string;
  count: number;
}

export const AUDIT_PAGE_SIZE = 50;

export function permissionsApi(t: Transport) {
  return {
    getSessionMode: (sessionId: string) => t.call<SessionPermissionMode>("GetSessionPermissionMode", sessionId),
    /** "" follows the global default again. */
    setSessionMode: (sessionId: string, mode: PermissionMode | "") =>
      t.call<SessionPermissionMode>("SetSessionPermissionMode", sessionId, mode),
    listRules: () => t.call<RuleList>("ListPermissionRules").then((l) => ({ ...l, rules: l.rules ?? [] })),
    /** Empty id adds. */
    saveRule: (rule: PermissionRule) => t.call<PermissionRule>("SavePermissionRule", rule),
    deleteRule: (id: string) => t.call<void>("DeletePermissionRule", id),
    /** Nothing runs and nothing is stored. */
    test: (sample: PermissionSample) => t.call<PermissionTestResult>("TestPermissionRule", sample),
    listAudit: (query: AuditQuery, limit = AUDIT_PAGE_SIZE) =>
      t.call<AuditPage>("ListApprovalAudit", query, limit).then((p) => ({ ...p, entries: p.entries ?? [] })),
    exportAudit: (format: "json" | "csv", query: AuditQuery) => t.call<AuditExport>("ExportApprovalAudit", format, query),
    /**
     * Mode changes of sessions (`permission:mode` on topic approvals). GetSessionPermissionMode
     * carries no seq, so `onReconnect` says when to fetch again.
     */
    watchModes: (onMode: (m: SessionPermissionMode) => void, onReconnect?: () => void) => {
      const stop = t.subscribe((ev) => {
        if (ev.topic !== APPROVALS_TOPIC || ev.type !== PermissionEvents.mode) return;
        const d = ev.data as SessionPermissionMode | undefined;
        if (d?.sessionId) onMode(d);
      });
      const stopRe = onReconnect ? t.onReconnect(onReconnect) : () => {};
      return () => {
        stop();
        stopRe();
      };
    },
    /** Every approvals event (the audit log has no topic of its own: a decision means new entries). */
    watchDecisions: (fn: () => void) =>
      t.subscribe((ev) => {
        if (ev.topic === APPROVALS_TOPIC && ev.type.startsWith("approval:")) fn();
      }),
  };
}

export type PermissionsApi = ReturnType<typeof permissionsApi>;

/** permission:rules carries the whole list; approval and mode events change nothing. */
export function applyRulesEvent(state: RuleList, ev: CairnEvent): RuleList | typeof RELOAD | undefined {
  if (ev.type !== PermissionEvents.rules) return undefined;
  const d = ev.data as Partial<RuleList> | undefined;
  if (!d || !Array.isArray(d.rules)) return RELOAD;
  return { ...state, seq: ev.seq, rules: d.rules };
}
