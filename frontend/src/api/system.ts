import type { Transport } from "./types";

/** Build facts (backend/buildinfo). */
export interface BuildInfo {
  version: string;
  commit: string;
  goVersion?: string;
  platform?: string;
}

/** What the backend says about itself when a window comes up. */
export interface ReadyInfo extends BuildInfo {
  dataDir: string;
  /** True in the desktop app, false in `cairn serve`. */
  desktop: boolean;
}

export interface DoctorCheck {
  /** e.g. "data_dir", "database", "keyring", "webview", "version", "path:npx". */
  name: string;
  ok: boolean;
  detail: string;
  /** A failed required check makes the installation unusable; others are notes. */
  required?: boolean;
}

export interface DoctorReport {
  /** False only when a required check failed. */
  ok: boolean;
  checks: DoctorCheck[];
  version: BuildInfo | string;
  dataDir: string;
  dbVersion: number;
  /** Keyring backend in use: "keyring" or "file". */
  keyring: string;
}

/** Process-level methods: start-up handshake and the health report. */
export function systemApi(t: Transport) {
  return {
    /** Announces this window (id is per window, kept in sessionStorage). */
    ready: (windowId: string) => t.call<ReadyInfo>("Ready", windowId),
    doctor: () => t.call<DoctorReport>("Doctor"),
    /** Reports whether this window has the focus (approval notifications). */
    windowFocus: (windowId: string, focused: boolean) => t.call<void>("WindowFocus", windowId, focused),
    /**
     * Desktop only: saves text where the user picks in the native save dialog; resolves to
     * the path written, or "" when the user cancelled.
     */
    saveTextFile: (defaultName: string, content: string) => t.call<string>("SaveTextFile", defaultName, content),
  };
}

export type SystemApi = ReturnType<typeof systemApi>;
