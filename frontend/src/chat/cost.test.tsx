import { act, render, screen, waitFor, within } from "@testing-library/react";
import type { ReactElement } from "react";
import { I18nextProvider } from "react-i18next";
import { beforeEach, describe, expect, it } from "vitest";
import type { Cost, Message, Provider, Usage } from "../api";
import { App } from "../shell/App";
import { model } from "../test/fakeChat";
import { FakeBackend } from "../test/fakeTransport";
import { testI18n } from "../test/i18n";
import { mockLayout } from "../test/layout";
import { renderWithClient } from "../test/render";
import { conversationTotals, formatMoney } from "./cost";
import { ConversationTotal, UsageLine } from "./Usage";

const USAGE: Usage = { promptTokens: 1200, cachedTokens: 1000, completionTokens: 300, reasoningTokens: 100, totalTokens: 1500 };
const usd = (amount: number, source = "provider"): Cost => ({ amount, currency: "USD", source });

let n = 0;
function answer(usage?: Usage, cost?: Cost, over: Partial<Message> = {}): Message {
  n++;
  return { id: `m${n}`, sessionId: "s", seq: n, role: "assistant", status: "complete", providerId: "prov1", model: "fake-usage", usage, cost, createdAt: n, updatedAt: n, parts: [], ...over };
}
const question = (): Message => ({ ...answer(), role: "user", usage: { promptTokens: 999, completionTokens: 999, totalTokens: 1998 } });

function show(ui: ReactElement, lng: "en" | "zh-CN" = "en") {
  return render(<I18nextProvider i18n={testI18n(lng)}>{ui}</I18nextProvider>);
}

describe("an answer's footer", () => {
  it("shows prompt and completion tokens with the cached and reasoning ones, and the cost with its source", () => {
    show(<UsageLine usage={USAGE} cost={usd(0.0033)} />);
    const line = screen.getByTestId("message-usage");
    expect(line).toHaveTextContent("1,500 tokens · 1,200 in (1,000 cached) · 300 out (100 reasoning)");
    const cost = screen.getByTestId("message-cost");
    expect(cost).toHaveTextContent("$0.0033");
    expect(cost).toHaveAttribute("title", "At the provider's list price");
  });

  it("leaves out what the provider does not report, and shows no cost without one", () => {
    show(<UsageLine usage={{ promptTokens: 12, completionTokens: 30, totalTokens: 42 }} />);
    expect(screen.getByTestId("message-usage")).toHaveTextContent(/^42 tokens · 12 in · 30 out$/);
    expect(screen.queryByTestId("message-cost")).toBeNull();
  });

  it("says a default's date, in Chinese with Chinese number formats", () => {
    show(<UsageLine usage={{ ...USAGE, promptTokens: 12000, totalTokens: 12300 }} cost={{ amount: 4, currency: "CNY", source: "default", asOf: "2025-11" }} />, "zh-CN");
    expect(screen.getByTestId("message-usage")).toHaveTextContent("12,300 个 token · 输入 12,000（缓存 1,000） · 输出 300（推理 100）");
    const cost = screen.getByTestId("message-cost");
    expect(cost).toHaveTextContent("¥4.00");
    expect(cost.getAttribute("title")).toContain("2025-11");
  });
});

describe("money and totals", () => {
  it("keeps small amounts readable and formats by locale", () => {
    expect(formatMoney(0.0033, "USD", "en")).toBe("$0.0033");
    expect(formatMoney(0.000012345, "USD", "en")).toBe("$0.000012");
    expect(formatMoney(0.1234, "USD", "en")).toBe("$0.1234");
    expect(formatMoney(0.5, "USD", "en")).toBe("$0.50");
    expect(formatMoney(1234.567, "USD", "en")).toBe("$1,234.57");
    expect(formatMoney(0, "USD", "en")).toBe("$0.00");
    expect(formatMoney(1234.5, "EUR", "de").replace(/\s/g, " ")).toBe("1.234,50 €");
    expect(formatMoney(0.0033, "USD", "zh-CN")).toBe("US$0.0033");
  });

  it("adds up the answers of the path by currency and counts the unpriced ones", () => {
    const t = conversationTotals([question(), answer(USAGE, usd(0.0033)), answer(USAGE, usd(0.0041, "user")), answer(USAGE), answer(undefined), answer(USAGE, { amount: 0.02, currency: "CNY", source: "default" })]);
    expect(t).toMatchObject({ answers: 4, priced: 3, tokens: 6000, prompt: 4800, completion: 1200, cached: 4000, reasoning: 400 });
    expect(t.costs.map((c) => c.currency)).toEqual(["CNY", "USD"]);
    expect(t.costs[1]!.amount).toBeCloseTo(0.0074, 12);
  });
});

