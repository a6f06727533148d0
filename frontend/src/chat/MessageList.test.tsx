import { act, render, screen } from "@testing-library/react";
import { I18nextProvider } from "react-i18next";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Message } from "../api";
import { testI18n } from "../test/i18n";
import { mockLayout } from "../test/layout";
import { MessageList } from "./MessageList";

const VIEWPORT = 600;
const ROW = 80;

function messages(n: number): Message[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `m${i}`,
    sessionId: "s",
    seq: i + 1,
    role: i % 2 ? "assistant" : "user",
    status: "complete",
    parts: [{ id: `p${i}`, messageId: `m${i}`, index: 0, round: 0, type: "text", state: "done", text: `message ${i}`, createdAt: 0, updatedAt: 0 }],
    createdAt: 0,
    updatedAt: 0,
  }));
}

beforeEach(() => mockLayout({ viewport: VIEWPORT, row: ROW }));
afterEach(() => vi.restoreAllMocks());

const render10k = (list: Message[]) =>
  render(
    <I18nextProvider i18n={testI18n("en")}>
      <MessageList messages={list} renderMessage={(m) => <div data-testid={`message-${m.role}`}>{m.parts![0]!.text}</div>} />
    </I18nextProvider>,
  );

describe("MessageList", () => {
  it("renders only a window of 10,000 messages, starting at the end", () => {
    const list = messages(10_000);
    render10k(list);
    const rows = document.querySelectorAll("[data-index]");
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(40);
    // it followed the end: the last message is there, the first is not
    expect(screen.getByText("message 9999")).toBeInTheDocument();
    expect(screen.queryByText("message 0")).toBeNull();
    // the inner box is as tall as every row together (estimated or measured)
    const inner = document.querySelector(".message-list__inner") as HTMLElement;
    expect(Number.parseInt(inner.style.height)).toBeGreaterThan(10_000 * 50);
  });

  it("renders another window after scrolling, still only a few rows", async () => {
    const list = messages(10_000);
    render10k(list);
    const scroller = screen.getByTestId("message-list");
    await act(async () => {
      scroller.scrollTop = 0;
      await new Promise((r) => requestAnimationFrame(() => r(null)));
    });
    expect(screen.getByText("message 0")).toBeInTheDocument();
    expect(screen.queryByText("message 9999")).toBeNull();
    expect(document.querySelectorAll("[data-index]").length).toBeLessThan(40);
    // scrolled away from the end: a button brings it back
    expect(screen.getByTestId("jump-latest")).toBeInTheDocument();
  });
});
