import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { I18nextProvider } from "react-i18next";
import { describe, expect, it, vi } from "vitest";
import { testI18n } from "../../test/i18n";
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
