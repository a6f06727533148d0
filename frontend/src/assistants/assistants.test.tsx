import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { Provider } from "../api";
import { ModelPicker, type ModelChoice } from "../components/ModelPicker";
import { SettingsPage } from "../settings/SettingsPage";
import { App } from "../shell/App";
import { model } from "../test/fakeChat";
import { FakeBackend, SPECS } from "../test/fakeTransport";
import { mockLayout } from "../test/layout";
import { renderWithClient } from "../test/render";

vi.setConfig({ testTimeout: 30_000 });
beforeEach(() => mockLayout());

const PROVIDER: Provider = {
  id: "prov1", name: "OpenAI", preset: "openai", baseUrl: "https://api.openai.com/v1", models: [model("gpt-4.1"), model("gpt-4.1-mini")],
  defaultModel: "gpt-4.1", needsKey: true, keySet: true, keyLast4: "abcd", dialect: {}, reasoningControls: {}, createdAt: 1, updatedAt: 1,
};
const BARE: Provider = { ...PROVIDER, id: "prov2", name: "Local", preset: "custom", models: [], defaultModel: "" };

function backend() {
  const b = new FakeBackend([
    ...SPECS,
    { key: "permissions.classifierProvider", type: "string", default: "", maxLen: 200, section: "permissions" },
    { key: "permissions.classifierModel", type: "string", default: "", maxLen: 200, section: "permissions" },
  ]);
  b.chat.providers.push({ ...PROVIDER }, { ...BARE });
  return b;
}

describe("Settings → Assistants", () => {
  it("lists the built-in assistants in the window's language, with copy and hide but no edit or delete", async () => {
    const b = backend();
    renderWithClient(<SettingsPage section="assistants" />, { transport: b.window(), route: { name: "settings", section: "assistants" }, lng: "zh-CN" });
    const rows = await screen.findAllByTestId("assistant-row");
    expect(rows.map((r) => r.dataset.id)).toEqual(["translator", "writing-editor", "code-reviewer", "researcher"]);
    expect(rows[0]).toHaveTextContent("翻译");
    expect(rows[0]).toHaveTextContent("内置");
    expect(within(rows[0]!).queryByTestId("assistant-edit")).toBeNull();
    expect(within(rows[0]!).queryByTestId("assistant-delete")).toBeNull();
    expect(within(rows[0]!).getByTestId("assistant-copy")).toBeInTheDocument();
  });

  it("creates an assistant with a chosen icon, instructions, a typed model, parameters and toolsets; a taken name keeps what was typed", async () => {
    const user = userEvent.setup();
    const b = backend();
    renderWithClient(<SettingsPage section="assistants" />, { transport: b.window(), route: { name: "settings", section: "assistants" } });
    await user.click(await screen.findByTestId("assistant-new"));
    const form = await screen.findByTestId("assistant-form");
    await user.type(within(form).getByTestId("assistant-name"), "Translator");
    await user.click(within(form).getByRole("radio", { name: "💡" }));
    await user.type(within(form).getByTestId("assistant-instructions"), "Answer in haiku.");
    await user.selectOptions(within(form).getByTestId("assistant-provider"), "prov2");
    // The provider lists no models: the model is typed.
    const typed = within(form).getByTestId("assistant-model");
    expect(typed.tagName).toBe("INPUT");
    await user.type(typed, "llama3{Enter}");
    await user.click(within(form).getByTestId("assistant-temperature-default"));
    await user.type(within(form).getByTestId("assistant-max-tokens"), "256");
    await user.type(within(form).getByTestId("assistant-context-messages"), "3");
    await user.click(within(within(form).getByTestId("assistant-toolsets")).getByLabelText("Web"));
    await user.click(within(form).getByTestId("assistant-save"));
    expect(await within(form).findByText("An assistant is already called Translator: choose another name.")).toBeInTheDocument();
    expect(within(form).getByTestId("assistant-instructions")).toHaveValue("Answer in haiku.");

    await user.clear(within(form).getByTestId("assistant-name"));
    await user.type(within(form).getByTestId("assistant-name"), "Poet");
    await user.click(within(form).getByTestId("assistant-save"));
    await waitFor(() => expect(screen.queryByTestId("assistant-form")).toBeNull());
    const saved = b.assistants.list.find((a) => a.name === "Poet")!;
    expect(saved).toMatchObject({ icon: "💡", instructions: "Answer in haiku.", providerId: "prov2", model: "llama3", temperature: 0.7, maxTokens: 256, contextMessages: 3 });
    expect(saved.toolsets).toContain("web");
    const row = await screen.findByText("Poet");
    expect(row.closest("[data-testid=assistant-row]")).toHaveTextContent("Local · llama3");
  });

  it("copies a built-in one into an editable form, hides and deletes", async () => {
    const user = userEvent.setup();
    const b = backend();
    renderWithClient(<SettingsPage section="assistants" />, { transport: b.window(), route: { name: "settings", section: "assistants" } });
    const rows = await screen.findAllByTestId("assistant-row");
    await user.click(within(rows[3]!).getByTestId("assistant-copy"));
    const form = await screen.findByTestId("assistant-form");
    expect(within(form).getByTestId("assistant-name")).toHaveValue("Researcher (copy)");
    expect(within(form).getByTestId("assistant-instructions")).toHaveValue("You are a meticulous research assistant.");
    await user.click(within(form).getByTestId("assistant-save"));
    await waitFor(() => expect(screen.queryByTestId("assistant-form")).toBeNull());

    await user.click(within(rows[0]!).getByTestId("assistant-hide"));
    await waitFor(() => expect(b.assistants.get("translator").hidden).toBe(true));
    expect(await within(screen.getAllByTestId("assistant-row")[0]!).findByTestId("assistant-hidden")).toHaveTextContent("Hidden");

    const copy = screen.getAllByTestId("assistant-row").find((r) => r.textContent?.includes("Researcher (copy)"))!;
    await user.click(within(copy).getByTestId("assistant-delete"));
    await user.click(await screen.findByTestId("assistant-delete-confirm"));
    await waitFor(() => expect(b.assistants.list.some((a) => a.name === "Researcher (copy)")).toBe(false));
  });
});

