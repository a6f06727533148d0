import type { Transport } from "./types";

/**
 * A page about to be opened outside the app once an asynchronous call says where: prepared
 * synchronously in the click handler (so `cairn serve`'s tab is not popup-blocked), then
 * shown or discarded.
 */
export interface ExternalPage {
  /** Opens url; false when nothing could open it (show the link instead). */
  show(url: string): boolean;
  /** Nothing to open after all (closes a tab opened in advance). */
  discard(): void;
}

/**
 * Opening pages in the user's browser: the system browser through the Wails runtime in the
 * desktop window, a new tab in `cairn serve`.
 */
export function browserApi(t: Transport, w: Window = window) {
  return {
    /** Call synchronously inside the user's click, before awaiting anything. */
    prepare(): ExternalPage {
      if (t.kind === "wails") {
        return {
          show: (url) => {
            const open = w.runtime?.BrowserOpenURL;
            if (typeof open !== "function") return false;
            open(url);
            return true;
          },
          discard: () => {},
        };
      }
      let tab: Window | null = null;
      try {
        tab = w.open("about:blank", "_blank");
      } catch {
        tab = null;
      }
      return {
        show: (url) => {
          if (!tab || tab.closed) return false;
          try {
            tab.opener = null; // the authorization page gets no handle on this window
            tab.location.href = url;
            return true;
          } catch {
            return false;
          }
        },
        discard: () => {
          try {
            tab?.close();
          } catch {
            /* already gone */
          }
        },
      };
    },
  };
}

export type BrowserApi = ReturnType<typeof browserApi>;
