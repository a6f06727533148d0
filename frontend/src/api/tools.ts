import { RELOAD } from "./store";
import type * as wire from "./generated";
import type { CairnEvent, Transport } from "./types";

// Wire types of the tools facade (app_tools.go, backend/tools.Info / ToolState).

export type DeferMode = wire.ToolsDefer;
export type ToolEntry = wire.ToolsToolState;
export type ToolsSnapshot = wire.ToolsSnapshot;

/** One capability's toolset (ListToolsets): its label is an i18n key, its icon a name of components/Icon. */
export type Toolset = wire.CapabilityToolset;

/** An image a tool returned, as Cairn saved it (tools.ImageRef). */
export type ToolImageRef = wire.ToolsImageRef;

/** The toolsets as a store holds them; the list is fixed while the backend runs. */
export interface ToolsetList {
  seq: number;
  toolsets: Toolset[];
}

/** The store key of the toolsets: no event is ever published on it. */
export const TOOLSETS_TOPIC = "toolsets";

/** The toolset a registry namespace belongs to: its name, or the part before ":" ("mcp:<id>" → mcp). */
export function toolsetOf(list: readonly Toolset[] | undefined, namespace: string | undefined): Toolset | undefined {
  if (!list || !namespace) return undefined;
  const i = namespace.indexOf(":");
  const base = i < 0 ? namespace : namespace.slice(0, i);
  return list.find((ts) => ts.name === base);
}

export const TOOLS_TOPIC = "tools";
export const TOOLS_PREFS_CHANGED = "tools:prefs";

export function toolsApi(t: Transport) {
  return {
    list: () => t.call<ToolsSnapshot>("ListTools"),
    listToolsets: () => t.call<Toolset[]>("ListToolsets"),
    setEnabled: (name: string, enabled: boolean) => t.call<void>("SetToolEnabled", name, enabled),
    /** A data: URL of a saved tool image: a thumbnail, or the image itself with full. */
    image: (sessionId: string, file: string, full: boolean) => t.call<string>("GetToolImage", sessionId, file, full),
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
