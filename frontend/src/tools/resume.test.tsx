import { act, configure, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { ApprovalRequest, Message, Provider } from "../api";
import { App } from "../shell/App";
import { windowId } from "../shell/windowId";
import { model } from "../test/fakeChat";
import { FakeBackend } from "../test/fakeTransport";
import { mockLayout } from "../test/layout";
import { renderWithClient } from "../test/render";

// Sections load lazily and these tests type a lot: give a busy machine room (this file only).
configure({ asyncUtilTimeout: 5000 });
vi.setConfig({ testTimeout: 30_000 });

const PROVIDER: Provider = {
  id: "prov1", name: "OpenAI", preset: "openai", baseUrl: "https://api.openai.com/v1", models: [model("gpt-4.1")],
  defaultModel: "gpt-4.1", needsKey: true, keySet: true, keyLast4: "abcd", dialect: {}, reasoningControls: {}, createdAt: 1, updatedAt: 1,
};

beforeEach(() => mockLayout());

/** A session whose answer was cut off while `sandbox_bash` waited for approval (Cairn quit). */
function interruptedSession() {
  const backend = new FakeBackend();
  backend.chat.providers.push({ ...PROVIDER });
  const session = backend.chat.addSession({ title: "Deploy" });
  const req: ApprovalRequest = {
    id: "apr-old",
    sessionId: session.id,
    messageId: "m2",
    callId: "call-1",
    tool: "sandbox_bash",
    namespace: "sandbox",
    args: { command: "make deploy" },
    touches: { commands: ["make deploy"] },
    readOnly: false,
    destructive: false,
    mode: "default",
    askReason: "Shell commands ask in the default mode.",
    askReasonCode: "",
    rules: [],
    status: "pending", // as the part recorded it
    createdAt: 1,
  };
  const part = (index: number, over: Partial<NonNullable<Message["parts"]>[number]>) => ({
    id: `p${index}`, messageId: "m2", index, round: 0, state: "done", createdAt: 1, updatedAt: 1, type: "text" as const, ...over,
  });
  backend.chat.messages.set(session.id, [
    { id: "m1", sessionId: session.id, seq: 1, role: "user", status: "complete", createdAt: 1, updatedAt: 1, parts: [{ id: "u", messageId: "m1", index: 0, round: 0, type: "text", state: "done", text: "deploy it", createdAt: 1, updatedAt: 1 }] },
    {
      id: "m2", sessionId: session.id, seq: 2, role: "assistant", status: "interrupted", createdAt: 1, updatedAt: 1,
      parts: [
        part(0, { type: "tool-call", tool: { callId: "call-1", name: "sandbox_bash", arguments: '{"command":"make deploy"}' } }),
        part(1, { type: "approval-requested", tool: { callId: "call-1", name: "sandbox_bash" }, data: req }),
      ],
    },
  ]);
  // what ListSessionApprovals knows: the process ended while it waited
  backend.chat.approvals.push({ ...req, status: "interrupted", decisionReason: "Cairn stopped before anyone decided" });
  return { backend, session };
}

function openWindow(backend: FakeBackend, id: string, lng: "en" | "zh-CN" = "en") {
  const transport = backend.window();
  const r = renderWithClient(<App />, { transport, route: { name: "session", id }, lng });
  return { ...r, transport, w: within(r.container) };
}

describe("an interrupted approval", () => {
  it("shows “Interrupted — Resume”; resuming asks again in every window and nothing ran", async () => {
    const user = userEvent.setup();
    const { backend, session } = interruptedSession();
    backend.permissions.onResume = (r) => backend.chat.requestApproval(r.sessionId, { tool: r.tool, args: r.args, touches: r.touches, resumedFrom: r.id });
    const a = openWindow(backend, session.id);
    const b = openWindow(backend, session.id);
    for (const w of [a.w, b.w]) {
      const card = await w.findByTestId("tool-card", {}, { timeout: 5000 }); // the first test loads the lazy SessionView
      await waitFor(() => expect(card).toHaveAttribute("data-approval", "interrupted"));
      expect(within(card).getByTestId("approval-interrupted")).toHaveTextContent("Interrupted — Cairn stopped while this call waited for your approval. Nothing ran.");
      expect(card).toHaveTextContent("Interrupted"); // the state badge
    }
    expect(screen.queryByTestId("approval-dialog")).toBeNull();

    await user.click(a.w.getByTestId("approval-resume"));
    expect(a.transport.calls.find((c) => c.method === "ResumeApproval")?.args).toEqual(["apr-old", windowId()]);
    for (const w of [a.w, b.w]) {
      await waitFor(() => expect(w.getByTestId("tool-card")).toHaveAttribute("data-approval", "resumed"));
      expect(w.getByTestId("approval-resumed")).toHaveTextContent("Resumed");
      expect(w.queryByTestId("approval-resume")).toBeNull();
    }
    // asked again: the dialog is back (in both windows), and nothing ran in between
    await waitFor(() => expect(screen.getAllByTestId("approval-dialog")).toHaveLength(2));
    expect(backend.chat.approvals.find((r) => r.id === "apr-old")?.status).toBe("resumed");
    expect(a.transport.count("DecideApproval")).toBe(0);
  });

  it("says what happened when another window got there first", async () => {
    const user = userEvent.setup();
    const { backend, session } = interruptedSession();
    const a = openWindow(backend, session.id);
    await a.w.findByTestId("approval-resume", {}, { timeout: 5000 });
    // resumed elsewhere, and the event is not here yet
    a.transport.impl.ResumeApproval = () => {
      throw {
        code: "approval_already_decided",
        i18nKey: "errors.approval_already_decided",
        params: { decision: "resumed", window: "laptop", decidedAt: "10:02" },
        message: "already",
      };
    };
    await user.click(a.w.getByTestId("approval-resume"));
    expect(await a.w.findByTestId("error-view")).toHaveTextContent("This request was already answered: resumed from laptop at 10:02.");
  });

  it("is shown in Chinese too", async () => {
    const { backend, session } = interruptedSession();
    backend.values["general.language"] = "zh-CN";
    const a = openWindow(backend, session.id, "zh-CN");
    expect(await a.w.findByTestId("approval-resume", {}, { timeout: 5000 })).toHaveTextContent("恢复");
    expect(a.w.getByTestId("approval-interrupted")).toHaveTextContent("已中断");
  });
});

describe("a session's permission mode", () => {
  it("is picked in the session settings; bypass shows a warning in the header while it is in force", async () => {
    const user = userEvent.setup();
    const backend = new FakeBackend();
    backend.chat.providers.push({ ...PROVIDER });
    const session = backend.chat.addSession({ title: "Refactor" });
    const a = openWindow(backend, session.id);
    const b = openWindow(backend, session.id);
    await a.w.findByTestId("composer-input", {}, { timeout: 5000 });
    expect(a.w.queryByTestId("session-mode")).toBeNull(); // default: no badge

    await user.click(a.w.getByTestId("session-settings-open"));
    const dialog = await screen.findByTestId("session-settings");
    const select = within(dialog).getByTestId("session-permission-mode");
    expect(select).toHaveValue("");
    expect(select).toHaveDisplayValue("Follow the default (Ask before risky tools)");
    await user.selectOptions(select, "bypassPermissions");
    expect(within(dialog).getByTestId("session-settings-bypass-warning")).toBeInTheDocument();
    await user.click(within(dialog).getByTestId("session-settings-save"));
    await waitFor(() => expect(screen.queryByTestId("session-settings")).toBeNull());
    expect(a.transport.calls.find((c) => c.method === "SetSessionPermissionMode")?.args).toEqual([session.id, "bypassPermissions"]);

    for (const w of [a.w, b.w]) {
      expect(await w.findByTestId("session-bypass-warning")).toHaveTextContent("This conversation is in “Never ask” mode");
      expect(w.getByTestId("session-mode")).toHaveAttribute("data-mode", "bypassPermissions");
    }

    // back to following the default (plan, set globally meanwhile)
    act(() => {
      backend.set("permissions.defaultMode", "plan");
    });
    await user.click(a.w.getByTestId("session-settings-open"));
    const again = await screen.findByTestId("session-settings");
    expect(within(again).getByTestId("session-permission-mode")).toHaveValue("bypassPermissions");
    await user.selectOptions(within(again).getByTestId("session-permission-mode"), "");
    await user.click(within(again).getByTestId("session-settings-save"));
    for (const w of [a.w, b.w]) {
      await waitFor(() => expect(w.queryByTestId("session-bypass-warning")).toBeNull());
      expect(w.getByTestId("session-mode")).toHaveAttribute("data-mode", "plan");
    }
    expect(a.transport.calls.filter((c) => c.method === "SetSessionPermissionMode").pop()?.args).toEqual([session.id, ""]);
  });

  it("follows a bypass default: the warning shows in every session without its own mode", async () => {
    const backend = new FakeBackend();
    backend.values["permissions.defaultMode"] = "bypassPermissions";
    backend.chat.providers.push({ ...PROVIDER });
    const session = backend.chat.addSession({ title: "Anything" });
    const a = openWindow(backend, session.id);
    expect(await a.w.findByTestId("session-bypass-warning", {}, { timeout: 5000 })).toBeInTheDocument();
  });
});