describe("the conversation's total", () => {
  it("shows the tokens and the cost of every answer", () => {
    show(<ConversationTotal messages={[question(), answer(USAGE, usd(0.0033)), answer(USAGE, usd(0.0041))]} />);
    expect(screen.getByTestId("session-total-tokens")).toHaveTextContent("3K tokens");
    expect(screen.getByTestId("session-total-cost")).toHaveTextContent("$0.0074");
    expect(screen.getByTestId("session-total-cost")).not.toHaveAttribute("data-partial");
    expect(screen.getByTestId("session-total").getAttribute("title")).toContain("3,000 tokens in 2 answers: 2,400 in, 600 out.");
  });

  it("marks a sum that leaves unpriced answers out as a lower bound", () => {
    show(<ConversationTotal messages={[answer(USAGE, usd(0.0033)), answer(USAGE)]} />);
    const cost = screen.getByTestId("session-total-cost");
    expect(cost).toHaveTextContent("≥ $0.0033");
    expect(cost).toHaveAttribute("data-partial", "true");
    expect(screen.getByTestId("session-total").getAttribute("title")).toContain("not counted in the cost: 1.");
  });

  it("shows only tokens when nothing is priced, and nothing without usage", () => {
    const { unmount } = show(<ConversationTotal messages={[answer(USAGE)]} />, "zh-CN");
    expect(screen.getByTestId("session-total-tokens")).toHaveTextContent("1500 个 token");
    expect(screen.queryByTestId("session-total-cost")).toBeNull();
    unmount();
    show(<ConversationTotal messages={[question(), answer(undefined)]} />);
    expect(screen.queryByTestId("session-total")).toBeNull();
  });
});

describe("a changed price", () => {
  beforeEach(() => mockLayout());

  it("reloads the conversation, whose answers and total show the new cost", async () => {
    const backend = new FakeBackend();
    const provider: Provider = {
      id: "prov1", name: "Fake", preset: "custom", baseUrl: "http://127.0.0.1:9/v1", defaultModel: "fake-usage", needsKey: false, keySet: false,
      models: [model("fake-usage", { price: { input: 2, output: 8, cachedInput: 0.5, currency: "USD", source: "provider" } })],
      dialect: {}, reasoningControls: {}, createdAt: 1, updatedAt: 1,
    };
    backend.chat.providers.push(provider);
    const session = backend.chat.addSession({ title: "Priced", providerId: "prov1", model: "fake-usage", messages: [question(), answer(USAGE, usd(0.0033))] });
    const r = renderWithClient(<App />, { transport: backend.window(), route: { name: "session", id: session.id } });
    const w = within(r.container);
    expect(await w.findByTestId("message-cost")).toHaveTextContent("$0.0033");
    expect(w.getByTestId("session-total-cost")).toHaveTextContent("$0.0033");

    // The backend prices the stored answer again at the new price; the window only hears
    // that the provider's prices changed.
    backend.chat.messages.get(session.id)![1]!.cost = usd(0.0041, "user");
    await act(async () => {
      await r.client.providers.setPrice("prov1", "fake-usage", { input: 3, output: 10, cachedInput: 0.5, currency: "USD" });
    });
    await waitFor(() => expect(w.getByTestId("message-cost")).toHaveTextContent("$0.0041"));
    expect(w.getByTestId("message-cost")).toHaveAttribute("data-source", "user");
    expect(w.getByTestId("session-total-cost")).toHaveTextContent("$0.0041");
  });
});
