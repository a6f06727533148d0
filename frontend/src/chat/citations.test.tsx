import { fireEvent, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Message, Part, SearchAnswer } from "../api";
import { FakeBackend, FakeTransport, SPECS } from "../test/fakeTransport";
import { renderWithClient } from "../test/render";
import { groupParts } from "../tools/model";
import { citationLinkNumber, citationTables, lastSearchTable, realHost, safeURL, samePage, splitCitations, tablesBefore } from "./citations";
import { MessageView } from "./MessageView";

describe("splitCitations", () => {
  const cites = (text: string) =>
    splitCitations(text)
      .filter((p) => p.kind === "cite")
      .map((p) => (p.kind === "cite" ? p.nums : []));
  it.each<[string, number[][]]>([
    ["Cairns mark trails [1].", [[1]]],
    ["Two sources [1, 2] and [3,4].", [[1, 2], [3, 4]]],
    ["Adjacent [1][2]", [[1], [2]]],
    ["Footnote style [^3]", [[3]]],
    ["全角【2】与顿号[1、2]", [[2], [1, 2]]],
    ["unclosed [1 and 2]", []],
    ["doubled [[1]] keeps the inner one", [[1]]],
    ["[1]] and [[2", [[1]]],
    ["empty [] and spaced [ 1 ]", []],
    ["trailing comma [1,] and letters [a1] [1a]", []],
    ["zero [0] and too long [1234]", []],
    ["negative [-1] and decimals [1.5]", []],
    ["a link-looking [1](javascript:alert(1)) in plain text", [[1]]],
    ["", []],
  ])("%j", (text, want) => {
    expect(cites(text)).toEqual(want);
    expect(
      splitCitations(text)
        .map((p) => (p.kind === "text" ? p.text : p.raw))
        .join(""),
    ).toBe(text); // nothing is lost or added
  });

  it("does not take more than twenty numbers as one marker", () => {
    const many = `[${Array.from({ length: 21 }, (_, i) => i + 1).join(",")}]`;
    expect(cites(many)).toEqual([]);
  });
});

describe("addresses a chip may open", () => {
  it.each<[string, string | null]>([
    ["https://www.example.org/a?b#c", "example.org"],
    ["http://example.org:8080/", "example.org"],
    ["javascript:alert(document.domain)", null],
    ["JAVASCRIPT:alert(1)", null],
    ["data:text/html,<script>alert(1)</script>", null],
    ["file:///etc/passwd", null],
    ["vbscript:msgbox", null],
    ["//evil.example/no-scheme", null],
    ["/relative", null],
    ["https://bank.example@evil.example/", null], // credentials: the host people read is not the host
    ["https://аpple.com/", "xn--pple-43d.com"], // Cyrillic а: shown as the name the browser asks for
    ["https://xn--80ak6aa92e.com/", "xn--80ak6aa92e.com"],
    ["https://example.org\u202e/gro.live", null], // a bidi override in the host: no address at all
    ["https://evil.example\\@example.org/", "evil.example"],
    ["https://example.org.evil.example/", "example.org.evil.example"],
  ])("%j → %j", (url, host) => {
    const u = safeURL(url);
    expect(u ? realHost(u) : null).toBe(host);
  });

  it("matches a link to a result by page, not by prefix", () => {
    expect(samePage("https://example.org/a/", "https://example.org/a#x")).toBe(true);
    expect(samePage("https://example.org/a", "https://example.org/ab")).toBe(false);
    expect(samePage("https://example.org/a", "javascript:alert(1)")).toBe(false);
    expect(citationLinkNumber("3")).toBe(3);
    expect(citationLinkNumber("[3]")).toBe(3);
    expect(citationLinkNumber("the page")).toBeNull();
    expect(citationLinkNumber("0")).toBeNull();
  });
});

const answer = (results: SearchAnswer["results"]): SearchAnswer => ({ query: "cairn", provider: "searxng", providerName: "SearXNG", results });

const results: SearchAnswer["results"] = [
  { title: "Cairns of the world", url: "https://www.example.org/cairn", snippet: "A pile of stones", provider: "searxng" },
  { title: "Evil\u202e moc.elgoog", url: "javascript:alert(document.domain)", provider: "searxng" },
  { title: "Apple (really)", url: "https://аpple.com/stones", provider: "searxng" },
];

let id = 0;
function part(type: Part["type"], extra: Partial<Part>): Part {
  id++;
  return { id: `p${id}`, messageId: "m", index: id, round: 0, type, state: "done", createdAt: 1, updatedAt: 1, ...extra };
}

function search(callId: string, res: SearchAnswer["results"]): Part[] {
  return [
    part("tool-call", { tool: { callId, name: "web_search", namespace: "web", arguments: '{"query":"cairn"}' } }),
    part("tool-result", { tool: { callId, name: "web_search", content: "Results…", display: answer(res) } }),
  ];
}

function message(parts: Part[]): Message {
  return { id: "m", sessionId: "s", role: "assistant", status: "complete", createdAt: 1, updatedAt: 1, parts } as Message;
}

function renderAnswer(parts: Part[], transport = new FakeTransport()) {
  return renderWithClient(<MessageView message={message(parts)} last idle editMode="branch" />, { transport, ready: null });
}

