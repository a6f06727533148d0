import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { FakeBackend, FakeTransport } from "../test/fakeTransport";
import { renderWithClient } from "../test/render";
import { App } from "./App";

describe("App", () => {
  it("marks the body ready after the first settings snapshot and calls Ready once", async () => {
    const backend = new FakeBackend();
    renderWithClient(<App />, { transport: backend.window() });
    expect(document.body.dataset.ready).toBeUndefined();
    expect(screen.getByRole("status")).toHaveTextContent("Starting Cairn…");
    await waitFor(() => expect(document.body.dataset.ready).toBe("1"));
    expect(backend.readyCalls).toEqual(["test-window"]);
    expect(screen.getByRole("main")).toBeInTheDocument();
    expect(screen.getByRole("complementary", { name: "Sidebar" })).toBeInTheDocument();
  });

  it("shows an empty conversation list; New chat creates a session and opens it", async () => {
    const user = userEvent.setup();
    const backend = new FakeBackend();
    renderWithClient(<App />, { transport: backend.window() });
    const list = await screen.findByTestId("session-list");
    await waitFor(() => expect(list).toHaveTextContent("No conversations yet"));
    await user.click(screen.getByTestId("new-chat"));
    expect(await screen.findByTestId("session-view")).toBeInTheDocument();
    expect(backend.chat.sessions).toHaveLength(1);
    expect(window.location.hash).toBe(`#/session/${backend.chat.sessions[0]!.id}`);
    const item = await screen.findByTestId("session-item");
    expect(item).toHaveAttribute("aria-current", "page");
    expect(item).toHaveTextContent("New conversation");
  });

  it("switches the whole UI to Chinese and back through the language setting", async () => {
    const user = userEvent.setup();
    const backend = new FakeBackend();
    renderWithClient(<App />, { transport: backend.window(), route: { name: "settings", section: "general" } });
    const language = await screen.findByTestId("setting-general.language");
    fireEvent.change(language, { target: { value: "zh-CN" } });
    await waitFor(() => expect(screen.getByTestId("settings-nav-general")).toHaveTextContent("通用"));
    expect(document.documentElement.lang).toBe("zh-CN");
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent("设置");
    fireEvent.change(screen.getByTestId("setting-general.language"), { target: { value: "en" } });
    await waitFor(() => expect(screen.getByTestId("settings-nav-general")).toHaveTextContent("General"));
    expect(document.documentElement.lang).toBe("en");
    await user.click(screen.getByTestId("settings-nav-about"));
    expect(screen.getByRole("heading", { level: 2, name: "About" })).toBeInTheDocument();
    expect(screen.getByTestId("settings-nav-about")).toHaveFocus(); // focus stays in the navigation
  });

  it("applies the theme setting to <html data-theme>", async () => {
    const backend = new FakeBackend();
    backend.values["general.theme"] = "dark";
    renderWithClient(<App />, { transport: backend.window() });
    await waitFor(() => expect(document.documentElement.dataset.theme).toBe("dark"));
    await act(async () => {
      await backend.window().call("SetSetting", "general.theme", "light");
    });
    expect(document.documentElement.dataset.theme).toBe("light");
  });

  it("shows the boot error with Retry when settings cannot be loaded", async () => {
    const backend = new FakeBackend();
    const transport = backend.window();
    const real = transport.impl.GetSettings!;
    transport.impl.GetSettings = () => {
      throw { code: "unauthorized", i18nKey: "errors.unauthorized", message: "401" };
    };
    renderWithClient(<App />, { transport });
    const err = await screen.findByTestId("error-view");
    expect(err).toHaveTextContent("Not authorized. Open the address Cairn printed, including its token.");
    transport.impl.GetSettings = real;
    fireEvent.click(within(err).getByRole("button", { name: "Retry" }));
    await waitFor(() => expect(document.body.dataset.ready).toBe("1"));
  });

  it("opens the settings section from the sidebar and from the address hash", async () => {
    const user = userEvent.setup();
    window.location.hash = "#/settings/about";
    renderWithClient(<App />, { transport: new FakeBackend().window() });
    expect(await screen.findByTestId("settings-section-about")).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Cairn · Home" })); // the brand: its text is in its name
    expect(screen.getByTestId("home")).toBeInTheDocument();
    await user.click(screen.getByTestId("open-settings"));
    expect(screen.getByTestId("settings-section-general")).toBeInTheDocument();
    expect(window.location.hash).toBe("#/settings/general");
  });

  it("reloads the snapshot when the event stream reconnects", async () => {
    const backend = new FakeBackend();
    const transport: FakeTransport = backend.window();
    renderWithClient(<App />, { transport, route: { name: "settings", section: "general" } });
    const theme = await screen.findByTestId("setting-general.theme");
    // A change this window never hears about (e.g. while the stream was down)…
    backend.values["general.theme"] = "dark";
    backend.seq += 1;
    // …is picked up on reconnect.
    act(() => transport.reconnect());
    await waitFor(() => expect(theme).toHaveValue("dark"));
  });
});
