import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { settingsSections } from "../shell/routes";
import { FakeBackend, SPECS, TOOLSETS } from "../test/fakeTransport";
import { renderWithClient } from "../test/render";
import { SettingsPage } from "./SettingsPage";
import { useRouter } from "../shell/router";

function Routed() {
  const { route } = useRouter();
  return route.name === "settings" ? <SettingsPage section={route.section} /> : null;
}

function open(section: string, backend = new FakeBackend()) {
  const transport = backend.window();
  const r = renderWithClient(<Routed />, { transport, route: { name: "settings", section } });
  return { ...r, backend, transport };
}

describe("Settings page", () => {
  it("has a navigation entry per section and switches sections", async () => {
    const user = userEvent.setup();
    open("general");
    const nav = screen.getByRole("navigation", { name: "Settings sections" });
    await within(nav).findByTestId("settings-nav-web-search", {}, { timeout: 5000 }); // the capabilities' pages come with ListToolsets
    expect(within(nav).getAllByRole("button").map((b) => b.dataset.testid)).toEqual(settingsSections(TOOLSETS).map((s) => `settings-nav-${s}`));
    expect(settingsSections(TOOLSETS)).toEqual(["providers", "assistants", "web-search", "knowledge", "sandbox", "skills", "location", "agents", "mcp", "tools", "permissions", "general", "about"]);
    expect(screen.getByTestId("settings-nav-general")).toHaveAttribute("aria-current", "page");
    await user.click(screen.getByTestId("settings-nav-mcp"));
    expect(screen.getByRole("heading", { level: 2, name: "MCP servers" })).toBeInTheDocument();
    expect(screen.getByTestId("settings-nav-mcp")).toHaveAttribute("aria-current", "page");
  });

  it("gives a capability's page its place from ListToolsets alone, with the specs of its section", async () => {
    const backend = new FakeBackend([...SPECS, { key: "notes.folder", type: "string", default: "~/notes", section: "notes" }]);
    const transport = backend.window();
    transport.impl.ListToolsets = () => [
      ...TOOLSETS,
      { name: "notes", label: "chat:tools.namespace.notes", icon: "book", chat: false, task: false, fixed: false, section: "notes" },
    ];
    renderWithClient(<Routed />, { transport, route: { name: "settings", section: "notes" } });
    const nav = screen.getByRole("navigation", { name: "Settings sections" });
    await waitFor(() => expect(within(nav).getAllByRole("button").map((b) => b.dataset.testid)).toContain("settings-nav-notes"), { timeout: 5000 });
    const ids = within(nav).getAllByRole("button").map((b) => b.dataset.testid);
    expect(ids.indexOf("settings-nav-notes")).toBe(ids.indexOf("settings-nav-tools") - 1);
    expect(await screen.findByTestId("settings-section-notes", {}, { timeout: 5000 })).toBeInTheDocument();
    expect(await screen.findByTestId("setting-notes.folder", {}, { timeout: 5000 })).toBeInTheDocument();
  });

  it("shows General for a page this backend does not have", async () => {
    open("no-such-page");
    expect(await screen.findByTestId("settings-section-general", {}, { timeout: 5000 })).toBeInTheDocument();
  });

  it("moves between sections with the arrow keys", async () => {
    const user = userEvent.setup();
    open("providers");
    screen.getByTestId("settings-nav-providers").focus();
    await user.keyboard("{ArrowDown}");
    expect(screen.getByTestId("settings-nav-assistants")).toHaveFocus();
    expect(screen.getByTestId("settings-nav-assistants")).toHaveAttribute("aria-current", "page");
    await user.keyboard("{End}");
    expect(screen.getByTestId("settings-nav-about")).toHaveAttribute("aria-current", "page");
  });

  it("permissions shows the backend's mode setting (rules, tester and audit are in src/permissions)", async () => {
    const { backend } = open("permissions");
    const mode = await screen.findByTestId("setting-permissions.defaultMode");
    expect(screen.getByLabelText("Default permission mode")).toBe(mode);
    expect(within(mode).getAllByRole("option").map((o) => o.textContent)).toEqual([
      "Ask before risky tools",
      "Accept file edits, ask for the rest",
      "Auto: a classifier model decides, risky calls ask",
      "Plan only (no changes)",
      "Never ask (dangerous)",
    ]);
    expect(screen.queryByTestId("coming-soon-permissions")).toBeNull();
    fireEvent.change(mode, { target: { value: "plan" } });
    await waitFor(() => expect(backend.values["permissions.defaultMode"]).toBe("plan"));
  });

  it("edits a long string setting in a multi-line field saved with Ctrl+Enter", async () => {
    const user = userEvent.setup();
    const { backend } = open("general");
    const prompt = await screen.findByTestId("setting-chat.defaultSystemPrompt");
    expect(prompt.tagName).toBe("TEXTAREA");
    expect(prompt).toHaveAttribute("maxlength", "20000");
    await user.type(prompt, "Be brief.{Enter}Cite sources.");
    expect(backend.values["chat.defaultSystemPrompt"]).toBe(""); // Enter is a newline here
    await user.keyboard("{Control>}{Enter}{/Control}");
    await waitFor(() => expect(backend.values["chat.defaultSystemPrompt"]).toBe("Be brief.\nCite sources."));
    const send = screen.getByTestId("setting-chat.sendOnEnter");
    expect(send).toBeChecked();
    expect(screen.getByLabelText("Send with Enter")).toBe(send);
  });

  it("renders General: language, theme, data directory and generic fields from specs", async () => {
    open("general");
    const language = await screen.findByTestId("setting-general.language");
    expect(language).toHaveValue("system");
    expect(within(language).getAllByRole("option").map((o) => o.textContent)).toEqual(["System", "English", "简体中文"]);
    expect(screen.getByLabelText("Language")).toBe(language);
    const theme = screen.getByTestId("setting-general.theme");
    expect(within(theme).getAllByRole("option").map((o) => o.textContent)).toEqual(["System", "Light", "Dark"]);
    await waitFor(() => expect(screen.getByTestId("data-dir")).toHaveTextContent("/home/u/.config/cairn"));
    const rounds = screen.getByTestId("setting-chat.maxToolRounds");
    expect(rounds).toHaveAttribute("type", "number");
    expect(rounds).toHaveValue(8);
    expect(screen.getByLabelText("Maximum tool rounds")).toBe(rounds);
    expect(rounds).toHaveAccessibleDescription(/From 1 to 50/);
  });

  it("saves an enum on change and shows the backend's value", async () => {
    const { backend } = open("general");
    const theme = await screen.findByTestId("setting-general.theme");
    fireEvent.change(theme, { target: { value: "dark" } });
    await waitFor(() => expect(backend.values["general.theme"]).toBe("dark"));
    expect(theme).toHaveValue("dark");
  });

  it("saves an int on Enter and shows a localized setting_invalid error under the field", async () => {
    const user = userEvent.setup();
    const { backend } = open("general");
    const rounds = await screen.findByTestId("setting-chat.maxToolRounds");
    await user.clear(rounds);
    await user.type(rounds, "12{Enter}");
    await waitFor(() => expect(backend.values["chat.maxToolRounds"]).toBe(12));

    await user.clear(rounds);
    await user.type(rounds, "500{Enter}");
    const err = await screen.findByTestId("error-view");
    expect(err).toHaveTextContent("Invalid value for Maximum tool rounds: must be between 1 and 50");
    expect(backend.values["chat.maxToolRounds"]).toBe(12);
    expect(rounds).toHaveValue(12); // reverted to what the backend has
  });

  it("edits the stall timeouts as durations and names a value that is not one", async () => {
    const user = userEvent.setup();
    const { backend } = open("general");
    const idle = await screen.findByTestId("setting-chat.streamIdleTimeout");
    expect(idle).toHaveValue("60s");
    expect(screen.getByText(/How long an answer may pause between chunks.*From 1s to 1h/)).toBeInTheDocument();
    await user.clear(idle);
    await user.type(idle, "90s{Enter}");
    await waitFor(() => expect(backend.values["chat.streamIdleTimeout"]).toBe("90s"));
    await user.clear(idle);
    await user.type(idle, "soon{Enter}");
    expect(await screen.findByTestId("error-view")).toHaveTextContent("Stream idle timeout must be a duration such as 90s or 2m.");
    expect(backend.values["chat.streamIdleTimeout"]).toBe("90s");
  });

  it("shows a change made in another window", async () => {
    const backend = new FakeBackend();
    open("general", backend);
    const language = await screen.findByTestId("setting-general.language");
    const other = backend.window(); // second window on the same backend
    await act(async () => {
      await other.call("SetSetting", "general.language", "en");
    });
    expect(language).toHaveValue("en");
  });

  it("renders any spec generically: bools, strings, specs of other sections and of unknown sections", async () => {
    const backend = new FakeBackend([
      ...SPECS,
      { key: "permissions.askForReads", type: "bool", default: false, section: "permissions" },
      { key: "search.region", type: "string", default: "", section: "web-search" },
      { key: "ui.fontScale", type: "int", default: 100, min: 80, max: 150, section: "appearance" },
    ]);
    const user = userEvent.setup();
    open("permissions", backend);
    const sw = await screen.findByTestId("setting-permissions.askForReads");
    expect(sw).toHaveAttribute("role", "switch");
    await user.click(sw);
    await waitFor(() => expect(backend.values["permissions.askForReads"]).toBe(true));
    await waitFor(() => expect(sw).not.toHaveAttribute("aria-busy"));
    expect(screen.getByLabelText("Ask for reads")).toBe(sw);

    await user.click(screen.getByTestId("settings-nav-web-search"));
    const region = screen.getByTestId("setting-search.region");
    await user.type(region, "cn");
    await user.tab(); // leaving the field saves it
    await waitFor(() => expect(backend.values["search.region"]).toBe("cn"));
    await waitFor(() => expect(region).not.toHaveAttribute("aria-busy"));

    await user.click(screen.getByTestId("settings-nav-general"));
    expect(screen.getByRole("heading", { name: "Appearance" })).toBeInTheDocument();
    expect(screen.getByTestId("setting-ui.fontScale")).toHaveValue(100);
  });

  it("About shows the version, the doctor report and that keys are in a file", async () => {
    open("about");
    const facts = await screen.findByTestId("about-facts");
    await waitFor(() => expect(facts).toHaveTextContent("0.1.0"));
    expect(facts).toHaveTextContent("abc1234");
    expect(facts).toHaveTextContent("Browser (cairn serve)");
    expect(facts).toHaveTextContent("linux/amd64 · go1.26.8");
    const report = screen.getByTestId("doctor-report");
    await waitFor(() => expect(within(report).getByTestId("doctor-check-database")).toHaveTextContent("schema 1"));
    await waitFor(() => expect(report).toHaveAttribute("aria-busy", "false"));
    // an optional check that failed is a note, not a problem
    expect(within(report).getByTestId("doctor-check-keyring")).toHaveClass("is-warn");
    expect(within(report).getByTestId("doctor-check-path:npx")).toHaveTextContent("npx on PATHOK/usr/bin/npx") // OK: the visually hidden state;
    expect(within(report).getByTestId("doctor-summary")).toHaveTextContent("Cairn is usable; some optional checks have notes.");
    expect(await screen.findByTestId("keyring-status")).toHaveTextContent(
      "Keys are stored in a local file, not the system keyring.",
    );
  });

  it("About says the checks' details and the keyring note in the window's language", async () => {
    const backend = new FakeBackend();
    renderWithClient(<SettingsPage section="about" />, { transport: backend.window(), lng: "zh-CN" });
    const report = await screen.findByTestId("doctor-report");
    await waitFor(() => expect(within(report).getByTestId("doctor-check-path:uvx")).toHaveTextContent("PATH 中没有 uvx"));
    expect(within(report).getByTestId("doctor-check-keyring")).toHaveTextContent(
      "密钥保存在本地文件中，而不是系统钥匙串（/home/u/.config/cairn/secrets.json）；原因：no Secret Service",
    );
    expect(report).not.toHaveTextContent("executable file not found");
    expect(await screen.findByTestId("keyring-status")).toHaveTextContent("由 CAIRN_SECRETS=file 指定。");
  });

  it("About shows the app icon and who owns the data directory, counted again on Run again", async () => {
    const user = userEvent.setup();
    const backend = new FakeBackend();
    open("about", backend);
    const facts = await screen.findByTestId("about-facts");
    await waitFor(() => expect(facts).toHaveTextContent(/Backendcairn serve, PID 4242, since .+ · windows attached: 2/));
    const icon = screen.getByTestId("about-icon");
    expect(icon.tagName).toBe("IMG");
    expect(icon.getAttribute("src")).toMatch(/appicon.*\.png|^data:image\/png/);
    expect(screen.getByRole("heading", { level: 3, name: "Cairn" })).toContainElement(icon);
    backend.owner = { ...backend.owner, kind: "desktop", pid: 7, windows: 3 };
    await user.click(within(screen.getByTestId("doctor-report")).getByRole("button", { name: "Run again" }));
    await waitFor(() => expect(facts).toHaveTextContent(/Cairn desktop app, PID 7, since .+ · windows attached: 3/));
  });

  it("About leaves the owner line out when no process owns the data directory", async () => {
    const backend = new FakeBackend();
    backend.owner = { kind: "", pid: 0, since: 0, windows: 0, clients: 0 };
    open("about", backend);
    const facts = await screen.findByTestId("about-facts");
    await waitFor(() => expect(facts).toHaveTextContent("0.1.0"));
    expect(facts).not.toHaveTextContent("Backend");
  });

  it("About marks a failed required check as a problem and can run the doctor again", async () => {
    const user = userEvent.setup();
    const backend = new FakeBackend();
    backend.doctorOK = false;
    const { transport } = open("about", backend);
    const report = await screen.findByTestId("doctor-report");
    await waitFor(() => expect(within(report).getByTestId("doctor-check-database")).toHaveClass("is-bad"));
    expect(within(report).getByTestId("doctor-summary")).toHaveTextContent("Some checks found problems.");
    backend.doctorOK = true;
    await user.click(within(report).getByRole("button", { name: "Run again" }));
    await waitFor(() => expect(within(report).getByTestId("doctor-check-database")).toHaveClass("is-ok"));
    expect(transport.count("Doctor")).toBe(2);
  });

  it("About says the keyring is used when it is", async () => {
    const backend = new FakeBackend();
    backend.secretBackend = "keyring";
    open("about", backend);
    expect(await screen.findByTestId("keyring-status")).toHaveTextContent("Keys are stored in the system keyring.");
  });

  it("Location: the key guide of each map service, only the maps' keys, and the endpoints", async () => {
    const backend = new FakeBackend([...SPECS, { key: "location.endpoint.amap", type: "string", default: "", section: "location" }]);
    backend.secrets = [...backend.secrets, { name: "maps.amap", set: false, known: true }, { name: "maps.google", set: true, last4: "x9Q0", known: true }];
    open("location", backend);
    expect(await screen.findByRole("heading", { level: 2, name: "Location" })).toBeInTheDocument();
    const guide = screen.getByTestId("location-key-guide");
    expect(within(guide).getByTestId("location-guide-amap")).toHaveTextContent("pick the Web Service platform");
    expect(within(guide).getByTestId("location-guide-google")).toHaveTextContent("enable the Geocoding API, Places API, Directions API");
    expect(within(guide).getByRole("link", { name: "Open lbs.amap.com" })).toHaveAttribute("href", "https://lbs.amap.com/");
    expect(await screen.findByTestId("secret-maps.amap")).toHaveTextContent("Not set");
    expect(screen.getByTestId("secret-maps.google")).toHaveTextContent("ends in x9Q0");
    expect(screen.queryByTestId("secret-websearch.tavily")).toBeNull();
    expect(screen.getByText("Amap endpoint")).toBeInTheDocument();
  });

  it("stores and removes a key without ever showing its value", async () => {
    const user = userEvent.setup();
    const { backend } = open("web-search");
    const row = await screen.findByTestId("secret-websearch.tavily");
    expect(row).toHaveTextContent("Not set");
    await user.click(within(row).getByRole("button", { name: "Set key" }));
    const input = within(row).getByLabelText("New value for websearch.tavily");
    expect(input).toHaveAttribute("type", "password");
    await user.type(input, "tvly-secret-abcd{Enter}");
    await waitFor(() => expect(screen.getByTestId("secret-websearch.tavily")).toHaveTextContent("Set · ends in abcd"));
    expect(document.body.textContent).not.toContain("tvly-secret");

    await user.click(within(screen.getByTestId("secret-websearch.brave")).getByRole("button", { name: "Remove" }));
    const dialog = screen.getByRole("alertdialog", { name: "Remove websearch.brave?" });
    expect(within(dialog).getByRole("button", { name: "Cancel" })).toHaveFocus();
    await user.click(within(dialog).getByRole("button", { name: "Remove" }));
    await waitFor(() => expect(screen.getByTestId("secret-websearch.brave")).toHaveTextContent("Not set"));
    expect(backend.secrets.find((s) => s.name === "websearch.brave")?.set).toBe(false);
  });

  it("shows a localized error when a key cannot be saved", async () => {
    const user = userEvent.setup();
    open("web-search");
    const row = await screen.findByTestId("secret-websearch.tavily");
    await user.click(within(row).getByRole("button", { name: "Set key" }));
    await user.click(within(row).getByRole("button", { name: "Save" }));
    expect(await within(row).findByTestId("error-view")).toHaveTextContent("The secret is empty; nothing was saved.");
  });
});
