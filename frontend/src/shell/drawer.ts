import { useCallback, useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import { useRouter } from "./router";

/** Below this width the sidebar and the Settings navigation are drawers (drawer.css). */
export const DRAWER_QUERY = "(max-width: 899px)";

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * A panel that is a drawer in a narrow window: the toggle opens it and moves the focus in,
 * Esc or a click outside closes it and gives the focus back to the toggle, and moving to
 * another page closes it. In a wide window the CSS shows the panel and hides the toggle, so
 * the state does nothing there.
 */
export function useDrawer(name: string) {
  const id = `${name}-${useId().replace(/:/g, "")}`;
  const [open, setOpen] = useState(false);
  const panelRef = useRef<HTMLElement | null>(null);
  const toggleRef = useRef<HTMLButtonElement | null>(null);
  const { route } = useRouter();
  const routeKey = JSON.stringify(route);

  // Set by close(): the focus goes back to the toggle once the panel is closed (the toggle
  // may sit in content that is inert while the drawer is open).
  const refocus = useRef(false);
  const close = useCallback(() => {
    refocus.current = true;
    setOpen(false);
  }, []);

  useEffect(() => {
    setOpen(false);
  }, [routeKey]);

  // Widening the window makes the panel a column again: nothing stays open (or inert).
  useEffect(() => {
    const mq = typeof window.matchMedia === "function" ? window.matchMedia(DRAWER_QUERY) : null;
    if (!mq) return;
    const onChange = () => {
      if (!mq.matches) setOpen(false);
    };
    mq.addEventListener?.("change", onChange);
    return () => mq.removeEventListener?.("change", onChange);
  }, []);

  useEffect(() => {
    if (!open) {
      if (refocus.current) toggleRef.current?.focus();
      refocus.current = false;
      return;
    }
    const first = panelRef.current?.querySelector<HTMLElement>(FOCUSABLE);
    first?.focus();
  }, [open]);

  const onPanelKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    if (open && e.key === "Escape" && !e.defaultPrevented) {
      e.preventDefault();
      e.stopPropagation();
      close();
    }
  };

  return {
    id,
    open,
    close,
    panelRef,
    toggleRef,
    onPanelKeyDown,
    toggleProps: {
      "aria-controls": id,
      "aria-expanded": open,
      onClick: () => setOpen((o) => !o),
    },
  };
}
