import { useCallback, useRef, useState } from "react";
import { toAppError, type AppError } from "../api";

/** What a form's action is doing: run it, whether it runs, how it failed, run it again. */
export interface Action<A extends unknown[], R> {
  /** Runs the action unless it already runs; resolves to its result, or undefined when it failed (see error). */
  run: (...args: A) => Promise<R | undefined>;
  busy: boolean;
  error: AppError | null;
  setError: (e: AppError | null) => void;
  /** Runs the last action again with the same arguments (an error's retry button). */
  retry: () => Promise<R | undefined>;
}

/**
 * The busy / error / retry state every form repeats around its save or test call: the
 * error is cleared when the action starts, and a second run while one is under way is
 * ignored (a double click saves once).
 */
export function useAction<A extends unknown[], R>(fn: (...args: A) => Promise<R>): Action<A, R> {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<AppError | null>(null);
  const fnRef = useRef(fn);
  fnRef.current = fn;
  const running = useRef(false);
  const last = useRef<A | null>(null);
  const run = useCallback(async (...args: A): Promise<R | undefined> => {
    if (running.current) return undefined;
    running.current = true;
    last.current = args;
    setBusy(true);
    setError(null);
    try {
      return await fnRef.current(...args);
    } catch (err) {
      setError(toAppError(err));
      return undefined;
    } finally {
      running.current = false;
      setBusy(false);
    }
  }, []);
  const retry = useCallback(() => (last.current ? run(...last.current) : Promise.resolve(undefined)), [run]);
  return { run, busy, error, setError, retry };
}
