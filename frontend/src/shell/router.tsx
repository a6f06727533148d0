import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { hashFromRoute, normalizeSection, routeFromHash, type Route } from "./routes";

export interface Router {
  route: Route;
  navigate(route: Route): void;
  /** Opens a settings section by name (apperr actions: {kind:"open-settings", target}). */
  openSettings(target?: string): void;
}

const RouterContext = createContext<Router | null>(null);

/**
 * State-based routing mirrored into location.hash, so a reload (or an end-to-end test)
 * can open `#/settings/<section>` directly.
 */
export function RouterProvider({ children, initial }: { children: ReactNode; initial?: Route }) {
  const [route, setRoute] = useState<Route>(() => initial ?? routeFromHash(window.location.hash));

  useEffect(() => {
    const onHash = () => setRoute(routeFromHash(window.location.hash));
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, []);

  const navigate = useCallback((r: Route) => {
    setRoute(r);
    const hash = hashFromRoute(r);
    if (window.location.hash !== hash) {
      window.history.replaceState(null, "", `${window.location.pathname}${window.location.search}${hash}`);
    }
  }, []);

  const value = useMemo<Router>(
    () => ({
      route,
      navigate,
      openSettings: (target?: string) => navigate({ name: "settings", section: normalizeSection(target) }),
    }),
    [route, navigate],
  );
  return <RouterContext.Provider value={value}>{children}</RouterContext.Provider>;
}

export function useRouter(): Router {
  const r = useContext(RouterContext);
  if (!r) throw new Error("useRouter outside <RouterProvider>");
  return r;
}

/** For components (like ErrorView) that also render outside the router. */
export function useOptionalRouter(): Router | null {
  return useContext(RouterContext);
}
