import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { useState } from "react";
import { describe, expect, it } from "vitest";
import type { Part } from "../api";
import { FakeTransport } from "../test/fakeTransport";
import { renderWithClient } from "../test/render";
import { groupParts, toolState, type ToolItem } from "./model";
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

const call = (over: Partial<NonNullable<Part["tool"]>> = {}, p: Partial<Part> = {}) =>
  part({ type: "tool-call", tool: { callId: "c1", name: "web_search", namespace: "web", title: "search", arguments: '{"query":"cairn","limit":3}', startedAt: Date.now() - 1500, ...over }, ...p });

const item = (parts: Part[]): ToolItem => groupParts(parts)[0] as ToolItem;

const setup = (ui: React.ReactElement) => renderWithClient(ui, { transport: new FakeTransport(), ready: null });

describe("ToolCard", () => {
  it("shows a running call collapsed with its namespace, name, state, progress and live duration", async () => {
    const { container } = setup(
      <ToolCard item={item([call({ progress: { callId: "c1", kind: "web", message: "Searching 2 of 3", progress: 2, total: 3 } })])} live />,
    );
    const card = screen.getByTestId("tool-card");
    expect(card).toHaveAttribute("data-state", "running");
    expect(card).toHaveTextContent("search");
    expect(card).toHaveTextContent("Running");
    expect(card).toHaveTextContent("Searching 2 of 3");
    expect(card).toHaveTextContent(/1\.\d s/);
    expect(screen.getByRole("progressbar")).toHaveAttribute("aria-valuenow", "2");
    await waitFor(() => expect(container.querySelector(".tool-card__ns")).toHaveAttribute("title", "Web"));
    expect(screen.queryByTestId("tool-args")).toBeNull(); // collapsed
  });

  it("opens to show pretty JSON arguments and the result; long results are cut with 'show all'", () => {
    const long = Array.from({ length: 60 }, (_, i) => `line ${i}`).join("\n");
    setup(<ToolCard item={item([call(), part({ type: "tool-result", tool: { callId: "c1", name: "web_search", content: long, durationMs: 820 } })])} live={false} />);
    const card = screen.getByTestId("tool-card");
    expect(card).toHaveAttribute("data-state", "done");
    expect(card).toHaveTextContent("820 ms");
    fireEvent.click(within(card).getByRole("button", { expanded: false }));
    expect(screen.getByTestId("tool-args").textContent).toBe('{\n  "query": "cairn",\n  "limit": 3\n}');
    const result = screen.getByTestId("tool-result");
    expect(result).toHaveAttribute("data-kind", "text");
    expect(result).not.toHaveTextContent("line 59");
    fireEvent.click(screen.getByTestId("tool-show-all"));
    expect(result).toHaveTextContent("line 59");
  });

  it("renders JSON results pretty and Markdown results as Markdown", () => {
    setup(
      <>
        <ToolCard item={item([call({ callId: "j" }), part({ type: "tool-result", tool: { callId: "j", name: "kb_search", content: '{"hits":[1,2]}' } })])} live={false} />
        <ToolCard item={item([call({ callId: "m" }), part({ type: "tool-result", tool: { callId: "m", name: "web_fetch", content: "# Page\n\n| a | b |\n|---|---|\n| 1 | 2 |" } })])} live={false} />
      </>,
    );
    for (const head of screen.getAllByRole("button", { expanded: false })) fireEvent.click(head);
    const [json, md] = screen.getAllByTestId("tool-result");
    expect(json).toHaveAttribute("data-kind", "json");
    expect(json!.textContent).toContain('"hits": [\n    1,');
    expect(md).toHaveAttribute("data-kind", "markdown");
    expect(within(md!).getByRole("table")).toBeInTheDocument();
  });

  it("opens by itself when the call fails and shows the localized error with its action", () => {
    const running = item([call()]);
    let show!: (i: ToolItem) => void;
    function Harness() {
      const [it, setIt] = useState(running);
      show = setIt;
      return <ToolCard item={it} live />;
    }
    setup(<Harness />);
    expect(screen.queryByTestId("error-view")).toBeNull();
    const failed = item([
      call(),
      part({
        type: "tool-error",
        tool: {
          callId: "c1",
          name: "web_search",
          content: "Error: no key",
          durationMs: 12,
          error: { code: "tool_failed", i18nKey: "errors.tool_failed", params: { name: "web_search", reason: "Tavily needs an API key" }, message: "no key", action: { kind: "open-settings", target: "web-search" } },
        },
      }),
    ]);
    act(() => show(failed));
    const card = screen.getByTestId("tool-card");
    expect(card).toHaveAttribute("data-state", "error");
    expect(within(card).getByRole("button", { expanded: true })).toBeInTheDocument();
    const err = within(card).getByTestId("error-view");
    expect(err).toHaveTextContent("web_search failed: Tavily needs an API key");
    expect(within(err).getByRole("button", { name: "Open Web search settings" })).toBeInTheDocument();
  });

  it("shows awaiting approval, stopped, and a call left without an end as stopped", () => {
    setup(
      <>
        <ToolCard
          item={item([call({ callId: "a", name: "sandbox_bash" }), part({ type: "approval-requested", tool: { callId: "a", name: "sandbox_bash" }, data: { askReason: "runs a shell command" } })])}
          live
        />
        <ToolCard item={item([call({ callId: "b" }), part({ type: "tool-stopped", tool: { callId: "b", name: "web_search", content: "stopped" } })])} live={false} />
        <ToolCard item={item([call({ callId: "c" })])} live={false} />
      </>,
    );
    const [a, b, c] = screen.getAllByTestId("tool-card");
    expect(a).toHaveAttribute("data-state", "awaiting-approval");
    expect(a).toHaveTextContent("Needs approval");
    fireEvent.click(within(a!).getByRole("button"));
    expect(a).toHaveTextContent("Waiting for your approval · runs a shell command");
    expect(b).toHaveAttribute("data-state", "stopped");
    expect(c).toHaveAttribute("data-state", "stopped");
  });
});