describe("New chat from an assistant", () => {
  it("keeps New chat one click, starts from a chosen assistant, and the header names it", async () => {
    const user = userEvent.setup();
    const b = backend();
    b.assistants.methods().SetAssistantHidden!("writing-editor", true);
    renderWithClient(<App />, { transport: b.window() });
    await user.click(await screen.findByTestId("new-chat"));
    await screen.findByTestId("session-view");
    expect(b.chat.sessions).toHaveLength(1);
    expect(screen.queryByTestId("session-assistant")).toBeNull();

    const open = screen.getByTestId("new-chat-assistant");
    await user.click(open);
    const menu = await screen.findByTestId("assistant-menu");
    const items = await within(menu).findAllByTestId("assistant-menu-item");
    expect(items.map((i) => i.dataset.id)).toEqual(["translator", "code-reviewer", "researcher"]); // hidden ones are left out
    await waitFor(() => expect(items[0]).toHaveFocus());
    await user.keyboard("{ArrowDown}");
    expect(items[1]).toHaveFocus();
    await user.keyboard("{Escape}");
    expect(screen.queryByTestId("assistant-menu")).toBeNull();
    expect(open).toHaveFocus();

    await user.click(open);
    await user.click((await within(await screen.findByTestId("assistant-menu")).findAllByTestId("assistant-menu-item"))[0]!);
    await waitFor(() => expect(b.chat.sessions).toHaveLength(2));
    const started = b.chat.sessions[0]!;
    expect(started.systemPrompt).toBe("You are a professional translator.");
    expect(started.temperature).toBe(0.3);
    await waitFor(() => expect(window.location.hash).toBe(`#/session/${started.id}`));
    expect(await screen.findByTestId("session-assistant")).toHaveTextContent("Translator");
  });
});

describe("the shared model picker", () => {
  function Harness({ onChange }: { onChange: (v: ModelChoice) => void }) {
    const [value, setValue] = useState<ModelChoice>({ providerId: "", model: "" });
    return (
      <ModelPicker
        value={value}
        providers={[PROVIDER, BARE]}
        testId="p"
        onChange={(p) => {
          const next = { ...value, ...p };
          setValue(next);
          onChange(next);
        }}
      />
    );
  }

  it("lists the provider's models, types one it lacks, and a new provider clears the model", async () => {
    const user = userEvent.setup();
    const seen: ModelChoice[] = [];
    renderWithClient(<Harness onChange={(v) => seen.push(v)} />, { transport: backend().window() });
    const select = screen.getByTestId("p-model");
    expect(within(select).getAllByRole("option").map((o) => o.textContent)).toEqual(["Default (gpt-4.1)", "gpt-4.1", "gpt-4.1-mini", "Other model…"]);
    await user.selectOptions(select, "gpt-4.1-mini");
    expect(seen.at(-1)).toEqual({ providerId: "", model: "gpt-4.1-mini" });
    await user.selectOptions(screen.getByTestId("p-model"), "Other model…");
    const input = screen.getByTestId("p-model");
    expect(input.tagName).toBe("INPUT");
    expect(input).toHaveFocus();
    await user.clear(input);
    await user.type(input, "o4-preview{Enter}");
    expect(seen.at(-1)).toEqual({ providerId: "", model: "o4-preview" });
    await user.selectOptions(screen.getByTestId("p-provider"), "prov1");
    expect(seen.at(-1)).toEqual({ providerId: "prov1", model: "" });
    await user.selectOptions(screen.getByTestId("p-provider"), "prov2");
    expect(screen.getByTestId("p-model").tagName).toBe("INPUT");
  });

  it("picks auto mode's classifier model and writes both settings", async () => {
    const user = userEvent.setup();
    const b = backend();
    renderWithClient(<SettingsPage section="permissions" />, { transport: b.window(), route: { name: "settings", section: "permissions" } });
    const box = await screen.findByTestId("classifier-picker", {}, { timeout: 5000 });
    expect(box).toHaveTextContent("No classifier model is chosen");
    expect(screen.queryByTestId("setting-permissions.classifierModel")).toBeNull(); // no more text fields
    await within(box).findByRole("option", { name: "OpenAI" });
    await user.selectOptions(within(box).getByTestId("classifier-provider"), "prov1");
    await waitFor(() => expect(b.values["permissions.classifierProvider"]).toBe("prov1"));
    await user.selectOptions(within(box).getByTestId("classifier-model"), "gpt-4.1-mini");
    await waitFor(() => expect(b.values["permissions.classifierModel"]).toBe("gpt-4.1-mini"));
    expect(box).not.toHaveTextContent("No classifier model is chosen");
  });
});
