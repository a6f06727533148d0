import { lazy, Suspense, useEffect, useLayoutEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { LANGUAGE_KEY, THEME_KEY, useClient, useSettings } from "../api";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { ensureLanguage, resolveLanguage } from "../i18n";
import { ApprovalHost } from "../tools/ApprovalHost";
import { ElicitationHost } from "../tools/ElicitationHost";
import { useAppliedTheme } from "../theme/theme";
import { useDrawer } from "./drawer";
import "./drawer.css";
import { Home } from "./Home";
import { settingsPage } from "./pages";
import { useRouter } from "./router";
import type { SectionId } from "./routes";
import { ShortcutsHost } from "./ShortcutsHost";
import { Sidebar } from "./Sidebar";

// The conversation view carries the Markdown, math and highlighting code: loaded on first use.
const SessionView = lazy(() => import("../chat/SessionView").then((m) => ({ default: m.SessionView })));
// Settings too; boot.tsx loads it before the first frame when the window opens on it.
const LazySettingsPage = lazy(() => settingsPage.load().then((c) => ({ default: c })));
const pageFallback = <div className="main__loading" aria-busy="true" />;

function SettingsRoute({ section }: { section: SectionId }) {
  const Page = settingsPage.get();
  if (Page) return <Page section={section} />;
  return (
    <Suspense fallback={pageFallback}>
      <LazySettingsPage section={section} />
    </Suspense>
  );
}

function MainPane() {
  const { route } = useRouter();
  switch (route.name) {
    case "settings":
      return <SettingsRoute section={route.section} />;
    case "session":
      return (
        <Suspense fallback={<div className="session session--loading" aria-busy="true" />}>
          <SessionView key={route.id} id={route.id} focusMessage={route.message} />
        </Suspense>
      );
    default:
      return <Home />;
  }
}

function Shell() {
  const { t } = useTranslation();
  const drawer = useDrawer("sidebar");
  return (
    <div className="app" data-drawer={drawer.open ? "open" : "closed"}>
      <a className="skip-link" href="#main">
        {t("a11y.skipToContent")}
      </a>
      <Sidebar id={drawer.id} panelRef={drawer.panelRef} onKeyDown={drawer.onPanelKeyDown} />
      <div className="drawer-backdrop" aria-hidden="true" onClick={drawer.close} />
      <main id="main" className="main" tabIndex={-1} inert={drawer.open || undefined}>
        <div className="main__bar">
          <button type="button" ref={drawer.toggleRef} className="icon-btn" {...drawer.toggleProps} aria-label={t("a11y.openSidebar")} data-testid="sidebar-toggle">
            <Icon name="menu" />
          </button>
          <span className="main__bar-name">{t("app.name")}</span>
        </div>
        <MainPane />
      </main>
      <ApprovalHost />
      <ElicitationHost />
      <ShortcutsHost />
    </div>
  );
}

/**
 * The window: waits for the first settings snapshot (so language and theme are right from
 * the first frame), then marks <body data-ready="1"> and shows the shell. Needs a
 * RouterProvider above it (boot.tsx).
 */
export function App() {
  const { t, i18n } = useTranslation();
  const client = useClient();
  const settings = useSettings();
  const values = settings.data?.values;
  const lng = resolveLanguage(values?.[LANGUAGE_KEY] ?? "system");
  // The first frame after the snapshot is in the setting's language: when that is not the
  // language the window started with, its strings load first (main.tsx usually has them
  // already). Later switches keep the old language on screen until the new one is in.
  const [shown, setShown] = useState(false);
  const loaded = settings.data !== null && (shown || i18n.language === lng);
  if (loaded && !shown) setShown(true);

  useAppliedTheme(values?.[THEME_KEY] ?? "system");

  useEffect(() => {
    if (i18n.language === lng) return;
    let live = true;
    ensureLanguage(i18n, lng).then(
      () => {
        if (live) void i18n.changeLanguage(lng);
      },
      () => {}, // the chunk did not load (server gone): stay in the current language
    );
    return () => {
      live = false;
    };
  }, [lng, i18n]);

  useLayoutEffect(() => {
    document.documentElement.lang = i18n.language;
  }, [i18n.language]);

  // Set as the shell's first commit reaches the DOM (before the frame is painted), not in a
  // passive effect: those run later, after the children's (which start loading the session
  // list, providers, approvals), and the browser may run other tasks before them.
  useLayoutEffect(() => {
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
