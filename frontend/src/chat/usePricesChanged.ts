import { useEffect, useRef } from "react";
import type { Provider } from "../api";

/** Every model's price, as one string: what changes when a price does. */
export function pricesKey(providers: readonly Provider[]): string {
  return JSON.stringify(providers.map((p) => [p.id, p.baseUrl, p.models.map((m) => [m.id, m.price ?? null])]));
}

/**
 * Calls onChange when a price of any provider's model changes after the providers were
 * first seen (a price set in Settings, a fetched list price, a provider removed), so that
 * a view showing costs the backend worked out asks for them again.
 */
export function usePricesChanged(providers: readonly Provider[] | undefined, onChange: () => void) {
  const key = providers ? pricesKey(providers) : null;
  const seen = useRef<string | null>(null);
  const cb = useRef(onChange);
  cb.current = onChange;
  useEffect(() => {
    if (key === null) return;
    if (seen.current !== null && seen.current !== key) cb.current();
    seen.current = key;
  }, [key]);
}
