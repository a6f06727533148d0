import { toAppError } from "./errors";
import { callBound } from "./wails";
import type { AppError } from "./types";

/** What went wrong when the desktop backend could not open (StartupFailureInfo in Go). */
export interface StartupFailureInfo {
  error: AppError;
  dataDir: string;
  version: string;
  /** The language the backend wrote the error to stderr in ("" when unknown). */
  language: string;
}

/**
 * The desktop window's facade when the backend could not open (a database from a newer
 * Cairn, a data directory it cannot create): Go binds StartupFailure instead of App, and the
 * window shows the failure instead of the app.
 */
export interface StartupFailureApi {
  details(): Promise<StartupFailureInfo>;
  /** Tells the backend the failure is on screen, in which language (logged once). */
  shown(language: string): Promise<void>;
  /** Closes the window; the process exits with status 1. */
  quit(): Promise<void>;
}

/** The failure facade when this window was opened on one, else null (the normal case). */
export function findStartupFailure(w: Window = window): StartupFailureApi | null {
  const bound = w.go?.main?.StartupFailure;
  if (typeof bound !== "object" || bound === null) return null;
  const call = <T,>(method: string, ...args: unknown[]) => callBound<T>(bound, method, args);
  return {
    details: async () => {
      const info = await call<Partial<StartupFailureInfo> | null>("Details");
      return {
        error: toAppError(info?.error ?? new Error("start-up failed")),
        dataDir: typeof info?.dataDir === "string" ? info.dataDir : "",
        version: typeof info?.version === "string" ? info.version : "",
        language: typeof info?.language === "string" ? info.language : "",
      };
    },
    shown: (language) => call<void>("Shown", language),
    quit: () => call<void>("Quit"),
  };
}
