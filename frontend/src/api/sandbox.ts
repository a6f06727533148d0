import type { Transport } from "./types";
import type * as wire from "./generated";

export type SandboxStatus = wire.SandboxStatusView;
export type SandboxLevel = wire.SandboxLevel;
export type SandboxHold = wire.SandboxHold;
export type SessionWorkspace = wire.SandboxWorkspace;

/** The setting that lets the task tools run without a sandbox where none works. */
export const UNSANDBOXED_KEY = "sandbox.unsandboxed";

/** Task mode: the sandbox's status on this machine and each task session's workspace. */
export function sandboxApi(t: Transport) {
  return {
    /** The level (strong, reduced, none), what holds, why anything is missing. */
    status: () => t.call<SandboxStatus>("GetSandboxStatus"),
    /** A task session's workspace folder. */
    workspace: (sessionId: string) => t.call<SessionWorkspace>("GetSessionWorkspace", sessionId),
    /** Makes dir the session's workspace; "" gives it a new folder of its own. */
    setWorkspace: (sessionId: string, dir: string) => t.call<SessionWorkspace>("SetSessionWorkspace", sessionId, dir),
  };
}

export type SandboxApi = ReturnType<typeof sandboxApi>;

/** The sandbox level a task tool's result says it ran under, if it says one. */
export function resultLevel(display: unknown): SandboxLevel | undefined {
  if (!display || typeof display !== "object") return undefined;
  const level = (display as { level?: unknown }).level;
  return level === "strong" || level === "reduced" || level === "none" ? level : undefined;
}
