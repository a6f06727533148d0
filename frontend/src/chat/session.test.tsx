import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it } from "vitest";
import type { Provider } from "../api";
import { App } from "../shell/App";
import { model } from "../test/fakeChat";
import { FakeBackend } from "../test/fakeTransport";
import { mockLayout } from "../test/layout";
import { renderWithClient } from "../test/render";

const PROVIDER: Provider = {
  id: "prov1", name: "OpenAI", preset: "openai", baseUrl: "https://api.openai.com/v1", models: [model("gpt-4.1"), model("gpt-4.1-mini")],
  defaultModel: "gpt-4.1", needsKey: true, keySet: true, keyLast4: "abcd", dialect: {}, reasoningControls: {}, createdAt: 1, updatedAt: 1,
};

beforeEach(() => mockLayout());

function backendWithSession(title = "Trip plan") {
  const backend = new FakeBackend();
  backend.chat.providers.push({ ...PROVIDER });
  const session = backend.chat.addSession({ title });
  return { backend, session };
}

function openWindow(backend: FakeBackend, id: string) {
  const r = renderWithClient(<App />, { transport: backend.window(), route: { name: "session", id } });
  return { ...r, w: within(r.container) };
}

describe("a conversation", () => {
  it("streams the same answer into two windows: text, reasoning, a tool round, usage", async () => {
    const user = userEvent.setup();
    const { backend, session } = backendWithSession();
    const a = openWindow(backend, session.id);
    const b = openWindow(backend, session.id);
    await a.w.findByTestId("composer-input");
    await b.w.findByTestId("composer-input");

    await user.type(a.w.getByTestId("composer-input"), "What is 2+2?{Enter}");
    const script = backend.chat.answer(session.id);
    for (const w of [a.w, b.w]) {
      expect(await w.findByTestId("message-user")).toHaveTextContent("What is 2+2?");
      expect(await w.findByTestId("composer-stop")).toBeInTheDocument();
    }
    expect(a.w.getByTestId("composer-input")).toHaveValue("");

    act(() => {
      script.reasoning("Adding two and two");
    });
    for (const w of [a.w, b.w]) {
      const r = w.getByTestId("part-reasoning");
      expect(r).toHaveAttribute("data-state", "streaming");
      expect(r).toHaveTextContent("Adding two and two"); // open while streaming
    }
    act(() => {
      script.text("The answer is ");
      script.text("**4**.");
    });
    for (const w of [a.w, b.w]) {
      expect(w.getByTestId("part-text").querySelector("strong")).toHaveTextContent("4");
      expect(w.getByTestId("part-reasoning")).not.toHaveTextContent("Adding two and two"); // collapsed once done
    }
    act(() => {
      script.toolCall("c1", "web_search", '{"query":"2+2"}');
    });
    for (const w of [a.w, b.w]) expect(w.getByTestId("tool-card")).toHaveAttribute("data-state", "running");
    act(() => {
      script.toolEnd("c1", "web_search", "tool-result", "4");
      script.text("Confirmed.");
      script.end("complete", { usage: { promptTokens: 12, completionTokens: 30, totalTokens: 42 } });
    });
    for (const w of [a.w, b.w]) {
      expect(w.getByTestId("tool-card")).toHaveAttribute("data-state", "done");
      expect(w.getAllByTestId("part-text").map((p) => p.textContent)).toEqual(["The answer is 4.", "Confirmed."]);
      expect(w.getByTestId("message-usage")).toHaveTextContent("42 tokens");
      expect(await w.findByTestId("composer-send")).toBeInTheDocument();
    }
    // the title came from the first message and reached the sidebar of both windows
    expect(a.w.getAllByTestId("session-item")[0]).toHaveTextContent("Trip plan");
  });

  it("stops from the other window and marks the message stopped in both", async () => {
    const user = userEvent.setup();
    const { backend, session } = backendWithSession();
    const a = openWindow(backend, session.id);
    const b = openWindow(backend, session.id);
    await user.type(await a.w.findByTestId("composer-input"), "Write a long story{Enter}");
    act(() => {
      backend.chat.answer(session.id).text("Once upon a time");
    });
    await user.click(await b.w.findByTestId("composer-stop"));
    for (const w of [a.w, b.w]) {
      expect(await w.findByTestId("marker-stopped")).toHaveTextContent("Stopped");
      expect(w.getByTestId("part-text")).toHaveTextContent("Once upon a time");
    }
  });

  it("Esc in the composer stops the answer", async () => {
    const user = userEvent.setup();
    const { backend, session } = backendWithSession();
    const a = openWindow(backend, session.id);
    const input = await a.w.findByTestId("composer-input");
    await user.type(input, "Hi{Enter}");
    await a.w.findByTestId("composer-stop");
    await user.type(input, "{Escape}");
    expect(await a.w.findByTestId("marker-stopped")).toBeInTheDocument();
  });

  it("shows a send failure and a message error with ErrorView, whose action opens the provider settings", async () => {
    const user = userEvent.setup();
    const backend = new FakeBackend();
    const session = backend.chat.addSession({ title: "No provider" });
    const a = openWindow(backend, session.id);
    await user.type(await a.w.findByTestId("composer-input"), "Hello{Enter}");
    const err = await a.w.findByTestId("error-view");
    expect(err).toHaveTextContent("No model provider is set up yet.");
    expect(a.w.getByTestId("composer-input")).toHaveValue("Hello"); // the draft is kept

    backend.chat.providers.push({ ...PROVIDER });
    await user.click(a.w.getByTestId("composer-send"));
    act(() => {
      backend.chat.answer(session.id).end("error", {
        error: { code: "model_auth_failed", i18nKey: "errors.model_auth_failed", message: "401", action: { kind: "open-settings", target: "providers" } },
      });
    });
    const msgErr = within(await a.w.findByTestId("message-assistant")).getByTestId("error-view");
    expect(msgErr).toHaveTextContent("The provider rejected the API key.");
    await user.click(within(msgErr).getByRole("button", { name: "Open Providers settings" }));
    expect(await a.w.findByTestId("settings-section-providers")).toBeInTheDocument();
  });

  it("regenerates the last answer and edits a user message (a new version; the old one stays, as the UI says)", async () => {
    const user = userEvent.setup();
    const { backend, session } = backendWithSession();
    const a = openWindow(backend, session.id);
    await user.type(await a.w.findByTestId("composer-input"), "First{Enter}");
    act(() => backend.chat.answer(session.id).text("Answer one").end());
    await user.type(a.w.getByTestId("composer-input"), "Second{Enter}");
    act(() => backend.chat.answer(session.id).text("Answer two").end());
    await waitFor(() => expect(a.w.getAllByTestId("message-assistant")).toHaveLength(2));

    // only the last answer can be regenerated
    expect(a.w.getAllByTestId("message-regenerate")).toHaveLength(1);
    await user.click(a.w.getByTestId("message-regenerate"));
    act(() => backend.chat.answer(session.id).text("Answer two, again").end());
    await waitFor(() => expect(a.w.getAllByTestId("part-text").map((p) => p.textContent)).toEqual(["Answer one", "Answer two, again"]));
    // Every message shows when it was written.
    const times = a.w.getAllByTestId("message-time");
    expect(times).toHaveLength(4);
    expect(Number.isNaN(Date.parse(times[0]!.getAttribute("datetime") ?? ""))).toBe(false);
    // The regenerated answer is version 2 of 2; the previous one is a click away.
    const versions = within(a.w.getAllByTestId("message-assistant")[1]!).getByTestId("message-versions");
    expect(within(versions).getByTestId("version-count")).toHaveTextContent("2 / 2");
    expect(within(versions).getByTestId("version-count")).toHaveAccessibleName("Version 2 of 2");
    expect(within(versions).getByRole("button", { name: "Next version" })).toBeDisabled();
    const previousAnswer = backend.chat.snapshot(session.id).messages[3]!.siblingIds![0]!;
    await user.click(within(versions).getByRole("button", { name: "Previous version" }));
    expect(backend.chat.selectedBranches).toEqual([previousAnswer]);
    expect(within(a.w.getAllByTestId("message-assistant")[0]!).queryByTestId("message-versions")).toBeNull();

    const [firstUser] = a.w.getAllByTestId("message-user");
    await user.click(within(firstUser!).getByTestId("message-edit"));
    expect(a.w.getByTestId("edit-mode-note")).toHaveTextContent("Resending makes a new version of this message and answers it");
    const input = a.w.getByTestId("message-edit-input");
    await user.clear(input);
    await user.type(input, "First, edited");
    await user.click(a.w.getByTestId("message-edit-save"));
    act(() => backend.chat.answer(session.id).text("Fresh answer").end());
    await waitFor(() => expect(a.w.getAllByTestId("message-user").map((m) => m.querySelector(".message__bubble")?.textContent)).toEqual(["First, edited"]));
    expect(a.w.getAllByTestId("message-assistant")).toHaveLength(1);
    expect(a.w.getByTestId("part-text")).toHaveTextContent("Fresh answer");
    expect(within(a.w.getByTestId("message-user")).getByTestId("version-count")).toHaveTextContent("2 / 2");
  });

  it("changes the session's model and settings", async () => {
    const user = userEvent.setup();
    const { backend, session } = backendWithSession();
    const a = openWindow(backend, session.id);
    await user.selectOptions(await a.w.findByTestId("session-model"), "gpt-4.1-mini");
    await waitFor(() => expect(backend.chat.session(session.id).model).toBe("gpt-4.1-mini"));
    await user.click(a.w.getByTestId("session-settings-open"));
    const dialog = await screen.findByTestId("session-settings");
    await user.type(within(dialog).getByTestId("session-system-prompt"), "Be brief.");
    await user.click(within(within(dialog).getByTestId("toolset-web")).getByRole("checkbox"));
    await user.click(within(dialog).getAllByRole("checkbox", { name: "Provider default" })[0]!);
    await user.click(within(dialog).getByTestId("session-top-p-default"));
    await user.type(within(dialog).getByLabelText("Max output tokens"), "512");
    await user.type(within(dialog).getByLabelText("Earlier messages sent"), "6");
    expect(within(dialog).getByLabelText("Earlier messages sent")).toHaveAccessibleDescription("How many earlier messages go with each question. Empty: all of them.");
    await user.click(within(dialog).getByTestId("session-settings-save"));
    await waitFor(() => expect(screen.queryByTestId("session-settings")).toBeNull());
    expect(backend.chat.session(session.id)).toMatchObject({
      systemPrompt: "Be brief.",
      toolsets: ["web"],
      temperature: 0.7,
      topP: 1,
      maxTokens: 512,
      contextMessages: 6,
      model: "gpt-4.1-mini",
    });
  });

  it("sets the conversation's reasoning over the model's, only for providers that have the control", async () => {
    const user = userEvent.setup();
    const backend = new FakeBackend();
    backend.chat.providers.push({
      ...PROVIDER, id: "ds", name: "DeepSeek", preset: "deepseek", models: [model("deepseek-chat", { reasoningEffort: "low" })], defaultModel: "deepseek-chat",
      reasoningControls: { efforts: ["off", "low", "high", "max"] },
    });
    const session = backend.chat.addSession({ title: "Think", providerId: "ds" });
    const a = openWindow(backend, session.id);
    await user.click(await a.w.findByTestId("session-settings-open"));
    const dialog = await screen.findByTestId("session-settings");
    const effort = within(dialog).getByRole("combobox", { name: "Reasoning of deepseek-chat" });
    expect(effort).toHaveValue("");
    expect(within(effort).getAllByRole("option")[0]).toHaveTextContent("Model's setting (Low)");
    await user.selectOptions(effort, "off");
    await user.click(within(dialog).getByTestId("session-settings-save"));
    await waitFor(() => expect(backend.chat.session(session.id).reasoning).toEqual({ effort: "off" }));

    const plain = backendWithSession("Plain");
    const b = openWindow(plain.backend, plain.session.id);
    await user.click(await b.w.findAllByTestId("session-settings-open").then((x) => x[0]!));
    const other = (await screen.findAllByTestId("session-settings")).at(-1)!;
    expect(within(other).queryByTestId("session-reasoning")).toBeNull();
  });
});

