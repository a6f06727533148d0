import type { Transport } from "./types";
import type * as wire from "./generated";

export type BuildInfo = wire.BuildInfo;
export type ReadyInfo = wire.ReadyInfo;
export type DoctorCheck = wire.DoctorCheck;
export type DoctorReport = wire.DoctorReport;
export type BackendOwner = wire.BackendOwner;

/** Process-level methods: start-up handshake and the health report. */
export function systemApi(t: Transport) {
  return {
    /** Announces this window (id is per window, kept in sessionStorage). */
    ready: (windowId: string) => t.call<ReadyInfo>("Ready", windowId),
    doctor: () => t.call<DoctorReport>("Doctor"),
    /** The process that owns the data directory, its windows counted now (kind "" for none). */
    backendOwner: () => t.call<BackendOwner>("GetBackendOwner"),
    /** Reports whether this window has the focus (approval notifications). */
    windowFocus: (windowId: string, focused: boolean) => t.call<void>("WindowFocus", windowId, focused),
    /**
     * Desktop only: saves text where the user picks in the native save dialog; resolves to
     * the path written, or "" when the user cancelled.
     */
    saveTextFile: (defaultName: string, content: string) => t.call<string>("SaveTextFile", defaultName, content),
    /** The desktop's native folder dialog: a path, "" when cancelled (no_folder_dialog in a browser). */
    chooseFolder: (title: string) => t.call<string>("ChooseFolder", title),
  };
}

export type SystemApi = ReturnType<typeof systemApi>;
