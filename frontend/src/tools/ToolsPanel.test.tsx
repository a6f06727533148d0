import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { ToolEntry } from "../api";
import { SettingsPage } from "../settings/SettingsPage";
import { FakeBackend } from "../test/fakeTransport";
import { renderWithClient } from "../test/render";

const tool = (over: Partial<ToolEntry>): ToolEntry => ({
  name: "web_search",
  title: "search",
  namespace: "web",
  description: "Search the web.",
  source: "builtin",
  defer: "never",
  readOnly: true,
  destructive: false,
  concurrencySafe: true,
  needsApproval: false,
  tokens: 120,
  enabled: true,
  ...over,
});

function open() {
  const backend = new FakeBackend();
  backend.chat.tools = [
    tool({}),
    tool({ name: "sandbox_bash", namespace: "sandbox", description: "Run a shell command.", readOnly: false, destructive: true, concurrencySafe: false, needsApproval: true, tokens: 300 }),
    tool({ name: "mcp__github__createIssue_0123456789abcdef0123", namespace: "mcp:gh1", namespaceLabel: "GitHub", source: "mcp", defer: "auto", readOnly: false, tokens: 210 }),
  ];
  const a = renderWithClient(<SettingsPage section="tools" />, { transport: backend.window(), route: { name: "settings", section: "tools" } });
  return { backend, a, user: userEvent.setup() };
}

describe("Settings → Tools", () => {
  it("lists every tool grouped by namespace with its flags, origin and token cost", async () => {
    open();
    await waitFor(() => expect(screen.getAllByTestId("tool-row")).toHaveLength(3));
    expect(screen.getAllByTestId("tools-group").map((g) => g.dataset.namespace)).toEqual(["mcp:gh1", "sandbox", "web"]);
    const bash = screen.getAllByTestId("tool-row").find((r) => r.dataset.tool === "sandbox_bash")!;
    expect(bash).toHaveTextContent("Asks first");
    expect(bash).toHaveTextContent("Destructive");
    expect(bash).toHaveTextContent("Built-in");
    expect(bash).toHaveTextContent("300 tokens");
    const gh = screen.getAllByTestId("tools-group")[0]!;
    expect(gh).toHaveTextContent("GitHub");
    expect(gh).toHaveTextContent("MCP");
    expect(gh).toHaveTextContent("Folded when costly");
    expect(screen.getByText("3 tools · 0 off")).toBeInTheDocument();
  });

  it("turns a tool off and on (live from the tools topic) and searches", async () => {
    const { backend, user } = open();
    const row = await screen.findByText("web_search").then((n) => n.closest("li")!);
    await user.click(within(row).getByTestId("tool-enabled"));
    await waitFor(() => expect(within(row).getByTestId("tool-enabled")).not.toBeChecked());
    expect(backend.chat.tools[0]!.enabled).toBe(false);
    expect(screen.getByText("3 tools · 1 off")).toBeInTheDocument();
    await user.type(screen.getByTestId("tools-search"), "shell");
    expect(screen.getAllByTestId("tool-row").map((r) => r.dataset.tool)).toEqual(["sandbox_bash"]);
  });
});
