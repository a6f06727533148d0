import { memo, useMemo, type ReactNode } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";
import remarkMath from "remark-math";
import { splitBlocks } from "./blocks";
import { CodeBlock } from "./CodeBlock";
import { MathView } from "./MathView";

interface HastNode {
  type: string;
  tagName?: string;
  value?: string;
  properties?: { className?: unknown };
  children?: HastNode[];
}

function textOf(n: HastNode | undefined): string {
  if (!n) return "";
  if (n.type === "text") return n.value ?? "";
  return (n.children ?? []).map(textOf).join("");
}

function classesOf(n: HastNode | undefined): string[] {
  const c = n?.properties?.className;
  return Array.isArray(c) ? c.map(String) : typeof c === "string" ? c.split(/\s+/) : [];
}

const components: Components = {
  // Block code and display math arrive as <pre><code class="language-…">.
  pre({ node }) {
    const code = (node as HastNode | undefined)?.children?.find((c) => c.type === "element" && c.tagName === "code");
    const classes = classesOf(code);
    const text = textOf(code).replace(/\n$/, "");
    if (classes.includes("math-display")) return <MathView tex={text} display />;
    const lang = classes.find((c) => c.startsWith("language-"))?.slice("language-".length) ?? "";
    return <CodeBlock code={text} lang={lang} />;
  },
  code({ className, children }) {
    if (className?.includes("math-inline")) return <MathView tex={String(children ?? "")} display={false} />;
    return <code className="md-inline-code">{children}</code>;
  },
  a({ href, children, title }) {
    return (
      <a href={href} title={title} target="_blank" rel="noreferrer noopener">
        {children}
      </a>
    );
  },
  table({ children }) {
    return (
      <div className="md-table-wrap">
        <table>{children}</table>
      </div>
    );
  },
};

const remarkPlugins = [remarkGfm, [remarkMath, { singleDollarTextMath: true }]] as NonNullable<
  Parameters<typeof ReactMarkdown>[0]["remarkPlugins"]
>;

/** One block, re-rendered only when its own text changes. */
const Block = memo(function Block({ text }: { text: string }) {
  return (
    <ReactMarkdown remarkPlugins={remarkPlugins} components={components}>
      {text}
    </ReactMarkdown>
  );
});

/**
 * Markdown as the model writes it: GFM (tables, task lists, strikethrough, autolinks),
 * fenced code with highlighting and a copy button, TeX math with $…$ and $$…$$. Raw HTML
 * is not rendered. While streaming, only the last block is parsed again on each delta.
 */
export const Markdown = memo(function Markdown({ text, className }: { text: string; className?: string }): ReactNode {
  const blocks = useMemo(() => splitBlocks(normalizeMath(text)), [text]);
  return (
    <div className={["markdown", className ?? ""].filter(Boolean).join(" ")}>
      {blocks.map((b, i) => (
        <Block key={i} text={b} />
      ))}
    </div>
  );
});

/** Models often write \( … \) and \[ … \]; remark-math reads $ … $ and $$ … $$. */
export function normalizeMath(text: string): string {
  if (!text.includes("\\(") && !text.includes("\\[")) return text;
  // Leave code alone: only rewrite outside fences and inline code spans.
  const parts = text.split(/(```[\s\S]*?(?:```|$)|`[^`\n]*`)/g);
  return parts
    .map((p, i) =>
      i % 2 === 1
        ? p
        : p
            .replace(/\\\[([\s\S]+?)\\\]/g, (_m, tex: string) => `\n$$\n${tex.trim()}\n$$\n`)
            .replace(/\\\(([\s\S]+?)\\\)/g, (_m, tex: string) => `$${tex.trim()}$`),
    )
    .join("");
}
