import type {
  AppError,
  ApprovalRequest,
  AuditEntry,
  AuditQuery,
  PermissionMode,
  PermissionRule,
  PermissionSample,
  PermissionTestResult,
  SessionPermissionMode,
} from "../api";
import type { FakeChat } from "./fakeChat";

type Impl = (...args: unknown[]) => unknown;

function err(code: string, params: Record<string, unknown>, message: string): AppError {
  return { code, i18nKey: `errors.${code}`, params, message };
}

const MODES = ["default", "acceptEdits", "auto", "plan", "bypassPermissions"];

/** A glob with * only (enough for the tests): "sandbox_*" matches "sandbox_bash". */
function globMatch(glob: string, name: string): boolean {
  const re = new RegExp(`^${glob.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);
  return re.test(name);
}

/**
 * The permissions half of the approval facade (app_approval.go): rules, session modes, a
 * simplified rule tester, the audit log, and the session approvals with resume. Events go
 * out on topic `approvals` through FakeChat, so seqs are shared with the requests.
 */
export class FakePermissions {
  private n = 0;
  rules: PermissionRule[] = [];
  readonly modes = new Map<string, PermissionMode>();
  audit: AuditEntry[] = [];
  /** What ResumeApproval does after marking a request resumed (e.g. ask again). */
  onResume: ((r: ApprovalRequest) => void) | null = null;

  constructor(
    private readonly chat: FakeChat,
    private readonly defaultMode: () => PermissionMode,
  ) {}

  /** An audit entry (id grows), newest last. */
  addAudit(over: Partial<AuditEntry> = {}): AuditEntry {
    const e: AuditEntry = {
      id: this.audit.length + 1,
      at: Date.UTC(2026, 0, 2, 10, 0, this.audit.length),
      tool: "sandbox_bash",
      argsSummary: "make test",
      decision: "allow_once",
      behavior: "allow",
      source: "user_temporary",
      window: "w-1",
      ...over,
    };
    this.audit.push(e);
    return e;
  }

  sessionMode(id: string): SessionPermissionMode {
    const own = this.modes.get(id);
    return { sessionId: id, mode: own ?? this.defaultMode(), own: own !== undefined };
  }

  private filtered(q: AuditQuery): AuditEntry[] {
    const text = (q.text ?? "").toLowerCase();
    return [...this.audit]
      .reverse()
      .filter(
        (e) =>
          (!text || [e.tool, e.argsSummary, e.sessionTitle, e.reason, e.window, e.decision, e.source].some((x) => (x ?? "").toLowerCase().includes(text))) &&
          (!q.decision || e.decision === q.decision) &&
          (!q.source || e.source === q.source) &&
          (!q.userOnly || !e.decision.startsWith("auto_")) &&
          (!q.before || e.id < q.before),
      );
  }

  test(sm: PermissionSample): PermissionTestResult {
    if (!sm.tool?.trim()) throw err("invalid_argument", { message: "tool is empty" }, "name a tool to test");
    if (sm.rule && !sm.rule.tool && !sm.rule.path && !sm.rule.command) {
      throw err("permission_rule_invalid", { reason: "a rule needs a tool, a path or a command" }, "invalid");
    }
    const mode = sm.mode || this.sessionMode(sm.sessionId ?? "").mode;
    const draft = sm.rule ? { ...sm.rule, id: sm.rule.id || "draft" } : undefined;
    let rules = sm.only ? [] : this.rules.filter((r) => r.id !== draft?.id);
    if (draft) rules = [...rules, draft];
    const args = (sm.args ?? {}) as Record<string, unknown>;
    const command = typeof args.command === "string" ? args.command : "";
    const matches = (r: PermissionRule) =>
      (!r.tool || globMatch(r.tool, sm.tool)) && (!r.command || command === r.command || command.startsWith(`${r.command} `)) && (!r.path || typeof args.path === "string");
    const hit = (b: string) => rules.find((r) => r.behavior === b && matches(r));
    const rule = hit("deny") ?? hit("ask") ?? hit("allow");
    let verdict: PermissionTestResult["verdict"];
    if (rule) verdict = { behavior: rule.behavior, source: rule.source || "config", reason: `${rule.behavior} by rule`, reasonCode: "", ruleId: rule.id };
    else if (mode === "bypassPermissions") verdict = { behavior: "allow", source: "config", reason: "bypassPermissions allows every call", reasonCode: "" };
    else if (sm.readOnly) verdict = { behavior: "allow", source: "config", reason: "read-only tools run", reasonCode: "" };
    else verdict = { behavior: "ask", source: "config", reason: "not read-only: asks in the default mode", reasonCode: "" };
    return {
      verdict,
      shell: command ? [{ source: command, commands: [{ words: command.split(" "), literal: true }], top: [{ words: command.split(" "), literal: true }] }] : undefined,
      insideWorkspace: false,
      tool: { name: sm.tool, namespace: sm.tool.split("_")[0] ?? "", readOnly: Boolean(sm.readOnly), destructive: Boolean(sm.destructive), ...(sm.needsApproval ? { approval: "ask" as const } : {}) },
      mode,
      registered: false,
      ruleDecides: Boolean(draft && verdict.ruleId === draft.id),
    };
  }

  /** The facade methods (app_approval.go) besides ListPendingApprovals / DecideApproval. */
  methods(): Record<string, Impl> {
    return {
      ListPermissionRules: () => ({ seq: this.chat.seq("approvals"), rules: this.rules.map((r) => ({ ...r })) }),
      SavePermissionRule: (input) => {
        const r = { ...(input as PermissionRule) };
        if (!["allow", "deny", "ask"].includes(r.behavior)) throw err("permission_rule_invalid", { reason: "behavior must be allow, deny or ask" }, "bad behavior");
        if (!r.tool && !r.path && !r.command) {
          throw err("permission_rule_invalid", { reason: 'a rule needs a tool, a path or a command (use tool "*" to match every tool)' }, "no condition");
        }
        r.source ||= "config";
        const now = Date.now();
        if (!r.id) {
          this.n++;
          r.id = `rule${this.n}`;
          r.createdAt = now;
          this.rules.push(r);
        } else {
          const i = this.rules.findIndex((x) => x.id === r.id);
          if (i < 0) throw err("permission_rule_not_found", { id: r.id }, "no rule");
          r.createdAt = this.rules[i]!.createdAt;
          this.rules[i] = r;
        }
        r.updatedAt = now;
        this.chat.publish("approvals", "permission:rules", { seq: 0, rules: this.rules });
        return { ...r };
      },
      DeletePermissionRule: (id) => {
        if (!this.rules.some((r) => r.id === id)) throw err("permission_rule_not_found", { id }, "no rule");
        this.rules = this.rules.filter((r) => r.id !== id);
        this.chat.publish("approvals", "permission:rules", { seq: 0, rules: this.rules });
        return null;
      },
      GetSessionPermissionMode: (id) => this.sessionMode(String(id)),
      SetSessionPermissionMode: (id, mode) => {
        const m = String(mode ?? "");
        if (m && !MODES.includes(m)) throw err("permission_mode_invalid", { mode: m }, "bad mode");
        this.chat.session(String(id));
        if (m) this.modes.set(String(id), m as PermissionMode);
        else this.modes.delete(String(id));
        const out = this.sessionMode(String(id));
        this.chat.publish("approvals", "permission:mode", out);
        return out;
      },
      TestPermissionRule: (sample) => this.test(sample as PermissionSample),
      ListApprovalAudit: (query, limit) => {
        const all = this.filtered((query ?? {}) as AuditQuery);
        const n = Number(limit) > 0 ? Number(limit) : 100;
        const entries = all.slice(0, n);
        return { entries, next: all.length > n ? entries[entries.length - 1]!.id : undefined };
      },
      ExportApprovalAudit: (format, query) => {
        const f = String(format);
        if (f !== "json" && f !== "csv") throw err("invalid_argument", { message: "format must be json or csv" }, "bad format");
        const rows = this.filtered({ ...((query ?? {}) as AuditQuery), before: undefined });
        const content =
          f === "json"
            ? JSON.stringify(rows, null, 2)
            : ["id,at,tool,decision", ...rows.map((e) => `${e.id},${e.at},${e.tool},${e.decision}`)].join("\n");
        return { fileName: `cairn-approval-audit-20260102-100000.${f}`, mimeType: f === "json" ? "application/json" : "text/csv", content, count: rows.length };
      },
      ListSessionApprovals: (id) => ({ seq: this.chat.seq("approvals"), requests: this.chat.approvals.filter((r) => r.sessionId === id).map((r) => ({ ...r })) }),
      ResumeApproval: (id, window) => {
        const r = this.chat.approvals.find((x) => x.id === id);
        if (!r) throw err("approval_not_found", { id }, "no request");
        if (r.status !== "interrupted") {
          throw err("approval_already_decided", { decision: r.status, window: r.window ?? "", decidedAt: "2026-01-01T10:00:00Z", tool: r.tool }, "already");
        }
        r.status = "resumed";
        r.window = String(window ?? "");
        r.decidedAt = Date.now();
        this.chat.publish("approvals", "approval:resumed", r);
        this.onResume?.(r);
        return { ...r };
      },
    };
  }
}
