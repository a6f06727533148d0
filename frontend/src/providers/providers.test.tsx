import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { useRouter } from "../shell/router";
import { model } from "../test/fakeChat";
import { FakeBackend } from "../test/fakeTransport";
import { renderWithClient } from "../test/render";
import { SettingsPage } from "../settings/SettingsPage";

function Routed() {
  const { route } = useRouter();
  return route.name === "settings" ? <SettingsPage section={route.section} /> : <output data-testid="route">{JSON.stringify(route)}</output>;
}

function open(backend = new FakeBackend()) {
  const transport = backend.window();
  const r = renderWithClient(<Routed />, { transport, route: { name: "settings", section: "providers" } });
  return { ...r, backend, transport, user: userEvent.setup() };
}

const SECRET = "sk-test-abcdefgh12345678WXYZ";

/** Every text a user can see or read back from the form: text content and control values. */
function visibleText(): string {
  const values = Array.from(document.querySelectorAll("input, textarea, select")).map((e) => (e as HTMLInputElement).value);
  return `${document.body.textContent ?? ""}\n${values.join("\n")}`;
}

describe("Settings → Providers", () => {
  it("adds a provider from a preset; the key is sent once and never shown", async () => {
    const { backend, transport, user } = open();
    expect(await screen.findByTestId("providers-empty")).toHaveTextContent("No providers yet");
    await user.click(screen.getByTestId("provider-add"));
    await user.click(await screen.findByTestId("preset-openai"));
    const form = screen.getByTestId("provider-form");
    expect(within(form).getByTestId("provider-name")).toHaveValue("OpenAI");
    expect(within(form).getByTestId("provider-base-url")).toHaveValue("https://api.openai.com/v1");
    const key = within(form).getByTestId("provider-key");
    expect(key).toHaveAttribute("type", "password");
    expect(key).toHaveValue("");
    expect(within(form).getByTestId("provider-key-status")).toHaveTextContent("No key set");
    expect(within(form).getAllByTestId("model-row").map((r) => r.dataset.model)).toEqual(["gpt-4.1", "gpt-4.1-mini"]);
    await user.type(key, SECRET);
    await user.click(within(form).getByTestId("provider-save"));

    const card = await screen.findByTestId("provider-card");
    expect(backend.chat.keys.get(backend.chat.providers[0]!.id)).toBe(SECRET);
    const save = transport.calls.find((c) => c.method === "SaveProvider")!;
    expect(save.args[0]).toMatchObject({ name: "OpenAI", preset: "openai", apiKey: SECRET, defaultModel: "gpt-4.1" });
    expect(within(card).getByTestId("provider-key-badge")).toHaveTextContent("Key set · ends in WXYZ");
    expect(visibleText()).not.toContain(SECRET);

    // Editing later shows the status, never the key, and saving without typing keeps it.
    await user.click(within(card).getByTestId("provider-edit"));
    const edit = screen.getByTestId("provider-form");
    expect(within(edit).getByTestId("provider-key")).toHaveValue("");
    expect(within(edit).getByTestId("provider-key-status")).toHaveTextContent("Key set · ends in WXYZ");
    expect(visibleText()).not.toContain(SECRET);
    await user.click(within(edit).getByTestId("provider-save"));
    await waitFor(() => expect(screen.queryByTestId("provider-form")).toBeNull());
    const second = transport.calls.filter((c) => c.method === "SaveProvider")[1]!;
    expect(second.args[0]).not.toHaveProperty("apiKey");
    expect(backend.chat.keys.get(backend.chat.providers[0]!.id)).toBe(SECRET);
  });

  it("says where keys go and what saving will do with a typed key", async () => {
    for (const [where, hint, help] of [
      ["file", /kept in a file only your user can read/, /stored in a local file/],
      ["keyring", /kept in the system keyring/, /stored in the keyring/],
    ] as const) {
      const backend = new FakeBackend();
      backend.secretBackend = where;
      const { user, unmount } = open(backend);
      expect(await screen.findByTestId("providers-empty")).toHaveTextContent(hint);
      await user.click(screen.getByTestId("provider-add"));
      await user.click(await screen.findByTestId("preset-ollama"));
      const form = screen.getByTestId("provider-form");
      const status = within(form).getByTestId("provider-key-status");
      expect(status).toHaveTextContent("No key needed");
      expect(form).toHaveTextContent(help);
      await user.type(within(form).getByTestId("provider-key"), "sk-local-1234");
      expect(status).toHaveTextContent("Key will be saved");
      expect(status).not.toHaveTextContent("No key needed");
      await user.clear(within(form).getByTestId("provider-key"));
      expect(status).toHaveTextContent("No key needed");
      unmount();
    }
  });

  it("sets a provider's proxy and custom headers; a secret header's value is sent once and never shown", async () => {
    const { backend, transport, user } = open();
    await user.click(await screen.findByTestId("provider-add"));
    await user.click(await screen.findByTestId("preset-ollama"));
    const form = screen.getByTestId("provider-form");
    const network = within(form).getByTestId("provider-network");
    await user.click(within(network).getByText("Connection: headers and proxy"));
    await user.selectOptions(within(network).getByTestId("provider-proxy"), "url");
    const url = within(network).getByTestId("provider-proxy-url");
    await user.clear(url);
    await user.type(url, "http://127.0.0.1:3128");
    await user.click(within(network).getByTestId("provider-header-add"));
    await user.type(within(network).getByTestId("provider-header-name"), "X-Org");
    await user.type(within(network).getByTestId("provider-header-value"), "org-secret-42");
    await user.click(within(network).getByTestId("provider-header-secret"));
    expect(within(network).getByTestId("provider-header-value")).toHaveAttribute("type", "password");
    await user.click(within(form).getByTestId("provider-save"));

    await screen.findByTestId("provider-card");
    const save = transport.calls.find((c) => c.method === "SaveProvider")!;
    expect(save.args[0]).toMatchObject({ proxy: "http://127.0.0.1:3128", headers: [{ name: "X-Org", value: "org-secret-42", secret: true }] });
    expect(backend.chat.providers[0]!.headers).toEqual([{ name: "X-Org", secret: true, set: true }]);

    await user.click(screen.getByTestId("provider-edit"));
    const again = within(screen.getByTestId("provider-form")).getByTestId("provider-network");
    expect(again).toHaveAttribute("open");
    expect(within(again).getByTestId("provider-header-value")).toHaveValue("");
    expect(within(again).getByTestId("provider-header-value")).toHaveAttribute("placeholder", "Stored — leave empty to keep it");
    expect(within(again).getByTestId("provider-proxy-url")).toHaveValue("http://127.0.0.1:3128");
    expect(visibleText()).not.toContain("org-secret-42");
    await user.selectOptions(within(again).getByTestId("provider-proxy"), "none");
    await user.click(within(screen.getByTestId("provider-form")).getByTestId("provider-save"));
    await waitFor(() => expect(backend.chat.providers[0]!.proxy).toBe("none"));
    const second = transport.calls.filter((c) => c.method === "SaveProvider")[1]!;
    expect(second.args[0]).toMatchObject({ headers: [{ name: "X-Org", value: "", secret: true }] }); // empty keeps the stored value
  });

  it("edits models: capabilities, context window, manual add, default, and fetch from /v1/models", async () => {
    const backend = new FakeBackend();
    backend.chat.providers.push({
      id: "p1", name: "Local", preset: "custom", baseUrl: "http://127.0.0.1:9/v1", models: [model("m-a", { source: "manual" })],
      defaultModel: "m-a", needsKey: false, keySet: false, dialect: {}, reasoningControls: {}, createdAt: 1, updatedAt: 1,
    });
    const { transport, user } = open(backend);
    await user.click(await screen.findByTestId("provider-edit"));
    const form = screen.getByTestId("provider-form");
    const row = within(form).getAllByTestId("model-row")[0]!;
    await user.click(within(row).getByTestId("model-vision"));
    const ctx = within(row).getByLabelText("Context window of m-a in tokens");
    expect(ctx).toHaveValue(128000);
    await user.clear(ctx);
    await user.type(ctx, "32768");
    await user.type(within(form).getByTestId("model-add-input"), "my-model{Enter}");
    await user.click(within(form).getByLabelText("Use my-model by default"));
    await user.click(within(form).getByTestId("provider-fetch-models"));
    await waitFor(() => expect(within(form).getAllByTestId("model-row").map((r) => r.dataset.model)).toEqual(["m-a", "my-model", "fetched-a", "fetched-b"]));
    // unsaved edits were saved before fetching
    const saved = transport.calls.find((c) => c.method === "SaveProvider")!.args[0] as { models: { id: string; vision: boolean; contextWindow: number }[]; defaultModel: string };
    expect(saved.models[0]).toMatchObject({ id: "m-a", vision: true, contextWindow: 32768 });
    expect(saved.models[1]).toMatchObject({ id: "my-model", source: "manual", supportsTools: true });
    expect(saved.defaultModel).toBe("my-model");
    expect(screen.getByRole("status")).toHaveTextContent("4 models");
  });

  it("sets a model's reasoning where the provider has controls, and shows none where it has not", async () => {
    const { transport, user } = open();
    await user.click(await screen.findByTestId("provider-add"));
    await user.click(await screen.findByTestId("preset-deepseek"));
    const form = screen.getByTestId("provider-form");
    const row = within(form).getAllByTestId("model-row")[0]!;
    const effort = within(row).getByRole("combobox", { name: "Reasoning of deepseek-chat" });
    expect(within(effort).getAllByRole("option").map((o) => o.textContent)).toEqual(["Provider default", "Off", "Low", "High", "Maximum"]);
    await user.selectOptions(effort, "high");
    await user.type(within(form).getByTestId("provider-key"), "sk-deepseek-12345678");
    await user.click(within(form).getByTestId("provider-save"));
    await screen.findByTestId("provider-card");
    const save = transport.calls.find((c) => c.method === "SaveProvider")!.args[0] as { models: { id: string; reasoningEffort?: string }[] };
    expect(save.models[0]).toMatchObject({ id: "deepseek-chat", reasoningEffort: "high" });
    expect(save.models[1]!.reasoningEffort).toBeUndefined();

    await user.click(screen.getByTestId("provider-add"));
    await user.click(await screen.findByTestId("preset-openai"));
    expect(within(screen.getByTestId("provider-form")).queryAllByTestId("model-reasoning-choice")).toHaveLength(0);
  });

  it("tests a provider: shows the reply, or the localized error with a way out", async () => {
    const backend = new FakeBackend();
    backend.chat.providers.push(
      { id: "ok", name: "Good", preset: "openai", baseUrl: "https://x/v1", models: [model("gpt-4.1")], defaultModel: "gpt-4.1", needsKey: true, keySet: true, keyLast4: "1234", dialect: {}, reasoningControls: {}, createdAt: 1, updatedAt: 1 },
      { id: "bad", name: "Bad", preset: "openai", baseUrl: "https://y/v1", models: [model("gpt-4.1")], defaultModel: "gpt-4.1", needsKey: true, keySet: true, keyLast4: "-123", dialect: {}, reasoningControls: {}, createdAt: 2, updatedAt: 2 },
    );
    backend.chat.keys.set("bad", "bad-key-123");
    const { user } = open(backend);
    const [good, bad] = await screen.findAllByTestId("provider-card");
    await user.click(within(good!).getByTestId("provider-test"));
    expect(await within(good!).findByText(/Works: gpt-4.1 answered “OK” in 321 ms/)).toBeInTheDocument();
    await user.click(within(bad!).getByTestId("provider-test"));
    const err = await within(bad!).findByTestId("error-view");
    expect(err).toHaveTextContent("The provider rejected the API key.");
    await user.click(within(err).getByRole("button", { name: "Open Providers settings" }));
  });

  it("deletes a provider after confirmation", async () => {
    const backend = new FakeBackend();
    backend.chat.providers.push({ id: "p1", name: "Gone soon", preset: "ollama", baseUrl: "http://127.0.0.1:11434/v1", models: [], defaultModel: "", needsKey: false, keySet: false, dialect: {}, reasoningControls: {}, createdAt: 1, updatedAt: 1 });
    const { user } = open(backend);
    await user.click(await screen.findByTestId("provider-delete"));
    const dialog = screen.getByRole("alertdialog", { name: "Delete Gone soon?" });
    expect(within(dialog).getByRole("button", { name: "Cancel" })).toHaveFocus();
    await user.click(within(dialog).getByTestId("provider-delete-confirm"));
    expect(await screen.findByTestId("providers-empty")).toBeInTheDocument();
    expect(backend.chat.providers).toHaveLength(0);
  });

  it("asks before the stored key goes to another host", async () => {
    const backend = new FakeBackend();
    backend.chat.providers.push({
      id: "p1", name: "Hosted", preset: "custom", baseUrl: "https://api.example.com/v1", models: [model("m-a")],
      defaultModel: "m-a", needsKey: true, keySet: true, keyLast4: "WXYZ", dialect: {}, reasoningControls: {}, createdAt: 1, updatedAt: 1,
    });
    backend.chat.keys.set("p1", SECRET);
    const { transport, user } = open(backend);
    await user.click(await screen.findByTestId("provider-edit"));
    const form = screen.getByTestId("provider-form");
    const url = within(form).getByTestId("provider-base-url");
    // Another path on the same host asks nothing.
    await user.clear(url);
    await user.type(url, "https://api.example.com/v2");
    expect(within(form).queryByTestId("provider-keep-key")).toBeNull();
    await user.clear(url);
    await user.type(url, "https://proxy.example.net/v1");
    expect(within(form).getByTestId("provider-host-moved")).toHaveTextContent("The stored key was saved for https://api.example.com");
    const keep = within(form).getByRole("checkbox", { name: "Send the stored key to https://proxy.example.net" });
    // Saving without the choice is refused with the localized error, and nothing moves.
    await user.click(within(form).getByTestId("provider-save"));
    expect(await within(form).findByTestId("error-view")).toHaveTextContent("Hosted now points to https://proxy.example.net instead of https://api.example.com");
    expect(backend.chat.providers[0]!.baseUrl).toBe("https://api.example.com/v1");
    await user.click(keep);
    // Agreeing for one address is not agreeing for the next one typed.
    await user.clear(url);
    await user.type(url, "https://other.example.org/v1");
    expect(within(form).getByTestId("provider-keep-key")).not.toBeChecked();
    await user.clear(url);
    await user.type(url, "https://proxy.example.net/v1");
    expect(within(form).getByTestId("provider-keep-key")).toBeChecked(); // the address agreed to
    await user.click(within(form).getByTestId("provider-save"));
    await waitFor(() => expect(screen.queryByTestId("provider-form")).toBeNull());
    const saves = transport.calls.filter((c) => c.method === "SaveProvider");
    expect(saves[0]!.args[0]).not.toHaveProperty("keepKey");
    expect(saves[1]!.args[0]).toMatchObject({ baseUrl: "https://proxy.example.net/v1", keepKey: true });
    expect(backend.chat.providers[0]!.baseUrl).toBe("https://proxy.example.net/v1");
    expect(backend.chat.keys.get("p1")).toBe(SECRET);
  });

  it("shows the backend's validation error in the form", async () => {
    const { user } = open();
    await user.click(await screen.findByTestId("provider-add"));
    await user.click(await screen.findByTestId("preset-custom"));
    const form = screen.getByTestId("provider-form");
    await user.type(within(form).getByTestId("provider-name"), "Mine");
    await user.type(within(form).getByTestId("provider-base-url"), "ftp://nope");
    await user.click(within(form).getByTestId("provider-save"));
    expect(await within(form).findByTestId("error-view")).toHaveTextContent("The provider settings are invalid");
  });
});
