/**
 * The Settings pages the window has of its own: before and after the capabilities' pages
 * (backend/capability keeps these names free). A capability's page comes from the backend
 * (ListToolsets' `section`), so a new capability adds no entry here.
 */
export const HEAD_SECTIONS = ["providers", "assistants"] as const;
export const TAIL_SECTIONS = ["tools", "permissions", "general", "about"] as const;

/** A Settings page: one of the window's own or a capability's. */
export type SectionId = string;

/** What a section id may look like (a capability's page: backend capability.sectionRE). */
const SLUG = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/**
 * The settings navigation, in order: the window's own head pages, each capability's page
 * in the order ListToolsets lists the capabilities, then the window's own tail pages.
 */
export function settingsSections(toolsets: readonly { section?: string }[] | null | undefined): SectionId[] {
  const own = new Set<string>([...HEAD_SECTIONS, ...TAIL_SECTIONS]);
  const middle: string[] = [];
  for (const ts of toolsets ?? []) {
    const s = ts.section;
    if (s && SLUG.test(s) && !own.has(s) && !middle.includes(s)) middle.push(s);
  }
  return [...HEAD_SECTIONS, ...middle, ...TAIL_SECTIONS];
}

/** Where the main pane is. */
export type Route = { name: "home" } | { name: "settings"; section: SectionId } | { name: "session"; id: string; message?: string };

/** Other spellings of the window's own pages. */
const ALIASES: Record<string, SectionId> = {
  provider: "providers",
  assistant: "assistants",
  permission: "permissions",
  tool: "tools",
};

/** The section a target names (an apperr action target, an address), or null when it names none. */
export function sectionOf(target: string | undefined | null): SectionId | null {
  const t = (target ?? "").trim().toLowerCase().replace(/[_\s]+/g, "-");
  if (ALIASES[t]) return ALIASES[t]!;
  return SLUG.test(t) ? t : null;
}

/**
 * Maps an apperr action target (or any spelling of a section) to a section; else general.
 * A section no page has (yet: the capabilities' pages come with ListToolsets) is kept; the
 * settings page shows General for it.
 */
export function normalizeSection(target: string | undefined | null): SectionId {
  return sectionOf(target) ?? "general";
}

/** "#/settings/providers" ⇄ route; anything unknown is home. */
export function routeFromHash(hash: string): Route {
  const parts = hash.replace(/^#\/?/, "").split("/").filter(Boolean);
  if (parts[0] === "settings") {
    return { name: "settings", section: parts[1] ? normalizeSection(parts[1]) : "general" };
  }
  if (parts[0] === "session" && parts[1]) {
    // "#/session/ID/MESSAGE": a search hit, opened scrolled to its message.
    return parts[2] ? { name: "session", id: decodeURIComponent(parts[1]), message: decodeURIComponent(parts[2]) } : { name: "session", id: decodeURIComponent(parts[1]) };
  }
  return { name: "home" };
}

export function hashFromRoute(r: Route): string {
  switch (r.name) {
    case "settings":
      return `#/settings/${r.section}`;
    case "session":
      return `#/session/${encodeURIComponent(r.id)}` + (r.message ? `/${encodeURIComponent(r.message)}` : "");
    default:
      return "#/";
  }
}
