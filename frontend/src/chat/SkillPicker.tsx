import { useEffect, useId, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { SKILLS_TOPIC, toAppError, useClient, type AppError, type SessionSkill, type SessionSkillState } from "../api";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { useOptionalRouter } from "../shell/router";
import { Visible } from "../tools/visible";
import { useClickOutside } from "../components/useClickOutside";

/**
 * The composer's skills control: which skills this conversation offers the model. Each
 * skill follows the global switch (Settings → Skills) unless the conversation turned it
 * on or off itself. Kept current from skills:session and skills:changed. Shown only when
 * there are skills.
 */
export function SkillPicker({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation("chat");
  const client = useClient();
  const router = useOptionalRouter();
  const panelId = useId();
  const [open, setOpen] = useState(false);
  const [skills, setSkills] = useState<SessionSkill[]>([]);
  const [error, setError] = useState<AppError | null>(null);
  const root = useRef<HTMLDivElement>(null);

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

  useClickOutside(root, open, () => setOpen(false));

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
    <div className="kb-attach" ref={root} onKeyDown={(e) => e.key === "Escape" && open && (e.stopPropagation(), setOpen(false))}>
      <button
        type="button"
        className="btn btn--quiet btn--small"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((o) => !o)}
        data-testid="skill-picker"
      >
        <Icon name="sparkle" size={14} />
        {t("skills.buttonCount", { count: on })}
      </button>
      {open && (
        <div id={panelId} className="kb-attach__panel" role="group" aria-label={t("skills.title")} data-testid="skill-picker-panel">
          <p className="kb-attach__title">{t("skills.title")}</p>
          <p className="field__help">{t("skills.help")}</p>
          {skills.map((s) => {
            const state: SessionSkillState = s.own ? (s.enabled ? "on" : "off") : "default";
            const selectId = `${panelId}-${s.name}`;
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
          {error && <ErrorView error={error} compact />}
          {router && (
            <button type="button" className="btn btn--quiet btn--small" onClick={() => router.navigate({ name: "settings", section: "skills" })}>
              {t("skills.manage")}
            </button>
          )}
        </div>
      )}
    </div>
  );
}
