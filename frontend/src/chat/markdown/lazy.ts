// The heavy renderers (KaTeX with its fonts and CSS, highlight.js with its grammars) are
// loaded on first use, so the first screen does not wait for them.

import type { HLJSApi } from "highlight.js";

type Katex = typeof import("katex").default;

let katexPromise: Promise<Katex> | null = null;
let hljsPromise: Promise<HLJSApi> | null = null;
let katexLoaded: Katex | null = null;
let hljsLoaded: HLJSApi | null = null;

/** KaTeX, loaded once (with its stylesheet). */
export function loadKatex(): Promise<Katex> {
  katexPromise ??= Promise.all([import("katex"), import("katex/dist/katex.min.css").catch(() => undefined)]).then(
    ([m]) => {
      katexLoaded = m.default;
      return m.default;
    },
  );
  return katexPromise;
}

/** highlight.js with its common languages, loaded once. */
export function loadHighlighter(): Promise<HLJSApi> {
  hljsPromise ??= import("highlight.js/lib/common").then((m) => {
    hljsLoaded = m.default;
    return m.default;
  });
  return hljsPromise;
}

/** The modules if they are already loaded (renders synchronously then). */
export const loaded = {
  katex: () => katexLoaded,
  hljs: () => hljsLoaded,
};

/** Code longer than this is shown without highlighting (it would stall streaming). */
export const MAX_HIGHLIGHT = 100_000;

/** Highlighted HTML for code in a language highlight.js knows, else null. */
export function highlight(hljs: HLJSApi, code: string, lang: string): string | null {
  if (!lang || code.length > MAX_HIGHLIGHT) return null;
  const l = hljs.getLanguage(lang);
  if (!l) return null;
  try {
    return hljs.highlight(code, { language: lang, ignoreIllegals: true }).value;
  } catch {
    return null;
  }
}

/** KaTeX HTML for TeX; errors are rendered in place by KaTeX (throwOnError false). */
export function renderMath(katex: Katex, tex: string, display: boolean): string {
  return katex.renderToString(tex, { displayMode: display, throwOnError: false, output: "htmlAndMathml", strict: "ignore" });
}
