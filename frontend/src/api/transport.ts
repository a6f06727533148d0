import { HttpTransport, tokenFromLocation } from "./http";
import type { Transport } from "./types";
import { WailsTransport, hasWailsBindings } from "./wails";

/** Wails bindings when the page runs in the desktop webview, else HTTP to `cairn serve`. */
export function detectTransport(w: Window = window): Transport {
  if (hasWailsBindings(w)) return new WailsTransport(w);
  return new HttpTransport({ token: tokenFromLocation(w.location) });
}
