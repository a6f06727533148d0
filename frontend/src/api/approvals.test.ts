import { describe, expect, it } from "vitest";
import { FakeTransport } from "../test/fakeTransport";
import { applySessionApprovalsEvent, approvalsApi, type ApprovalRequest, type PendingApprovals } from "./approvals";
import { RELOAD } from "./store";

const req = (id: string, sessionId: string, status: ApprovalRequest["status"]): ApprovalRequest => ({
  id, sessionId, callId: `c-${id}`, tool: "sandbox_bash", args: {}, touches: {}, readOnly: false, destructive: false,
  mode: "default", askReason: "", askReasonCode: "", rules: [], status, createdAt: 1,
});

describe("a session's approvals", () => {
  const state: PendingApprovals = { seq: 2, requests: [req("a", "s1", "interrupted")] };

  it("follow every approval event of their session and ignore others", () => {
    const resumed = applySessionApprovalsEvent("s1", state, { topic: "approvals", seq: 3, type: "approval:resumed", data: req("a", "s1", "resumed") });
    expect(resumed).toEqual({ seq: 3, requests: [req("a", "s1", "resumed")] });
    const asked = applySessionApprovalsEvent("s1", state, { topic: "approvals", seq: 3, type: "approval:requested", data: req("b", "s1", "pending") });
    expect((asked as PendingApprovals).requests.map((r) => r.id)).toEqual(["a", "b"]);
    expect(applySessionApprovalsEvent("s1", state, { topic: "approvals", seq: 3, type: "approval:decided", data: req("z", "s2", "denied") })).toBeUndefined();
    expect(applySessionApprovalsEvent("s1", state, { topic: "approvals", seq: 3, type: "permission:rules", data: { rules: [] } })).toBeUndefined();
    expect(applySessionApprovalsEvent("s1", state, { topic: "approvals", seq: 3, type: "approval:decided", data: {} })).toBe(RELOAD);
  });

  it("load through ListSessionApprovals and keep current from the topic", async () => {
    const t = new FakeTransport({ ListSessionApprovals: (id) => ({ seq: 5, requests: [req("a", String(id), "interrupted")] }) });
    const store = approvalsApi(t).sessionStore("s1");
    store.start();
    await new Promise((r) => setTimeout(r, 0));
    expect(t.calls[0]).toEqual({ method: "ListSessionApprovals", args: ["s1"] });
    t.emit({ topic: "approvals", seq: 6, type: "approval:resumed", data: req("a", "s1", "resumed") });
    expect(store.getState().data?.requests[0]?.status).toBe("resumed");
    store.dispose();
    expect(t.subscribers).toBe(0);
  });
});
