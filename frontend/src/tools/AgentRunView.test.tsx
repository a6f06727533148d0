import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { AgentRun, ApprovalRequest, Message, Part, SessionSnapshot } from "../api";
import { FakeTransport } from "../test/fakeTransport";
import { renderWithClient } from "../test/render";
import { ApprovalDialog } from "./ApprovalDialog";
import { groupParts, type ToolItem } from "./model";
import { SessionApprovalsProvider } from "./sessionApprovals";
import { ToolCard } from "./ToolCard";

let n = 0;
const part = (over: Partial<Part>): Part => ({
  id: `p${++n}`,
  messageId: "m1",
  index: n,
  round: 0,
  type: "tool-call",
  state: "done",
  createdAt: 1,
  updatedAt: 1,
  ...over,
});

const RUN: AgentRun = {
  sessionId: "child",
  parentSessionId: "s1",
  parentCallId: "a1",
  name: "scout",
  type: "researcher",
  description: "find cairns",
  state: "running",
  summary: { calls: [], sources: [] },
  createdAt: 1,
};

const agentCall = part({
  tool: { callId: "a1", name: "agent_run", namespace: "agent", title: "run", arguments: '{"type":"researcher","prompt":"p","description":"d"}', startedAt: Date.now() },
});

const childMessage = (status: Message["status"], parts: Part[], usage?: Message["usage"]): Message => ({
  id: "cm2",
  sessionId: "child",
  seq: 2,
  role: "assistant",
  status,
  parts,
  usage,
  createdAt: 1,
  updatedAt: 1,
});

const snapshot = (messages: Message[]): SessionSnapshot => ({
  seq: 1,
  state: "streaming",
  editMode: "branch",
  messages,
  session: { id: "child", kind: "chat", title: "scout", providerId: "", model: "", systemPrompt: "", temperature: null, topP: null, maxTokens: 0, contextMessages: 0, toolsets: ["web"], reasoning: {}, state: "streaming", createdAt: 1, updatedAt: 1, activeAt: 1, pinned: false, archived: false, parentId: "s1", parentCallId: "a1" },
});

function setup(item: ToolItem, snap: SessionSnapshot) {
  const transport = new FakeTransport({
    ListSessionApprovals: () => ({ seq: 1, requests: [] }),
    GetAgentRun: (session, call) => {
      expect([session, call]).toEqual(["s1", "a1"]);
      return RUN;
    },
    GetSession: (id) => {
      expect(id).toBe("child");
      return snap;
    },
  });
  const r = renderWithClient(
    <SessionApprovalsProvider sessionId="s1">
      <ToolCard item={item} live />
    </SessionApprovalsProvider>,
    { transport, ready: null },
  );
  return { ...r, transport };
}

describe("agent_run's card", () => {
  it("shows the sub-agent live: its text, its tool cards collapsed, its state and tokens, and follows its events", async () => {
    const search = part({ messageId: "cm2", tool: { callId: "c1", name: "web_search", namespace: "web", title: "search", arguments: '{"query":"cairn"}', startedAt: 1 } });
    const searched = part({ messageId: "cm2", type: "tool-result", tool: { callId: "c1", name: "web_search", content: "results" } });
    const { transport } = setup(groupParts([agentCall])[0] as ToolItem, snapshot([childMessage("streaming", [search, searched], { promptTokens: 100, completionTokens: 20, totalTokens: 120 })]));
    const view = await screen.findByTestId("agent-run");
    expect(view).toHaveTextContent("scout");
    expect(view).toHaveAttribute("data-state", "running");
    await waitFor(() => expect(within(view).getByTestId("agent-run-tokens")).toHaveTextContent("120 tokens"));
    const inner = within(view).getByTestId("tool-card");
    expect(inner).toHaveAttribute("data-tool", "web_search");
    expect(within(inner).queryByTestId("tool-args")).toBeNull(); // collapsed

    // The child writes its answer: the card follows the child's session topic.
    const text = part({ messageId: "cm2", type: "text", text: "A cairn is a pile of stones." });
    act(() => transport.emit({ topic: "session:child", seq: 2, type: "part:appended", data: text, time: 1 }));
    await waitFor(() => expect(within(view).getByTestId("agent-run-text")).toHaveTextContent("A cairn is a pile of stones."));
    act(() =>
      transport.emit({ topic: "session:child", seq: 3, type: "message:updated", data: { ...childMessage("complete", []), parts: undefined }, time: 1 }),
    );
    await waitFor(() => expect(view).toHaveAttribute("data-state", "done")); // its answer ended, before the parent's call did
    expect(transport.calls.filter((c) => c.method === "GetAgentRun")).toHaveLength(1);
  });

  it("shows how it ended from the call's result and opens the child's conversation", async () => {
    const ended: AgentRun = { ...RUN, state: "budget", summary: { calls: [{ name: "web_search", count: 2 }], sources: ["https://example.org/cairn"], usage: { promptTokens: 900, completionTokens: 200, totalTokens: 1100 }, cost: { amount: 0.0123, currency: "USD", source: "user" } } };
    const end = part({ type: "tool-result", tool: { callId: "a1", name: "agent_run", content: "account", display: ended } });
    setup(groupParts([agentCall, end])[0] as ToolItem, snapshot([childMessage("error", [part({ messageId: "cm2", type: "text", text: "partial" })])]));
    const view = await screen.findByTestId("agent-run");
    expect(screen.getByTestId("agent-run-state")).toHaveTextContent("Stopped by a budget");
    expect(within(view).getByTestId("agent-run-sources")).toHaveTextContent("https://example.org/cairn");
    expect(within(view).getByTestId("agent-run-cost")).toHaveTextContent("$0.0123"); // the child's cost, on the parent's card
    fireEvent.click(within(view).getByTestId("agent-run-open"));
    expect(window.location.hash).toBe("#/session/child");
  });
});

describe("the approval dialog", () => {
  it("says which sub-agent asks", () => {
    const request = {
      id: "r1",
      sessionId: "s1",
      callId: "w1",
      tool: "sandbox_write",
      namespace: "sandbox",
      args: { path: "out.txt", content: "x" },
      touches: { paths: ["out.txt"] },
      rules: [],
      readOnly: false,
      destructive: false,
      mode: "default",
      askReason: "",
      askReasonCode: "can_change",
      status: "pending",
      createdAt: 1,
      agent: { name: "builder", sessionId: "child" },
    } as unknown as ApprovalRequest;
    renderWithClient(<ApprovalDialog request={request} onDecide={async () => undefined} />, { transport: new FakeTransport(), ready: null });
    expect(screen.getByTestId("approval-agent")).toHaveTextContent("From sub-agent builder");
  });
});
