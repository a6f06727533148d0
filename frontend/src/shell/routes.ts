/** Settings sections, in the order of the settings navigation. */
export const SECTIONS = [
  "providers",
  "web-search",
  "mcp",
  "tools",
  "knowledge",
  "permissions",
  "general",
  "about",
] as const;
export type SectionId = (typeof SECTIONS)[number];

/** Where the main pane is. */
export type Route = { name: "home" } | { name: "settings"; section: SectionId } | { name: "session"; id: string };

const ALIASES: Record<string, SectionId> = {
  provider: "providers",
  websearch: "web-search",
  web: "web-search",
  search: "web-search",
  "mcp-servers": "mcp",
  mcpservers: "mcp",
  kb: "knowledge",
  kbs: "knowledge",
  "knowledge-bases": "knowledge",
  knowledgebases: "knowledge",
  permission: "permissions",
  tool: "tools",
};

/** Maps an apperr action target (or any spelling of a section) to a section; else general. */
export function normalizeSection(target: string | undefined | null): SectionId {
  const t = (target ?? "").trim().toLowerCase().replace(/[_\s]+/g, "-");
  if ((SECTIONS as readonly string[]).includes(t)) return t as SectionId;
  return ALIASES[t] ?? ALIASES[t.replace(/-/g, "")] ?? "general";
}

export function isSection(v: string): v is SectionId {
  return (SECTIONS as readonly string[]).includes(v);
}

/** "#/settings/providers" ⇄ route; anything unknown is home. */
export function routeFromHash(hash: string): Route {
  const parts = hash.replace(/^#\/?/, "").split("/").filter(Boolean);
  if (parts[0] === "settings") {
    return { name: "settings", section: parts[1] ? normalizeSection(parts[1]) : "general" };
  }
  if (parts[0] === "session" && parts[1]) {
    return { name: "session", id: decodeURIComponent(parts[1]) };
  }
  return { name: "home" };
}

export function hashFromRoute(r: Route): string {
  switch (r.name) {
    case "settings":
      return `#/settings/${r.section}`;
    case "session":
      return `#/session/${encodeURIComponent(r.id)}`;
    default:
      return "#/";
  }
}
