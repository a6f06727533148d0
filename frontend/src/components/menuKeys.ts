import type { KeyboardEvent, RefObject } from "react";

/**
 * The keys of a menu (role=menu) as the ARIA menu pattern has them: Escape closes it,
 * the arrows move to the next or previous item (wrapping), Home and End to the first
 * and last. Returns the menu's onKeyDown.
 */
export function menuKeys(menu: RefObject<HTMLElement | null>, onClose: () => void): (e: KeyboardEvent) => void {
  return (e) => {
    const items = Array.from(menu.current?.querySelectorAll<HTMLElement>("[role=menuitem]") ?? []);
    const at = items.indexOf(document.activeElement as HTMLElement);
    let next: HTMLElement | undefined;
    if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      onClose();
      return;
    }
    if (e.key === "ArrowDown" || e.key === "ArrowUp") next = items[(at + (e.key === "ArrowDown" ? 1 : items.length - 1)) % items.length];
    else if (e.key === "Home" || e.key === "End") next = items[e.key === "Home" ? 0 : items.length - 1];
    else return;
    e.preventDefault();
    next?.focus();
  };
}
