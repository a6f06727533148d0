import type { PermissionRule, RuleBehavior } from "../api";

export const BEHAVIORS: RuleBehavior[] = ["allow", "ask", "deny"];

/** Deny beats ask beats allow: the list shows them in that order. */
const RANK: Record<string, number> = { deny: 0, ask: 1, allow: 2 };

export function sortRules(rules: readonly PermissionRule[]): PermissionRule[] {
  return [...rules].sort((a, b) => (RANK[a.behavior] ?? 3) - (RANK[b.behavior] ?? 3) || (a.createdAt ?? 0) - (b.createdAt ?? 0));
}

export const behaviorBadge = (b: string) => (b === "allow" ? "badge--ok" : b === "deny" ? "badge--danger" : "badge--warn");

/** The editable fields of a rule. */
export interface RuleDraft {
  id: string;
  behavior: RuleBehavior;
  tool: string;
  path: string;
  command: string;
  sessionId: string;
  note: string;
}

export function ruleDraft(r?: PermissionRule): RuleDraft {
  return {
    id: r?.id ?? "",
    behavior: r && (r.behavior === "allow" || r.behavior === "deny" || r.behavior === "ask") ? r.behavior : "ask",
    tool: r?.tool ?? "",
    path: r?.path ?? "",
    command: r?.command ?? "",
    sessionId: r?.sessionId ?? "",
    note: r?.note ?? "",
  };
}

/** The rule to save: the draft over the stored rule (its fingerprint, source and origin kept). */
export function ruleFromDraft(d: RuleDraft, base?: PermissionRule): PermissionRule {
  // A new rule leaves out what the backend fills in (source, times): Go reads them as zero.
  const out = { ...(base ?? ({ id: "" } as PermissionRule)), id: d.id, behavior: d.behavior };
  const opt = (k: "tool" | "path" | "command" | "sessionId" | "note", v: string) => {
    const s = v.trim();
    if (s) out[k] = s;
    else delete out[k];
  };
  opt("tool", d.tool);
  opt("path", d.path);
  opt("command", d.command);
  opt("sessionId", d.sessionId);
  opt("note", d.note);
  // Only allow rules are bound to a tool fingerprint.
  if (out.behavior !== "allow") delete out.fingerprint;
  return out;
}

/** A rule needs a tool, a path or a command. */
export const draftHasCondition = (d: RuleDraft) => Boolean(d.tool.trim() || d.path.trim() || d.command.trim());

/** "2026-05-03 14:02:11" in local time. */
export function dateTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}
