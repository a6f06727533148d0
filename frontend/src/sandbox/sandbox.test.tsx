import { act, cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ApprovalRequest, ReadyInfo, SandboxStatus, SessionWorkspace } from "../api";
import { FakeTransport } from "../test/fakeTransport";
import { renderWithClient } from "../test/render";
import { ApprovalDialog } from "../tools/ApprovalDialog";
import { folderName, TaskHeader } from "./TaskHeader";

const strong: SandboxStatus = {
  level: "strong",
  unsandboxed: false,
  holds: [
    { area: "reads", holds: true, detail: "only the workspace and system folders are mounted" },
    { area: "network", holds: true, detail: "own network namespace" },
    { area: "limits", holds: false, detail: "no cgroup" },
  ],
  reasons: ["the pids cgroup cannot be made"],
};

function backend(status: SandboxStatus, ws: SessionWorkspace = { sessionId: "s1", path: "/home/me/cairn-workspaces/s1", made: true }) {
  let current = ws;
  return new FakeTransport({
    GetSandboxStatus: () => status,
    GetSessionWorkspace: () => current,
    SetSessionWorkspace: (_id, dir) => {
      current = { sessionId: "s1", path: String(dir) || "/home/me/cairn-workspaces/s1", made: !dir };
      return current;
    },
  });
}

afterEach(cleanup);

describe("TaskHeader", () => {
  it("shows the workspace and the level, whose popover says what holds and why not", async () => {
    const user = userEvent.setup();
    renderWithClient(<TaskHeader sessionId="s1" />, { transport: backend(strong), ready: null });
    const badge = await screen.findByTestId("sandbox-badge");
    expect(badge).toHaveTextContent("Sandbox: strong");
    expect(badge).toHaveClass("badge--ok");
    expect(await screen.findByTestId("task-workspace")).toHaveTextContent("s1");
    expect(badge).toHaveAttribute("aria-expanded", "false");
    await user.click(badge);
    const pop = screen.getByRole("dialog", { name: "Sandbox on this machine" });
    expect(within(pop).getByText("File reads").closest("li")).toHaveAttribute("data-holds", "true");
    expect(within(pop).getByText("Limits").closest("li")).toHaveAttribute("data-holds", "false");
    expect(pop).toHaveTextContent("the pids cgroup cannot be made");
    await user.keyboard("{Escape}");
    expect(screen.queryByTestId("sandbox-popover")).toBeNull();
  });

  it.each([
    ["reduced", false, "Sandbox: reduced", "badge--warn"],
    ["none", false, "No sandbox", "badge--danger"],
    ["none", true, "No sandbox · unsandboxed", "badge--danger"],
  ] as const)("level %s (unsandboxed %s) reads %s", async (level, unsandboxed, text, cls) => {
    renderWithClient(<TaskHeader sessionId="s1" />, { transport: backend({ ...strong, level, unsandboxed }), ready: null });
    const badge = await screen.findByTestId("sandbox-badge");
    expect(badge).toHaveTextContent(text);
    expect(badge).toHaveClass(cls);
  });

  it("says the level in Chinese too", async () => {
    renderWithClient(<TaskHeader sessionId="s1" />, { transport: backend({ ...strong, level: "reduced" }), ready: null, lng: "zh-CN" });
    expect(await screen.findByTestId("sandbox-badge")).toHaveTextContent("沙盒：降级");
  });

  it("changes the workspace to a typed folder, or back to a new one", async () => {
    const user = userEvent.setup();
    const t = backend(strong);
    renderWithClient(<TaskHeader sessionId="s1" />, { transport: t, ready: null });
    await user.click(await screen.findByTestId("task-workspace"));
    const dialog = screen.getByRole("dialog", { name: "Workspace of this task" });
    await user.type(within(dialog).getByLabelText("Folder"), "/home/me/project");
    await user.click(within(dialog).getByTestId("workspace-save"));
    await waitFor(() => expect(screen.getByTestId("task-workspace")).toHaveAttribute("data-path", "/home/me/project"));
    expect(t.calls.find((c) => c.method === "SetSessionWorkspace")?.args).toEqual(["s1", "/home/me/project"]);
    await user.click(screen.getByTestId("task-workspace"));
    await user.click(screen.getByTestId("workspace-new"));
    await waitFor(() => expect(screen.getByTestId("task-workspace")).toHaveAttribute("data-path", "/home/me/cairn-workspaces/s1"));
  });

  it("picks the folder with the desktop's dialog, and has none in a browser", async () => {
    const user = userEvent.setup();
    const t = backend(strong);
    t.impl.ChooseFolder = () => "/home/me/picked";
    renderWithClient(<TaskHeader sessionId="s1" />, { transport: t, ready: Promise.resolve({ desktop: true } as unknown as ReadyInfo) });
    await user.click(await screen.findByTestId("task-workspace"));
    const dialog = screen.getByRole("dialog", { name: "Workspace of this task" });
    await user.click(await within(dialog).findByTestId("workspace-choose"));
    await waitFor(() => expect(within(dialog).getByLabelText("Folder")).toHaveValue("/home/me/picked"));
    expect(t.calls.find((c) => c.method === "ChooseFolder")?.args).toEqual(["Choose the workspace folder"]);
    cleanup();
    renderWithClient(<TaskHeader sessionId="s1" />, { transport: backend(strong), ready: null });
    await user.click(await screen.findByTestId("task-workspace"));
    expect(within(screen.getByRole("dialog")).queryByTestId("workspace-choose")).toBeNull();
  });

  it("follows a workspace another window chose", async () => {
    const t = backend(strong);
    renderWithClient(<TaskHeader sessionId="s1" />, { transport: t, ready: null });
    expect(await screen.findByTestId("task-workspace")).toHaveAttribute("data-path", "/home/me/cairn-workspaces/s1");
    act(() => t.emit({ topic: "session:s1", seq: 9, type: "sandbox:workspace", data: { sessionId: "s1", path: "/srv/elsewhere", made: false }, time: 1 }));
    await waitFor(() => expect(screen.getByTestId("task-workspace")).toHaveAttribute("data-path", "/srv/elsewhere"));
    act(() => t.emit({ topic: "session:s2", seq: 10, type: "sandbox:workspace", data: { sessionId: "s2", path: "/srv/other", made: false }, time: 1 }));
    expect(screen.getByTestId("task-workspace")).toHaveAttribute("data-path", "/srv/elsewhere");
  });

  it("names a folder by its last part", () => {
    expect(folderName("/a/b/c/")).toBe("c");
    expect(folderName("C:\\work\\proj")).toBe("proj");
  });
});

