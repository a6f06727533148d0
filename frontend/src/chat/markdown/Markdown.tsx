import { memo, useMemo, type MouseEvent, type ReactNode } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";
import remarkMath from "remark-math";
import { splitBlocks } from "./blocks";
import { CodeBlock } from "./CodeBlock";
import { MathView } from "./MathView";
import { RemoteImage } from "./RemoteImage";
import { useOptionalClient } from "../../api";
import { CitationLink, CitationMarker } from "../Citation";
import { citationLinkNumber, remarkCitations, safeURL } from "../citations";

interface HastNode {
  type: string;
  tagName?: string;
  value?: string;
  properties?: { className?: unknown; dataNums?: unknown };
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
  a({ href, children, title, node }) {
    // A citation written as a link, [1](https://…): a chip showing the host it goes to.
    const n = citationLinkNumber(textOf(node as HastNode | undefined));
    if (n !== null && safeURL(href)) return <CitationLink n={n} href={href!} />;
    return (
      <Link href={href} title={title}>
        {children}
      </Link>
    );
  },
  // Citation markers ([1], [2, 3]) of the prose, from remarkCitations.
  cite({ node, children }) {
    const raw = String((node as HastNode | undefined)?.properties?.dataNums ?? "");
    const nums = raw.split(",").map(Number).filter((n) => Number.isInteger(n) && n > 0);
    return nums.length ? <CitationMarker nums={nums} raw={children} /> : <>{children}</>;
  },
  img({ src, alt, title }) {
    return <RemoteImage src={typeof src === "string" ? src : undefined} alt={alt} title={title} />;
  },
  table({ children }) {
    return (
      <div className="md-table-wrap">
        <table>{children}</table>
      </div>
    );
  },
};

/** Whether a link may be followed: absolute http(s) and mailto only. */
export function followable(href: string | undefined): href is string {
  if (!href) return false;
  try {
    const u = new URL(href);
    return u.protocol === "http:" || u.protocol === "https:" || u.protocol === "mailto:";
  } catch {
    return false; // relative, or not an address at all
  }
}

/**
 * A link of an answer. javascript:, data:, file: and every other scheme, and relative
 * addresses, are plain text (the address in the tooltip): nothing a model writes can run
 * in the window or move it elsewhere. A followable link opens in the user's browser (the
 * system browser from the desktop window, a new tab from `cairn serve`), never in place.
 */
function Link({ href, title, children }: { href?: string; title?: string; children?: ReactNode }) {
  const client = useOptionalClient();
  if (!followable(href)) {
    return (
      <span className="md-link-inert" title={href || title} data-testid="md-link-inert">
        {children}
      </span>
    );
  }
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    if (!client || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    const page = client.browser.prepare();
    if (!page.show(href)) page.discard();
  };
  return (
    <a href={href} title={title ?? href} target="_blank" rel="noreferrer noopener" onClick={onClick}>
      {children}
    </a>
  );
}

const remarkPlugins = [remarkGfm, [remarkMath, { singleDollarTextMath: true }], remarkCitations] as NonNullable<
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
 * is not rendered, remote images wait for a click (RemoteImage), and only http(s) and
 * mailto links can be followed (Link). While streaming, only the last block is parsed again on each delta.
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
