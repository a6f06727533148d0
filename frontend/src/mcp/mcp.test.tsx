import { act, configure, fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { applyMcpEvent, normalizeServerView, type McpServerView, type McpSnapshot } from "../api";
import { SettingsPage } from "../settings/SettingsPage";
import { mcpTool } from "../test/fakeMcp";
import { FakeBackend } from "../test/fakeTransport";
import { renderWithClient } from "../test/render";
import { mergeLines } from "./model";

// Sections load lazily and these tests type a lot: give a busy machine room (this file only).
configure({ asyncUtilTimeout: 5000 });
vi.setConfig({ testTimeout: 30_000 });

function open(backend = new FakeBackend(), lng: "en" | "zh-CN" = "en") {
  const transport = backend.window();
  const r = renderWithClient(<SettingsPage section="mcp" />, { transport, route: { name: "settings", section: "mcp" }, lng });
  return { ...r, backend, transport, user: userEvent.setup() };
}

const item = async (name: string) => {
  const items = await screen.findAllByTestId("mcp-server-item");
  const el = items.find((x) => x.dataset.serverName === name);
  if (!el) throw new Error(`no server ${name} in ${items.map((x) => x.dataset.serverName).join(", ")}`);
  return el;
};

function visibleText(): string {
  const values = Array.from(document.querySelectorAll("input, textarea, select")).map((e) => (e as HTMLInputElement).value);
  return `${document.body.textContent ?? ""}\n${values.join("\n")}`;
}

describe("Settings → MCP servers", () => {
  it("shows a server that cannot start as failed, with the line that says why and no countdown", async () => {
    const backend = new FakeBackend();
    backend.mcp.addServer({
      name: "sentry",
      status: {
        state: "failed",
        since: 1,
        recorded: true,
        error: {
          code: "mcp_server_exited",
          i18nKey: "errors.mcp_server_exited",
          params: { server: "sentry", code: "exited with code 1", stderr: "Error: No access token was provided." },
          message: "mcp server sentry exited with code 1: Error: No access token was provided.",
          action: { kind: "open-settings", target: "mcp" },
        },
      },
    });
    open(backend);
    const el = await item("sentry");
    expect(within(el).getByTestId("mcp-status")).toHaveAttribute("data-state", "failed");
    expect(within(el).getByTestId("mcp-status")).toHaveTextContent("Failed");
    expect(within(el).getByTestId("error-view")).toHaveTextContent("stopped (exited with code 1): Error: No access token was provided.");
    expect(within(el).getByTestId("mcp-failed-note")).toHaveTextContent("Cairn does not retry on its own");
    expect(within(el).queryByTestId("mcp-retry")).toBeNull();
    expect(el).toHaveTextContent("as the last run of Cairn left it");
  });

  it("replaces coming-soon with the server list and shows live status from topic mcp", async () => {
    const backend = new FakeBackend();
    const s = backend.mcp.addServer({ name: "files", status: { state: "starting", since: 1 } });
    open(backend);
    const el = await item("files");
    expect(screen.queryByTestId("coming-soon-mcp")).toBeNull();
    expect(within(el).getByTestId("mcp-status")).toHaveAttribute("data-state", "starting");
    expect(within(el).getByTestId("mcp-status")).toHaveTextContent("Starting");
    expect(el).toHaveTextContent("node server.js");

    // ready, with the server info the backend tags "ServerInfo"
    act(() => backend.mcp.setStatus(s.id, { state: "ready", serverInfo: undefined, ...({ ServerInfo: { name: "fs-server", version: "2.1.0" } } as object) }));
    expect(within(el).getByTestId("mcp-status")).toHaveAttribute("data-state", "ready");
    expect(el).toHaveTextContent("Server: fs-server 2.1.0");

    // error: the reason through ErrorView, localized, plus the automatic restart
    act(() =>
      backend.mcp.setStatus(s.id, {
        state: "error",
        retryAt: Date.now() + 4000,
        error: {
          code: "mcp_command_not_found",
          i18nKey: "errors.mcp_command_not_found",
          params: { server: "files", command: "npx", path: "/usr/local/bin:/usr/bin" },
          message: "exec: npx: not found",
          action: { kind: "open-settings", target: "mcp" },
        },
      }),
    );
    expect(within(el).getByTestId("mcp-status")).toHaveTextContent("Error");
    expect(within(el).getByTestId("error-view")).toHaveTextContent("the command npx was not found. Cairn looked in: /usr/local/bin:/usr/bin");
    expect(within(el).getByTestId("mcp-retry")).toHaveTextContent(/Restarting automatically in [45] s/);
    // its action would open this very page: not offered here
    expect(within(el).queryByRole("button", { name: "Open MCP servers settings" })).toBeNull();
    // after the last automatic restart it says what to do
    act(() => backend.mcp.setStatus(s.id, { retryAt: undefined, restarts: 5 }));
    expect(within(el).queryByTestId("mcp-retry")).toBeNull();
    expect(within(el).getByTestId("mcp-gave-up")).toHaveTextContent("Automatic restarts stopped");

    // disabled, and removed by another window
    act(() => backend.mcp.setStatus(s.id, { state: "disabled", error: undefined, retryAt: undefined }));
    expect(within(el).getByTestId("mcp-status")).toHaveTextContent("Off");
    act(() => {
      backend.mcp.servers = [];
      backend.chat.publish("mcp", "mcp:server-removed", { id: s.id });
    });
    expect(await screen.findByTestId("mcp-empty")).toBeInTheDocument();
  });

  it("adds a stdio server with arguments and a secret env value that is never shown again", async () => {
    const { backend, transport, user } = open();
    await screen.findByTestId("mcp-empty");
    await user.click(screen.getByTestId("mcp-add"));
    const form = screen.getByTestId("mcp-form");
    await user.type(within(form).getByTestId("mcp-form-name"), "github");
    await user.type(within(form).getByTestId("mcp-form-command"), "npx");
    await user.type(within(form).getByTestId("mcp-form-args"), "-y{Enter}@modelcontextprotocol/server-github{Enter}{Enter}");
    await user.type(within(form).getByTestId("mcp-form-cwd"), "/tmp/work");
    await user.click(within(form).getByTestId("mcp-env-add"));
    await user.type(within(form).getByTestId("mcp-env-name"), "LOG_LEVEL");
    await user.type(within(form).getByTestId("mcp-env-value"), "debug");
    await user.click(within(form).getByTestId("mcp-env-add"));
    const names = within(form).getAllByTestId("mcp-env-name");
    const values = within(form).getAllByTestId("mcp-env-value");
    await user.type(names[1]!, "GITHUB_TOKEN");
    await user.click(within(form).getAllByTestId("mcp-env-secret")[1]!);
    expect(values[1]).toHaveAttribute("type", "password");
    await user.type(values[1]!, "ghp_secret_value_1234ABCD");
    await user.type(within(form).getByTestId("mcp-form-connect-timeout"), "12.5");
    await user.click(within(form).getByTestId("mcp-form-save"));

    const el = await item("github");
    const save = transport.calls.find((c) => c.method === "SaveMCPServer")!;
    expect(save.args[0]).toEqual({
      id: "",
      name: "github",
      transport: "stdio",
      enabled: true,
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-github"],
      cwd: "/tmp/work",
      env: [
        { name: "LOG_LEVEL", value: "debug" },
        { name: "GITHUB_TOKEN", value: "ghp_secret_value_1234ABCD", secret: true },
      ],
      connectTimeoutMs: 12500,
      trustReadOnlyHints: true,
    });
    const id = backend.mcp.servers[0]!.id;
    expect(backend.mcp.secrets.get(`${id}/env/GITHUB_TOKEN`)).toBe("ghp_secret_value_1234ABCD");
    expect(screen.queryByTestId("mcp-form")).toBeNull();
    expect(visibleText()).not.toContain("ghp_secret_value_1234ABCD");

    // editing shows that a value is stored (last 4), never the value; empty keeps it
    await user.click(within(el).getByTestId("mcp-edit"));
    const edit = screen.getByTestId("mcp-form");
    const secret = within(edit).getAllByTestId("mcp-env-value")[1]!;
    expect(secret).toHaveValue("");
    expect(secret).toHaveAttribute("placeholder", "Stored, ends in ABCD");
    expect(within(edit).getByTestId("mcp-form-connect-timeout")).toHaveValue("12.5");
    expect(visibleText()).not.toContain("ghp_secret_value_1234ABCD");
    await user.click(within(edit).getByTestId("mcp-form-save"));
    await waitFor(() => expect(screen.queryByTestId("mcp-form")).toBeNull());
    const second = transport.calls.filter((c) => c.method === "SaveMCPServer")[1]!.args[0] as { id: string; env: unknown[] };
    expect(second.id).toBe(id);
    expect(second.env[1]).toEqual({ name: "GITHUB_TOKEN", value: "", secret: true });
    expect(backend.mcp.secrets.get(`${id}/env/GITHUB_TOKEN`)).toBe("ghp_secret_value_1234ABCD");
  });

  it("runs a stdio server in the sandbox with its folders and domains, and sets its roots mode", async () => {
    const { backend, transport, user } = open();
    await screen.findByTestId("mcp-empty");
    await user.click(screen.getByTestId("mcp-add"));
    const form = screen.getByTestId("mcp-form");
    await user.type(within(form).getByTestId("mcp-form-name"), "files");
    await user.type(within(form).getByTestId("mcp-form-command"), "npx");
    await user.type(within(form).getByTestId("mcp-form-args"), "-y{Enter}@modelcontextprotocol/server-filesystem{Enter}/home/me/site");
    expect(within(form).queryByTestId("mcp-form-sandbox-write")).toBeNull();
    await user.click(within(form).getByTestId("mcp-form-sandbox"));
    await user.type(within(form).getByTestId("mcp-form-sandbox-write"), "/home/me/site{Enter} {Enter}");
    await user.type(within(form).getByTestId("mcp-form-sandbox-read"), "/home/me/docs");
    await user.type(within(form).getByTestId("mcp-form-sandbox-domains"), "api.example.com");
    expect(form).toHaveTextContent("Needs the strong sandbox level");
    const mode = within(form).getByTestId("mcp-form-roots-mode");
    expect(mode).toHaveValue("");
    await user.selectOptions(mode, "none");
    expect(within(form).queryByTestId("mcp-form-roots")).toBeNull();
    expect(form).toHaveTextContent("keeps the folders of its own arguments");
    await user.click(within(form).getByTestId("mcp-form-save"));

    const el = await item("files");
    const save = transport.calls.find((c) => c.method === "SaveMCPServer")!;
    expect(save.args[0]).toMatchObject({
      rootsMode: "none",
      sandbox: { enabled: true, write: ["/home/me/site"], read: ["/home/me/docs"], domains: ["api.example.com"] },
    });
    expect(backend.mcp.servers[0]!.sandbox?.enabled).toBe(true);
    expect(within(el).getByTestId("mcp-sandboxed")).toHaveTextContent("Sandboxed");

    await user.click(within(el).getByTestId("mcp-edit"));
    const edit = screen.getByTestId("mcp-form");
    expect(within(edit).getByTestId("mcp-form-sandbox")).toBeChecked();
    expect(within(edit).getByTestId("mcp-form-sandbox-write")).toHaveValue("/home/me/site");
    expect(within(edit).getByTestId("mcp-form-roots-mode")).toHaveValue("none");
    // Back to automatic: the arguments name a folder, so the backend offers none.
    await user.selectOptions(within(edit).getByTestId("mcp-form-roots-mode"), "");
    await user.click(within(edit).getByTestId("mcp-form-sandbox"));
    await user.click(within(edit).getByTestId("mcp-form-save"));
    await waitFor(() => expect(screen.queryByTestId("mcp-form")).toBeNull());
    const second = transport.calls.filter((c) => c.method === "SaveMCPServer")[1]!.args[0] as Record<string, unknown>;
    expect(second.rootsMode).toBeUndefined();
    // Off, the lists are kept for the next time it is turned on.
    expect(second.sandbox).toEqual({ enabled: false, write: ["/home/me/site"], read: ["/home/me/docs"], domains: ["api.example.com"] });
    await user.click(within(await item("files")).getByTestId("mcp-edit"));
    expect(within(screen.getByTestId("mcp-form")).getByTestId("mcp-form-roots-mode")).toHaveTextContent("Automatic: none");
  });

  it("adds an HTTP server with a secret header and a call timeout; invalid input shows the backend's reason", async () => {
    const { transport, user } = open();
    await screen.findByTestId("mcp-empty");
    await user.click(screen.getByTestId("mcp-add"));
    const form = screen.getByTestId("mcp-form");
    await user.type(within(form).getByTestId("mcp-form-name"), "remote");
    await user.click(within(form).getByTestId("mcp-form-transport-http"));
    expect(within(form).queryByTestId("mcp-form-command")).toBeNull();
    await user.type(within(form).getByTestId("mcp-form-url"), "ftp://nope");
    await user.click(within(form).getByTestId("mcp-header-add"));
    await user.type(within(form).getByTestId("mcp-header-name"), "Authorization");
    expect(within(form).getByTestId("mcp-header-secret")).toBeChecked(); // headers start secret
    await user.type(within(form).getByTestId("mcp-header-value"), "Bearer abc");
    await user.type(within(form).getByTestId("mcp-form-call-timeout"), "x");
    expect(within(form).getByTestId("mcp-form-save")).toBeDisabled();
    await user.clear(within(form).getByTestId("mcp-form-call-timeout"));
    await user.type(within(form).getByTestId("mcp-form-call-timeout"), "90");
    await user.click(within(form).getByTestId("mcp-form-save"));
    expect(await within(form).findByTestId("error-view")).toHaveTextContent('The MCP server settings are invalid: "ftp://nope" is not an http(s) URL');

    await user.clear(within(form).getByTestId("mcp-form-url"));
    await user.type(within(form).getByTestId("mcp-form-url"), "https://mcp.example.com/mcp");
    await user.click(within(form).getByTestId("mcp-form-save"));
    const el = await item("remote");
    expect(el).toHaveTextContent("Streamable HTTP");
    expect(el).toHaveTextContent("https://mcp.example.com/mcp");
    const saved = transport.calls.filter((c) => c.method === "SaveMCPServer").pop()!.args[0];
    expect(saved).toEqual({
      id: "",
      name: "remote",
      transport: "http",
      enabled: true,
      url: "https://mcp.example.com/mcp",
      headers: [{ name: "Authorization", value: "Bearer abc", secret: true }],
      callTimeoutMs: 90000,
      trustReadOnlyHints: true,
    });
  });

  it("turns a server off and on, and deletes it after confirming", async () => {
    const backend = new FakeBackend();
    backend.mcp.addServer({ name: "mem" });
    const { transport, user } = open(backend);
    const el = await item("mem");
    await user.click(within(el).getByTestId("mcp-enabled"));
    await waitFor(() => expect(within(el).getByTestId("mcp-status")).toHaveAttribute("data-state", "disabled"));
    expect(within(el).getByTestId("mcp-refresh")).toBeDisabled();
    expect(transport.calls.find((c) => c.method === "SetMCPServerEnabled")?.args).toEqual([backend.mcp.servers[0]!.id, false]);
    await user.click(within(el).getByTestId("mcp-enabled"));
    await waitFor(() => expect(within(el).getByTestId("mcp-status")).toHaveAttribute("data-state", "starting"));

    await user.click(within(el).getByTestId("mcp-delete"));
    const dialog = screen.getByTestId("mcp-delete-dialog");
    expect(dialog).toHaveTextContent("Delete mem?");
    await user.click(within(dialog).getByTestId("mcp-delete-confirm"));
    expect(await screen.findByTestId("mcp-empty")).toBeInTheDocument();
    expect(backend.mcp.servers).toEqual([]);
  });

  it("lists a server's tools with per-tool enable and approval", async () => {
    const backend = new FakeBackend();
    const s = backend.mcp.addServer({
      name: "everything",
      tools: [mcpTool("echo", { readOnly: true }), mcpTool("write_file", { destructive: true }), mcpTool("add")],
    });
    const { transport, user } = open(backend);
    const el = await item("everything");
    expect(el).toHaveTextContent("tools: 3 of 3 on");
    await user.click(within(el).getByTestId("mcp-tools-toggle"));
    const rows = within(el).getAllByTestId("mcp-tool-row");
    expect(rows.map((r) => r.dataset.tool)).toEqual(["echo", "write_file", "add"]);
    expect(within(rows[0]!).getByTestId("mcp-tool-in-force")).toHaveTextContent("Runs without asking");
    expect(within(rows[0]!).getByTestId("mcp-tool-approval")).toHaveDisplayValue("Default (runs)");
    expect(within(rows[1]!).getByTestId("mcp-tool-in-force")).toHaveTextContent("Asks first");
    expect(rows[1]).toHaveTextContent("Destructive");

    await user.click(within(rows[1]!).getByTestId("mcp-tool-enabled"));
    await waitFor(() => expect(within(el).getAllByTestId("mcp-tool-row")[1]).toHaveClass("is-off"));
    expect(transport.calls.find((c) => c.method === "SetMCPToolEnabled")?.args).toEqual([s.id, "write_file", false]);
    expect(el).toHaveTextContent("tools: 2 of 3 on");

    await user.selectOptions(within(el).getAllByTestId("mcp-tool-approval")[2]!, "allow");
    await waitFor(() => expect(within(within(el).getAllByTestId("mcp-tool-row")[2]!).getByTestId("mcp-tool-in-force")).toHaveTextContent("Runs without asking"));
    expect(transport.calls.find((c) => c.method === "SetMCPToolApproval")?.args).toEqual([s.id, "add", "allow"]);
  });

  it("refreshes, restarts and tests; a failed test shows the report with its error", async () => {
    const backend = new FakeBackend();
    const s = backend.mcp.addServer({ name: "srv", tools: [mcpTool("echo")] });
    const { transport, user } = open(backend);
    const el = await item("srv");
    await user.click(within(el).getByTestId("mcp-refresh"));
    await user.click(within(el).getByTestId("mcp-restart"));
    await waitFor(() => expect(transport.count("RestartMCPServer")).toBe(1));
    expect(transport.count("RefreshMCPServer")).toBe(1);

    await user.click(within(el).getByTestId("mcp-test"));
    let report = await within(el).findByTestId("mcp-test-report");
    expect(report).toHaveAttribute("data-ok", "1");
    expect(report).toHaveTextContent("Connected in 120 ms.");
    expect(report).toHaveTextContent("echo");
    expect(transport.calls.find((c) => c.method === "TestMCPServer")?.args[0]).toMatchObject({ id: s.id, name: "srv" });

    backend.mcp.testReport = () => ({
      ok: false,
      error: { code: "mcp_connect_timeout", i18nKey: "errors.mcp_connect_timeout", params: { server: "srv", seconds: 30 }, message: "timeout" },
      serverInfo: {},
      tools: null as unknown as string[], // Go writes a nil slice as null
      durationMs: 30000,
      log: [{ time: 1, stream: "stderr", text: "listening…" }],
    });
    await user.click(within(el).getByTestId("mcp-test"));
    await waitFor(() => expect(within(el).getByTestId("mcp-test-report")).toHaveAttribute("data-ok", "0"));
    report = within(el).getByTestId("mcp-test-report");
    expect(report).toHaveTextContent("The test failed after 30000 ms.");
    expect(within(report).getByTestId("error-view")).toHaveTextContent("The MCP server srv did not answer within 30 s.");
    expect(report).toHaveTextContent("listening…");
  });

  it("shows the live log: recent lines, then new ones as they come, without duplicates", async () => {
    const backend = new FakeBackend();
    const s = backend.mcp.addServer({ name: "chatty" });
    const other = backend.mcp.addServer({ name: "quiet" });
    backend.mcp.log(s.id, "booting", "event", 1000);
    backend.mcp.log(s.id, "warn: no config", "stderr", 1001);
    const { user } = open(backend);
    const el = await item("chatty");
    await user.click(within(el).getByTestId("mcp-log-toggle"));
    const log = within(el).getByTestId("mcp-log");
    await waitFor(() => expect(within(log).getAllByTestId("mcp-log-line")).toHaveLength(2));
    expect(log).toHaveAttribute("role", "log");
    act(() => {
      backend.mcp.log(s.id, "ready on stdio", "server");
      backend.mcp.log(other.id, "not mine");
    });
    const lines = within(log).getAllByTestId("mcp-log-line");
    expect(lines.map((l) => l.dataset.stream)).toEqual(["event", "stderr", "server"]);
    expect(log).toHaveTextContent("ready on stdio");
    expect(log).not.toHaveTextContent("not mine");
    expect(within(el).getByTestId("mcp-logview")).toHaveTextContent("3 lines");
  });

  it("imports pasted mcpServers JSON and reports per entry; a file works too", async () => {
    const backend = new FakeBackend();
    const { user } = open(backend);
    await screen.findByTestId("mcp-empty");
    await user.click(screen.getByTestId("mcp-import"));
    const dialog = screen.getByTestId("mcp-import-dialog");
    const json = JSON.stringify({ mcpServers: { fs: { command: "npx", args: ["-y", "server-filesystem"] }, broken: { args: [] } } });
    fireEvent.input(within(dialog).getByTestId("mcp-import-text"), { target: { value: json } });
    await user.click(within(dialog).getByTestId("mcp-import-submit"));
    const report = await within(dialog).findByTestId("mcp-import-report");
    expect(report).toHaveTextContent("Imported 1, updated 0, unchanged 0, rejected 1.");
    const entries = within(report).getAllByTestId("mcp-import-entry");
    expect(entries.map((e) => e.dataset.status)).toEqual(["imported", "rejected"]);
    expect(entries[1]).toHaveTextContent("an entry needs a command or a url");
    expect(await item("fs")).toBeInTheDocument();

    // a file, with an entry that updates an existing server
    const file = new File([JSON.stringify({ mcpServers: { fs: { command: "uvx", args: ["mcp-server-fs"] } } })], "claude.json", { type: "application/json" });
    await user.upload(within(dialog).getByTestId("mcp-import-file"), file);
    await waitFor(() => expect((within(dialog).getByTestId("mcp-import-text") as HTMLTextAreaElement).value).toContain("uvx"));
    expect(dialog).toHaveTextContent("Loaded claude.json");
    await user.click(within(dialog).getByTestId("mcp-import-submit"));
    await waitFor(() => expect(within(dialog).getByTestId("mcp-import-report")).toHaveTextContent("updated 1"));

    // not JSON at all: the apperr
    fireEvent.input(within(dialog).getByTestId("mcp-import-text"), { target: { value: "{nope" } });
    await user.click(within(dialog).getByTestId("mcp-import-submit"));
    expect(await within(dialog).findByTestId("error-view")).toHaveAttribute("data-error-code", "mcp_import_invalid");
  });

  it("says which imported values look like credentials it could not move", async () => {
    const backend = new FakeBackend();
    backend.mcp.nextSaveWarnings = [
      { code: "mcp_credential_not_moved", i18nKey: "errors.mcp_credential_not_moved", params: { server: "blob", where: "args[2]" }, message: "m" },
    ];
    const { user } = open(backend, "zh-CN");
    await screen.findByTestId("mcp-empty");
    await user.click(screen.getByTestId("mcp-import"));
    const dialog = screen.getByTestId("mcp-import-dialog");
    const json = JSON.stringify({ mcpServers: { blob: { command: "node", args: ["s.js", '{"token": "abcdef123456"}'] } } });
    fireEvent.input(within(dialog).getByTestId("mcp-import-text"), { target: { value: json } });
    await user.click(within(dialog).getByTestId("mcp-import-submit"));
    const warnings = await within(dialog).findByTestId("mcp-import-warnings");
    expect(warnings).toHaveTextContent("blob：args[2] 看起来包含凭据，但 Cairn 无法将其移入钥匙串");
  });

  it("exports the JSON to copy or download and says which secrets were withheld", async () => {
    const backend = new FakeBackend();
    backend.mcp.addServer({ name: "gh", env: [{ name: "GITHUB_TOKEN", secret: true }, { name: "MODE", value: "ro" }] });
    const createObjectURL = vi.fn(() => "blob:x");
    const revoke = vi.fn();
    Object.assign(URL, { createObjectURL, revokeObjectURL: revoke });
    const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => {});
    const { user } = open(backend);
    await item("gh");
    await user.click(screen.getByTestId("mcp-export"));
    const dialog = screen.getByTestId("mcp-export-dialog");
    expect(await within(dialog).findByTestId("mcp-export-json")).toHaveTextContent('"mcpServers"');
    expect(within(dialog).getByTestId("mcp-export-withheld")).toHaveTextContent("Secret values were withheld (1)");
    expect(within(dialog).getByTestId("mcp-export-withheld")).toHaveTextContent("gh: GITHUB_TOKEN");
    await user.click(within(dialog).getByTestId("mcp-export-download"));
    expect(createObjectURL).toHaveBeenCalledTimes(1);
    expect(click).toHaveBeenCalledTimes(1);
    const blob = (createObjectURL.mock.calls[0] as unknown as [Blob])[0];
    const text = await new Promise<string>((resolve) => {
      const r = new FileReader();
      r.onload = () => resolve(String(r.result));
      r.readAsText(blob);
    });
    expect(text).toContain('"GITHUB_TOKEN": ""');
  });

  it("saves the export through the native dialog in the desktop window", async () => {
    const backend = new FakeBackend();
    backend.desktop = true;
    backend.savePath = "/home/u/Documents/mcp-servers.json";
    backend.mcp.addServer({ name: "gh" });
    const createObjectURL = vi.fn(() => "blob:x");
    Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
    const { user } = open(backend);
    await item("gh");
    await user.click(screen.getByTestId("mcp-export"));
    const dialog = screen.getByTestId("mcp-export-dialog");
    await within(dialog).findByTestId("mcp-export-json");
    expect(within(dialog).getByTestId("mcp-export-download")).toHaveTextContent("Save…");
    await user.click(within(dialog).getByTestId("mcp-export-download"));
    expect(await within(dialog).findByTestId("mcp-export-saved")).toHaveTextContent("Saved to /home/u/Documents/mcp-servers.json.");
    expect(backend.saves).toHaveLength(1);
    expect(backend.saves[0]?.name).toBe("mcp-servers.json");
    expect(backend.saves[0]?.content).toContain('"mcpServers"');
    expect(createObjectURL).not.toHaveBeenCalled();

    // cancelled: nothing saved, nothing claimed
    backend.savePath = "";
    await user.click(screen.getByTestId("mcp-export-download"));
    await waitFor(() => expect(within(dialog).queryByTestId("mcp-export-saved")).toBeNull());
    expect(backend.saves).toHaveLength(1);
  });

  it("lets the user stop trusting a server's read-only hints, and shows which tools that affects", async () => {
    const backend = new FakeBackend();
    const s = backend.mcp.addServer({
      name: "notes",
      trustReadOnlyHints: false,
      tools: [mcpTool("peek", { readOnlyHint: true, readOnly: false })],
    });
    const { transport, user } = open(backend);
    const el = await item("notes");
    await user.click(within(el).getByTestId("mcp-tools-toggle"));
    const row = within(el).getByTestId("mcp-tool-row");
    expect(within(row).getByTestId("mcp-tool-hint-untrusted")).toHaveTextContent("Read-only (server's word, not trusted)");
    expect(within(row).getByTestId("mcp-tool-in-force")).toHaveTextContent("Asks first");

    await user.click(within(el).getByTestId("mcp-edit"));
    const form = screen.getByTestId("mcp-form");
    const trust = within(form).getByTestId("mcp-form-trust-hints");
    expect(trust).not.toBeChecked();
    expect(trust).toHaveAccessibleName("Trust this server's read-only hints");
    await user.click(trust);
    await user.click(within(form).getByTestId("mcp-form-save"));
    await waitFor(() => expect(screen.queryByTestId("mcp-form")).toBeNull());
    const saved = transport.calls.find((c) => c.method === "SaveMCPServer")?.args[0] as { id: string; trustReadOnlyHints?: boolean };
    expect(saved).toMatchObject({ id: s.id, trustReadOnlyHints: true });

    // a new server trusts its hints unless the user says otherwise
    await user.click(screen.getByTestId("mcp-add"));
    expect(within(screen.getByTestId("mcp-form")).getByTestId("mcp-form-trust-hints")).toBeChecked();
  });

  it("shows the credentials kept in the keyring masked, and warns about values it could not move", async () => {
    const backend = new FakeBackend();
    backend.mcp.addServer({
      name: "pg",
      args: ["postgresql://admin:{{cairn-secret:password}}@db/app", '{"apiKey": "abcdef123456"}'],
      credentials: [{ name: "password", set: true, last4: "w0rd" }],
    });
    backend.mcp.nextSaveWarnings = [
      {
        code: "mcp_credential_not_moved",
        i18nKey: "errors.mcp_credential_not_moved",
        params: { server: "pg", where: "args[2]" },
        message: "mcp server pg: args[2] looks like it holds a credential",
      },
    ];
    const { user } = open(backend);
    const el = await item("pg");
    await user.click(within(el).getByTestId("mcp-edit"));
    const form = screen.getByTestId("mcp-form");
    expect(within(form).getByTestId("mcp-form-args")).toHaveValue('postgresql://admin:{{cairn-secret:password}}@db/app\n{"apiKey": "abcdef123456"}');
    const creds = within(form).getByTestId("mcp-credentials");
    expect(within(creds).getByTestId("mcp-credential")).toHaveTextContent("password Stored, ends in w0rd");
    expect(creds).toHaveTextContent("{{cairn-secret:…}} marks where each one goes");

    await user.click(within(form).getByTestId("mcp-form-save"));
    const warnings = await within(form).findByTestId("mcp-form-warnings");
    expect(warnings).toHaveTextContent("pg: args[2] looks like it holds a credential that Cairn could not move to the keyring");
    expect(screen.getByTestId("mcp-form")).toBeInTheDocument(); // stays open to say so
  });

  it("names the environment variables a stdio server gets, never their values", async () => {
    const backend = new FakeBackend();
    backend.mcp.addServer({ name: "env", env: [{ name: "LOG_LEVEL", value: "debug" }, { name: "API_TOKEN", secret: true }] });
    const { user } = open(backend);
    const el = await item("env");
    await user.click(within(el).getByTestId("mcp-env-toggle"));
    const rows = await within(el).findAllByTestId("mcp-env-var");
    const byName = Object.fromEntries(rows.map((r) => [r.querySelector("code")?.textContent, r.dataset.source]));
    expect(byName).toMatchObject({ PATH: "inherited", HOME: "inherited", LOG_LEVEL: "config", API_TOKEN: "secret" });
    expect(within(el).getByTestId("mcp-env")).not.toHaveTextContent("debug");
    expect(within(el).getByTestId("mcp-env")).toHaveTextContent("secret, from the keyring");
  });

  it("speaks Chinese", async () => {
    const backend = new FakeBackend();
    backend.mcp.addServer({ name: "files", status: { state: "ready", since: 1 } });
    open(backend, "zh-CN");
    const el = await item("files");
    expect(within(el).getByTestId("mcp-status")).toHaveTextContent("就绪");
    expect(screen.getByTestId("mcp-add")).toHaveTextContent("添加服务器");
  });
});

