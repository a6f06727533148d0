import { toAppError } from "./errors";
import type { AppError, CairnEvent, Transport } from "./types";

/** The Go facade as Wails exposes it: window.go.main.App.<Method>(...args). */
type BoundMethods = Record<string, ((...args: unknown[]) => Promise<unknown>) | undefined>;

interface WailsRuntime {
  EventsOn(name: string, cb: (...data: unknown[]) => void): (() => void) | void;
  EventsOff?(name: string, ...more: string[]): void;
  /** Opens a URL in the system browser. */
  BrowserOpenURL?(url: string): void;
  /** Quits the app (the window and its process). */
  Quit?(): void;
}

declare global {
  interface Window {
    go?: { main?: { App?: BoundMethods; StartupFailure?: BoundMethods } };
    runtime?: WailsRuntime;
  }
}

/**
 * Calls one method of a struct Wails bound (window.go.main.<Struct>): an unbound method is
 * errors.method_unknown, a rejection becomes an AppError.
 */
export async function callBound<T>(bound: BoundMethods | undefined, method: string, args: unknown[]): Promise<T> {
  const fn = bound?.[method];
  if (typeof fn !== "function") {
    const err: AppError = {
      code: "method_unknown",
      i18nKey: "errors.method_unknown",
      params: { method },
      message: `method ${method} is not bound`,
    };
    throw err;
  }
  try {
    return (await fn(...args)) as T;
  } catch (e) {
    throw toAppError(e);
  }
}

/** The Wails runtime event name the backend emits every bus event on. */
export const WAILS_EVENT = "cairn:event";

/** True inside the Wails webview (bindings are injected before our module runs). */
export function hasWailsBindings(w: Window = window): boolean {
  return typeof w.go?.main?.App === "object" && w.go.main.App !== null;
}

/**
 * Transport over the Wails bindings and runtime events. The webview and the backend live in
 * one process, so the event channel never drops. It still says hello (onReconnect), once
 * each time it starts listening: what the backend broadcast before then never reached this
 * window, and a snapshot taken earlier (those the page came with, api/page.ts) may be older
 * than that, so the stores load again, quietly.
 */
export class WailsTransport implements Transport {
  readonly kind = "wails" as const;
  private readonly handlers = new Set<(ev: CairnEvent) => void>();
  private readonly reconnectHandlers = new Set<() => void>();
  private off: (() => void) | null = null;

  constructor(private readonly w: Window = window) {}

  call<T>(method: string, ...args: unknown[]): Promise<T> {
    return callBound<T>(this.w.go?.main?.App, method, args);
  }

  subscribe(handler: (ev: CairnEvent) => void): () => void {
    this.handlers.add(handler);
    this.ensureListening();
    return () => {
      this.handlers.delete(handler);
      if (this.handlers.size === 0) this.stopListening();
    };
  }

  onReconnect(handler: () => void): () => void {
    this.reconnectHandlers.add(handler);
    return () => this.reconnectHandlers.delete(handler);
  }

  private ensureListening(): void {
    if (this.off || !this.w.runtime) return;
    const ret = this.w.runtime.EventsOn(WAILS_EVENT, (...data: unknown[]) => {
      const ev = parseEvent(data[0]);
      if (!ev) return;
      for (const h of [...this.handlers]) h(ev);
    });
    this.off = typeof ret === "function" ? ret : () => this.w.runtime?.EventsOff?.(WAILS_EVENT);
    // After the task that started listening (the page's start-up code), so the stores it
    // starts have loaded from the page first.
    setTimeout(() => {
      for (const h of [...this.reconnectHandlers]) h();
    }, 0);
  }

  private stopListening(): void {
    this.off?.();
    this.off = null;
  }
}

/** Accepts an event object or its JSON text; anything without topic and seq is ignored. */
export function parseEvent(raw: unknown): CairnEvent | null {
  let v = raw;
  if (typeof v === "string") {
    try {
      v = JSON.parse(v);
    } catch {
      return null;
    }
  }
  if (typeof v !== "object" || v === null) return null;
  const o = v as Record<string, unknown>;
  if (typeof o.type !== "string") return null;
  return {
    topic: typeof o.topic === "string" ? o.topic : "",
    seq: typeof o.seq === "number" ? o.seq : 0,
    type: o.type,
    data: o.data,
    time: typeof o.time === "number" ? o.time : undefined,
  };
}
