import type { Message, Part, SearchAnswer } from "../api";
import { isSearchAnswer } from "../tools/WebSearchResult";
import type { RenderItem } from "../tools/model";

/**
 * Citations of an answer. The web toolset's instruction asks the model to cite a search
 * result by its number in brackets right after the claim ([1], [2, 3]), the numbers
 * web_search gave it (FormatAnswer in backend/websearch). A marker stands for the results
 * of the latest web_search before its text (in the same answer, else in an earlier one of
 * the conversation: a follow-up may cite what was found before); the window turns it into a
 * chip linking to that result. Nothing of the marker is trusted: the address comes from
 * the result, must be http(s), and the chip shows its real host.
 */

/** One result a marker can stand for. */
export interface CitationSource {
  n: number;
  url: string;
  title: string;
  snippet?: string;
}

/** The results a text's markers refer to, by number (1-based). */
export type CitationTable = ReadonlyMap<number, CitationSource>;

/** A run of plain text, or a citation marker with the numbers it names. */
export type Piece = { kind: "text"; text: string } | { kind: "cite"; raw: string; nums: number[] };

/** At most this many numbers in one marker, each at most three digits. */
const MAX_NUMS = 20;

/**
 * [1], [1, 2], [1][2] (two markers), [^1] (a footnote with no definition stays text to
 * Markdown) and the full-width 【1】 Chinese models write. Anything else — [1, [a1], [1,],
 * [ 1 ], an unclosed [1 — is text.
 */
const MARKER = /\[\^?(\d{1,3}(?:[,，、] ?\d{1,3}){0,19})\]|【(\d{1,3}(?:[,，、] ?\d{1,3}){0,19})】/g;

/** Splits text into plain runs and citation markers, in order; joined again they are text. */
export function splitCitations(text: string): Piece[] {
  const out: Piece[] = [];
  let last = 0;
  for (const m of text.matchAll(MARKER)) {
    const nums = (m[1] ?? m[2] ?? "")
      .split(/[,，、] ?/)
      .map(Number)
      .filter((n) => Number.isInteger(n) && n > 0);
    if (nums.length === 0 || nums.length > MAX_NUMS) continue;
    if (m.index > last) out.push({ kind: "text", text: text.slice(last, m.index) });
    out.push({ kind: "cite", raw: m[0], nums });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push({ kind: "text", text: text.slice(last) });
  return out;
}

/** The table of one search answer's results, numbered as the model read them. */
export function tableOf(answer: SearchAnswer): CitationTable {
  const t = new Map<number, CitationSource>();
  answer.results.forEach((r, i) => t.set(i + 1, { n: i + 1, url: r.url ?? "", title: r.title ?? "", snippet: r.snippet }));
  return t;
}

/** Tables by the result part they come from, so an unchanged search gives the same object (memo). */
const byPart = new WeakMap<Part, CitationTable>();

/** The table of a finished web_search's result part, or null for any other part. */
function partTable(p: Part | undefined, name: string | undefined): CitationTable | null {
  if (!p || p.type !== "tool-result" || !isSearchAnswer(name ?? p.tool?.name, p.tool?.display)) return null;
  const answer = p.tool!.display as SearchAnswer;
  if (answer.results.length === 0) return null;
  let t = byPart.get(p);
  if (!t) {
    t = tableOf(answer);
    byPart.set(p, t);
  }
  return t;
}

/**
 * For each text item of an answer (by its key), the results its markers refer to: those
 * of the latest finished web_search before it, else before (the latest search of an
 * earlier answer). Texts with no search before them get none.
 */
export function citationTables(items: readonly RenderItem[], before: CitationTable | null = null): Map<string, CitationTable> {
  const out = new Map<string, CitationTable>();
  let current = before;
  for (const item of items) {
    if (item.kind === "tool") current = partTable(item.end, item.name) ?? current;
    else if (item.kind === "text" && current) out.set(item.key, current);
  }
  return out;
}

const lastByParts = new WeakMap<readonly Part[], CitationTable | null>();

/** The table of a message's latest finished web_search, or null. */
export function lastSearchTable(m: Message): CitationTable | null {
  const parts = m.parts ?? [];
  if (lastByParts.has(parts)) return lastByParts.get(parts)!;
  let t: CitationTable | null = null;
  for (let i = parts.length - 1; i >= 0 && !t; i--) t = partTable(parts[i], undefined);
  lastByParts.set(parts, t);
  return t;
}

/** For each message of a conversation, the latest search table of the messages before it. */
export function tablesBefore(messages: readonly Message[]): Array<CitationTable | null> {
  let current: CitationTable | null = null;
  return messages.map((m) => {
    const before = current;
    current = lastSearchTable(m) ?? current;
    return before;
  });
}

/**
 * An address a chip may open: absolute http(s), no credentials in it (https://bank@evil/
 * shows "bank" where people read a host). Null for everything else.
 */
export function safeURL(raw: string | undefined): URL | null {
  if (!raw) return null;
  try {
    const u = new URL(raw);
    if ((u.protocol !== "http:" && u.protocol !== "https:") || !u.hostname || u.username || u.password) return null;
    return u;
  } catch {
    return null;
  }
}

/**
 * The host a chip shows: the one the address really goes to, as the browser will ask for
 * it (an international name in its ASCII form, so a lookalike such as "аpple.com" with a
 * Cyrillic "а" shows as xn--pple-43d.com), without a leading www.
 */
export function realHost(u: URL): string {
  return u.hostname.replace(/^www\./, "");
}

/** Link text that is a citation written as a Markdown link: [1](https://…) or [[1]](…). */
export function citationLinkNumber(text: string): number | null {
  const m = /^\s*[[【]?\^?(\d{1,3})[\]】]?\s*$/.exec(text);
  const n = m ? Number(m[1]) : NaN;
  return Number.isInteger(n) && n > 0 ? n : null;
}

/** Whether two addresses are the same page for matching a link to a result (no fragment, no trailing slash). */
export function samePage(a: string, b: string): boolean {
  const norm = (s: string) => {
    const u = safeURL(s);
    if (!u) return null;
    u.hash = "";
    return u.href.replace(/\/$/, "");
  };
  const x = norm(a);
  return x !== null && x === norm(b);
}

interface MdNode {
  type: string;
  value?: string;
  children?: MdNode[];
  data?: { hName?: string; hProperties?: Record<string, string> };
}

/** Nodes whose text is not prose: code, math, links (their text is the link's), definitions. */
const SKIP = new Set(["link", "linkReference", "inlineCode", "code", "math", "inlineMath", "definition", "image", "imageReference", "html"]);

/**
 * A remark plugin that turns the markers in an answer's prose into <cite> elements
 * (data-nums, and the marker as their text), which Markdown renders as chips. Code spans,
 * code blocks, math and links are left as they are.
 */
export function remarkCitations() {
  return (tree: MdNode) => {
    walk(tree);
  };
}

function walk(node: MdNode): void {
  if (!node.children || SKIP.has(node.type)) return;
  const next: MdNode[] = [];
  for (const child of node.children) {
    if (child.type !== "text" || !child.value) {
      walk(child);
      next.push(child);
      continue;
    }
    for (const p of splitCitations(child.value)) {
      next.push(
        p.kind === "text"
          ? { type: "text", value: p.text }
          : { type: "emphasis", data: { hName: "cite", hProperties: { dataNums: p.nums.join(",") } }, children: [{ type: "text", value: p.raw }] },
      );
    }
  }
  node.children = next;
}
