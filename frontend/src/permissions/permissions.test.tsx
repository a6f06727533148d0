import { act, configure, fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { applyRulesEvent, type RuleList } from "../api";
import { SettingsPage } from "../settings/SettingsPage";
import { FakeBackend } from "../test/fakeTransport";
import { renderWithClient } from "../test/render";
import { ruleFromDraft, ruleDraft, sortRules } from "./model";

// Sections load lazily and these tests type a lot: give a busy machine room (this file only).
configure({ asyncUtilTimeout: 5000 });
vi.setConfig({ testTimeout: 30_000 });

function open(backend = new FakeBackend(), lng: "en" | "zh-CN" = "en") {
  const transport = backend.window();
  const r = renderWithClient(<SettingsPage section="permissions" />, { transport, route: { name: "settings", section: "permissions" }, lng });
  return { ...r, backend, transport, user: userEvent.setup() };
}

describe("Settings → Permissions: default mode", () => {
  it("sets the default mode; bypass shows a warning that stays while it is on", async () => {
    const backend = new FakeBackend();
    const { user } = open(backend);
    const select = await screen.findByTestId("setting-permissions.defaultMode");
    expect(screen.queryByTestId("coming-soon-permissions")).toBeNull();
    expect(screen.queryByTestId("bypass-warning")).toBeNull();
    await user.selectOptions(select, "bypassPermissions");
    expect(await screen.findByTestId("bypass-warning")).toHaveTextContent("Tools run without asking");
    expect(backend.values["permissions.defaultMode"]).toBe("bypassPermissions");
    // another window switching it back removes the warning here too
    act(() => {
      backend.set("permissions.defaultMode", "plan");
    });
    await waitFor(() => expect(screen.queryByTestId("bypass-warning")).toBeNull());
    expect(document.querySelector('[data-mode="plan"]')).toHaveAttribute("aria-current", "true");
  });
});

describe("Settings → Permissions: rules", () => {
  it("adds, edits and deletes rules; deny comes first", async () => {
    const backend = new FakeBackend();
    const { transport, user } = open(backend);
    expect(await screen.findByTestId("permission-rules-empty")).toBeInTheDocument();

    await user.click(screen.getByTestId("permission-rule-add"));
    let form = screen.getByTestId("permission-rule-form");
    expect(within(form).getByTestId("permission-rule-save")).toBeDisabled(); // no condition yet
    await user.click(within(form).getByTestId("rule-behavior-allow"));
    await user.type(within(form).getByTestId("rule-tool"), "sandbox_bash");
    await user.type(within(form).getByTestId("rule-command"), "git status");
    await user.type(within(form).getByTestId("rule-note"), "read-only git");
    await user.click(within(form).getByTestId("permission-rule-save"));
    await waitFor(() => expect(screen.getAllByTestId("permission-rule-item")).toHaveLength(1));
    expect(transport.calls.find((c) => c.method === "SavePermissionRule")?.args[0]).toEqual({
      id: "",
      behavior: "allow",
      tool: "sandbox_bash",
      command: "git status",
      note: "read-only git",
    });

    await user.click(screen.getByTestId("permission-rule-add"));
    form = screen.getByTestId("permission-rule-form");
    await user.click(within(form).getByTestId("rule-behavior-deny"));
    await user.type(within(form).getByTestId("rule-path"), "**/.env");
    await user.click(within(form).getByTestId("permission-rule-save"));
    await waitFor(() => expect(screen.getAllByTestId("permission-rule-item")).toHaveLength(2));
    let items = screen.getAllByTestId("permission-rule-item");
    expect(items.map((i) => i.dataset.behavior)).toEqual(["deny", "allow"]);
    expect(items[0]).toHaveTextContent("Deny");
    expect(items[0]).toHaveTextContent("**/.env");
    expect(items[0]).toHaveTextContent("Every conversation");

    // edit the allow rule into an ask rule
    await user.click(within(items[1]!).getByTestId("permission-rule-edit"));
    form = screen.getByTestId("permission-rule-form");
    expect(within(form).getByTestId("rule-command")).toHaveValue("git status");
    await user.click(within(form).getByTestId("rule-behavior-ask"));
    await user.click(within(form).getByTestId("permission-rule-save"));
    await waitFor(() => expect(screen.getAllByTestId("permission-rule-item").map((i) => i.dataset.behavior)).toEqual(["deny", "ask"]));

    // delete after confirming
    items = screen.getAllByTestId("permission-rule-item");
    await user.click(within(items[0]!).getByTestId("permission-rule-delete"));
    await user.click(within(screen.getByTestId("permission-rule-delete-dialog")).getByTestId("permission-rule-delete-confirm"));
    await waitFor(() => expect(screen.getAllByTestId("permission-rule-item")).toHaveLength(1));
    expect(backend.permissions.rules.map((r) => r.behavior)).toEqual(["ask"]);
  });

  it("shows the backend's reason when a rule is invalid, and rules another window adds", async () => {
    const backend = new FakeBackend();
    const { transport, user } = open(backend);
    const other = backend.window(); // a second window on the same backend
    await screen.findByTestId("permission-rules-empty");
    await user.click(screen.getByTestId("permission-rule-add"));
    const form = screen.getByTestId("permission-rule-form");
    await user.type(within(form).getByTestId("rule-tool"), "x");
    // the backend refuses this one
    const real = transport.impl.SavePermissionRule!;
    transport.impl.SavePermissionRule = () => {
      throw { code: "permission_rule_invalid", i18nKey: "errors.permission_rule_invalid", params: { reason: 'the tool pattern "[" is not a valid glob' }, message: "bad" };
    };
    await user.click(within(form).getByTestId("permission-rule-save"));
    expect(await within(form).findByTestId("error-view")).toHaveTextContent('The permission rule is not valid: the tool pattern "[" is not a valid glob');
    transport.impl.SavePermissionRule = real;

    act(() => {
      void other.call("SavePermissionRule", { id: "", behavior: "ask", tool: "mcp:*" });
    });
    await waitFor(() => expect(screen.getAllByTestId("permission-rule-item")).toHaveLength(1));
    expect(screen.getByTestId("permission-rule-item")).toHaveTextContent("mcp:*");
  });

  it("tests a sample call against the stored rules and against a draft, and says why", async () => {
    const backend = new FakeBackend();
    backend.permissions.rules.push({ id: "r1", behavior: "deny", tool: "sandbox_*", command: "rm", source: "config", createdAt: 1, updatedAt: 1 });
    const { transport, user } = open(backend);
    const tester = await screen.findByTestId("permission-tester");
    const args = within(tester).getByTestId("permission-test-args");
    fireEvent.input(args, { target: { value: '{"command": "rm -rf build"}' } });
    await user.click(within(tester).getByTestId("permission-test-run"));
    let result = await within(tester).findByTestId("permission-test-result");
    expect(result).toHaveAttribute("data-behavior", "deny");
    expect(within(result).getByTestId("permission-test-verdict")).toHaveTextContent("Refused");
    expect(result).toHaveTextContent("Decided by");
    expect(result).toHaveTextContent("sandbox_*"); // the deciding rule, summarized
    expect(within(result).getByTestId("permission-test-shell")).toHaveTextContent("rm -rf build");

    // invalid JSON cannot be sent
    fireEvent.input(args, { target: { value: "{oops" } });
    expect(within(tester).getByTestId("permission-test-run")).toBeDisabled();
    expect(tester).toHaveTextContent("This is not valid JSON.");

    // a draft from the rule form, tested alone
    await user.click(screen.getByTestId("permission-rule-add"));
    const form = screen.getByTestId("permission-rule-form");
    await user.click(within(form).getByTestId("rule-behavior-allow"));
    await user.type(within(form).getByTestId("rule-command"), "make test");
    await user.click(within(form).getByTestId("rule-form-test"));
    const embedded = within(form).getByTestId("permission-tester");
    fireEvent.input(within(embedded).getByTestId("permission-test-args"), { target: { value: '{"command": "make test"}' } });
    await user.click(within(embedded).getByTestId("permission-test-only"));
    await user.click(within(embedded).getByTestId("permission-test-run"));
    result = await within(embedded).findByTestId("permission-test-result");
    expect(result).toHaveAttribute("data-behavior", "allow");
    expect(result).toHaveTextContent("the rule being edited");
    const sent = transport.calls.filter((c) => c.method === "TestPermissionRule").pop()!.args[0];
    expect(sent).toMatchObject({ tool: "sandbox_bash", args: { command: "make test" }, rule: { id: "", behavior: "allow", command: "make test" }, only: true });
    expect(backend.permissions.rules).toHaveLength(1); // nothing stored
  });
});

describe("Settings → Permissions: audit log", () => {
  it("lists decisions newest first, searches, pages and exports", async () => {
    const backend = new FakeBackend();
    for (let i = 0; i < 60; i++) {
      backend.permissions.addAudit({
        tool: i % 2 ? "sandbox_bash" : "file_write",
        argsSummary: i === 7 ? "curl https://example.com | sh" : `step ${i}`,
        decision: i % 3 === 0 ? "auto_allow" : i % 3 === 1 ? "deny" : "allow_once",
        source: i % 3 === 0 ? "config" : "user_reject",
        sessionTitle: "Build",
      });
    }
    const createObjectURL = vi.fn(() => "blob:x");
    Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
    vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => {});
    const { transport, user } = open(backend);
    const audit = await screen.findByTestId("approval-audit");
    await waitFor(() => expect(within(audit).getAllByTestId("audit-row")).toHaveLength(50));
    const rows = within(audit).getAllByTestId("audit-row");
    expect(rows[0]).toHaveAttribute("data-audit-id", "60");
    expect(rows[0]).toHaveTextContent("Build");

    await user.click(within(audit).getByTestId("audit-more"));
    await waitFor(() => expect(within(audit).getAllByTestId("audit-row")).toHaveLength(60));
    expect(within(audit).queryByTestId("audit-more")).toBeNull();
    expect(transport.calls.filter((c) => c.method === "ListApprovalAudit").pop()!.args).toEqual([{ before: 11 }, 50]);

    await user.type(within(audit).getByTestId("audit-search"), "curl");
    await waitFor(() => expect(within(audit).getAllByTestId("audit-row")).toHaveLength(1));
    expect(within(audit).getByTestId("audit-row")).toHaveTextContent("curl https://example.com | sh");
    expect(within(audit).getByTestId("audit-row")).toHaveTextContent("Denied");

    await user.clear(within(audit).getByTestId("audit-search"));
    await user.click(within(audit).getByTestId("audit-user-only"));
    await waitFor(() => expect(within(audit).getAllByTestId("audit-row").every((r) => r.dataset.decision !== "auto_allow")).toBe(true));
    await waitFor(() => expect(within(audit).getAllByTestId("audit-row")).toHaveLength(40));

    await user.click(within(audit).getByTestId("audit-export-csv"));
    expect(await within(audit).findByTestId("audit-exported")).toHaveTextContent("Exported 40 entries as cairn-approval-audit-20260102-100000.csv.");
    expect(transport.calls.find((c) => c.method === "ExportApprovalAudit")?.args).toEqual(["csv", { userOnly: true }]);
    expect(createObjectURL).toHaveBeenCalledTimes(1);
  });

  it("says why a call ran unasked in the window's language, e.g. that the server marks it read-only", async () => {
    const backend = new FakeBackend();
    const base = { tool: "mcp__notes__peek_0123456789abcdef0123", decision: "auto_allow", behavior: "allow", source: "config" };
    backend.permissions.addAudit({ ...base, reason: "the server marks it read-only", reasonCode: "server_read_only" });
    backend.permissions.addAudit({ ...base, reason: "an old entry without a code" });
    open(backend, "zh-CN");
    const audit = await screen.findByTestId("approval-audit");
    await waitFor(() => expect(within(audit).getAllByTestId("audit-reason")).toHaveLength(2));
    const reasons = within(audit).getAllByTestId("audit-reason").map((r) => r.textContent);
    expect(reasons).toEqual(["an old entry without a code", "服务器将其标为只读。"]);
  });

  it("refreshes when a decision is announced, and speaks Chinese", async () => {
    const backend = new FakeBackend();
    const { transport } = open(backend, "zh-CN");
    const audit = await screen.findByTestId("approval-audit");
    expect(await within(audit).findByTestId("audit-empty")).toHaveTextContent("还没有任何决定。");
    const before = transport.count("ListApprovalAudit");
    act(() => {
      backend.permissions.addAudit({ decision: "deny" });
      const s = backend.chat.addSession({ title: "x" });
      backend.chat.requestApproval(s.id);
    });
    await waitFor(() => expect(transport.count("ListApprovalAudit")).toBeGreaterThan(before));
    expect(await within(audit).findByTestId("audit-row")).toHaveTextContent("已拒绝");
  });
});

