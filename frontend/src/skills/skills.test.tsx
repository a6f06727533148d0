import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { Part, SessionSkill, Skill } from "../api";
import { SkillPicker } from "../chat/SkillPicker";
import { FakeTransport } from "../test/fakeTransport";
import { renderWithClient } from "../test/render";
import { groupParts, type ToolItem } from "../tools/model";
import { ToolCard } from "../tools/ToolCard";
import { SkillsSection } from "./SkillsSection";

const skill = (name: string, more: Partial<Skill> = {}): Skill => ({
  name, description: `${name} things`, dir: `/data/skills/${name}`, source: "data", root: "/data/skills", readOnly: false, enabled: true, ...more,
});

/** A backend whose skills the test scripts. */
function backend(skills: Skill[]) {
  const state = { skills };
  const t = new FakeTransport({
    ListSkills: () => state.skills,
    SetSkillEnabled: (name: unknown, on: unknown) => {
      state.skills = state.skills.map((s) => (s.name === name ? { ...s, enabled: Boolean(on) } : s));
      return state.skills.find((s) => s.name === name);
    },
    ImportSkillPath: (path: unknown) => {
      const s = skill(String(path).split("/").pop()!);
      state.skills = [...state.skills, s];
      return s;
    },
    ImportSkillZip: (name: unknown) => skill(String(name).replace(/\.zip$/, "")),
  });
  return { t, state };
}

describe("Skills section", () => {
  it("lists skills with their source, shows a broken one's error and a shadowed one's winner, and switches one off", async () => {
    const { t } = backend([
      skill("pdf"),
      skill("review", { source: "claude", readOnly: true, dir: "/home/u/.claude/skills/review" }),
      skill("broken", { description: "", error: "the front matter of SKILL.md has no description" }),
      skill("pdf", { source: "agents", dir: "/home/u/.agents/skills/pdf", shadowedBy: "/data/skills/pdf" }),
    ]);
    renderWithClient(<SkillsSection />, { transport: t, ready: null });
    const rows = await screen.findAllByTestId("skill-row");
    expect(rows.map((r) => r.getAttribute("data-state"))).toEqual(["on", "on", "broken", "shadowed"]);
    expect(within(rows[1]!).getByTestId("skill-source")).toHaveTextContent("Claude (read-only)");
    expect(within(rows[2]!).getByTestId("skill-error")).toHaveTextContent("has no description");
    expect(within(rows[2]!).getByTestId("skill-enabled")).toBeDisabled();
    expect(within(rows[3]!).getByTestId("skill-shadowed")).toHaveTextContent("/data/skills/pdf");
    fireEvent.click(within(rows[0]!).getByRole("checkbox", { name: "Use pdf" }));
    await waitFor(() => expect(t.calls.find((c) => c.method === "SetSkillEnabled")?.args).toEqual(["pdf", false]));
    await waitFor(() => expect(screen.getAllByTestId("skill-row")[0]).toHaveAttribute("data-state", "off"));
  });

  it("imports a path and a zip, and reloads when the watcher says the skills changed", async () => {
    const user = userEvent.setup();
    const { t, state } = backend([]);
    renderWithClient(<SkillsSection />, { transport: t, ready: null });
    expect(await screen.findByTestId("skills-empty")).toBeInTheDocument();
    await user.type(screen.getByTestId("skills-import-path"), "/tmp/notes");
    await user.click(screen.getByTestId("skills-import-submit"));
    await waitFor(() => expect(t.calls.find((c) => c.method === "ImportSkillPath")?.args).toEqual(["/tmp/notes"]));
    expect(await screen.findByTestId("skills-import-done")).toHaveTextContent("Imported notes.");
    await user.upload(screen.getByTestId("skills-import-zip"), new File(["PK"], "pack.zip", { type: "application/zip" }));
    await waitFor(() => expect(t.calls.find((c) => c.method === "ImportSkillZip")?.args).toEqual(["pack.zip", btoa("PK")]));

    state.skills = [...state.skills, skill("dropped")];
    t.emit({ topic: "skills", seq: 1, type: "skills:changed", data: {} });
    await waitFor(() => expect(screen.getAllByTestId("skill-row").map((r) => r.getAttribute("data-name"))).toContain("dropped"));
  });

  it("shows an import's error", async () => {
    const t = new FakeTransport({
      ListSkills: () => [],
      ImportSkillPath: () => {
        throw { code: "skill_import_invalid", i18nKey: "errors.skill_import_invalid", params: { name: "x.zip", reason: 'the entry "../evil" steps out of the folder' }, message: "x" };
      },
    });
    const user = userEvent.setup();
    renderWithClient(<SkillsSection />, { transport: t, ready: null });
    await user.type(await screen.findByTestId("skills-import-path"), "/tmp/x.zip");
    await user.click(screen.getByTestId("skills-import-submit"));
    const err = await screen.findByTestId("error-view");
    expect(err).toHaveAttribute("data-error-code", "skill_import_invalid");
    expect(err).toHaveTextContent("steps out of the folder");
  });
});

