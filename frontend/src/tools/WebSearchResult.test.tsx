import { fireEvent, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { Part, SearchAnswer } from "../api";
import { FakeTransport } from "../test/fakeTransport";
import { renderWithClient } from "../test/render";
import { groupParts, type ToolItem } from "./model";
import { ToolCard } from "./ToolCard";

const answer: SearchAnswer = {
  query: "cairn",
  provider: "brave",
  providerName: "Brave Search",
  results: [
    { title: "Cairn\u200b stones", url: "https://www.example.org/cairn", snippet: "A pile of stones", provider: "brave" },
    { title: "Not a link", url: "javascript:alert(1)", provider: "brave" },
  ],
  failures: [
    {
      provider: "tavily",
      name: "Tavily",
      error: {
        code: "tavily_api_key_required",
        i18nKey: "errors.tavily_api_key_required",
        params: { provider: "Tavily", secret: "websearch.tavily" },
        message: "Tavily: no API key is set",
        action: { kind: "open-settings", target: "web-search" },
      },
    },
  ],
};

const parts = (display: unknown): Part[] => [
  { id: "a", messageId: "m", index: 0, round: 0, type: "tool-call", state: "done", createdAt: 1, updatedAt: 1, tool: { callId: "c", name: "web_search", namespace: "web", arguments: '{"query":"cairn"}' } },
  { id: "b", messageId: "m", index: 1, round: 0, type: "tool-result", state: "done", createdAt: 1, updatedAt: 1, tool: { callId: "c", name: "web_search", content: "Results…", display, durationMs: 5 } },
];

function openCard(display: unknown) {
  const item = groupParts(parts(display))[0] as ToolItem;
  renderWithClient(<ToolCard item={item} live={false} />, { transport: new FakeTransport(), ready: null });
  fireEvent.click(within(screen.getByTestId("tool-card")).getByRole("button", { expanded: false }));
}

describe("web search card", () => {
  it("says which provider answered and which failed first, and lists the results", () => {
    openCard(answer);
    const card = screen.getByTestId("web-search-result");
    expect(within(card).getByTestId("web-search-provider")).toHaveTextContent("Brave Search answered · 2 found");
    const failure = within(card).getByTestId("web-search-failure");
    expect(failure).toHaveTextContent("Tavily failed:");
    expect(failure).toHaveTextContent("Tavily needs an API key. Add it in Settings → Web search.");
    expect(within(failure).getByRole("button", { name: /settings/i })).toBeInTheDocument();
    const link = within(card).getByRole("link");
    expect(link).toHaveAttribute("href", "https://www.example.org/cairn");
    expect(card.textContent).not.toContain("\u200b");
    expect(card).toHaveTextContent("example.org");
    expect(card).toHaveTextContent("A pile of stones");
    expect(within(card).getAllByRole("link")).toHaveLength(1); // javascript: stays text
  });

  it("an empty answer says the provider found nothing; other displays stay the generic result", () => {
    openCard({ ...answer, failures: [], results: [] });
    expect(screen.getByTestId("web-search-provider")).toHaveTextContent("Brave Search found no results");
  });

  it("falls back to the generic result for a display that is not an answer", () => {
    openCard({ something: "else" });
    expect(screen.queryByTestId("web-search-result")).toBeNull();
    expect(screen.getByTestId("tool-result")).toBeInTheDocument();
  });
});
