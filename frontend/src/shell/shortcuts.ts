import { useEffect, useRef } from "react";

/** The window's global keyboard shortcuts. */
export type ShortcutId = "newChat" | "search" | "settings" | "stop" | "nextChat" | "prevChat" | "help";

/** What each shortcut is, in the order the list shows them. `keys` are display tokens;
 *  "Mod" is ⌘ on a Mac and Ctrl elsewhere. */
export const SHORTCUTS: readonly { id: ShortcutId; keys: readonly string[][] }[] = [
  { id: "newChat", keys: [["Mod", "Shift", "O"]] },
  { id: "search", keys: [["Mod", "K"]] },
  { id: "settings", keys: [["Mod", ","]] },
  { id: "stop", keys: [["Esc"]] },
  { id: "nextChat", keys: [["Alt", "↓"]] },
  { id: "prevChat", keys: [["Alt", "↑"]] },
  { id: "help", keys: [["?"], ["Mod", "/"]] },
];

export function isMac(): boolean {
  const nav = typeof navigator === "undefined" ? undefined : navigator;
  return /Mac|iPhone|iPad/.test(nav?.platform ?? "") || /Mac OS X/.test(nav?.userAgent ?? "");
}

/** A key token as this platform writes it. */
export function keyLabel(token: string, mac = isMac()): string {
  if (token === "Mod") return mac ? "⌘" : "Ctrl";
  if (token === "Alt") return mac ? "⌥" : "Alt";
  if (token === "Shift") return mac ? "⇧" : "Shift";
  return token;
}

type KeyLike = Pick<KeyboardEvent, "key" | "code" | "ctrlKey" | "metaKey" | "altKey" | "shiftKey" | "target">;

/** Typing somewhere: plain keys (? and Esc) belong to the field there. */
function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el || typeof el.closest !== "function") return false;
  return Boolean(el.closest("input, textarea, select, [contenteditable='true'], [role='menu'], [role='listbox']"));
}

/** The shortcut a key press means, or null. */
export function matchShortcut(e: KeyLike, mac = isMac()): ShortcutId | null {
  const mod = mac ? e.metaKey && !e.ctrlKey : e.ctrlKey && !e.metaKey;
  const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
  if (mod && !e.altKey) {
    if (e.shiftKey && (key === "o" || e.code === "KeyO")) return "newChat";
    if (e.shiftKey) return null;
    if (key === "k") return "search";
    if (key === ",") return "settings";
    if (key === "/") return "help";
    return null;
  }
  if (e.ctrlKey || e.metaKey) return null;
  if (e.altKey && !e.shiftKey && key === "ArrowDown") return "nextChat";
  if (e.altKey && !e.shiftKey && key === "ArrowUp") return "prevChat";
  if (e.altKey || typing(e.target)) return null;
  if (key === "?") return "help";
  if (key === "Escape" && !e.shiftKey) return "stop";
  return null;
}

const EVENT = "cairn:shortcut";

/** Tells the components that act on a shortcut (the conversation for stop, the sidebar for
 *  search) that it was pressed. */
export function announceShortcut(id: ShortcutId): void {
  window.dispatchEvent(new CustomEvent<ShortcutId>(EVENT, { detail: id }));
}

/** Runs fn when the shortcut is pressed while the component is shown. */
export function useShortcut(id: ShortcutId, fn: () => void): void {
  const ref = useRef(fn);
  ref.current = fn;
  useEffect(() => {
    const on = (e: Event) => {
      if ((e as CustomEvent<ShortcutId>).detail === id) ref.current();
    };
    window.addEventListener(EVENT, on);
    return () => window.removeEventListener(EVENT, on);
  }, [id]);
}
