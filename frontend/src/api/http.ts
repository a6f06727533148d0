import { isAppError, toAppError, transportError, unknownError } from "./errors";
import type { AppError, CairnEvent, Transport } from "./types";
import { parseEvent } from "./wails";

export interface HttpTransportOptions {
  /** Origin and path prefix of `cairn serve`; "" means the page's own origin. */
  baseUrl?: string;
  /** Used for the calls and for the event stream. */
  fetch?: typeof fetch;
  /**
   * The token `cairn serve` printed (takeToken), sent as `Authorization: Bearer` with every
   * call and with the event stream. Never a cookie: a browser sends a host's cookies to
   * every port of it, so any local web server the user opens would receive one.
   */
  token?: string | null;
  /** Back-off in ms between attempts to reopen a closed event stream; the last repeats. */
  reconnectDelays?: number[];
}

/**
 * First event of every `cairn serve` stream, sent once the server has subscribed this
 * stream to the bus: from then on nothing is missed, so it is the moment to (re)load.
 */
export const HELLO = "hello";
const DEFAULT_DELAYS = [500, 1000, 2000, 5000, 10000];

/** One open (or opening) event stream; a stream that is no longer `conn` is ignored. */
interface Stream {
  abort: AbortController;
  /** It said hello (it is subscribed to the bus). */
  greeted: boolean;
}

/**
 * Transport for `cairn serve`: `POST /api/<Method>` with the JSON array of arguments, and
 * one Server-Sent Events stream at `/api/events` shared by every subscriber. The stream is
 * read with fetch rather than EventSource, which cannot send the token as a header.
 */
export class HttpTransport implements Transport {
  readonly kind = "http" as const;
  private readonly base: string;
  private readonly fetchFn: typeof fetch;
  private readonly token: string | null;
  private readonly delays: number[];
  private readonly handlers = new Set<(ev: CairnEvent) => void>();
  private readonly reconnectHandlers = new Set<() => void>();
  private conn: Stream | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private attempt = 0;

  constructor(opts: HttpTransportOptions = {}) {
    this.base = (opts.baseUrl ?? "").replace(/\/+$/, "");
    this.fetchFn = opts.fetch ?? ((...a: Parameters<typeof fetch>) => globalThis.fetch(...a));
    this.token = opts.token ?? null;
    this.delays = opts.reconnectDelays?.length ? opts.reconnectDelays : DEFAULT_DELAYS;
  }

  private headers(accept: string): Record<string, string> {
    const h: Record<string, string> = { Accept: accept };
    if (this.token) h.Authorization = `Bearer ${this.token}`;
    return h;
  }

  async call<T>(method: string, ...args: unknown[]): Promise<T> {
    let res: Response;
    try {
      res = await this.fetchFn(`${this.base}/api/${encodeURIComponent(method)}`, {
        method: "POST",
        credentials: "omit",
        headers: { ...this.headers("application/json"), "Content-Type": "application/json" },
        body: JSON.stringify(args),
      });
    } catch (e) {
      throw transportError(e instanceof Error ? e.message : String(e));
    }
    let text = "";
    try {
      text = await res.text();
    } catch (e) {
      throw transportError(e instanceof Error ? e.message : String(e));
    }
    let body: unknown = undefined;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
    }
    if (res.ok && typeof body === "object" && body !== null && "result" in body) {
      return (body as { result: T }).result;
    }
    if (res.ok && body !== undefined && !hasError(body)) {
      // A 200 whose body is not the envelope: trust the body itself.
      return body as T;
    }
    if (res.ok && body === undefined) return undefined as T;
    throw httpError(res.status, body, text);
  }

  subscribe(handler: (ev: CairnEvent) => void): () => void {
    this.handlers.add(handler);
    this.ensureStream();
    return () => {
      this.handlers.delete(handler);
      if (this.handlers.size === 0) this.stopStream();
    };
  }

  onReconnect(handler: () => void): () => void {
    this.reconnectHandlers.add(handler);
    return () => this.reconnectHandlers.delete(handler);
  }

  awaitingConnection(): boolean {
    return this.conn !== null && !this.conn.greeted;
  }

  private ensureStream(): void {
    if (this.conn || this.timer) return;
    this.open();
  }

  private open(): void {
    const conn: Stream = { abort: new AbortController(), greeted: false };
    this.conn = conn;
    void this.read(conn).finally(() => {
      if (this.conn !== conn) return; // stopped, or replaced
      this.conn = null;
      this.scheduleReopen();
    });
  }

  /** Reads one stream until it ends or fails (an error status, a cut connection). */
  private async read(conn: Stream): Promise<void> {
    let res: Response;
    try {
      res = await this.fetchFn(`${this.base}/api/events`, {
        method: "GET",
        credentials: "omit",
        cache: "no-store",
        headers: this.headers("text/event-stream"),
        signal: conn.abort.signal,
      });
    } catch {
      return;
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel().catch(() => {});
      return;
    }
    const parser = new SseParser((data) => {
      if (this.conn === conn) this.deliver(conn, data);
    });
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done || this.conn !== conn) break;
        parser.push(decoder.decode(value, { stream: true }));
      }
    } catch {
      /* cut: reopened by open() */
    } finally {
      reader.cancel().catch(() => {});
    }
  }

  private deliver(conn: Stream, data: string): void {
    const ev = parseEvent(data);
    if (!ev) return;
    if (ev.type === HELLO) {
      // Sent on every (re)connection after the server subscribed the stream.
      conn.greeted = true;
      this.attempt = 0;
      for (const h of [...this.reconnectHandlers]) h();
      return;
    }
    for (const h of [...this.handlers]) h(ev);
  }

  private scheduleReopen(): void {
    if (this.timer || this.handlers.size === 0) return;
    const delay = this.delays[Math.min(this.attempt, this.delays.length - 1)] ?? 1000;
    this.attempt++;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.handlers.size > 0 && !this.conn) this.open();
    }, delay);
  }

  private stopStream(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const conn = this.conn;
    this.conn = null;
    conn?.abort.abort();
    this.attempt = 0;
  }
}

