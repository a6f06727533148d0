import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { SettingSpec } from "../api";
import { appErr, FakeBackend, SPECS } from "../test/fakeTransport";
import { renderWithClient } from "../test/render";
import { useRouter } from "../shell/router";
import { SettingsPage } from "./SettingsPage";

/** Mirrors backend/websearch.Specs() for the providers the fake lists. */
const SEARCH_SPECS: SettingSpec[] = [
  { key: "websearch.provider", type: "enum", default: "bing", enum: ["tavily", "searxng", "brave", "bing"], section: "web-search" },
  { key: "websearch.fallback", type: "string", default: "", maxLen: 300, section: "web-search" },
  { key: "websearch.askAll", type: "bool", default: false, section: "web-search" },
  { key: "websearch.cacheTTL", type: "duration", default: "15m", minDuration: "0s", maxDuration: "168h", section: "web-search" },
  { key: "websearch.proxy", type: "string", default: "", maxLen: 2000, section: "web-search" },
  ...["tavily", "searxng", "brave", "bing"].map(
    (id): SettingSpec => ({ key: `websearch.endpoint.${id}`, type: "string", default: "", maxLen: 2000, section: "web-search" }),
  ),
];

function Routed() {
  const { route } = useRouter();
  return route.name === "settings" ? <SettingsPage section={route.section} /> : null;
}

function open(lang?: "zh-CN") {
  const backend = new FakeBackend([...SPECS, ...SEARCH_SPECS]);
  const transport = backend.window();
  renderWithClient(<Routed />, { transport, route: { name: "settings", section: "web-search" }, lng: lang });
  return { backend, transport };
}

describe("Settings → Web search", () => {
  it("chooses a provider, says what it needs and can do, and shows its endpoint", async () => {
    const user = userEvent.setup();
    const { backend } = open();
    const select = await screen.findByTestId("setting-websearch.provider");
    expect(select).toHaveValue("bing");
    expect(await screen.findByTestId("websearch-facts")).toHaveTextContent("Needs no key.");
    expect(screen.getByTestId("websearch-facts")).toHaveTextContent("Bing does not read pages; Cairn's own fetcher reads them.");
    expect(screen.queryByTestId("coming-soon-web-search")).not.toBeInTheDocument();

    await user.selectOptions(select, "tavily");
    await waitFor(() => expect(backend.values["websearch.provider"]).toBe("tavily"));
    const facts = screen.getByTestId("websearch-facts");
    await waitFor(() => expect(facts).toHaveTextContent("Needs an API key: websearch.tavily below."));
    expect(facts).toHaveTextContent("Reads pages itself: parse_link goes through Tavily.");
    const provider = screen.getByTestId("websearch-provider");
    expect(within(provider).getByLabelText("Tavily endpoint")).toBeInTheDocument();
    // the other providers' endpoints are folded away, the keys are below
    expect(within(screen.getByTestId("websearch-other-endpoints")).getByLabelText("SearXNG endpoint")).toBeInTheDocument();
    expect(screen.getByTestId("secret-websearch.tavily")).toBeInTheDocument();
    expect(screen.getByTestId("setting-websearch.fallback")).toBeInTheDocument();
  });

  it("Test runs a real search through the chosen provider and lists the results", async () => {
    const user = userEvent.setup();
    const { transport } = open();
    transport.impl.TestWebSearch = (provider, query) => ({
      query,
      provider,
      results: [{ title: "Cairn\u202e evil", url: "https://www.example.org/cairn", snippet: "A stone pile", provider }],
    });
    await user.type(await screen.findByLabelText("Test query"), "stone");
    await user.click(screen.getByRole("button", { name: "Test Bing" }));
    const results = await screen.findByTestId("websearch-test-results");
    expect(results).toHaveTextContent("Results: 1");
    expect(results).toHaveTextContent("example.org");
    expect(results).toHaveTextContent("A stone pile");
    expect(results.textContent).not.toContain("\u202e"); // shown as a badge, never as itself
    expect(within(results).getByRole("link")).toHaveAttribute("href", "https://www.example.org/cairn");
    expect(transport.calls.find((c) => c.method === "TestWebSearch")?.args).toEqual(["bing", "stone"]);
  });

  it("Test shows a provider's failure as its localized error with the way out", async () => {
    const user = userEvent.setup();
    const { transport } = open("zh-CN");
    transport.impl.TestWebSearch = () => {
      throw {
        ...appErr("searxng_json_disabled", { provider: "SearXNG", setting: "search.formats: [html, json]" }, "SearXNG: HTTP 403"),
        action: { kind: "open-settings", target: "web-search" },
      };
    };
    await user.click(await screen.findByRole("button", { name: "测试 Bing" }));
    const form = screen.getByTestId("websearch-test");
    expect(await within(form).findByTestId("error-view")).toHaveTextContent("search.formats: [html, json]");
    expect(within(form).getByTestId("error-view")).toHaveTextContent("SearXNG 实例未开启 JSON 输出");
  });

  it.each([
    ["en", "The fallback list names providers Cairn does not have: \"googel\". Use these names: tavily, brave."],
    ["zh-CN", "备用列表中有 Cairn 没有的搜索服务：\"googel\"。可用的名称：tavily, brave。"],
  ] as const)("a fallback chain naming an unknown provider is refused with a localized error (%s)", async (lng, text) => {
    const user = userEvent.setup();
    const { backend, transport } = open(lng === "en" ? undefined : lng);
    const set = transport.impl.SetSetting!;
    transport.impl.SetSetting = (key, value) => {
      if (key === "websearch.fallback" && String(value).includes("googel")) {
        throw appErr("search_fallback_unknown", { key, names: '"googel"', known: "tavily, brave" }, "websearch.fallback names no web search provider");
      }
      return set(key, value);
    };
    const field = await screen.findByTestId("setting-websearch.fallback");
    await user.type(field, "brave googel");
    await user.tab(); // the chain is a text area: leaving it saves
    expect(await screen.findByTestId("error-view")).toHaveTextContent(text);
    expect(backend.values["websearch.fallback"] ?? "").toBe("");
  });

  it("an empty answer says the provider found nothing (not an error)", async () => {
    const user = userEvent.setup();
    const { transport } = open();
    transport.impl.TestWebSearch = (provider, query) => ({ query, provider, results: [] });
    await user.click(await screen.findByRole("button", { name: "Test Bing" }));
    expect(await screen.findByTestId("websearch-test-empty")).toHaveTextContent("The provider answered and found nothing.");
  });
});
