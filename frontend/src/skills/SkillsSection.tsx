import { useId, useRef, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { SKILLS_TOPIC, useClient, type Skill } from "../api";
import { ErrorView } from "../components/ErrorView";
import { Field } from "../components/Field";
import { useAction } from "../components/useAction";
import { useTopicList } from "../components/useTopicList";
import { Visible } from "../tools/visible";
import "./skills.css";

/**
 * Settings → Skills: every skill found, where it came from and its switch (a broken one
 * with its error, a shadowed one with the folder that wins), and imports of a folder or a
 * .zip. Kept current from skills:changed, which the backend's watcher sends when a folder
 * changes, so a skill dropped into a folder shows without a reload.
 */
export function SkillsSection() {
  const { t } = useTranslation("settings");
  const client = useClient();
  const { items: skills, error, reload: load } = useTopicList(() => client.skills.list(), SKILLS_TOPIC, "skills:changed");

  return (
    <div className="skills" data-testid="skills-section">
      <SkillImport onImported={load} />
      <h3 className="skills__title">
        {t("skills.listTitle")}
        {skills && skills.length > 0 && <span className="muted"> · {t("skills.count", { count: skills.length })}</span>}
      </h3>
      {error && <ErrorView error={error} onRetry={load} />}
      {skills && skills.length === 0 && (
        <p className="muted" data-testid="skills-empty">
          {t("skills.empty")}
        </p>
      )}
      {skills && skills.length > 0 && (
        <ul className="skills__list" data-testid="skills-list">
          {skills.map((s) => (
            <SkillRow key={s.dir} skill={s} onChanged={load} />
          ))}
        </ul>
      )}
    </div>
  );
}

function SkillRow({ skill, onChanged }: { skill: Skill; onChanged: () => void }) {
  const { t } = useTranslation("settings");
  const client = useClient();
  const toggle = useAction(async () => {
    await client.skills.setEnabled(skill.name, !skill.enabled);
    onChanged();
  });
  const usable = !skill.error && !skill.shadowedBy;
  return (
    <li
      className={`skill-row${usable && skill.enabled ? "" : " is-off"}`}
      data-testid="skill-row"
      data-name={skill.name}
      data-source={skill.source}
      data-state={skill.error ? "broken" : skill.shadowedBy ? "shadowed" : skill.enabled ? "on" : "off"}
    >
      <input
        type="checkbox"
        className="switch"
        checked={usable && skill.enabled}
        disabled={!usable || toggle.busy}
        onChange={() => void toggle.run()}
        aria-label={t("skills.enabled", { name: skill.name })}
        data-testid="skill-enabled"
      />
      <div className="skill-row__main">
        <div className="skill-row__head">
          <strong className="skill-row__name">
            <Visible text={skill.name} />
          </strong>
          <span className="badge" data-testid="skill-source">
            {t(`skills.source.${skill.source}`)}
          </span>
        </div>
        {skill.description && (
          <p className="skill-row__desc">
            <Visible text={skill.description} />
          </p>
        )}
        <p className="muted skill-row__dir">
          <Visible text={skill.dir} />
        </p>
        {skill.error && (
          <p className="skill-row__error" role="alert" data-testid="skill-error">
            <strong>{t("skills.broken")}: </strong>
            <Visible text={skill.error} />
          </p>
        )}
        {skill.shadowedBy && (
          <p className="muted" data-testid="skill-shadowed">
            <Visible text={t("skills.shadowed", { dir: skill.shadowedBy })} />
          </p>
        )}
        {toggle.error && <ErrorView error={toggle.error} compact />}
      </div>
    </li>
  );
}

/** Import by a path on this computer (a folder or a .zip) or by picking a .zip. */
function SkillImport({ onImported }: { onImported: () => void }) {
  const { t } = useTranslation("settings");
  const client = useClient();
  const id = useId();
  const [path, setPath] = useState("");
  const [done, setDone] = useState<string | null>(null);
  const file = useRef<HTMLInputElement>(null);
  const action = useAction(async (run: () => Promise<Skill>) => {
    setDone(null);
    const s = await run();
    setDone(s.name);
    onImported();
    return s;
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const p = path.trim();
    if (p) void action.run(() => client.skills.importPath(p)).then((s) => s && setPath(""));
  };
  return (
    <form className="skills__import" onSubmit={submit} data-testid="skills-import">
      <h3 className="skills__title">{t("skills.import.title")}</h3>
      <div className="form-grid">
        <Field id={`${id}-path`} label={t("skills.import.pathLabel")} help={t("skills.import.pathHelp")}>
          <input id={`${id}-path`} className="input" value={path} onChange={(e) => setPath(e.target.value)} data-testid="skills-import-path" />
        </Field>
      </div>
      <div className="skills__import-actions">
        <button type="submit" className="btn btn--primary" disabled={action.busy || !path.trim()} data-testid="skills-import-submit">
          {t("skills.import.submit")}
        </button>
        <button type="button" className="btn" disabled={action.busy} onClick={() => file.current?.click()}>
          {t("skills.import.zip")}
        </button>
        <input
          ref={file}
          type="file"
          accept=".zip,application/zip"
          hidden
          data-testid="skills-import-zip"
          onChange={(e) => {
            const f = e.target.files?.[0];
            e.target.value = "";
            if (f) void action.run(() => client.skills.importZip(f));
          }}
        />
      </div>
      {done && (
        <p className="muted" role="status" data-testid="skills-import-done">
          <Visible text={t("skills.import.done", { name: done })} />
        </p>
      )}
      {action.error && <ErrorView error={action.error} compact />}
    </form>
  );
}
