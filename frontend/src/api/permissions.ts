import { APPROVALS_TOPIC, type PermissionRule } from "./approvals";
import type * as wire from "./generated";
import { RELOAD } from "./store";
import type { CairnEvent, Transport } from "./types";

// Wire types of the permissions half of the approval facade (app_approval.go,
// backend/approval rules.go / audit.go, backend/permission): modes, rules, the rule
// tester and the audit log. Rule and mode changes are announced on topic `approvals`.

export type PermissionMode = wire.PermissionMode;
/** Every mode, in the order the pickers list them. */
export const PERMISSION_MODES = ["default", "acceptEdits", "auto", "plan", "bypassPermissions"] as const satisfies readonly PermissionMode[];
/** The setting that holds the global default mode. */
export const DEFAULT_MODE_KEY = "permissions.defaultMode";

export function isPermissionMode(v: unknown): v is PermissionMode {
  return typeof v === "string" && (PERMISSION_MODES as readonly string[]).includes(v);
}

export type SessionPermissionMode = wire.ApprovalSessionMode;
export type RuleList = wire.ApprovalRuleList;

export const PermissionEvents = {
  rules: "permission:rules",
  mode: "permission:mode",
} as const;

export type PermissionSample = wire.ApprovalSample;
export type PermissionVerdict = wire.PermissionVerdict;
export type ResolvedPath = wire.PermissionPath;
export type SimpleCommand = wire.PermissionSimpleCommand;
export type ShellLine = wire.PermissionShellLine;
export type PermissionTool = wire.PermissionTool;
export type PermissionTestResult = wire.ApprovalTestResult;
export type AuditEntry = wire.ApprovalAuditEntry;
export type AuditQuery = wire.ApprovalAuditQuery;
export type AuditPage = wire.ApprovalAuditPage;
export type AuditExport = wire.ApprovalExport;

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
