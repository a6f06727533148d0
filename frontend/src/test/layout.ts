import { vi } from "vitest";

/**
 * jsdom has no layout. This gives the message list a viewport, every virtualized row a
 * height, and a scroll position that is clamped like a browser's and fires `scroll`.
 * Call in beforeEach; vi.restoreAllMocks (restoreMocks in the config) undoes it.
 */
export function mockLayout({ viewport = 600, row = 80 } = {}) {
  vi.spyOn(HTMLElement.prototype, "clientHeight", "get").mockImplementation(function (this: HTMLElement) {
    return this.classList.contains("message-list") ? viewport : 0;
  });
  vi.spyOn(HTMLElement.prototype, "offsetHeight", "get").mockImplementation(function (this: HTMLElement) {
    return this.dataset.index !== undefined ? row : 0;
  });
  vi.spyOn(HTMLElement.prototype, "scrollHeight", "get").mockImplementation(function (this: HTMLElement) {
    const inner = this.classList.contains("message-list") ? (this.firstElementChild as HTMLElement | null) : null;
    return inner ? Number.parseInt(inner.style.height || "0") : 0;
  });
  const pos = new WeakMap<Element, number>();
  vi.spyOn(Element.prototype, "scrollTop", "get").mockImplementation(function (this: Element) {
    return pos.get(this) ?? 0;
  });
  vi.spyOn(Element.prototype, "scrollTop", "set").mockImplementation(function (this: Element, v: number) {
    const el = this as HTMLElement;
    const max = Math.max(0, el.scrollHeight - el.clientHeight);
    const next = Math.max(0, Math.min(v, max));
    if (next === (pos.get(el) ?? 0)) return;
    pos.set(el, next);
    el.dispatchEvent(new Event("scroll"));
  });
}
