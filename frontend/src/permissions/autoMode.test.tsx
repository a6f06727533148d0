import { fireEvent, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { configure } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import type { Part } from "../api";
import { SettingsPage } from "../settings/SettingsPage";
import { FakeBackend, FakeTransport } from "../test/fakeTransport";
import { renderWithClient } from "../test/render";
import { groupParts, type ToolItem } from "../tools/model";
import { ToolCard } from "../tools/ToolCard";

configure({ asyncUtilTimeout: 5000 });
vi.setConfig({ testTimeout: 30_000 });

describe("auto permission mode", () => {
  it("is offered by the default-mode picker, explained, and stored when chosen", async () => {
    const backend = new FakeBackend();
    renderWithClient(<SettingsPage section="permissions" />, { transport: backend.window(), route: { name: "settings", section: "permissions" } });
    const select = await screen.findByTestId("setting-permissions.defaultMode");
    const option = within(select).getByRole("option", { name: "Auto: a classifier model decides, risky calls ask" });
    expect(option).toHaveValue("auto");
    await userEvent.setup().selectOptions(select, "auto");
    expect(backend.values["permissions.defaultMode"]).toBe("auto");
    const item = document.querySelector('[data-mode="auto"]');
    expect(item).toHaveAttribute("aria-current", "true");
    expect(item).toHaveTextContent("judged by the classifier model");
    expect(screen.queryByTestId("bypass-warning")).toBeNull();
  });

  const card = (): ToolItem => {
    const parts: Part[] = [
      { id: "p1", messageId: "m1", index: 0, round: 0, type: "tool-call", state: "done", createdAt: 1, updatedAt: 1,
        tool: { callId: "c1", name: "sandbox_write", arguments: '{"path":"notes/a.md"}' } },
      { id: "p2", messageId: "m1", index: 1, round: 0, type: "approval-decided", state: "done", createdAt: 2, updatedAt: 2,
        tool: { callId: "c1", name: "sandbox_write" },
        data: { callId: "c1", tool: "sandbox_write", status: "allowed", source: "classifier", askReason: "auto mode: the classifier allowed it: a note the user asked for",
          askReasonCode: "classifier_allows", askReasonParams: { reason: "a note the user asked for" } } },
      { id: "p3", messageId: "m1", index: 2, round: 0, type: "tool-result", state: "done", createdAt: 3, updatedAt: 3,
        tool: { callId: "c1", name: "sandbox_write", content: "ok" } },
    ];
    return groupParts(parts)[0] as ToolItem;
  };

  it.each([
    ["en", "The auto-mode classifier allowed it: a note the user asked for"],
    ["zh-CN", "自动模式的分类模型已允许：a note the user asked for"],
  ] as const)("shows the classifier's reason on the tool card (%s)", async (lng, text) => {
    renderWithClient(<ToolCard item={card()} live={false} />, { transport: new FakeTransport(), ready: null, lng });
    const c = screen.getByTestId("tool-card");
    expect(c).toHaveAttribute("data-state", "done");
    fireEvent.click(within(c).getByRole("button", { expanded: false }));
    expect(await screen.findByTestId("tool-classifier")).toHaveTextContent(text);
  });
});
