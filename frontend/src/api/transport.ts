import { HttpTransport, takeToken } from "./http";
import { withPageCalls } from "./page";
import type { Transport } from "./types";
import { WailsTransport, hasWailsBindings } from "./wails";

/**
 * Wails bindings when the page runs in the desktop webview, else HTTP to `cairn serve`;
 * either way the calls whose answers came with the page (readPageData) are answered once
 * from there.
 */
export function detectTransport(w: Window = window, pageCalls: Record<string, unknown> = {}): Transport {
  const t = hasWailsBindings(w) ? new WailsTransport(w) : new HttpTransport({ token: takeToken(w) });
  return withPageCalls(t, pageCalls);
}
