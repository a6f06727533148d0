import { isAppError, toAppError, transportError, unknownError } from "./errors";
import type { AppError, CairnEvent, Transport } from "./types";
import { parseEvent } from "./wails";

/** The part of EventSource the transport uses, so tests can pass a fake. */
export interface EventSourceLike {
  readonly readyState: number;
  onopen: ((this: EventSource, ev: Event) => unknown) | null;
  onmessage: ((this: EventSource, ev: MessageEvent) => unknown) | null;
  onerror: ((this: EventSource, ev: Event) => unknown) | null;
  close(): void;
}

export type EventSourceCtor = new (url: string, init?: EventSourceInit) => EventSourceLike;

export interface HttpTransportOptions {
  /** Origin and path prefix of `cairn serve`; "" means the page's own origin. */
  baseUrl?: string;
  fetch?: typeof fetch;
  EventSource?: EventSourceCtor;
  /**
   * Token from the page address (`?token=`), sent as a bearer header as well as the
   * cookie the server set when the page was opened. EventSource relies on the cookie.
   */
  token?: string | null;
  /** Back-off in ms between attempts to reopen a closed event stream; the last repeats. */
  reconnectDelays?: number[];
}

const CLOSED = 2;

/**
 * First event of every `cairn serve` stream, sent once the server has subscribed this
 * stream to the bus: from then on nothing is missed, so it is the moment to (re)load.
 */
export const HELLO = "hello";
const DEFAULT_DELAYS = [500, 1000, 2000, 5000, 10000];

/**
 * Transport for `cairn serve`: `POST /api/<Method>` with the JSON array of arguments, and
 * one Server-Sent Events stream at `/api/events` shared by every subscriber.
 */
export class HttpTransport implements Transport {
  readonly kind = "http" as const;
  private readonly base: string;
  private readonly fetchFn: typeof fetch;
  private readonly ES: EventSourceCtor | undefined;
  private readonly token: string | null;
  private readonly delays: number[];
  private readonly handlers = new Set<(ev: CairnEvent) => void>();
  private readonly reconnectHandlers = new Set<() => void>();
  private es: EventSourceLike | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private attempt = 0;
  /** The current stream said hello (it is subscribed to the bus). */
  private greeted = false;

  constructor(opts: HttpTransportOptions = {}) {
    this.base = (opts.baseUrl ?? "").replace(/\/+$/, "");
    this.fetchFn = opts.fetch ?? ((...a: Parameters<typeof fetch>) => globalThis.fetch(...a));
    this.ES = opts.EventSource ?? (globalThis.EventSource as EventSourceCtor | undefined);
    this.token = opts.token ?? null;
    this.delays = opts.reconnectDelays?.length ? opts.reconnectDelays : DEFAULT_DELAYS;
  }

  async call<T>(method: string, ...args: unknown[]): Promise<T> {
    const headers: Record<string, string> = {
      "Content-Type": "application/json",
      Accept: "application/json",
    };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    let res: Response;
    try {
      res = await this.fetchFn(`${this.base}/api/${encodeURIComponent(method)}`, {
        method: "POST",
        credentials: "same-origin",
        headers,
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
    return this.es !== null && !this.greeted && this.es.readyState !== CLOSED;
  }

  private ensureStream(): void {
    if (this.es || this.timer || !this.ES) return;
    this.open();
  }

  private open(): void {
    if (!this.ES) return;
    const es = new this.ES(`${this.base}/api/events`);
    this.es = es;
    this.greeted = false;
    es.onopen = () => {
      if (this.es !== es) return;
      this.attempt = 0;
    };
    es.onmessage = (m: MessageEvent) => {
      if (this.es !== es) return;
      const ev = parseEvent(m.data);
      if (!ev) return;
      if (ev.type === HELLO) {
        // Sent on every (re)connection after the server subscribed the stream.
        this.greeted = true;
        for (const h of [...this.reconnectHandlers]) h();
        return;
      }
      for (const h of [...this.handlers]) h(ev);
    };
    es.onerror = () => {
      if (this.es !== es) return;
      // While CONNECTING the browser retries by itself and fires onopen again. A CLOSED
      // stream (e.g. an HTTP error status) is never retried by the browser: we do it.
      if (es.readyState === CLOSED) {
        es.close();
        this.es = null;
        this.greeted = false;
        this.scheduleReopen();
      }
    };
  }

  private scheduleReopen(): void {
    if (this.timer || this.handlers.size === 0) return;
    const delay = this.delays[Math.min(this.attempt, this.delays.length - 1)] ?? 1000;
    this.attempt++;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.handlers.size > 0 && !this.es) this.open();
    }, delay);
  }

  private stopStream(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.es?.close();
    this.es = null;
    this.greeted = false;
    this.attempt = 0;
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

/** Reads `?token=` from the page address (how `cairn serve` prints its URL). */
export function tokenFromLocation(loc: Pick<Location, "search"> = window.location): string | null {
  try {
    return new URLSearchParams(loc.search).get("token");
  } catch {
    return null;
  }
}
