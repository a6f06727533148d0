import { fireEvent, screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { Part } from "../api";
import { FakeTransport } from "../test/fakeTransport";
import { renderWithClient } from "../test/render";
import { StatusPart } from "./parts";

function costPart(windowKnown: boolean, foldAll = false): Part {
  return {
    id: "p1", messageId: "m1", index: 0, round: 0, type: "status", state: "done", createdAt: 0, updatedAt: 0,
    status: { kind: "tool-cost", toolCost: { tokens: 41000, window: 32768, windowKnown, percent: 125, limit: 25, tools: 110, folded: 0, foldAll } },
  };
}

describe("the tool-cost notice", () => {
  it("says what the tools cost and folds every MCP tool when asked", async () => {
    const transport = new FakeTransport({ SetSetting: () => ({ seq: 2, values: { "chat.foldAllTools": true }, specs: [] }) });
    renderWithClient(<StatusPart part={costPart(true)} />, { transport, ready: null });
    const note = screen.getByTestId("part-status");
    expect(note).toHaveAttribute("data-kind", "tool-cost");
    expect(note).toHaveTextContent("take 125% of the model's context window (41,000 of 32,768 tokens; more than 25%");
    expect(screen.queryByTestId("tool-cost-window")).toBeNull();
    expect(screen.getByTestId("tool-cost-servers")).toBeInTheDocument();
    fireEvent.click(screen.getByTestId("tool-cost-fold"));
    await waitFor(() => expect(screen.getByTestId("tool-cost-folded")).toBeInTheDocument());
    expect(transport.calls.filter((c) => c.method === "SetSetting")).toEqual([{ method: "SetSetting", args: ["chat.foldAllTools", true] }]);
    expect(screen.queryByTestId("tool-cost-fold")).toBeNull();
  });

  it("offers to set an assumed window, in Chinese too, and no fold when all is folded", () => {
    renderWithClient(<StatusPart part={costPart(false, true)} />, { transport: new FakeTransport(), ready: null, lng: "zh-CN" });
    expect(screen.getByTestId("part-status")).toHaveTextContent("模型的上下文窗口未知，因此按 32,768 个 token 估算");
    expect(screen.getByTestId("tool-cost-window")).toHaveTextContent("设置上下文窗口");
    expect(screen.queryByTestId("tool-cost-fold")).toBeNull();
  });
});
