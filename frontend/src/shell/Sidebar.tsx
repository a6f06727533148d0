import { useId } from "react";
import { useTranslation } from "react-i18next";
import { Icon } from "../components/Icon";
import { useRouter } from "./router";

/** The conversations list; empty until chat lands (it will read the `sessions` topic). */
export function SessionList() {
  const { t } = useTranslation();
  return (
    <div className="session-list" data-testid="session-list">
      <div className="empty-state empty-state--small">
        <Icon name="chat" size={22} />
        <p className="empty-state__title">{t("sidebar.sessionsEmpty")}</p>
        <p className="empty-state__hint">{t("sidebar.sessionsEmptyHint")}</p>
      </div>
    </div>
  );
}

export function Sidebar() {
  const { t } = useTranslation();
  const { route, navigate } = useRouter();
  const tipId = useId();
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

      <div className="tooltip-wrap">
        <button
          type="button"
          className="btn btn--primary btn--block"
          aria-disabled="true"
          aria-describedby={tipId}
          data-testid="new-chat"
          onClick={(e) => e.preventDefault()}
        >
          <Icon name="plus" size={16} />
          {t("sidebar.newChat")}
        </button>
        <span role="tooltip" id={tipId} className="tooltip">
          {t("sidebar.newChatSoon")}
        </span>
      </div>

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
