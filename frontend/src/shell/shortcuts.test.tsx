import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it } from "vitest";
import { model } from "../test/fakeChat";
import { FakeBackend } from "../test/fakeTransport";
import { mockLayout } from "../test/layout";
import { renderWithClient } from "../test/render";
import { App } from "./App";
import { matchShortcut, type ShortcutId } from "./shortcuts";

beforeEach(() => mockLayout());

function key(k: string, mods: Partial<Record<"ctrlKey" | "metaKey" | "altKey" | "shiftKey", boolean>> = {}, target: EventTarget | null = document.body) {
  return { key: k, code: "", ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, target, ...mods };
}

describe("matchShortcut", () => {
  const input = document.createElement("input");
  const cases: [string, ReturnType<typeof key>, boolean, ShortcutId | null][] = [
    ["Ctrl+Shift+O", key("O", { ctrlKey: true, shiftKey: true }), false, "newChat"],
    ["⌘⇧O on a Mac", key("o", { metaKey: true, shiftKey: true }), true, "newChat"],
    ["Ctrl+Shift+O on a Mac is not ⌘", key("o", { ctrlKey: true, shiftKey: true }), true, null],
    ["Ctrl+K", key("k", { ctrlKey: true }), false, "search"],
    ["Ctrl+K in a field", key("k", { ctrlKey: true }, input), false, "search"],
    ["Ctrl+,", key(",", { ctrlKey: true }), false, "settings"],
    ["Ctrl+/", key("/", { ctrlKey: true }), false, "help"],
    ["?", key("?", { shiftKey: true }), false, "help"],
    ["? typed in a field", key("?", { shiftKey: true }, input), false, null],
    ["Esc", key("Escape"), false, "stop"],
    ["Esc in a field", key("Escape", {}, input), false, null],
    ["Alt+↓", key("ArrowDown", { altKey: true }), false, "nextChat"],
    ["Alt+↑ in a field", key("ArrowUp", { altKey: true }, input), false, "prevChat"],
    ["plain k", key("k"), false, null],
    ["Ctrl+Alt+K", key("k", { ctrlKey: true, altKey: true }), false, null],
  ];
  it.each(cases)("%s", (_, e, mac, want) => {
    expect(matchShortcut(e as unknown as KeyboardEvent, mac)).toBe(want);
  });
});

describe("global shortcuts", () => {
  function open() {
    const backend = new FakeBackend();
    backend.chat.providers.push({
      id: "p", name: "OpenAI", preset: "openai", baseUrl: "https://api.openai.com/v1", models: [model("gpt-4.1")], defaultModel: "gpt-4.1",
      needsKey: true, keySet: true, dialect: {}, reasoningControls: {}, createdAt: 1, updatedAt: 1,
    });
    const a = backend.chat.addSession({ title: "Alpha" });
    const b = backend.chat.addSession({ title: "Beta" });
    renderWithClient(<App />, { transport: backend.window() });
    return { backend, a, b, user: userEvent.setup() };
  }

  it("new chat puts the cursor in the composer; search, settings and the list of shortcuts", async () => {
    const { backend, user } = open();
    await screen.findAllByTestId("session-item");
    await user.keyboard("{Control>}{Shift>}O{/Shift}{/Control}");
    const input = await screen.findByTestId("composer-input");
    await waitFor(() => expect(input).toHaveFocus());
    expect(backend.chat.sessions).toHaveLength(3);

    await user.keyboard("{Control>}k{/Control}");
    expect(screen.getByTestId("session-search")).toHaveFocus();

    await user.keyboard("{Control>},{/Control}");
    expect(await screen.findByTestId("settings-page")).toBeInTheDocument();
    expect(within(await screen.findByTestId("settings-shortcuts")).getAllByRole("term").map((e) => e.textContent)).toContain("New chat");

    // the page puts focus on its section's heading once it shows one: wait for that, so
    // it does not take the focus back from the button below on a slow machine
    await waitFor(() => expect(document.getElementById("settings-section-title")).toHaveFocus());
    screen.getByTestId("open-settings").focus();
    await user.keyboard("?");
    const dialog = await screen.findByTestId("shortcuts-dialog");
    expect(within(dialog).getByText("Stop the answer")).toBeInTheDocument();
    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByTestId("shortcuts-dialog")).toBeNull());
    expect(screen.getByTestId("open-settings")).toHaveFocus(); // focus returns where it was
  });

  it("Alt+↓ and Alt+↑ move through the conversations; Esc outside a field stops the answer", async () => {
    const { backend, user } = open();
    expect(await screen.findAllByTestId("session-item")).toHaveLength(2);
    await user.keyboard("{Alt>}{ArrowDown}{/Alt}");
    await waitFor(() => expect(screen.getAllByTestId("session-item")[0]).toHaveAttribute("aria-current", "page"));
    await user.keyboard("{Alt>}{ArrowDown}{/Alt}");
    await waitFor(() => expect(screen.getAllByTestId("session-item")[1]).toHaveAttribute("aria-current", "page"));
    await user.keyboard("{Alt>}{ArrowUp}{/Alt}");
    await waitFor(() => expect(screen.getAllByTestId("session-item")[0]).toHaveAttribute("aria-current", "page"));

    const input = await screen.findByTestId("composer-input");
    await user.type(input, "Write a long story{Enter}");
    const id = window.location.hash.split("/").pop()!;
    act(() => {
      backend.chat.answer(id).text("Once upon a time");
    });
    (document.activeElement as HTMLElement).blur();
    await user.keyboard("{Escape}");
    expect(await screen.findByTestId("marker-stopped")).toBeInTheDocument();
  });
});
