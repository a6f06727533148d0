import type { SystemApi } from "../api";

/** How often a focused window repeats its report; the backend forgets one after 2 min. */
export const FOCUS_REPEAT_MS = 60_000;

/**
 * Tells the backend whether this window has the focus, so an approval that waits while
 * nobody looks raises an OS notification. Returns a function that stops reporting.
 */
export function reportFocus(
  system: Pick<SystemApi, "windowFocus">,
  windowId: string,
  win: Window = window,
  doc: Document = document,
): () => void {
  let last: boolean | null = null;
  const send = (force = false) => {
    const focused = doc.visibilityState === "visible" && doc.hasFocus();
    if (!force && focused === last) return;
    last = focused;
    system.windowFocus(windowId, focused).catch(() => {});
  };
  const onChange = () => send();
  win.addEventListener("focus", onChange);
  win.addEventListener("blur", onChange);
  doc.addEventListener("visibilitychange", onChange);
  const timer = win.setInterval(() => {
    if (last) send(true);
  }, FOCUS_REPEAT_MS);
  send(true);
  return () => {
    win.removeEventListener("focus", onChange);
    win.removeEventListener("blur", onChange);
    doc.removeEventListener("visibilitychange", onChange);
    win.clearInterval(timer);
  };
}
