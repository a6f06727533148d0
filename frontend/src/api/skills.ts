import type * as wire from "./generated";
import { fileToBase64 } from "./kb";
import type { Transport } from "./types";

// Wire types of the skills facade (app_skills.go, backend/skills).

export type Skill = wire.SkillsSkill;
export type SkillSource = wire.SkillsSource;
export type SessionSkill = wire.SkillsSessionSkill;
export type SkillLoaded = wire.SkillsLoaded;
export type SkillResourceRead = wire.SkillsResourceRead;
/** A conversation's own choice for a skill; "default" follows the global switch. */
export type SessionSkillState = "on" | "off" | "default";

/** The topic of skills: skills:changed (found or switched), skills:session (a conversation's switches). */
export const SKILLS_TOPIC = "skills";

/** Skills: the list, their switches (global and per conversation), imports. */
export function skillsApi(t: Transport) {
  return {
    list: async (): Promise<Skill[]> => (await t.call<Skill[] | null>("ListSkills")) ?? [],
    setEnabled: (name: string, enabled: boolean) => t.call<Skill>("SetSkillEnabled", name, enabled),
    importPath: (path: string) => t.call<Skill>("ImportSkillPath", path),
    importZip: async (file: File) => t.call<Skill>("ImportSkillZip", file.name, await fileToBase64(file)),
    sessionSkills: async (sessionId: string): Promise<SessionSkill[]> => (await t.call<SessionSkill[] | null>("GetSessionSkills", sessionId)) ?? [],
    setSessionSkill: async (sessionId: string, name: string, state: SessionSkillState): Promise<SessionSkill[]> =>
      (await t.call<SessionSkill[] | null>("SetSessionSkill", sessionId, name, state)) ?? [],
  };
}

export type SkillsApi = ReturnType<typeof skillsApi>;

/** skill_load's display, when the card has one. */
export function isSkillLoaded(name: string | undefined, display: unknown): display is SkillLoaded {
  if (name !== "skill_load" || !display || typeof display !== "object") return false;
  const d = display as Partial<SkillLoaded>;
  return typeof d.name === "string" && Array.isArray(d.resources);
}
