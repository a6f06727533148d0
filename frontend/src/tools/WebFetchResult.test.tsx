import { fireEvent, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { FetchCard, Part } from "../api";
import { FakeTransport } from "../test/fakeTransport";
import { renderWithClient } from "../test/render";
import { groupParts, type ToolItem } from "./model";
import { ToolCard } from "./ToolCard";

const card: FetchCard = {
  url: "https://www.example.org/articles/cairns",
  requested: "http://example.org/cairns",
  title: "Cairns\u200b of the world",
  site: "Example Journal",
  byline: "A. Walker",
  published: "2026-11-30",
  bytes: 14_540,
  chars: 12_345,
  dropped: 2_345,
  preview:
    "Cairns mark trails.\n\n![tracker](https://tracker.example/pixel.png?leak=1)\n\n<script>alert(1)</script>\n\n[run](javascript:alert(document.domain))",
};

const content = `# Cairns of the world\n\nURL: ${card.url}\n\n${card.preview}\n\nThe rest of the page, which only the model read until now.`;

function parts(name: string, end: Partial<Part>, args = '{"url":"http://example.org/cairns"}'): Part[] {
  return [
    { id: "a", messageId: "m", index: 0, round: 0, type: "tool-call", state: "done", createdAt: 1, updatedAt: 1, tool: { callId: "c", name, namespace: "web", arguments: args } },
    { id: "b", messageId: "m", index: 1, round: 0, type: "tool-result", state: "done", createdAt: 1, updatedAt: 1, ...end, tool: { callId: "c", name, durationMs: 5, ...end.tool } },
  ];
}

function openCard(p: Part[]) {
  const item = groupParts(p)[0] as ToolItem;
  renderWithClient(<ToolCard item={item} live={false} />, { transport: new FakeTransport(), ready: null });
  const head = within(screen.getByTestId("tool-card")).getByRole("button", { expanded: false });
  if (head) fireEvent.click(head);
}

describe("parse-link (web fetch) card", () => {
  afterEach(() => vi.restoreAllMocks());

  it("shows title, site, the address read after redirects, length and what was cut", () => {
    openCard(parts("web_fetch", { tool: { callId: "c", name: "web_fetch", content, display: card } }));
    const r = screen.getByTestId("web-fetch-result");
    const link = within(r).getByTestId("web-fetch-link");
    expect(link).toHaveAttribute("href", "https://www.example.org/articles/cairns");
    expect(link).toHaveTextContent("Cairns");
    expect(r.textContent).not.toContain("\u200b"); // a badge, never the character
    expect(within(r).getByTestId("web-fetch-site")).toHaveTextContent("Example Journal · example.org");
    expect(within(r).getByTestId("web-fetch-url")).toHaveTextContent("https://www.example.org/articles/cairns");
    expect(within(r).getByTestId("web-fetch-requested")).toHaveTextContent("http://example.org/cairns");
    expect(within(r).getByTestId("web-fetch-length")).toHaveTextContent("12,345 characters · 14.2 KB fetched · the last 2,345 of 12,345 characters were cut");
    expect(within(r).getByTestId("web-fetch-byline")).toHaveTextContent("A. Walker");
    expect(screen.queryByTestId("tool-result")).toBeNull(); // not the generic JSON dump
  });

  it("the preview opens on demand, loads nothing remote, runs nothing, and shows the whole text on request", () => {
    const tab = { closed: false, opener: {} as unknown, location: { href: "" }, close: vi.fn() };
    const open = vi.spyOn(window, "open").mockReturnValue(tab as unknown as Window);
    openCard(parts("parse_link", { tool: { callId: "c", name: "parse_link", content, display: card } }));
    const preview = screen.getByTestId("web-fetch-preview");
    expect(preview).not.toHaveAttribute("open");
    fireEvent.click(within(preview).getByText("Preview of the text"));
    expect(preview).toHaveAttribute("open");
    expect(within(preview).getByTestId("md-image-placeholder")).toHaveAttribute("data-host", "tracker.example");
    expect(preview.querySelectorAll("img, script")).toHaveLength(0);
    expect(within(preview).getByTestId("md-link-inert")).toHaveTextContent("run");
    expect(preview).not.toHaveTextContent("which only the model read");
    fireEvent.click(within(preview).getByTestId("web-fetch-all"));
    expect(preview).toHaveTextContent("which only the model read");

    fireEvent.click(screen.getByTestId("web-fetch-link"));
    expect(open).toHaveBeenCalledTimes(1);
    expect(tab.location.href).toBe("https://www.example.org/articles/cairns");
  });

  it("an address that is not http(s) is text, never a link", () => {
    openCard(parts("web_fetch", { tool: { callId: "c", name: "web_fetch", content: "x", display: { ...card, url: "javascript:alert(1)", requested: undefined } } }));
    const r = screen.getByTestId("web-fetch-result");
    expect(within(r).queryByRole("link")).toBeNull();
    expect(within(r).getByTestId("web-fetch-site")).toHaveTextContent("no web address");
  });

  it("a failure opens the card with the localized error, its action, and a way to open the page in the browser", () => {
    const error = {
      code: "fetch_blocked_address",
      i18nKey: "errors.fetch_blocked_address",
      params: { host: "intranet.example", address: "192.168.1.10" },
      message: "refused",
      action: { kind: "open-settings", target: "web-search" },
    };
    const item = groupParts(parts("web_fetch", { type: "tool-error", tool: { callId: "c", name: "web_fetch", error } }, '{"url":"https://intranet.example/wiki"}'))[0] as ToolItem;
    renderWithClient(<ToolCard item={item} live={false} />, { transport: new FakeTransport(), ready: null });
    const err = screen.getByTestId("error-view"); // open by itself
    expect(err).toHaveAttribute("data-error-code", "fetch_blocked_address");
    expect(within(err).getByRole("button", { name: /settings/i })).toBeInTheDocument();
    const failed = screen.getByTestId("web-fetch-failed");
    expect(failed).toHaveTextContent("https://intranet.example/wiki");
    expect(within(failed).getByTestId("web-fetch-open")).toHaveTextContent("Open intranet.example in your browser");
  });

  it("a failed call whose address is not http(s) offers nothing to open", () => {
    const error = { code: "parse_link_failed", i18nKey: "errors.parse_link_failed", params: { host: "x", message: "no" }, message: "no" };
    const item = groupParts(parts("web_fetch", { type: "tool-error", tool: { callId: "c", name: "web_fetch", error } }, '{"url":"javascript:alert(1)"}'))[0] as ToolItem;
    renderWithClient(<ToolCard item={item} live={false} />, { transport: new FakeTransport(), ready: null });
    expect(screen.getByTestId("web-fetch-failed")).toHaveTextContent("javascript:alert(1)");
    expect(screen.queryByTestId("web-fetch-open")).toBeNull();
  });
});
