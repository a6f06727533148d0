import { RELOAD } from "./store";
import type * as wire from "./generated";
import type { CairnEvent, Transport } from "./types";

// Wire types of the tools facade (app_tools.go, backend/tools.Info / ToolState).

export type DeferMode = wire.ToolsDefer;
export type ToolEntry = wire.ToolsToolState;
export type ToolsSnapshot = wire.ToolsSnapshot;

export const TOOLS_TOPIC = "tools";
export const TOOLS_PREFS_CHANGED = "tools:prefs";

export function toolsApi(t: Transport) {
  return {
    list: () => t.call<ToolsSnapshot>("ListTools"),
    setEnabled: (name: string, enabled: boolean) => t.call<void>("SetToolEnabled", name, enabled),
  };
}

export type ToolsApi = ReturnType<typeof toolsApi>;

/** tools:prefs switches one tool; anything else on the topic (the list changed) reloads. */
export function applyToolsEvent(state: ToolsSnapshot, ev: CairnEvent): ToolsSnapshot | typeof RELOAD | undefined {
  if (ev.type !== TOOLS_PREFS_CHANGED) return RELOAD;
  const d = ev.data as { name?: string; enabled?: boolean } | undefined;
  if (!d?.name || typeof d.enabled !== "boolean") return RELOAD;
  if (!state.tools.some((x) => x.name === d.name)) return RELOAD;
  return { ...state, seq: ev.seq, tools: state.tools.map((x) => (x.name === d.name ? { ...x, enabled: d.enabled! } : x)) };
}
