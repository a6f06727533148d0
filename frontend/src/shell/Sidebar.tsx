import { useId } from "react";
import { useTranslation } from "react-i18next";
import { NewSessionButtons, SessionList } from "../chat/SessionList";
import { Icon } from "../components/Icon";
import { useRouter } from "./router";

export function Sidebar() {
  const { t } = useTranslation();
  const { route, navigate } = useRouter();
  const sessionsId = useId();
  return (
    <aside className="sidebar" aria-label={t("a11y.sidebar")}>
      <div className="sidebar__brand">
        <button type="button" className="brand" onClick={() => navigate({ name: "home" })} aria-label={t("sidebar.home")}>
          <span className="brand__mark">
            <Icon name="cairn" size={20} />
          </span>
          <span className="brand__name">{t("app.name")}</span>
        </button>
      </div>

      <NewSessionButtons />

      <section className="sidebar__sessions" aria-labelledby={sessionsId}>
        <h2 id={sessionsId} className="sidebar__heading">
          {t("sidebar.sessions")}
        </h2>
        <SessionList />
      </section>

      <nav className="sidebar__footer" aria-label={t("a11y.primaryNav")}>
        <button
          type="button"
          className="nav-item"
          data-testid="open-settings"
          aria-current={route.name === "settings" ? "page" : undefined}
          onClick={() => navigate({ name: "settings", section: route.name === "settings" ? route.section : "general" })}
        >
          <Icon name="settings" />
          {t("sidebar.settings")}
        </button>
      </nav>
    </aside>
  );
}