describe("mcp topic and log helpers", () => {
  const view = (id: string, state = "ready"): McpServerView => ({ id, name: id, transport: "stdio", enabled: true, status: { state, since: 1 } as McpServerView["status"], tools: [] });
  const snap: McpSnapshot = { seq: 4, servers: [view("a"), view("b")] };

  it("applies mcp:server by id, removes, ignores log lines", () => {
    const up = applyMcpEvent(snap, { topic: "mcp", seq: 5, type: "mcp:server", data: view("b", "error") });
    expect(up).not.toBe(snap);
    expect((up as McpSnapshot).servers.map((s) => s.status.state)).toEqual(["ready", "error"]);
    const added = applyMcpEvent(snap, { topic: "mcp", seq: 5, type: "mcp:server", data: view("c") }) as McpSnapshot;
    expect(added.servers.map((s) => s.id)).toEqual(["a", "b", "c"]);
    const gone = applyMcpEvent(snap, { topic: "mcp", seq: 5, type: "mcp:server-removed", data: { id: "a" } }) as McpSnapshot;
    expect(gone.servers.map((s) => s.id)).toEqual(["b"]);
    expect(applyMcpEvent(snap, { topic: "mcp", seq: 5, type: "mcp:log", data: { serverId: "a", line: {} } })).toBeUndefined();
    expect(typeof applyMcpEvent(snap, { topic: "mcp", seq: 5, type: "mcp:server", data: {} })).toBe("symbol"); // RELOAD
  });

  it("reads the server info whichever way it is tagged", () => {
    const v = { ...view("a"), status: { state: "ready", since: 1, ServerInfo: { name: "x" } } } as unknown as McpServerView;
    expect(normalizeServerView(v).status.serverInfo).toEqual({ name: "x" });
  });

  it("merges loaded and arrived log lines without duplicates, keeping the newest", () => {
    const l = (n: number) => ({ time: n, stream: "stderr", text: `line ${n}` });
    expect(mergeLines([l(1), l(2)], [l(2), l(3)], 10).map((x) => x.time)).toEqual([1, 2, 3]);
    expect(mergeLines([l(1), l(2)], [l(3), l(4)], 3).map((x) => x.time)).toEqual([2, 3, 4]);
  });
});
