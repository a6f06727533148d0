import { useTranslation } from "react-i18next";
import type { SkillLoaded } from "../api";
import { Visible } from "./visible";

/**
 * skill_load's result on its tool card: the skill loaded, where it came from, and its
 * resource files (what skill_read_resource can read); the instructions the model read
 * are behind a disclosure.
 */
export function SkillLoadedResult({ display, content }: { display: SkillLoaded; content?: string }) {
  const { t } = useTranslation("chat");
  const settings = useTranslation("settings").t;
  return (
    <div className="tool-card__section" data-testid="skill-loaded">
      <p className="tool-card__label">
        <Visible text={t("skills.card.loaded", { name: display.name })} />
        <span className="badge"> {settings(`skills.source.${display.source}`)}</span>
      </p>
      <p className="muted">
        <Visible text={display.description} />
      </p>
      {display.resources.length > 0 && (
        <details>
          <summary>{t("skills.card.resources", { count: display.resources.length })}</summary>
          <ul className="skill-card__resources" data-testid="skill-resources">
            {display.resources.map((r) => (
              <li key={r.path}>
                <code>
                  <Visible text={r.path} />
                </code>
              </li>
            ))}
          </ul>
        </details>
      )}
      {content && (
        <details>
          <summary>{t("tools.modelSaw")}</summary>
          <pre className="tool-card__pre visible-text">
            <Visible text={content} />
          </pre>
        </details>
      )}
    </div>
  );
}
