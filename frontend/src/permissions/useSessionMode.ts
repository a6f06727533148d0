import { useCallback, useEffect, useState } from "react";
import {
  DEFAULT_MODE_KEY,
  isPermissionMode,
  toAppError,
  useClient,
  useSettings,
  type AppError,
  type PermissionMode,
  type SessionPermissionMode,
} from "../api";

export interface SessionModeState {
  /** What GetSessionPermissionMode said (null until loaded). */
  mode: SessionPermissionMode | null;
  /** The mode in force now: the session's own, else the live global default. */
  effective: PermissionMode | null;
  /** The session has a mode of its own. */
  own: boolean;
  /** The global default (setting permissions.defaultMode). */
  defaultMode: PermissionMode;
  error: AppError | null;
  /** "" follows the default again. */
  set: (mode: PermissionMode | "") => Promise<SessionPermissionMode>;
}

/**
 * A session's permission mode, kept current from `permission:mode` events and the
 * settings store (a session without its own mode follows permissions.defaultMode).
 */
export function useSessionPermissionMode(sessionId: string): SessionModeState {
  const client = useClient();
  const settingValue = useSettings().data?.values?.[DEFAULT_MODE_KEY];
  const defaultMode: PermissionMode = isPermissionMode(settingValue) ? settingValue : "default";
  const [mode, setMode] = useState<SessionPermissionMode | null>(null);
  const [error, setError] = useState<AppError | null>(null);

  useEffect(() => {
    let live = true;
    let version = 0;
    setMode(null);
    const load = () => {
      const v = ++version;
      client.permissions.getSessionMode(sessionId).then(
        (m) => {
          if (live && v === version) {
            setMode(m);
            setError(null);
          }
        },
        (e: unknown) => live && v === version && setError(toAppError(e)),
      );
    };
    const stop = client.permissions.watchModes((m) => {
      if (!live || m.sessionId !== sessionId) return;
      version++; // a load still running is older than this event
      setMode(m);
    }, load);
    load();
    return () => {
      live = false;
      stop();
    };
  }, [client, sessionId]);

  const set = useCallback(
    async (m: PermissionMode | "") => {
      const got = await client.permissions.setSessionMode(sessionId, m);
      setMode(got);
      return got;
    },
    [client, sessionId],
  );

  const own = Boolean(mode?.own);
  const effective: PermissionMode | null = !mode ? null : own ? (isPermissionMode(mode.mode) ? mode.mode : "default") : defaultMode;
  return { mode, effective, own, defaultMode, error, set };
}