const ask = (over: Partial<ApprovalRequest>): ApprovalRequest => ({
  id: "r1",
  sessionId: "s1",
  callId: "c1",
  tool: "sandbox_edit",
  namespace: "sandbox",
  title: "edit",
  args: {},
  touches: { paths: ["main.go"] },
  readOnly: false,
  destructive: false,
  mode: "default",
  askReason: "The tool can change things.",
  askReasonCode: "can_change",
  rules: [],
  status: "pending",
  createdAt: 1,
  ...over,
});

describe("approval of the task tools", () => {
  const show = (req: ApprovalRequest) => {
    renderWithClient(<ApprovalDialog request={req} onDecide={vi.fn(async () => {})} />, { transport: new FakeTransport(), ready: null });
    return screen.getByRole("alertdialog");
  };

  it("shows sandbox_edit's change as a diff", () => {
    const dialog = show(ask({ args: { path: "main.go", old_string: "a := 1", new_string: "a := 2\nb := 3" }, edits: [{ path: "main.go", old: "a := 1", new: "a := 2\nb := 3" }] }));
    const diff = within(dialog).getByTestId("approval-diff");
    expect([...diff.querySelectorAll(".diff-del")].map((l) => l.textContent?.trim())).toEqual(["- a := 1"]);
    expect([...diff.querySelectorAll(".diff-add")].map((l) => l.textContent?.trim())).toEqual(["+ a := 2", "+ b := 3"]);
    expect(dialog).toHaveTextContent("main.go");
    expect(within(dialog).queryByTestId("approval-unsandboxed")).toBeNull();
  });

  it("shows sandbox_write's content as added lines", () => {
    const dialog = show(ask({ tool: "sandbox_write", title: "write", edits: [{ path: "hello.sh", new: "echo hi\nexit 0" }] }));
    const diff = within(dialog).getByTestId("approval-diff");
    expect([...diff.querySelectorAll(".diff-add")].map((l) => l.textContent?.trim())).toEqual(["+ echo hi", "+ exit 0"]);
    expect(diff.querySelectorAll(".diff-del")).toHaveLength(0);
  });

  it("shows a previewed overwrite as a diff with its context against the file as it is", () => {
    const diff = "--- a/main.go\n+++ b/main.go\n@@ -1,3 +1,3 @@\n package main\n-var a = 1\n+var a = 2\n func main() {}\n";
    const dialog = show(ask({ tool: "sandbox_write", title: "write", edits: [{ path: "main.go", new: "whole file", diff, added: 1, removed: 1 }] }));
    const lines = within(dialog).getByTestId("approval-diff");
    expect([...lines.querySelectorAll(".diff-hunk")].map((l) => l.textContent?.trim())).toEqual(["@@ -1,3 +1,3 @@"]);
    expect([...lines.querySelectorAll(".diff-ctx")].map((l) => l.textContent?.trim())).toEqual(["package main", "func main() {}"]);
    expect([...lines.querySelectorAll(".diff-del")].map((l) => l.textContent?.trim())).toEqual(["- var a = 1"]);
    expect([...lines.querySelectorAll(".diff-add")].map((l) => l.textContent?.trim())).toEqual(["+ var a = 2"]);
    expect(lines).not.toHaveTextContent("whole file");
    expect(lines).not.toHaveTextContent("+++");
    expect(within(dialog).getByTestId("approval-diff-notes")).toHaveTextContent("+1 −1 lines");
  });

  it("says a previewed change is a new file, cut, or has no diff", () => {
    let dialog = show(ask({ tool: "sandbox_write", title: "write", edits: [{ path: "new.txt", new: "x", diff: "@@ -0,0 +1 @@\n+x\n", added: 1, created: true, truncated: true }] }));
    expect(within(dialog).getByTestId("approval-diff-notes")).toHaveTextContent("New file · +1 −0 lines · The diff is long");
    cleanup();
    dialog = show(ask({ tool: "sandbox_write", title: "write", edits: [{ path: "logo.png", new: "x", unshown: "binary" }] }));
    expect(within(dialog).getByTestId("approval-diff-notes")).toHaveTextContent("A binary file");
    expect(within(dialog).queryByTestId("approval-diff")).toBeNull();
  });

  it("says a write of what the file already holds changes nothing, showing no lines as added", () => {
    const dialog = show(ask({ tool: "sandbox_write", title: "write", edits: [{ path: "notes.md", new: "same\ntext", unchanged: true }] }));
    expect(within(dialog).getByTestId("approval-diff-notes")).toHaveTextContent("No change: the file already holds exactly this.");
    expect(within(dialog).queryByTestId("approval-diff")).toBeNull();
  });

  it("says when the call runs without a sandbox", () => {
    const dialog = show(ask({ tool: "sandbox_bash", title: "bash", askReasonCode: "hook_asks", touches: { commands: ["go test ./..."] } }));
    expect(within(dialog).getByTestId("approval-unsandboxed")).toHaveTextContent("runs unsandboxed");
  });
});

describe("Settings → Sandbox", () => {
  it("shows the status and the unsandboxed switch", async () => {
    const { SandboxSection } = await import("./SandboxSection");
    const settings = {
      seq: 1,
      values: { "sandbox.unsandboxed": false },
      specs: [{ key: "sandbox.unsandboxed", type: "bool" as const, default: false, section: "sandbox" }],
    };
    renderWithClient(<SandboxSection settings={settings as never} />, { transport: backend({ ...strong, level: "none", holds: [] }), ready: null });
    const section = await screen.findByTestId("sandbox-section");
    await waitFor(() => expect(within(section).getByTestId("sandbox-holds")).toHaveAttribute("data-level", "none"));
    expect(within(section).getByTestId("sandbox-unsandboxed")).toHaveTextContent("refuse to run");
    expect(screen.getByLabelText("Run unsandboxed, approve every command")).not.toBeChecked();
  });
});
