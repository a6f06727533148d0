import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it } from "vitest";
import type { Message, Provider } from "../api";
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

let n = 0;
function msg(role: "user" | "assistant", text: string): Message {
  const id = `m${++n}`;
  return {
    id, sessionId: "", seq: n, role, status: "complete", parts: [
      { id: `p${n}`, messageId: id, index: 0, round: 0, type: "text", state: "done", text, createdAt: n, updatedAt: n },
    ], createdAt: n, updatedAt: n,
  } as Message;
}

function setup() {
  const backend = new FakeBackend();
  backend.chat.providers.push({ ...PROVIDER });
  return backend;
}

function open(backend: FakeBackend) {
  const r = renderWithClient(<App />, { transport: backend.window(), route: { name: "home" } });
  return { ...r, w: within(r.container) };
}

const titles = (w: { queryAllByTestId: (id: string) => HTMLElement[] }) => w.queryAllByTestId("session-item").map((i) => i.querySelector(".session-item__title")?.textContent);

describe("message search", () => {
  it("lists message hits with marked snippets as text, and opens the conversation at the highlighted message", async () => {
    const user = userEvent.setup();
    const backend = setup();
    const target = msg("assistant", "Use <b>zeppelin</b> mode for long trips");
    backend.chat.addSession({ title: "Travel", messages: [msg("user", "how do I travel far?"), target] });
    backend.chat.addSession({ title: "Zeppelin history", messages: [msg("user", "nothing here")] });
    const { w } = open(backend);
    await waitFor(() => expect(w.getAllByTestId("session-item")).toHaveLength(2));

    await user.type(w.getByTestId("session-search"), "zeppelin");
    expect(titles(w)).toEqual(["Zeppelin history"]); // titles still filter the list
    const hits = await w.findAllByTestId("message-hit");
    expect(hits).toHaveLength(1);
    const snippet = within(hits[0]!).getByTestId("message-hit-snippet");
    expect(snippet.textContent).toBe("Use <b>zeppelin</b> mode for long trips");
    expect(snippet.querySelector("b")).toBeNull(); // the snippet is text, never HTML
    expect(Array.from(snippet.querySelectorAll("mark")).map((m) => m.textContent)).toEqual(["zeppelin"]);
    expect(hits[0]).toHaveTextContent("Travel");

    await user.click(hits[0]!);
    await waitFor(() => expect(document.querySelector(`[data-found] [data-message-id="${target.id}"]`)).not.toBeNull());
    expect(window.location.hash).toContain(target.id);

    await user.clear(w.getByTestId("session-search"));
    await user.type(w.getByTestId("session-search"), "submarine");
    expect(await w.findByText("No message matches.")).toBeInTheDocument();
  });
});

describe("pin and archive", () => {
  it("pins to the top, archives out of the list into the Archived view, and restores", async () => {
    const user = userEvent.setup();
    const backend = setup();
    backend.chat.addSession({ title: "Older" });
    backend.chat.addSession({ title: "Newer" });
    const { w } = open(backend);
    await waitFor(() => expect(titles(w)).toEqual(["Newer", "Older"]));

    const older = () => w.getAllByTestId("session-item").find((i) => i.textContent?.includes("Older"))!;
    await user.click(within(older()).getByTestId("session-more"));
    const menu = w.getByTestId("session-menu");
    const [pin, archive] = within(menu).getAllByRole("menuitem");
    expect([pin, archive].map((b) => b?.textContent)).toEqual(["Pin", "Archive"]);
    expect(pin).toHaveFocus();
    for (const [key, focused] of [["{ArrowDown}", archive], ["{ArrowDown}", pin], ["{ArrowUp}", archive], ["{Home}", pin], ["{End}", archive]] as const) {
      await user.keyboard(key);
      expect(focused).toHaveFocus();
    }
    await user.keyboard("{Escape}");
    expect(w.queryByTestId("session-menu")).toBeNull();
    expect(within(older()).getByTestId("session-more")).toHaveFocus();

    await user.click(within(older()).getByTestId("session-more"));
    await user.click(w.getByTestId("session-pin"));
    await waitFor(() => expect(titles(w)).toEqual(["Older", "Newer"]));
    expect(within(older()).getByTestId("session-pinned")).toBeInTheDocument();

    const newer = () => w.getAllByTestId("session-item").find((i) => i.textContent?.includes("Newer"))!;
    await user.click(within(newer()).getByTestId("session-more"));
    await user.click(w.getByTestId("session-archive"));
    await waitFor(() => expect(titles(w)).toEqual(["Older"]));
    await user.click(w.getByTestId("archived-open"));
    await waitFor(() => expect(titles(w)).toEqual(["Newer"]));
    await user.click(within(newer()).getByTestId("session-more"));
    expect(within(w.getByTestId("session-menu")).getAllByRole("menuitem").map((b) => b.textContent)).toEqual(["Restore"]);
    await user.click(w.getByTestId("session-archive"));
    await waitFor(() => expect(w.getByText("No archived conversations.")).toBeInTheDocument());
    await user.click(w.getByTestId("archived-back"));
    await waitFor(() => expect(titles(w)).toEqual(["Older", "Newer"]));
  });

  it("New chat reuses the empty conversation instead of making another", async () => {
    const user = userEvent.setup();
    const backend = setup();
    const { w } = open(backend);
    await user.click(await w.findByTestId("new-chat"));
    await waitFor(() => expect(w.getAllByTestId("session-item")).toHaveLength(1));
    await user.click(screen.getAllByTestId("new-chat")[0]!);
    await waitFor(() => expect(backend.chat.sessions).toHaveLength(1));
    expect(w.getAllByTestId("session-item")).toHaveLength(1);
  });
});
