import { cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { ApprovalRequest } from "../api";
import { FakeTransport } from "../test/fakeTransport";
import { renderWithClient } from "../test/render";
import { DELIBERATE_QUIET_MS } from "../components/useDeliberateKeys";
import { ApprovalDialog, changeOf } from "./ApprovalDialog";

const request = (over: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  id: "r1",
  sessionId: "s1",
  callId: "c1",
  tool: "sandbox_bash",
  namespace: "sandbox",
  title: "bash",
  args: { command: "rm -rf build && make" },
  touches: { commands: ["rm -rf build", "make"], paths: ["/work/build"], cwd: "/work" },
  readOnly: false,
  destructive: true,
  mode: "default",
  askReason: "Shell commands ask in the default mode.",
  askReasonCode: "",
  rules: [{ id: "", behavior: "allow", tool: "sandbox_bash", command: "make", source: "", createdAt: 0, updatedAt: 0 }],
  status: "pending",
  createdAt: 1,
  ...over,
});

const setup = (req: ApprovalRequest, onDecide = vi.fn(async () => {}), error?: unknown, lng: "en" | "zh-CN" = "en") => {
  renderWithClient(<ApprovalDialog request={req} onDecide={onDecide} error={error} />, { transport: new FakeTransport(), ready: null, lng });
  return { onDecide, user: userEvent.setup(), dialog: screen.getByRole("alertdialog") };
};

describe("ApprovalDialog", () => {
  it("shows what will happen: tool, reason, exact commands, paths and the destructive warning", () => {
    const { dialog } = setup(request());
    expect(dialog).toHaveAccessibleName("Allow bash?");
    expect(dialog).toHaveAccessibleDescription("Shell commands ask in the default mode.");
    expect(within(dialog).getAllByTestId("approval-command").map((c) => c.textContent)).toEqual(["rm -rf build", "make"]);
    expect(within(dialog).getByTestId("approval-targets")).toHaveTextContent("/work/build");
    expect(within(dialog).getByTestId("approval-destructive")).toBeInTheDocument();
    expect(within(dialog).getByTestId("approval-allow")).toHaveFocus();
  });

  it("Enter allows once (once a stray key cannot be it) and Esc denies", async () => {
    let now = 0;
    vi.spyOn(performance, "now").mockImplementation(() => now);
    const { user, onDecide } = setup(request());
    await user.keyboard("{Enter}");
    expect(onDecide).not.toHaveBeenCalled(); // the first second after opening
    now = DELIBERATE_QUIET_MS;
    await user.keyboard("{Enter}");
    expect(onDecide).toHaveBeenLastCalledWith("allow_once", "");
    vi.restoreAllMocks();
    await user.keyboard("{Escape}");
    expect(onDecide).toHaveBeenLastCalledWith("deny", "");
  });

  it("denies with the reason typed for the model", async () => {
    const { user, onDecide } = setup(request());
    await user.type(screen.getByTestId("approval-reason"), "use the staging box");
    await user.click(screen.getByTestId("approval-deny"));
    expect(onDecide).toHaveBeenCalledWith("deny", "use the staging box");
  });

  it("offers session / always only when the backend can make a rule", async () => {
    setup(request({ rules: [] }));
    expect(screen.queryByTestId("approval-session")).toBeNull();
    expect(screen.queryByTestId("approval-always")).toBeNull();
  });

  it("shows the change a built-in edit says it makes, and the error of a late decision", async () => {
    setup(
      request({
        tool: "sandbox_edit",
        // The arguments' names say nothing about the change: the tool's own edits do.
        args: { target: "main.go", from: "x", to: "y" },
        edits: [{ path: "main.go", old: "a := 1", new: "a := 2" }],
        touches: { paths: ["/w/main.go"] },
        destructive: false,
      }),
      vi.fn(async () => {}),
      { code: "approval_already_decided", i18nKey: "errors.approval_already_decided", message: "decided elsewhere" },
    );
    const diff = screen.getByTestId("approval-diff");
    expect(diff.querySelector(".diff-del")).toHaveTextContent("- a := 1");
    expect(diff.querySelector(".diff-add")).toHaveTextContent("+ a := 2");
    await waitFor(() => expect(screen.getByTestId("error-view")).toBeInTheDocument());
  });

  it("guesses an MCP tool's change from its arguments, never a built-in tool's", () => {
    const args = { path: "main.go", old_string: "a := 1", new_string: "a := 2" };
    setup(request({ tool: "mcp__fs__edit_0123456789abcdef0123", namespace: "mcp:fs", guessed: true, args, destructive: false }));
    expect(screen.getByTestId("approval-diff").querySelector(".diff-add")).toHaveTextContent("+ a := 2");
    cleanup();
    setup(request({ tool: "sandbox_note", args, destructive: false }));
    expect(screen.queryByTestId("approval-diff")).toBeNull();
  });

  it("reads writes as all-new lines", () => {
    expect(changeOf({ path: "a.txt", content: "x\ny" })).toEqual({ path: "a.txt", lines: [{ sign: "+", text: "x" }, { sign: "+", text: "y" }] });
    expect(changeOf({ query: "nothing to change" })).toBeNull();
  });
});