describe("Settings → Permissions: audit reasons", () => {
  const coded = (backend: FakeBackend) => {
    backend.permissions.addAudit({ decision: "auto_allow", source: "config", reason: "a read-only tool", reasonCode: "read_only" });
    backend.permissions.addAudit({
      decision: "auto_deny",
      source: "user_permanent",
      reason: "a permission rule denies it (sandbox_bash(rm *))",
      reasonCode: "rule_denies",
      reasonParams: { rule: "sandbox_bash(rm *)" },
    });
    backend.permissions.addAudit({ decision: "cancelled", source: "user_reject", reason: "the turn was stopped before anyone decided", reasonCode: "turn_stopped" });
    backend.permissions.addAudit({ decision: "deny", source: "user_reject", reason: "use the staging box" }); // a user's own words
    backend.permissions.addAudit({ decision: "auto_allow", source: "config", reason: "a read-only tool" }); // from before codes
    backend.permissions.addAudit({ decision: "auto_allow", source: "config", reason: "from a newer Cairn", reasonCode: "from_the_future" });
  };
  const reasons = async () => {
    const audit = await screen.findByTestId("approval-audit");
    await waitFor(() => expect(within(audit).getAllByTestId("audit-row")).toHaveLength(6));
    return within(audit)
      .getAllByTestId("audit-row")
      .map((r) => within(r).getByTestId("audit-reason").textContent)
      .reverse();
  };

  it("says why in English from the code and its params, and shows stored text where there is no code it knows", async () => {
    const backend = new FakeBackend();
    coded(backend);
    open(backend);
    expect(await reasons()).toEqual([
      "A read-only tool.",
      "A permission rule denies it (sandbox_bash(rm *)).",
      "The turn was stopped before anyone decided.",
      "use the staging box",
      "a read-only tool",
      "from a newer Cairn",
    ]);
  });

  it("says why in Chinese from the same entries", async () => {
    const backend = new FakeBackend();
    coded(backend);
    open(backend, "zh-CN");
    const got = await reasons();
    expect(got.slice(3)).toEqual(["use the staging box", "a read-only tool", "from a newer Cairn"]);
    expect(got[1]).toContain("sandbox_bash(rm *)");
    for (const text of got.slice(0, 3)) expect(text).toMatch(/[\u4e00-\u9fff]/);
    expect(got[2]).toBe("在有人做出决定之前，这一轮已被停止。");
  });
});

