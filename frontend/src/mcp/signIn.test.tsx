import { act, configure, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { browserApi, type AppError, type McpServerView, type Transport } from "../api";
import { ErrorView } from "../components/ErrorView";
import { SettingsPage } from "../settings/SettingsPage";
import { FakeBackend } from "../test/fakeTransport";
import { renderWithClient } from "../test/render";

configure({ asyncUtilTimeout: 5000 });
vi.setConfig({ testTimeout: 30_000 });

/** A tab window.open hands back: records where it was sent. */
function fakeTab() {
  return { closed: false, opener: {} as unknown, location: { href: "about:blank" }, close: vi.fn() };
}

function openWindow(tab: ReturnType<typeof fakeTab> | null) {
  return vi.spyOn(window, "open").mockImplementation(() => tab as unknown as Window);
}

afterEach(() => vi.restoreAllMocks());

function remote(backend: FakeBackend, over: Partial<McpServerView> = {}) {
  const s = backend.mcp.addServer({ name: "linear", transport: "http", command: undefined, args: undefined, url: "https://mcp.linear.app/mcp" });
  s.status = { state: "needs-sign-in", since: 1, error: backend.mcp.authRequired(s) };
  Object.assign(s, over);
  return s;
}

function open(backend: FakeBackend, lng: "en" | "zh-CN" = "en") {
  const transport = backend.window();
  renderWithClient(<SettingsPage section="mcp" />, { transport, route: { name: "settings", section: "mcp" }, lng });
  return { transport, user: userEvent.setup() };
}

const card = async () => (await screen.findAllByTestId("mcp-server-item")).find((x) => x.dataset.serverName === "linear")!;

describe("MCP sign-in", () => {
  it("shows needs-sign-in with a Sign in button; opened:true leaves the prepared tab closed and waits for the browser", async () => {
    const backend = new FakeBackend();
    backend.mcp.signInOpened = true;
    const s = remote(backend);
    const tab = fakeTab();
    const winOpen = openWindow(tab);
    const { transport, user } = open(backend);
    const el = await card();
    expect(within(el).getByTestId("mcp-status")).toHaveAttribute("data-state", "needs-sign-in");
    expect(within(el).getByTestId("mcp-status")).toHaveTextContent("Needs sign-in");
    // the error says why; its sign-in action is the card's own button, not repeated
    expect(within(el).getByTestId("error-view")).toHaveAttribute("data-error-code", "mcp_auth_required");
    expect(within(el).queryByTestId("error-sign-in")).toBeNull();

    await user.click(within(el).getByTestId("mcp-sign-in"));
    expect(transport.calls.filter((c) => c.method === "AuthorizeMCPServer").map((c) => c.args)).toEqual([[s.id]]);
    expect(winOpen).toHaveBeenCalledTimes(1); // synchronously in the click
    await waitFor(() => expect(tab.close).toHaveBeenCalled());
    expect(tab.location.href).toBe("about:blank");

    const pending = await within(el).findByTestId("mcp-sign-in-pending");
    expect(pending).toHaveTextContent("Waiting for the browser…");
    expect(within(pending).getByTestId("mcp-sign-in-link")).toHaveAttribute("href", expect.stringContaining("https://auth.example.com/authorize"));

    act(() => backend.mcp.completeSignIn(s.id, { renewable: true }));
    const signedIn = await within(el).findByTestId("mcp-signed-in");
    expect(signedIn).toHaveTextContent(/Signed in · valid until .+ · renews automatically/);
    expect(within(el).getByTestId("mcp-status")).toHaveAttribute("data-state", "ready");
  });

  it("opened:false sends the tab opened during the click to the authorization page", async () => {
    const backend = new FakeBackend();
    remote(backend);
    const tab = fakeTab();
    openWindow(tab);
    const { user } = open(backend);
    const el = await card();
    await user.click(within(el).getByTestId("mcp-sign-in"));
    await waitFor(() => expect(tab.location.href).toMatch(/^https:\/\/auth\.example\.com\/authorize/));
    expect(tab.opener).toBeNull();
    expect(tab.close).not.toHaveBeenCalled();
  });

  it("a blocked tab leaves the page as a link", async () => {
    const backend = new FakeBackend();
    remote(backend);
    openWindow(null);
    const { user } = open(backend);
    const el = await card();
    await user.click(within(el).getByTestId("mcp-sign-in"));
    expect(await within(el).findByTestId("mcp-sign-in-link")).toHaveAttribute("href", expect.stringContaining("auth.example.com"));
  });

  it("cancels a sign-in that waits for the browser", async () => {
    const backend = new FakeBackend();
    const s = remote(backend);
    backend.mcp.authorize(s.id);
    const { transport, user } = open(backend);
    const el = await card();
    await user.click(await within(el).findByTestId("mcp-sign-in-cancel"));
    expect(transport.calls.filter((c) => c.method === "CancelMCPAuthorization").map((c) => c.args)).toEqual([[s.id]]);
    expect(await within(el).findByTestId("mcp-sign-in")).toBeInTheDocument();
    expect(within(el).queryByTestId("mcp-sign-in-pending")).toBeNull();
  });

  it("shows a signed-in server with its expiry and signs it out", async () => {
    const backend = new FakeBackend();
    const s = remote(backend);
    s.status = { state: "ready", since: 1, oauth: { signedIn: true, expiresAt: Date.UTC(2030, 0, 2, 3, 4), renewable: false } };
    const { transport, user } = open(backend);
    const el = await card();
    const signedIn = within(el).getByTestId("mcp-signed-in");
    expect(signedIn).toHaveTextContent(/Signed in · valid until .*2030/);
    expect(signedIn).not.toHaveTextContent("renews automatically");
    await user.click(within(el).getByTestId("mcp-sign-out"));
    expect(transport.calls.filter((c) => c.method === "SignOutMCPServer").map((c) => c.args)).toEqual([[s.id]]);
    await waitFor(() => expect(within(el).getByTestId("mcp-status")).toHaveAttribute("data-state", "needs-sign-in"));
    expect(within(el).getByTestId("mcp-sign-in")).toBeInTheDocument();
  });

  it("speaks Chinese", async () => {
    const backend = new FakeBackend();
    remote(backend);
    open(backend, "zh-CN");
    const el = await card();
    expect(within(el).getByTestId("mcp-status")).toHaveTextContent("需要登录");
    expect(within(el).getByTestId("mcp-sign-in")).toHaveTextContent("登录");
  });
});

describe("ErrorView with an mcp-sign-in action", () => {
  const needsSignIn = (serverId: string): AppError => ({
    code: "mcp_auth_required",
    i18nKey: "errors.mcp_auth_required",
    params: { server: "linear", serverId },
    message: "mcp server linear needs a sign-in",
    action: { kind: "mcp-sign-in", target: serverId },
  });

  it("offers Sign in wherever the error shows, and opens the page", async () => {
    const backend = new FakeBackend();
    const s = remote(backend);
    const tab = fakeTab();
    openWindow(tab);
    const transport = backend.window();
    renderWithClient(<ErrorView error={needsSignIn(s.id)} compact />, { transport, ready: null });
    const user = userEvent.setup();
    await user.click(screen.getByRole("button", { name: "Sign in" }));
    expect(transport.calls.filter((c) => c.method === "AuthorizeMCPServer").map((c) => c.args)).toEqual([[s.id]]);
    await waitFor(() => expect(tab.location.href).toMatch(/^https:\/\/auth\.example\.com\//));
  });

  it("shows the link when no tab could open, and the error of a failed start", async () => {
    const backend = new FakeBackend();
    const s = remote(backend);
    openWindow(null);
    const transport = backend.window();
    renderWithClient(
      <>
        <ErrorView error={needsSignIn(s.id)} />
        <ErrorView error={needsSignIn("gone")} />
      </>,
      { transport, ready: null, lng: "zh-CN" },
    );
    const user = userEvent.setup();
    const [first, second] = screen.getAllByTestId("error-view");
    await user.click(within(first!).getByRole("button", { name: "登录" }));
    expect(await within(first!).findByTestId("error-sign-in-link")).toHaveAttribute("href", expect.stringContaining("auth.example.com"));
    await user.click(within(second!).getByRole("button", { name: "登录" }));
    await waitFor(() => expect(second).toHaveTextContent("gone"));
  });

  it("lets the caller handle the action instead", async () => {
    const onAction = vi.fn();
    renderWithClient(<ErrorView error={needsSignIn("mcp9")} onAction={onAction} />, { transport: new FakeBackend().window(), ready: null });
    await userEvent.setup().click(screen.getByRole("button", { name: "Sign in" }));
    expect(onAction).toHaveBeenCalledWith({ kind: "mcp-sign-in", target: "mcp9" });
  });
});

describe("browserApi", () => {
  const t = (kind: string) => ({ kind }) as unknown as Transport;

  it("opens pages in the system browser in the desktop window", () => {
    const BrowserOpenURL = vi.fn();
    const w = { runtime: { EventsOn: vi.fn(), BrowserOpenURL }, open: vi.fn() } as unknown as Window;
    const page = browserApi(t("wails"), w).prepare();
    expect(w.open).not.toHaveBeenCalled();
    expect(page.show("https://auth.example.com/a")).toBe(true);
    expect(BrowserOpenURL).toHaveBeenCalledWith("https://auth.example.com/a");
  });

  it("says so when nothing can open the page", () => {
    const w = { open: vi.fn(() => null) } as unknown as Window;
    expect(browserApi(t("http"), w).prepare().show("https://x")).toBe(false);
    expect(browserApi(t("wails"), {} as Window).prepare().show("https://x")).toBe(false);
  });
});

describe("Secrets list", () => {
  it("leaves out the names MCP and the providers manage", async () => {
    const backend = new FakeBackend();
    backend.secrets.push({ name: "mcp.mcp1.oauth.token", set: true, last4: "1234", known: false });
    backend.secrets.push({ name: "provider.p1.apiKey", set: true, last4: "5678", known: false });
    renderWithClient(<SettingsPage section="web-search" />, { transport: backend.window(), route: { name: "settings", section: "web-search" } });
    expect(await screen.findByTestId("secret-websearch.tavily")).toBeInTheDocument();
    expect(screen.queryByTestId("secret-mcp.mcp1.oauth.token")).toBeNull();
    expect(screen.queryByTestId("secret-provider.p1.apiKey")).toBeNull();
  });
});
