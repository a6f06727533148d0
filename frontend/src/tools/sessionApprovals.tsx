import { createContext, useCallback, useContext, useEffect, useMemo, type ReactNode } from "react";
import { useClient, useTopic, type ApprovalRequest } from "../api";
import { windowId } from "../shell/windowId";

export interface SessionApprovals {
  /** The session the tool cards below belong to. */
  sessionId: string;
  /** The session's requests by id (pending, decided, interrupted, resumed). */
  byId: ReadonlyMap<string, ApprovalRequest>;
  /** ResumeApproval: asks again; rejects with the apperr (e.g. approval_already_decided). */
  resume: (requestId: string) => Promise<ApprovalRequest>;
}

const Ctx = createContext<SessionApprovals | null>(null);

/**
 * Keeps one session's approval requests (ListSessionApprovals + topic approvals) for the
 * tool cards below it, which offer "resume" on the interrupted ones (APPR-1).
 */
export function SessionApprovalsProvider({ sessionId, children }: { sessionId: string; children: ReactNode }) {
  const client = useClient();
  const store = useMemo(() => client.approvals.sessionStore(sessionId), [client, sessionId]);
  useEffect(() => {
    store.start();
    return () => store.dispose();
  }, [store]);
  const { data } = useTopic(store);
  const byId = useMemo(() => new Map((data?.requests ?? []).map((r) => [r.id, r] as const)), [data]);
  const resume = useCallback((id: string) => client.approvals.resume(id, windowId()), [client]);
  const value = useMemo(() => ({ sessionId, byId, resume }), [sessionId, byId, resume]);
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>;
}

/** The session's approvals, or null outside a SessionApprovalsProvider. */
export function useSessionApprovals(): SessionApprovals | null {
  return useContext(Ctx);
}
