import { useId, type KeyboardEvent, type RefObject } from "react";
import { useTranslation } from "react-i18next";
import { NewSessionButtons, SessionList } from "../chat/SessionList";
import { Icon } from "../components/Icon";
import { useRouter } from "./router";

/** The sidebar; below 900 px it is a drawer (App's useDrawer gives it id, ref and keys). */
export function Sidebar({ id, panelRef, onKeyDown }: { id?: string; panelRef?: RefObject<HTMLElement | null>; onKeyDown?: (e: KeyboardEvent<HTMLElement>) => void }) {
  const { t } = useTranslation();
  const { route, navigate } = useRouter();
  const sessionsId = useId();
  return (
    <aside id={id} ref={panelRef} className="sidebar" aria-label={t("a11y.sidebar")} onKeyDown={onKeyDown}>
      <div className="sidebar__brand">
        <button type="button" className="brand" onClick={() => navigate({ name: "home" })} aria-label={`${t("app.name")} · ${t("sidebar.home")}`}>
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
