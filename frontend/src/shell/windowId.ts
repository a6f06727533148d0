const KEY = "cairn.windowId";

/** A random id for this window, stable across reloads of the same tab (sessionStorage). */
export function windowId(storage: Pick<Storage, "getItem" | "setItem"> | null = safeSession()): string {
  const existing = storage?.getItem(KEY);
  if (existing) return existing;
  const id =
    typeof crypto !== "undefined" && typeof crypto.randomUUID === "function"
      ? crypto.randomUUID()
      : `w-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
  try {
    storage?.setItem(KEY, id);
  } catch {
    // storage full or blocked: the id just will not survive a reload
  }
  return id;
}

function safeSession(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}