describe("tool model", () => {
  it("pairs calls with their ends and approvals by call id, in order", () => {
    const parts = [
      part({ id: "t", type: "text", text: "Let me look." }),
      call({ callId: "x" }, { id: "cx" }),
      call({ callId: "y", name: "kb_search" }, { id: "cy" }),
      part({ id: "ey", type: "tool-result", tool: { callId: "y", name: "kb_search" } }),
      part({ id: "ex", type: "tool-error", tool: { callId: "x", name: "web_search" } }),
      part({ id: "s", type: "status", status: { kind: "retry" } }),
    ];
    const items = groupParts(parts);
    expect(items.map((i) => i.kind)).toEqual(["text", "tool", "tool", "status"]);
    const [, x, y] = items as [unknown, ToolItem, ToolItem];
    expect([x.call?.id, x.end?.id, toolState(x, true)]).toEqual(["cx", "ex", "error"]);
    expect([y.call?.id, y.end?.id, toolState(y, true)]).toEqual(["cy", "ey", "done"]);
  });

  it("names a tool as its parts say, never by reading the wire name", async () => {
    const { container } = setup(
      <>
        <ToolCard
          item={item([call({ callId: "m", name: "mcp__gh__createIssue_0123456789abcdef0123", namespace: "mcp:srv1", server: "GitHub", title: "create_issue" })])}
          live
        />
        <ToolCard item={item([call({ callId: "x", name: "mcp__gh__lookalike_0123456789abcdef0123", namespace: undefined, title: undefined })])} live />
      </>,
    );
    const [mcp, unknown] = screen.getAllByTestId("tool-card");
    expect(mcp).toHaveTextContent("GitHub › create_issue");
    await waitFor(() => expect(container.querySelector(".tool-card__ns")).toHaveAttribute("title", "MCP servers"));
    // A name that is no tool Cairn knows is shown as sent, with the generic icon and no server.
    expect(unknown).toHaveTextContent("mcp__gh__lookalike_0123456789abcdef0123");
    expect(unknown).not.toHaveTextContent("›");
    expect(unknown!.querySelector(".tool-card__ns")).not.toHaveAttribute("title");
  });
});

describe("ToolCard approval reason", () => {
  it("shows the localized reason, or the English one of an old request", () => {
    renderWithClient(
      <>
        <ToolCard
          item={item([
            call({ callId: "a", name: "sandbox_bash" }),
            part({ type: "approval-requested", tool: { callId: "a", name: "sandbox_bash" }, data: { askReason: "the tool can delete or overwrite data", askReasonCode: "destructive" } }),
          ])}
          live
        />
        <ToolCard
          item={item([call({ callId: "b", name: "sandbox_bash" }), part({ type: "approval-requested", tool: { callId: "b", name: "sandbox_bash" }, data: { askReason: "runs a shell command" } })])}
          live
        />
      </>,
      { transport: new FakeTransport(), ready: null, lng: "zh-CN" },
    );
    const [a, b] = screen.getAllByTestId("tool-card");
    fireEvent.click(within(a!).getByRole("button"));
    fireEvent.click(within(b!).getByRole("button"));
    expect(within(a!).getByTestId("tool-approval-reason")).toHaveTextContent("该工具可能删除或覆盖数据。");
    expect(within(b!).getByTestId("tool-approval-reason")).toHaveTextContent("runs a shell command");
  });
});