describe("citations in an answer", () => {
  afterEach(() => vi.restoreAllMocks());

  it("turns markers into chips that link to the results, show title and real host, and open outside the app", () => {
    const tab = { closed: false, opener: {} as unknown, location: { href: "" }, close: vi.fn() };
    const open = vi.spyOn(window, "open").mockReturnValue(tab as unknown as Window);
    renderAnswer([...search("c1", results), part("text", { text: "Cairns mark trails [1]. Not code: `[1]`. Out of range [9]. Unsafe [2]. Lookalike [3]." })]);
    const text = screen.getByTestId("part-text");
    const chips = within(text).getAllByTestId("citation");
    expect(chips.map((c) => c.getAttribute("data-host"))).toEqual(["example.org", "xn--pple-43d.com"]);
    const first = within(chips[0]!).getByRole("link");
    expect(first).toHaveAttribute("href", "https://www.example.org/cairn");
    expect(first).toHaveAccessibleName("Source 1: example.org");
    expect(first).toHaveAccessibleDescription("Cairns of the world example.org");
    expect(within(chips[1]!).getByTestId("citation-tip")).toHaveTextContent("Apple (really)xn--pple-43d.com");
    // the javascript: result is an inert chip: no link, nothing to click
    const inert = within(text).getByTestId("citation-inert");
    expect(inert).toHaveTextContent("2");
    expect(text.querySelectorAll("a[href^='javascript:' i]")).toHaveLength(0);
    // code keeps its brackets; a number the search did not give stays text
    expect(text.querySelector("code")).toHaveTextContent("[1]");
    expect(text).toHaveTextContent("Out of range [9].");

    fireEvent.click(first);
    expect(open).toHaveBeenCalledWith("about:blank", "_blank");
    expect(tab.location.href).toBe("https://www.example.org/cairn");
    expect(tab.opener).toBeNull();
  });

  it("a marker names the latest search before its text; text before any search has no chips", () => {
    const second: SearchAnswer["results"] = [{ title: "Second search", url: "https://second.example/", provider: "searxng" }];
    renderAnswer([
      part("text", { text: "Before [1]." }),
      ...search("c1", results),
      part("text", { text: "After the first [1]." }),
      ...search("c2", second),
      part("text", { text: "After the second [1]." }),
    ]);
    const texts = screen.getAllByTestId("part-text");
    expect(within(texts[0]!).queryByTestId("citation")).toBeNull();
    expect(texts[0]).toHaveTextContent("Before [1].");
    expect(within(texts[1]!).getByTestId("citation")).toHaveAttribute("data-host", "example.org");
    expect(within(texts[2]!).getByTestId("citation")).toHaveAttribute("data-host", "second.example");
  });

  it("a citation written as a link shows the host it really goes to, and borrows no title", () => {
    renderAnswer([
      ...search("c1", results),
      part("text", { text: "Real [1](https://www.example.org/cairn), borrowed [1](https://example.org.evil.example/), bad [1](javascript:alert(1))." }),
    ]);
    const chips = within(screen.getByTestId("part-text")).getAllByTestId("citation");
    expect(chips.map((c) => c.getAttribute("data-host"))).toEqual(["example.org", "example.org.evil.example"]);
    expect(within(chips[0]!).getByTestId("citation-tip")).toHaveTextContent("Cairns of the world");
    expect(within(chips[1]!).getByTestId("citation-tip")).not.toHaveTextContent("Cairns of the world");
    expect(screen.getByTestId("md-link-inert")).toHaveTextContent("1"); // javascript: stays inert text
  });

  it("a follow-up answer without a search cites the latest search of the answers before it", () => {
    const first = message([...search("c1", results), part("text", { text: "Found [1]." })]);
    const user = { ...message([part("text", { text: "and [1]?" })]), id: "u", role: "user" } as Message;
    const followUp = { ...message([part("text", { text: "As I said, [1]." })]), id: "m2" } as Message;
    const before = tablesBefore([first, user, followUp]);
    expect(before[0]).toBeNull();
    expect(before[1]).toBe(lastSearchTable(first));
    expect(before[2]).toBe(before[1]); // the same object: an unchanged search re-renders nothing
    expect(lastSearchTable(followUp)).toBeNull();
    renderWithClient(<MessageView message={followUp} last idle editMode="branch" citationsBefore={before[2]} />, { transport: new FakeTransport(), ready: null });
    expect(screen.getByTestId("citation")).toHaveAttribute("data-host", "example.org");
  });

  it("a failed search gives no chips", () => {
    renderAnswer([
      part("tool-call", { tool: { callId: "c", name: "web_search", arguments: "{}" } }),
      part("tool-error", { tool: { callId: "c", name: "web_search", error: { code: "search_rate_limited", i18nKey: "errors.search_rate_limited", message: "429" } } }),
      part("text", { text: "No source [1]." }),
    ]);
    expect(screen.queryByTestId("citation")).toBeNull();
    expect(citationTables(groupParts([])).size).toBe(0);
  });

  it("shows the generic icon, fetching nothing, until site icons are on; then the backend's data: URL", async () => {
    const backend = new FakeBackend([...SPECS, { key: "websearch.favicons", type: "bool", default: false, section: "web-search" }]);
    const transport = backend.window();
    const asked: string[] = [];
    transport.impl.FetchFavicon = (url) => {
      asked.push(String(url));
      return { url: "https://www.example.org/favicon.ico", contentType: "image/png", size: 4, dataUrl: "data:image/png;base64,AAAA" };
    };
    renderAnswer([...search("c1", results), part("text", { text: "Icon [1]." })], transport);
    const chip = screen.getByTestId("citation");
    await within(chip).findByTestId("site-icon-generic");
    expect(asked).toEqual([]);
    await transport.call("SetSetting", "websearch.favicons", true);
    const img = await within(chip).findByTestId("site-icon");
    expect(img).toHaveAttribute("src", "data:image/png;base64,AAAA");
    expect(asked).toEqual(["https://www.example.org/cairn"]);
  });
});