describe("the session list", () => {
  it("searches by title, renames inline and deletes after confirmation, live in every window", async () => {
    const user = userEvent.setup();
    const backend = new FakeBackend();
    backend.chat.providers.push({ ...PROVIDER });
    const keep = backend.chat.addSession({ title: "Groceries" });
    const doomed = backend.chat.addSession({ title: "Rust lifetimes" });
    const a = openWindow(backend, doomed.id);
    const b = openWindow(backend, doomed.id);
    await waitFor(() => expect(a.w.getAllByTestId("session-item")).toHaveLength(2));

    await user.type(a.w.getByTestId("session-search"), "groc");
    expect(a.w.getAllByTestId("session-item").map((i) => i.textContent)).toEqual(["Groceries"]);
    await user.clear(a.w.getByTestId("session-search"));

    const item = a.w.getAllByTestId("session-item").find((i) => i.dataset.sessionId === keep.id)!;
    await user.click(within(item).getByTestId("session-rename"));
    const input = within(item).getByTestId("session-rename-input");
    await user.clear(input);
    await user.type(input, "Weekly groceries{Enter}");
    await waitFor(() => expect(b.w.getAllByTestId("session-item").map((i) => i.textContent)).toContain("Weekly groceries"));

    const current = a.w.getAllByTestId("session-item").find((i) => i.dataset.sessionId === doomed.id)!;
    expect(current).toHaveAttribute("aria-current", "page");
    await user.click(within(current).getByTestId("session-delete"));
    const dialog = screen.getByRole("alertdialog", { name: "Delete “Rust lifetimes”?" });
    await user.click(within(dialog).getByTestId("session-delete-confirm"));
    expect(await a.w.findByTestId("home")).toBeInTheDocument();
    expect(await b.w.findByText("This conversation was deleted.")).toBeInTheDocument();
    await waitFor(() => expect(b.w.getAllByTestId("session-item")).toHaveLength(1));
  });
});
