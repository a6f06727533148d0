import { toolsetOf, type Part, type Toolset } from "../api";
import { isIconName, type IconName } from "../components/Icon";

/** The states a tool card shows (data-state). */
export type ToolState = "running" | "done" | "error" | "stopped" | "awaiting-approval";

/** One tool call as the card shows it: its call part, its end part and approval parts. */
export interface ToolItem {
  kind: "tool";
  key: string;
  callId: string;
  name: string;
  /** How people name the tool (from its parts; see ToolInfo). */
  namespace?: string;
  server?: string;
  title?: string;
  call?: Part;
  end?: Part;
  approvals: Part[];
}

/** What a message renders, in order: text, reasoning, tool cards and status lines. */
export type RenderItem =
  | { kind: "text"; key: string; part: Part }
  | { kind: "reasoning"; key: string; part: Part }
  | { kind: "status"; key: string; part: Part }
  | ToolItem;

const END_TYPES = new Set(["tool-result", "tool-error", "tool-stopped"]);
const APPROVAL_TYPES = new Set(["approval-requested", "approval-decided"]);

/**
 * Groups a message's parts (in index order) into render items: a tool call, its end and
 * its approval parts (paired by callId) become one card where the call appeared.
 */
export function groupParts(parts: readonly Part[]): RenderItem[] {
  const items: RenderItem[] = [];
  const tools = new Map<string, ToolItem>();
  const toolFor = (p: Part): ToolItem => {
    const callId = p.tool?.callId ?? "";
    let item = callId ? tools.get(callId) : undefined;
    if (!item) {
      item = { kind: "tool", key: p.id, callId, name: p.tool?.name ?? "", approvals: [] };
      if (callId) tools.set(callId, item);
      items.push(item);
    }
    if (!item.name && p.tool?.name) item.name = p.tool.name;
    if (!item.title && p.tool?.title) {
      item.namespace = p.tool.namespace;
      item.server = p.tool.server;
      item.title = p.tool.title;
    }
    return item;
  };
  for (const p of parts) {
    if (p.type === "text") items.push({ kind: "text", key: p.id, part: p });
    else if (p.type === "reasoning") items.push({ kind: "reasoning", key: p.id, part: p });
    else if (p.type === "status") items.push({ kind: "status", key: p.id, part: p });
    else if (p.type === "tool-call") toolFor(p).call = p;
    else if (END_TYPES.has(p.type)) toolFor(p).end = p;
    else if (APPROVAL_TYPES.has(p.type)) toolFor(p).approvals.push(p);
  }
  return items;
}

/** True while the last approval part of the call is a request nobody decided yet. */
export function awaitingApproval(item: ToolItem): boolean {
  const last = item.approvals[item.approvals.length - 1];
  return last?.type === "approval-requested";
}

/** The card's state. `live` is false once the message stopped streaming. */
export function toolState(item: ToolItem, live: boolean): ToolState {
  switch (item.end?.type) {
    case "tool-result":
      return "done";
    case "tool-error":
      return "error";
    case "tool-stopped":
      return "stopped";
  }
  if (!live) return "stopped";
  if (awaitingApproval(item)) return "awaiting-approval";
  return "running";
}

/** The icon of a tool's namespace: its toolset's (ListToolsets), else the generic tool icon. */
export function toolIcon(toolsets: readonly Toolset[], namespace: string | undefined): IconName {
  const icon = toolsetOf(toolsets, namespace)?.icon;
  return isIconName(icon) ? icon : "tool";
}

/** The i18n key of a tool namespace's name: its toolset's label, if it has a toolset. */
export function toolsetLabel(toolsets: readonly Toolset[], namespace: string | undefined): string | undefined {
  return toolsetOf(toolsets, namespace)?.label;
}

/** Pretty JSON when the text parses, else null. */
export function prettyJSON(text: string | undefined): string | null {
  const t = (text ?? "").trim();
  if (!t || (t[0] !== "{" && t[0] !== "[")) return null;
  try {
    return JSON.stringify(JSON.parse(t), null, 2);
  } catch {
    return null;
  }
}

/** "850 ms", "2.4 s", "3 min 5 s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return `${m} min ${s} s`;
}

/** "512 B", "14.2 KB", "3.1 MB". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** Rough guess whether text is Markdown worth rendering as such. */
export function looksLikeMarkdown(text: string): boolean {
  return /(^|\n)(#{1,6} |[-*] |\d+\. |> |```|\|.*\|)|\*\*[^*]+\*\*|\[[^\]]+\]\([^)]+\)/.test(text);
}
