import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { I18nextProvider } from "react-i18next";
import { describe, expect, it, vi } from "vitest";
import { testI18n } from "../test/i18n";
import { Composer } from "./Composer";
import type { ComposerPrompt, PromptSource } from "./PromptMenu";

const argsPrompt: ComposerPrompt = {
  serverId: "s1",
  server: "everything",
  prompt: {
    name: "args-prompt",
    description: "A prompt with two arguments",
    arguments: [
      { name: "city", description: "Name of the city", required: true },
      { name: "state", description: "Name of the state", required: false },
    ],
  },
};
const simple: ComposerPrompt = { serverId: "s1", server: "everything", prompt: { name: "simple-prompt", arguments: [] } };
const other: ComposerPrompt = { serverId: "s2", server: "notes", prompt: { name: "summarize", arguments: [] } };

function setup(list: ComposerPrompt[] = [argsPrompt, simple, other]) {
  let changed: (() => void) | undefined;
  const source = {
    list: vi.fn(async () => list),
    get: vi.fn(async (p: ComposerPrompt, args: Record<string, string>) => `${p.prompt.name} ${JSON.stringify(args)}`),
    onChange: vi.fn((fn: () => void) => {
      changed = fn;
      return () => (changed = undefined);
    }),
  } satisfies PromptSource;
  const onSend = vi.fn(async () => true);
  render(
    <I18nextProvider i18n={testI18n("en")}>
      <Composer busy={false} sendOnEnter onSend={onSend} onStop={vi.fn()} prompts={source} />
    </I18nextProvider>,
  );
  return { source, onSend, input: screen.getByTestId("composer-input") as HTMLTextAreaElement, changed: () => changed?.() };
}

describe("the composer's / prompt menu", () => {
  it("lists the servers' prompts with their arguments and filters by what follows /", async () => {
    const user = userEvent.setup();
    const { input } = setup();
    expect(screen.queryByTestId("prompt-menu")).toBeNull();
    await user.type(input, "/");
    const menu = await screen.findByTestId("prompt-menu");
    await waitFor(() => expect(menu.querySelectorAll("[role=option]")).toHaveLength(3));
    expect(screen.getByText("/everything/args-prompt")).toBeInTheDocument();
    expect(screen.getByText("city state?")).toBeInTheDocument();
    await user.type(input, "notes");
    await waitFor(() => expect(screen.getAllByRole("option")).toHaveLength(1));
    expect(screen.getByText("/notes/summarize")).toBeInTheDocument();
    await user.type(input, " ");
    expect(screen.queryByTestId("prompt-menu")).toBeNull();
  });

  it("asks a prompt's arguments in a small form and inserts its messages' text", async () => {
    const user = userEvent.setup();
    const { input, source, onSend } = setup();
    await user.type(input, "/args");
    await user.click(await screen.findByText("/everything/args-prompt"));
    const form = await screen.findByTestId("prompt-form");
    expect(form).toHaveTextContent("city (required)");
    await user.type(screen.getByPlaceholderText("Name of the city"), "Lyon");
    await user.click(screen.getByRole("button", { name: "Insert" }));
    await waitFor(() => expect(input).toHaveValue('args-prompt {"city":"Lyon"}'));
    expect(source.get).toHaveBeenCalledWith(argsPrompt, { city: "Lyon" });
    expect(screen.queryByTestId("prompt-form")).toBeNull();
    expect(onSend).not.toHaveBeenCalled();
  });

  it("inserts a prompt without arguments at once, and Esc closes the menu", async () => {
    const user = userEvent.setup();
    const { input, source } = setup();
    await user.type(input, "/");
    await user.click(await screen.findByText("/everything/simple-prompt"));
    await waitFor(() => expect(input).toHaveValue("simple-prompt {}"));
    expect(source.get).toHaveBeenCalledWith(simple, {});
    await user.clear(input);
    await user.type(input, "/");
    await screen.findByTestId("prompt-menu");
    await user.keyboard("{Escape}");
    expect(screen.queryByTestId("prompt-menu")).toBeNull();
  });

  it("reads the list again when a server announces new prompts", async () => {
    const user = userEvent.setup();
    const { input, source, changed } = setup();
    await user.type(input, "/");
    await waitFor(() => expect(source.list).toHaveBeenCalledTimes(1));
    changed();
    await waitFor(() => expect(source.list).toHaveBeenCalledTimes(2));
  });
});
