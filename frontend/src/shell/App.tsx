import { lazy, Suspense, useEffect } from "react";
import { useTranslation } from "react-i18next";
import { LANGUAGE_KEY, THEME_KEY, useClient, useSettings } from "../api";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { resolveLanguage } from "../i18n";
import { SettingsPage } from "../settings/SettingsPage";
import { ApprovalHost } from "../tools/ApprovalHost";
import { useAppliedTheme } from "../theme/theme";
import { Home } from "./Home";
import { useRouter } from "./router";
import { Sidebar } from "./Sidebar";

// The conversation view carries the Markdown, math and highlighting code: loaded on first use.
const SessionView = lazy(() => import("../chat/SessionView").then((m) => ({ default: m.SessionView })));

function MainPane() {
  const { route } = useRouter();
  switch (route.name) {
    case "settings":
      return <SettingsPage section={route.section} />;
    case "session":
      return (
        <Suspense fallback={<div className="session session--loading" aria-busy="true" />}>
          <SessionView key={route.id} id={route.id} />
        </Suspense>
      );
    default:
      return <Home />;
  }
}

function Shell() {
  const { t } = useTranslation();
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        {t("a11y.skipToContent")}
      </a>
      <Sidebar />
      <main id="main" className="main" tabIndex={-1}>
        <MainPane />
      </main>
      <ApprovalHost />
    </div>
  );
}

/**
 * The window: waits for the first settings snapshot (so language and theme are right from
 * the first frame), then marks <body data-ready="1"> and shows the shell. Needs a
 * RouterProvider above it (main.tsx).
 */
export function App() {
  const { t, i18n } = useTranslation();
  const client = useClient();
  const settings = useSettings();
  const values = settings.data?.values;
  const language = values?.[LANGUAGE_KEY];
  const loaded = settings.data !== null;

  useAppliedTheme(values?.[THEME_KEY] ?? "system");

  useEffect(() => {
    const lng = resolveLanguage(language ?? "system");
    if (i18n.language !== lng) void i18n.changeLanguage(lng);
    document.documentElement.lang = lng;
  }, [language, i18n]);

  useEffect(() => {
    if (loaded) document.body.dataset.ready = "1";
  }, [loaded]);

  if (!loaded) {
    return (
      <div className="boot" aria-busy={!settings.error}>
        <Icon name="cairn" size={40} className="boot__mark" />
        {settings.error ? (
          <div className="boot__error">
            <h1 className="boot__title">{t("app.loadFailed")}</h1>
            <ErrorView error={settings.error} onRetry={() => void client.stores.settings.reload()} />
          </div>
        ) : (
          <p className="boot__text" role="status">
            {t("app.starting")}
          </p>
        )}
      </div>
    );
  }

  return <Shell />;
}
