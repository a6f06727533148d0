import { RELOAD, TopicStore } from "./store";
import type { CairnEvent, Transport } from "./types";

// Wire types of the approval facade (app_approval.go, backend/approval): requests are
// carried on the `approvals` topic and in the data of `approval-requested` /
// `approval-decided` parts.

export type ApprovalChoice = "allow_once" | "allow_session" | "allow_always" | "deny";

export type ApprovalStatus = "pending" | "allowed" | "denied" | "cancelled" | "interrupted" | "resumed";

/** What a call will touch (backend/permission.Targets). */
export interface ApprovalTargets {
  paths?: string[];
  urls?: string[];
  commands?: string[];
  cwd?: string;
}

export type RuleBehavior = "allow" | "deny" | "ask";

/**
 * An allow / deny / ask rule (backend/permission.Rule): stored ones (Settings →
 * Permissions) and those "allow for this session" / "always allow" would create. Every
 * condition that is set must hold; deny beats ask beats allow.
 */
export interface PermissionRule {
  id: string;
  behavior: RuleBehavior | string;
  /** Glob over the wire name or the namespace (sandbox, mcp:<serverId>, mcp:*); "" = any tool. */
  tool?: string;
  /** Doublestar glob over the call's path arguments after `~`, `..` and symlinks are resolved. */
  path?: string;
  /** Shell command prefix, word by word. */
  command?: string;
  /** Binds an allow to one version of an MCP tool (its schema and server); set by "always allow". */
  fingerprint?: string;
  /** "" = every session. */
  sessionId?: string;
  /** user_temporary, user_permanent or config. */
  source?: string;
  note?: string;
  /** The approval request whose decision created the rule. */
  requestId?: string;
  createdAt?: number;
  updatedAt?: number;
}

export interface ApprovalRequest {
  id: string;
  sessionId: string;
  messageId?: string;
  callId: string;
  tool: string;
  namespace?: string;
  server?: string;
  args: unknown;
  touches: ApprovalTargets;
  readOnly: boolean;
  destructive: boolean;
  mode: string;
  askReason: string;
  /** The reason for every locale (chat:approval.reasons.<code>); empty in old requests. */
  askReasonCode?: string;
  askReasonParams?: Record<string, string>;
  /** Empty when no rule can cover the call: then only allow once and deny are offered. */
  rules: PermissionRule[];
  status: ApprovalStatus | string;
  decision?: ApprovalChoice;
  decisionReason?: string;
  source?: string;
  window?: string;
  createdAt: number;
  decidedAt?: number;
  ruleIds?: string[];
  /** The interrupted request this one asks again about. */
  resumedFrom?: string;
}

/** Requests stamped with the approvals topic's seq. */
export interface PendingApprovals {
  seq: number;
  requests: ApprovalRequest[];
}

export const APPROVALS_TOPIC = "approvals";
export const ApprovalEvents = {
  requested: "approval:requested",
  decided: "approval:decided",
  resumed: "approval:resumed",
} as const;

export function approvalsApi(t: Transport) {
  const listSession = (sessionId: string) => t.call<PendingApprovals>("ListSessionApprovals", sessionId);
  return {
    listPending: () => t.call<PendingApprovals>("ListPendingApprovals"),
    /** Every request of a session: pending, decided and interrupted (offer "resume"). */
    listSession,
    /** A store of one session's requests (not started); the view that shows it disposes it. */
    sessionStore: (sessionId: string) => createSessionApprovalsStore(t, () => listSession(sessionId), sessionId),
    /** The first decision from any window wins; later ones reject with approval_already_decided. */
    decide: (requestId: string, choice: ApprovalChoice, reason: string, windowId: string) =>
      t.call<ApprovalRequest>("DecideApproval", requestId, choice, reason, windowId),
    /** Asks again about an interrupted request; nothing runs until it is allowed. */
    resume: (requestId: string, windowId: string) => t.call<ApprovalRequest>("ResumeApproval", requestId, windowId),
  };
}

export type ApprovalsApi = ReturnType<typeof approvalsApi>;

/** Keeps the pending requests (the dialogs) current; rules and mode events change nothing here. */
export function applyApprovalsEvent(state: PendingApprovals, ev: CairnEvent): PendingApprovals | typeof RELOAD | undefined {
  const r = ev.data as ApprovalRequest | undefined;
  switch (ev.type) {
    case ApprovalEvents.requested: {
      if (!r?.id) return RELOAD;
      const rest = state.requests.filter((x) => x.id !== r.id);
      return { ...state, seq: ev.seq, requests: r.status === "pending" ? [...rest, r] : rest };
    }
    case ApprovalEvents.decided:
    case ApprovalEvents.resumed:
      if (!r?.id) return RELOAD;
      return { ...state, seq: ev.seq, requests: state.requests.filter((x) => x.id !== r.id) };
    default:
      return undefined;
  }
}

/**
 * All requests of one session — pending, decided, interrupted (offer "resume") — kept
 * current from the `approvals` topic. Views create it per open session and dispose it.
 */
export function createSessionApprovalsStore(
  t: Transport,
  load: () => Promise<PendingApprovals>,
  sessionId: string,
): TopicStore<PendingApprovals> {
  return new TopicStore<PendingApprovals>(t, {
    topic: APPROVALS_TOPIC,
    load,
    apply: (state, ev) => applySessionApprovalsEvent(sessionId, state, ev),
  });
}

/** Every approval:* event of this session replaces (or adds) its request; other events change nothing. */
export function applySessionApprovalsEvent(
  sessionId: string,
  state: PendingApprovals,
  ev: CairnEvent,
): PendingApprovals | typeof RELOAD | undefined {
  if (ev.type !== ApprovalEvents.requested && ev.type !== ApprovalEvents.decided && ev.type !== ApprovalEvents.resumed) {
    return undefined;
  }
  const r = ev.data as ApprovalRequest | undefined;
  if (!r?.id) return RELOAD;
  if (r.sessionId !== sessionId) return undefined;
  const i = state.requests.findIndex((x) => x.id === r.id);
  const requests = i < 0 ? [...state.requests, r] : state.requests.map((x, j) => (j === i ? r : x));
  return { ...state, seq: ev.seq, requests };
}
