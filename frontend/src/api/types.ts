// Wire types shared by both transports. Nothing outside src/api needs to know how a call
// travels; it only sees these shapes.

import type * as wire from "./generated";

/** What a user can do about an error: open a settings section ("open-settings"), or try again ("retry"). */
export type AppErrorAction = wire.ApperrAction;

/** The backend's apperr JSON object, the one error shape every call rejects with. */
export type AppError = wire.ApperrError;

/** One broadcast from the backend bus. `seq` grows by one per topic. */
export interface CairnEvent<D = unknown> {
  topic: string;
  seq: number;
  type: string;
  data?: D;
  /** Unix milliseconds. */
  time?: number;
}

/** Event type that tells a window it lost events and must reload its snapshots. */
export const RESYNC = "resync";

/**
 * The only thing that knows how calls and events travel (Wails bindings or HTTP + SSE).
 * Every method of the Go facade is reachable as `call("MethodName", ...args)`.
 */
export interface Transport {
  /** "wails", "http" (or a test's fake): for diagnostics only, never for branching outside src/api. */
  readonly kind: string;
  /** Calls a facade method; rejects with an AppError. */
  call<T>(method: string, ...args: unknown[]): Promise<T>;
  /** Receives every event of every topic; returns an unsubscribe function. */
  subscribe(handler: (ev: CairnEvent) => void): () => void;
  /**
   * Called whenever the event stream (re)connects, including the first connection of the
   * HTTP stream (its `hello` event): events may have been missed, so snapshots must be
   * reloaded.
   */
  onReconnect(handler: () => void): () => void;
  /**
   * True while the event stream is being opened and will announce itself through
   * onReconnect (the HTTP stream's hello): a snapshot loaded now would be loaded again
   * then, so a store that starts meanwhile waits for it (TopicStore.start). Transports
   * whose stream does not announce itself leave this out.
   */
  awaitingConnection?(): boolean;
}
