import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { Part } from "../api";
import { FakeTransport } from "../test/fakeTransport";
import { renderWithClient } from "../test/render";
import { groupParts, type ToolItem } from "./model";
import { SessionApprovalsProvider } from "./sessionApprovals";
import { ToolCard } from "./ToolCard";

const THUMB = "data:image/jpeg;base64,dGh1bWI=";
const FULL = "data:image/png;base64,ZnVsbA==";

const parts: Part[] = [
  { id: "p1", messageId: "m1", index: 0, round: 0, type: "tool-call", state: "done", createdAt: 1, updatedAt: 1,
    tool: { callId: "c1", name: "mcp__pw__screenshot", namespace: "mcp:pw", title: "browser_take_screenshot", arguments: "{}" } },
  { id: "p2", messageId: "m1", index: 1, round: 0, type: "tool-result", state: "done", createdAt: 1, updatedAt: 1,
    tool: { callId: "c1", name: "mcp__pw__screenshot", content: "Took it.", images: [
      { file: "c1-1.png", path: "/data/tool-images/s1/c1-1.png", mimeType: "image/png", bytes: 12_058_624, width: 1280, height: 9000, sha256: "ab" },
    ] } },
];

describe("tool images", () => {
  it("shows a thumbnail from the backend and the whole image on a click", async () => {
    const transport = new FakeTransport({
      ListSessionApprovals: () => ({ seq: 1, requests: [] }),
      GetToolImage: (session, file, full) => {
        expect([session, file]).toEqual(["s1", "c1-1.png"]);
        return full ? FULL : THUMB;
      },
    });
    renderWithClient(
      <SessionApprovalsProvider sessionId="s1">
        <ToolCard item={groupParts(parts)[0] as ToolItem} live={false} />
      </SessionApprovalsProvider>,
      { transport, ready: null },
    );
    fireEvent.click(within(screen.getByTestId("tool-card")).getByRole("button", { expanded: false }));
    const thumb = screen.getByTestId("tool-image");
    await waitFor(() => expect(thumb.querySelector("img")).toHaveAttribute("src", THUMB));
    expect(screen.getByTestId("tool-images")).toHaveTextContent("1280 × 9000 px");
    fireEvent.click(thumb);
    await waitFor(() => expect(screen.getByTestId("tool-image-full-img")).toHaveAttribute("src", FULL));
    expect(screen.getByTestId("tool-image-full")).toHaveTextContent("/data/tool-images/s1/c1-1.png");
    const calls = transport.calls.filter((c) => c.method === "GetToolImage").map((c) => c.args[2]);
    expect(calls).toEqual([false, true]);
  });
});

describe("tool images outside a conversation", () => {
  it("name the image without asking the backend for it", () => {
    const transport = new FakeTransport();
    renderWithClient(<ToolCard item={groupParts(parts)[0] as ToolItem} live={false} />, { transport, ready: null });
    fireEvent.click(within(screen.getByTestId("tool-card")).getByRole("button", { expanded: false }));
    expect(screen.getByTestId("tool-images")).toHaveTextContent("1280 × 9000 px");
    expect(screen.queryByTestId("tool-image")).toBeNull();
    expect(transport.calls.some((c) => c.method === "GetToolImage")).toBe(false);
  });
});