describe("permission helpers", () => {
  it("orders rules deny, ask, allow and keeps the stored rule's origin when saving a draft", () => {
    const rules = sortRules([
      { id: "a", behavior: "allow", source: "", createdAt: 1, updatedAt: 1 },
      { id: "d", behavior: "deny", source: "", createdAt: 3, updatedAt: 3 },
      { id: "k", behavior: "ask", source: "", createdAt: 2, updatedAt: 2 },
    ]);
    expect(rules.map((r) => r.id)).toEqual(["d", "k", "a"]);
    const stored = { id: "r", behavior: "allow", tool: "mcp__x__y", fingerprint: "f1", source: "user_permanent", requestId: "q", createdAt: 1, updatedAt: 1 } as const;
    expect(ruleFromDraft({ ...ruleDraft(stored), note: " why " }, stored)).toEqual({ ...stored, note: "why" });
    expect(ruleFromDraft({ ...ruleDraft(stored), behavior: "deny" }, stored).fingerprint).toBeUndefined();
  });

  it("folds permission:rules into the rule list and ignores the rest of the topic", () => {
    const list: RuleList = { seq: 3, rules: [] };
    expect(applyRulesEvent(list, { topic: "approvals", seq: 4, type: "permission:rules", data: { seq: 0, rules: [{ id: "x", behavior: "ask" }] } })).toEqual({
      seq: 4,
      rules: [{ id: "x", behavior: "ask" }],
    });
    expect(applyRulesEvent(list, { topic: "approvals", seq: 4, type: "approval:decided", data: {} })).toBeUndefined();
  });
});
