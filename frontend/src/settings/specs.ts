import type { SettingSpec } from "../api";
import { sectionOf, type SectionId } from "../shell/routes";

/** Settings the General section lays out by hand; every other spec is rendered generically. */
export const CUSTOM_KEYS = new Set(["general.language", "general.theme"]);

/** The navigation section a spec belongs to, or null when its section has no page. */
export function sectionOfSpec(spec: SettingSpec, sections: readonly SectionId[]): SectionId | null {
  const s = sectionOf(spec.section);
  return s !== null && sections.includes(s) ? s : null;
}

/** Specs shown generically on a section page (General also gets the homeless ones). */
export function genericSpecs(specs: SettingSpec[], section: SectionId): SettingSpec[] {
  return specs.filter((s) => !CUSTOM_KEYS.has(s.key) && sectionOf(s.section) === section);
}

/** Specs whose section has no page, grouped by their section name (shown under General). */
export function orphanSpecs(specs: SettingSpec[], sections: readonly SectionId[]): Map<string, SettingSpec[]> {
  const out = new Map<string, SettingSpec[]>();
  for (const s of specs) {
    if (CUSTOM_KEYS.has(s.key) || sectionOfSpec(s, sections) !== null) continue;
    const name = s.section || "other";
    out.set(name, [...(out.get(name) ?? []), s]);
  }
  return out;
}

/** "chat.maxToolRounds" → "Max tool rounds": a readable label for keys without a translation. */
export function humanizeKey(key: string): string {
  const last = key.split(".").pop() ?? key;
  const words = last
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Text of a value in an input (and back for comparison). */
export function toDraft(v: unknown): string {
  if (v === null || v === undefined) return "";
  return typeof v === "string" ? v : String(v);
}

/** What an int field sends: a number when the text is an integer, else the text (the backend says why). */
export function parseIntDraft(draft: string): number | string {
  const t = draft.trim();
  return /^[-+]?\d+$/.test(t) ? Number(t) : t;
}