describe("ApprovalHost (every window shows the dialog; the first decision wins)", () => {
  it("opens in both windows, closes in both after one decides, and tells the late window", async () => {
    const { FakeBackend } = await import("../test/fakeTransport");
    const { App } = await import("../shell/App");
    const backend = new FakeBackend();
    const s = backend.chat.addSession({ title: "Build" });
    const a = renderWithClient(<App />, { transport: backend.window(), route: { name: "home" } });
    const b = renderWithClient(<App />, { transport: backend.window(), route: { name: "home" } });
    await within(a.container).findByTestId("home");
    await within(b.container).findByTestId("home");
    const user = userEvent.setup();

    const req = backend.chat.requestApproval(s.id);
    await waitFor(() => expect(screen.getAllByTestId("approval-dialog")).toHaveLength(2));
    const [da, db] = screen.getAllByTestId("approval-dialog");
    expect(da).toHaveTextContent("In “Build”");
    await waitFor(() => expect(document.title).toMatch(/^\(1\) /));

    // window B answers too late: it has the dialog open but A decided first
    backend.chat.approvals[0]!.status = "allowed";
    backend.chat.approvals[0]!.decision = "allow_once";
    backend.chat.approvals[0]!.window = "window-a";
    await user.click(within(db!).getByTestId("approval-deny"));
    expect(await screen.findByTestId("approval-notice")).toHaveTextContent("This request was already answered: allow_once from window-a");

    // the real decision (from A) closes the dialog everywhere
    backend.chat.approvals[0]!.status = "pending";
    await user.click(within(da!).getByTestId("approval-allow"));
    await waitFor(() => expect(screen.queryAllByTestId("approval-dialog")).toHaveLength(0));
    expect(req.decision).toBe("allow_once");
    expect(req.window).toBeTruthy(); // the deciding window is named for the audit log
    await waitFor(() => expect(document.title).not.toMatch(/^\(\d+\) /)); // the hosts' effects run after the render
  });
});

describe("ApprovalHost (no approval by a stray key)", () => {
  it("takes nothing typed into the composer as the dialog opens as a decision; a deliberate press decides", async () => {
    let now = 0;
    vi.spyOn(performance, "now").mockImplementation(() => now);
    const { FakeBackend } = await import("../test/fakeTransport");
    const { App } = await import("../shell/App");
    const backend = new FakeBackend();
    const s = backend.chat.addSession({ title: "Build" });
    renderWithClient(<App />, { transport: backend.window(), route: { name: "session", id: s.id } });
    const composer = (await screen.findByTestId("composer-input")) as HTMLTextAreaElement;
    const user = userEvent.setup();
    await user.click(composer);
    await user.keyboard("run the tests{Shift>}"); // a key is down when the dialog opens

    const req = backend.chat.requestApproval(s.id);
    const dialog = await screen.findByTestId("approval-dialog");
    await waitFor(() => expect(within(dialog).getByTestId("approval-allow")).toHaveFocus());
    // The rest of the sentence, a space, Enter to send, and the held key's release: all land
    // on the focused Allow button.
    await user.keyboard("{/Shift} please {Enter}{Enter}");
    now = DELIBERATE_QUIET_MS / 2;
    await user.keyboard(" {Enter}");
    expect(req.status).toBe("pending");
    expect(req.decision).toBeUndefined();
    expect(screen.getByTestId("approval-dialog")).toBeInTheDocument();
    expect(composer.value).toBe("run the tests");

    // After the first second, one deliberate press decides.
    now = DELIBERATE_QUIET_MS + 1;
    await user.keyboard("{Enter}");
    await waitFor(() => expect(screen.queryByTestId("approval-dialog")).toBeNull());
    expect(req.decision).toBe("allow_once");
    vi.restoreAllMocks();
  });
});

describe("ApprovalDialog reason", () => {
  it("says why it asks in the window's language, with the code's params", () => {
    const { dialog } = setup(
      request({ askReason: "a permission rule asks about it (sandbox_bash(make *))", askReasonCode: "rule_asks", askReasonParams: { rule: "sandbox_bash(make *)" } }),
      undefined,
      undefined,
      "zh-CN",
    );
    expect(dialog).toHaveAccessibleDescription("一条权限规则要求对此进行确认（sandbox_bash(make *)）。");
  });

  it("localizes in English too", () => {
    const { dialog } = setup(request({ askReason: "the command contains $(…)", askReasonCode: "command_hides", askReasonParams: { constructs: "$(…)" } }));
    expect(dialog).toHaveAccessibleDescription("The command contains $(…), which can run things not shown here.");
  });

  it("falls back to the English askReason for old requests and unknown codes", () => {
    setup(request({ askReasonCode: "" }), undefined, undefined, "zh-CN");
    expect(screen.getByRole("alertdialog")).toHaveAccessibleDescription("Shell commands ask in the default mode.");
  });

  it("falls back for a code this build does not know", () => {
    setup(request({ askReasonCode: "from_the_future" }), undefined, undefined, "zh-CN");
    expect(screen.getByRole("alertdialog")).toHaveAccessibleDescription("Shell commands ask in the default mode.");
  });

  it("keeps a hook's own words after the localized text", () => {
    setup(request({ askReason: "production database", askReasonCode: "hook_asks" }), undefined, undefined, "zh-CN");
    expect(screen.getByRole("alertdialog")).toHaveAccessibleDescription("一个钩子要求确认。 production database");
  });
});
