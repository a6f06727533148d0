import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it } from "vitest";
import type { Provider } from "../api";
import { App } from "../shell/App";
import { model } from "../test/fakeChat";
import { FakeBackend } from "../test/fakeTransport";
import { mockLayout } from "../test/layout";
import { renderWithClient } from "../test/render";

const PROVIDER: Provider = {
  id: "prov1", name: "OpenAI", preset: "openai", baseUrl: "https://api.openai.com/v1", models: [model("gpt-4.1")],
  defaultModel: "gpt-4.1", needsKey: true, keySet: true, keyLast4: "abcd", dialect: {}, reasoningControls: {}, createdAt: 1, updatedAt: 1,
};

beforeEach(() => mockLayout());

function setup() {
  const backend = new FakeBackend();
  backend.chat.providers.push({ ...PROVIDER });
  const docs = backend.mcp.addServer({ name: "docs" });
  backend.mcp.resources.set(docs.id, [
    { uri: "docs://guide/install", name: "install", title: "Installing", description: "How to install", mimeType: "text/markdown", text: "# Install\nrun make\n" },
    { uri: "docs://guide/upgrade", name: "upgrade", mimeType: "text/markdown", text: "# Upgrade\n" },
  ]);
  const off = backend.mcp.addServer({ name: "offline", enabled: false, status: { state: "disabled", since: 1 } });
  backend.mcp.resources.set(off.id, [{ uri: "off://x", name: "hidden", text: "x" }]);
  const session = backend.chat.addSession({ title: "Resources" });
  const r = renderWithClient(<App />, { transport: backend.window(), route: { name: "session", id: session.id } });
  return { backend, docs, session, w: within(r.container) };
}

describe("attaching an MCP resource from the composer", () => {
  it("lists the enabled servers' resources, filters them, and sends the chosen one with its source as a chip", async () => {
    const user = userEvent.setup();
    const { backend, docs, session, w } = setup();
    await w.findByTestId("composer-input");
    const button = w.getByTestId("resource-button");
    expect(button).toHaveAccessibleName("Attach an MCP resource");
    await user.click(button);
    expect(button).toHaveAttribute("aria-expanded", "true");
    const menu = await w.findByTestId("resource-menu");
    const list = within(menu).getByRole("listbox", { name: "Resources of the MCP servers" });
    await waitFor(() => expect(within(list).getAllByRole("option")).toHaveLength(2));
    expect(list).toHaveTextContent("docs/Installing");
    expect(list).toHaveTextContent("docs://guide/install");
    expect(list).not.toHaveTextContent("hidden"); // a disabled server is not asked
    // The search field has the focus; typing filters by name, URI or description.
    expect(within(menu).getByRole("searchbox", { name: "Search resources" })).toHaveFocus();
    await user.keyboard("upgr");
    await waitFor(() => expect(within(list).getAllByRole("option")).toHaveLength(1));
    await user.clear(within(menu).getByRole("searchbox"));
    await user.type(within(menu).getByRole("searchbox"), "how to");
    await waitFor(() => expect(within(list).getAllByRole("option")).toHaveLength(1));
    await user.click(within(list).getByRole("button", { name: /Installing/ }));
    expect(w.queryByTestId("resource-menu")).toBeNull();

    const draft = await w.findByTestId("attach-draft");
    await waitFor(() => expect(draft.dataset.state).toBe("ready"));
    expect(draft).toHaveTextContent("Installing.txt");
    expect(draft).toHaveTextContent("docs");
    expect(draft).toHaveAttribute("title", "From docs: docs://guide/install");

    await user.type(w.getByTestId("composer-input"), "Follow this{Enter}");
    await waitFor(() => expect(backend.chat.sent).toHaveLength(1));
    const sent = backend.chat.sent[0]!;
    expect(sent).toMatchObject({ sessionId: session.id, text: "Follow this" });
    expect(sent.attachments).toEqual([
      expect.objectContaining({ name: "Installing.txt", source: { serverId: docs.id, server: "docs", uri: "docs://guide/install" } }),
    ]);

    const chip = await w.findByTestId("attachment-chip");
    expect(chip).toHaveAttribute("data-source", "docs://guide/install");
    expect(chip).toHaveAttribute("title", "From docs: docs://guide/install");
    expect(chip).toHaveTextContent("docs");
    await user.click(chip);
    const dialog = await screen.findByRole("dialog", { name: "Installing.txt" });
    expect(dialog).toHaveTextContent("From docs: docs://guide/install");
    expect(await within(dialog).findByLabelText("Text of Installing.txt")).toHaveTextContent("# Install run make");
  });

  it("shows a resource the server refuses as not attached, and Esc closes the menu", async () => {
    const user = userEvent.setup();
    const { backend, docs, w } = setup();
    await w.findByTestId("composer-input");
    await user.click(w.getByTestId("resource-button"));
    await w.findByTestId("resource-menu");
    await user.keyboard("{Escape}");
    await waitFor(() => expect(w.queryByTestId("resource-menu")).toBeNull());
    expect(w.getByTestId("composer-input")).toHaveFocus();

    backend.mcp.resources.set(docs.id, [{ uri: "docs://gone", name: "gone", text: "" }]);
    await user.click(w.getByTestId("resource-button"));
    const menu = await w.findByTestId("resource-menu");
    backend.mcp.resources.set(docs.id, []); // gone by the time it is read
    await user.click(await within(menu).findByRole("button", { name: /gone/ }));
    const draft = await w.findByTestId("attach-draft");
    await waitFor(() => expect(draft.dataset.state).toBe("error"));
    expect(draft).toHaveTextContent("Not attached");
    expect(draft).toHaveTextContent("The MCP server docs refused resources/read docs://gone: not found");
  });
});
