import { createContext, useContext, useEffect, useState, type ReactNode } from "react";
import { toAppError, type AppError, type ReadyInfo } from "../api";

export interface AppInfoState {
  info: ReadyInfo | null;
  error: AppError | null;
}

const AppInfoContext = createContext<AppInfoState>({ info: null, error: null });

/** Holds the answer of the one Ready call made at start-up (version, data dir, desktop). */
export function AppInfoProvider({ ready, children }: { ready: Promise<ReadyInfo> | null; children: ReactNode }) {
  const [state, setState] = useState<AppInfoState>({ info: null, error: null });
  useEffect(() => {
    if (!ready) return;
    let live = true;
    ready.then(
      (info) => live && setState({ info, error: null }),
      (e: unknown) => live && setState({ info: null, error: toAppError(e) }),
    );
    return () => {
      live = false;
    };
  }, [ready]);
  return <AppInfoContext.Provider value={state}>{children}</AppInfoContext.Provider>;
}

export function useAppInfo(): AppInfoState {
  return useContext(AppInfoContext);
}
