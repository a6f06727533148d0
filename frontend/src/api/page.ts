import type { CairnEvent, Transport } from "./types";

/**
 * Id of the JSON block `cairn serve` and the desktop window's asset server write into
 * index.html (backend/server/page.go): the
 * answers of the calls every window makes before its first frame, and the strings of the
 * window's language, so that the first frame needs no request. A data block, never run:
 * the page's Content-Security-Policy allows no inline script.
 */
export const PAGE_DATA_ID = "cairn-page-data";

/** What the page arrived with (empty when the page has no block, e.g. `npm run dev`). */
export interface PageData {
  /** Results of facade calls by pageCallKey, e.g. GetSettings, ListSessions[""]. */
  calls: Record<string, unknown>;
  /** The strings of one language (all namespaces), chosen by the server for this window. */
  locale: { lng: string; strings: Record<string, Record<string, unknown>> } | null;
}

const EMPTY: PageData = { calls: {}, locale: null };

/** Reads the page data once; anything missing or malformed counts as absent. */
export function readPageData(doc: Document = document): PageData {
  const el = doc.getElementById(PAGE_DATA_ID);
  if (!el || el.getAttribute("type") !== "application/json") return EMPTY;
  let raw: unknown;
  try {
    raw = JSON.parse(el.textContent ?? "");
  } catch {
    return EMPTY;
  }
  el.remove(); // read once; the DOM need not keep the copy
  if (!isRecord(raw)) return EMPTY;
  const calls = isRecord(raw.calls) ? raw.calls : {};
  const loc = raw.locale;
  const locale =
    isRecord(loc) && typeof loc.lng === "string" && isRecord(loc.strings)
      ? { lng: loc.lng, strings: loc.strings as Record<string, Record<string, unknown>> }
      : null;
  return { calls, locale };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * The key of a call in the page data: the method's name, followed by its arguments as a
 * JSON array when it has any (backend/server/page.go builds the same keys).
 */
export function pageCallKey(method: string, args: readonly unknown[]): string {
  return args.length === 0 ? method : method + JSON.stringify(args);
}

/**
 * Answers the first call of each key in `calls` from the page instead of the backend (the
 * same result the backend gave when it served the page); every other call, and the same
 * call a second time, goes to `inner`. With no page data it returns `inner`.
 * The answers hold until the event stream first says hello (onReconnect): what is loaded
 * then must be what the backend has now, not what it had when it served the page.
 */
export function withPageCalls(inner: Transport, calls: Record<string, unknown>): Transport {
  const answers = new Map(Object.entries(calls));
  if (answers.size === 0) return inner;
  // Registered before any store's reload, so it runs first.
  const forget = inner.onReconnect(() => {
    answers.clear();
    forget();
  });
  return {
    kind: inner.kind,
    call<T>(method: string, ...args: unknown[]): Promise<T> {
      const key = pageCallKey(method, args);
      if (answers.has(key)) {
        const result = answers.get(key) as T;
        answers.delete(key);
        return Promise.resolve(result);
      }
      return inner.call<T>(method, ...args);
    },
    subscribe: (handler: (ev: CairnEvent) => void) => inner.subscribe(handler),
    onReconnect: (handler: () => void) => inner.onReconnect(handler),
    awaitingConnection: () => inner.awaitingConnection?.() ?? false,
  };
}
