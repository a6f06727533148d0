import { useEffect, useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { SKILLS_TOPIC, toAppError, useClient, type AppError, type SessionSkill, type SessionSkillState } from "../api";
import { Visible } from "../tools/visible";
import { ComposerPopover } from "./ComposerPopover";

/**
 * The composer's skills control: which skills this conversation offers the model. Each
 * skill follows the global switch (Settings → Skills) unless the conversation turned it
 * on or off itself. Kept current from skills:session and skills:changed. Shown only when
 * there are skills.
 */
export function SkillPicker({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation("chat");
  const client = useClient();
  const ids = useId(); // the selects' labels
  const [skills, setSkills] = useState<SessionSkill[]>([]);
  const [error, setError] = useState<AppError | null>(null);

  useEffect(() => {
    let live = true;
    const load = () =>
      client.skills
        .sessionSkills(sessionId)
        .then((l) => live && setSkills(l))
        .catch((e) => live && setError(toAppError(e)));
    void load();
    const off = client.transport.subscribe((ev) => {
      if (ev.topic !== SKILLS_TOPIC) return;
      if (ev.type === "skills:changed" || (ev.type === "skills:session" && (ev.data as { sessionId?: string })?.sessionId === sessionId)) void load();
    });
    return () => {
      live = false;
      off();
    };
  }, [client, sessionId]);

  const choose = async (name: string, state: SessionSkillState) => {
    setError(null);
    try {
      setSkills(await client.skills.setSessionSkill(sessionId, name, state));
    } catch (e) {
      setError(toAppError(e));
    }
  };
  if (skills.length === 0) return null; // none found, or the list could not be read
  const on = skills.filter((s) => s.enabled).length;
  return (
    <ComposerPopover
      icon="sparkle"
      label={t("skills.buttonCount", { count: on })}
      title={t("skills.title")}
      help={t("skills.help")}
      testId="skill-picker"
      section="skills"
      manage={t("skills.manage")}
      error={error}
    >
      {skills.map((s) => {
        const state: SessionSkillState = s.own ? (s.enabled ? "on" : "off") : "default";
        const selectId = `${ids}-${s.name}`;
        return (
          <div key={s.name} className="skill-pick">
            <label htmlFor={selectId}>
              <Visible text={s.name} />
            </label>
            <select
              id={selectId}
              className="input"
              value={state}
              onChange={(e) => void choose(s.name, e.target.value as SessionSkillState)}
              data-testid={`skill-pick-${s.name}`}
            >
              <option value="default">{t("skills.state.default", { state: t(s.global ? "skills.on" : "skills.off") })}</option>
              <option value="on">{t("skills.state.on")}</option>
              <option value="off">{t("skills.state.off")}</option>
            </select>
          </div>
        );
      })}
    </ComposerPopover>
  );
}
