import { useEffect, type RefObject } from "react";

/** While open, a press anywhere outside root calls onOutside (a popover closing itself). */
export function useClickOutside(root: RefObject<HTMLElement | null>, open: boolean, onOutside: () => void): void {
  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent) => {
      if (!root.current?.contains(e.target as Node)) onOutside();
    };
    document.addEventListener("mousedown", close);
    return () => document.removeEventListener("mousedown", close);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- onOutside is a fresh closure each render
  }, [open, root]);
}