/**
 * The Server-Sent Events wire format, fed in arbitrary pieces: each event's `data:` lines,
 * joined by newlines, go to onData at the blank line that ends it. Comments (the server's
 * heartbeat), `retry:` and other fields carry no event.
 */
export class SseParser {
  private buf = "";
  private data: string[] = [];

  constructor(private readonly onData: (data: string) => void) {}

  push(chunk: string): void {
    this.buf += chunk;
    for (;;) {
      const nl = this.buf.indexOf("\n");
      if (nl < 0) return;
      const line = this.buf.slice(0, nl).replace(/\r$/, "");
      this.buf = this.buf.slice(nl + 1);
      this.line(line);
    }
  }

  private line(line: string): void {
    if (line === "") {
      if (this.data.length > 0) {
        const data = this.data.join("\n");
        this.data = [];
        this.onData(data);
      }
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.data.push(value);
  }
}

function hasError(body: unknown): boolean {
  return typeof body === "object" && body !== null && "error" in body;
}

function httpError(status: number, body: unknown, text: string): AppError {
  if (typeof body === "object" && body !== null) {
    const err = (body as { error?: unknown }).error;
    if (isAppError(err)) return toAppError(err);
    if (typeof err === "string" && err) return unknownError(err);
  }
  if (status === 401) {
    return {
      code: "unauthorized",
      i18nKey: "errors.unauthorized",
      message: text.trim() || "HTTP 401",
    };
  }
  const snippet = text.trim().slice(0, 300);
  return unknownError(snippet ? `HTTP ${status}: ${snippet}` : `HTTP ${status}`);
}

/** Where a tab keeps the token once it moved out of the address. */
export const TOKEN_KEY = "cairn.token";

/**
 * The token of this tab: the address's `?token=` (how `cairn serve` prints its URL), which
 * is then kept in the tab's session storage, per origin, so a reload still has it, and
 * taken out of the address (history.replaceState), so it is neither in the history nor in
 * what the user copies; else the one the tab kept. Null when there is none: calls are then
 * refused (errors.unauthorized), and the page carries no data.
 */
export function takeToken(w: Pick<Window, "location" | "history" | "sessionStorage"> = window): string | null {
  let fromUrl: string | null = null;
  let url: URL | null = null;
  try {
    url = new URL(w.location.href);
    fromUrl = url.searchParams.get("token");
  } catch {
    url = null;
  }
  if (fromUrl && url) {
    try {
      w.sessionStorage.setItem(TOKEN_KEY, fromUrl);
    } catch {
      /* storage off: the token lives in memory, until a reload */
    }
    url.searchParams.delete("token");
    try {
      w.history.replaceState(w.history.state, "", url.pathname + url.search + url.hash);
    } catch {
      /* a history that refuses: the address keeps it, the app still works */
    }
    return fromUrl;
  }
  try {
    return w.sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}