describe("Skills in a conversation", () => {
  it("sets a conversation's own choice and shows the global switch it falls back to", async () => {
    let list: SessionSkill[] = [
      { name: "pdf", enabled: true, own: false, global: true },
      { name: "review", enabled: false, own: false, global: false },
    ];
    const t = new FakeTransport({
      GetSessionSkills: () => list,
      SetSessionSkill: (_sid: unknown, name: unknown, state: unknown) => {
        list = list.map((s) => (s.name === name ? { ...s, own: state !== "default", enabled: state === "default" ? s.global : state === "on" } : s));
        return list;
      },
    });
    const user = userEvent.setup();
    renderWithClient(<SkillPicker sessionId="s1" />, { transport: t, ready: null });
    const button = await screen.findByTestId("skill-picker");
    expect(button).toHaveTextContent("Skills: 1");
    await user.click(button);
    const review = screen.getByTestId("skill-pick-review");
    expect(within(review).getByRole("option", { name: "As in Settings (off)" })).toBeInTheDocument();
    await user.selectOptions(review, "on");
    await waitFor(() => expect(t.calls.find((c) => c.method === "SetSessionSkill")?.args).toEqual(["s1", "review", "on"]));
    await waitFor(() => expect(screen.getByTestId("skill-picker")).toHaveTextContent("Skills: 2"));
  });

  it("is not shown without skills", async () => {
    const t = new FakeTransport({ GetSessionSkills: () => [] });
    const { container } = renderWithClient(<SkillPicker sessionId="s1" />, { transport: t, ready: null });
    await waitFor(() => expect(t.calls.some((c) => c.method === "GetSessionSkills")).toBe(true));
    expect(container.querySelector('[data-testid="skill-picker"]')).toBeNull();
  });
});

describe("skill_load's card", () => {
  it("names the skill, its source and its files", async () => {
    const display = { name: "forms", description: "Fill forms.", source: "claude", dir: "/h/.claude/skills/forms", resources: [{ path: "reference.md", size: 3 }, { path: "scripts/fill.py", size: 9 }] };
    const parts: Part[] = [
      { id: "p1", messageId: "m", seq: 1, type: "tool-call", state: "done", tool: { callId: "c1", name: "skill_load", namespace: "skill", arguments: '{"name":"forms"}' } } as unknown as Part,
      { id: "p2", messageId: "m", seq: 2, type: "tool-result", state: "done", tool: { callId: "c1", name: "skill_load", content: "Skill forms …", display } } as unknown as Part,
    ];
    const item = groupParts(parts).find((g) => g.kind === "tool") as ToolItem;
    const user = userEvent.setup();
    renderWithClient(<ToolCard item={item} live={false} />, { transport: new FakeTransport({}), ready: null });
    const card = await screen.findByTestId("tool-card");
    await user.click(card.querySelector(".tool-card__head")!);
    const loaded = await screen.findByTestId("skill-loaded");
    expect(loaded).toHaveTextContent("Loaded skill forms");
    expect(loaded).toHaveTextContent("Claude (read-only)");
    expect(within(loaded).getByTestId("skill-resources")).toHaveTextContent("scripts/fill.py");
  });
});
