/**
 * Runs fn once body carries data-ready="1", which App sets as the shell's first frame is
 * committed to the DOM; at once when it already does. fn runs once.
 */
export function onceMarkedReady(body: HTMLElement, fn: () => void): void {
  if (body.dataset.ready === "1") {
    fn();
    return;
  }
  const seen = new MutationObserver(() => {
    if (body.dataset.ready !== "1") return;
    seen.disconnect();
    fn();
  });
  seen.observe(body, { attributes: true, attributeFilter: ["data-ready"] });
}
