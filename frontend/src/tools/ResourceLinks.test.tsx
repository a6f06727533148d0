import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { Part } from "../api";
import { FakeTransport } from "../test/fakeTransport";
import { renderWithClient } from "../test/render";
import { groupParts, type ToolItem } from "./model";
import { SessionApprovalsProvider } from "./sessionApprovals";
import { ToolCard } from "./ToolCard";
import { resourceLinks } from "./ResourceLinks";

const display = {
  content: [
    { type: "text", text: "Here are 2 resource links" },
    { type: "resource_link", uri: "demo://resource/dynamic/text/2", name: "Text Resource 2", mimeType: "text/plain" },
    { type: "resource_link", uri: "demo://resource/dynamic/blob/1", name: "Blob Resource 1", mimeType: "application/octet-stream" },
  ],
};

const parts: Part[] = [
  { id: "p1", messageId: "m1", index: 0, round: 0, type: "tool-call", state: "done", createdAt: 1, updatedAt: 1,
    tool: { callId: "c1", name: "mcp__everything__getResourceLinks_ab", namespace: "mcp:srv1", title: "get-resource-links", arguments: "{}" } },
  { id: "p2", messageId: "m1", index: 1, round: 0, type: "tool-result", state: "done", createdAt: 1, updatedAt: 1,
    tool: { callId: "c1", name: "mcp__everything__getResourceLinks_ab", content: "links", display } },
];

describe("resource links on a tool card", () => {
  it.each([
    ["an MCP tool's links", "mcp:srv1", display, 2],
    ["a built-in tool", "web", display, 0],
    ["no links", "mcp:srv1", { content: [{ type: "text", text: "x" }] }, 0],
    ["no display", "mcp:srv1", undefined, 0],
  ])("finds %s", (_, ns, d, n) => {
    expect(resourceLinks(ns, d)?.links.length ?? 0).toBe(n);
  });

  it("opens a link: the server reads it through the facade and the card shows it", async () => {
    const reads: string[][] = [];
    const transport = new FakeTransport({
      ListSessionApprovals: () => ({ seq: 1, requests: [] }),
      ReadMCPResource: (id, uri) => {
        reads.push([id as string, uri as string]);
        return uri === "demo://resource/dynamic/text/2"
          ? [{ uri, mimeType: "text/plain", text: "Resource 2: This is a plaintext resource", size: 40 }]
          : [{ uri, mimeType: "application/octet-stream", blob: "AAEC", size: 3 }];
      },
    });
    renderWithClient(
      <SessionApprovalsProvider sessionId="s1">
        <ToolCard item={groupParts(parts)[0] as ToolItem} live={false} />
      </SessionApprovalsProvider>,
      { transport, ready: null },
    );
    fireEvent.click(within(screen.getByTestId("tool-card")).getByRole("button", { expanded: false }));
    const box = screen.getByTestId("resource-links");
    expect(box).toHaveTextContent("Resource links (2)");
    const [first, second] = within(box).getAllByRole("button", { name: "Open" });
    fireEvent.click(first!);
    await waitFor(() => expect(box).toHaveTextContent("Resource 2: This is a plaintext resource"));
    fireEvent.click(second!);
    await waitFor(() => expect(box).toHaveTextContent("application/octet-stream, 3 bytes"));
    expect(reads).toEqual([
      ["srv1", "demo://resource/dynamic/text/2"],
      ["srv1", "demo://resource/dynamic/blob/1"],
    ]);
  });
});
