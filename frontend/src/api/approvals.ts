import { RELOAD, TopicStore } from "./store";
import type * as wire from "./generated";
import type { CairnEvent, Transport } from "./types";

// Wire types of the approval facade (app_approval.go, backend/approval): requests are
// carried on the `approvals` topic and in the data of `approval-requested` /
// `approval-decided` parts.

export type ApprovalChoice = wire.ApprovalChoice;
export type ApprovalStatus = wire.ApprovalStatus;
export type ApprovalTargets = wire.PermissionTargets;
export type RuleBehavior = wire.PermissionBehavior;
export type PermissionRule = wire.PermissionRule;
export type ApprovalRequest = wire.ApprovalRequest;
export type ApprovalEdit = wire.ToolsEdit;
export type PendingApprovals = wire.ApprovalPending;

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
