import { RELOAD } from "./store";
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

/** A rule "allow for this session" / "always allow" would create (backend/permission.Rule). */
export interface PermissionRule {
  id: string;
  behavior: "allow" | "deny" | "ask" | string;
  tool?: string;
  path?: string;
  command?: string;
  sessionId?: string;
  source?: string;
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
  /** Empty when no rule can cover the call: then only allow once and deny are offered. */
  rules: PermissionRule[];
  status: ApprovalStatus | string;
  decision?: ApprovalChoice;
  decisionReason?: string;
  source?: string;
  window?: string;
  createdAt: number;
  decidedAt?: number;
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
  return {
    listPending: () => t.call<PendingApprovals>("ListPendingApprovals"),
    listSession: (sessionId: string) => t.call<PendingApprovals>("ListSessionApprovals", sessionId),
    /** The first decision from any window wins; later ones reject with approval_already_decided. */
    decide: (requestId: string, choice: ApprovalChoice, reason: string, windowId: string) =>
      t.call<ApprovalRequest>("DecideApproval", requestId, choice, reason, windowId),
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
