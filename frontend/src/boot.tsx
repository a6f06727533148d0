import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { I18nextProvider } from "react-i18next";
import { ClientProvider, toAppError, type CairnClient, type ReadyInfo, type StartupFailureApi, type StartupFailureInfo } from "./api";
import { createI18n, loadLocale, resolveLanguage, type Language, type LocaleBundle } from "./i18n";
import { App } from "./shell/App";
import { AppInfoProvider } from "./shell/appInfo";
import { settingsPage } from "./shell/pages";
import { RouterProvider } from "./shell/router";
import { routeFromHash } from "./shell/routes";

export interface MountOptions {
  client: CairnClient;
  /** The window's Ready call, already made by main.tsx. */
  ready: Promise<ReadyInfo>;
  /** The first frame's language, and its strings (already loaded). */
  lng: Language;
  locale: LocaleBundle;
}

/** Renders the window into el (the second step of main.tsx). */
export async function mount(el: HTMLElement, { client, ready, lng, locale }: MountOptions) {
  // A window opened straight on the settings shows them in its first frame (if the chunk
  // does not load, the shell tries again when it shows them).
  if (routeFromHash(window.location.hash).name === "settings") await settingsPage.load().catch(() => {});
  const i18n = createI18n(lng, { [lng]: locale });
  createRoot(el).render(
    <StrictMode>
      <I18nextProvider i18n={i18n}>
        <ClientProvider client={client}>
          <AppInfoProvider ready={ready}>
            <RouterProvider>
              <App />
            </RouterProvider>
          </AppInfoProvider>
        </ClientProvider>
      </I18nextProvider>
    </StrictMode>,
  );
}

/**
 * Renders the start-up failure into el instead of the app (the desktop backend could not
 * open), in the language the backend wrote the error to stderr in, else the system's; then
 * tells the backend it is on screen.
 */
export async function mountStartupFailure(el: HTMLElement, failure: StartupFailureApi) {
  const info = await failure
    .details()
    .catch((e: unknown): StartupFailureInfo => ({ error: toAppError(e), dataDir: "", version: "", language: "" }));
  let lng = resolveLanguage(info.language); // "" (unknown): the system's
  const locale = await loadLocale(lng).catch(() => {
    lng = "en"; // the strings the failure screen cannot do without
    return loadLocale(lng);
  });
  const i18n = createI18n(lng, { [lng]: locale });
  // Its own chunk: only this rare window needs it, not every start-up.
  const { StartupFailureScreen } = await import("./shell/StartupFailureScreen");
  createRoot(el).render(
    <I18nextProvider i18n={i18n}>
      <StartupFailureScreen info={info} onQuit={() => void failure.quit().catch(() => window.runtime?.Quit?.())} />
    </I18nextProvider>,
  );
  document.documentElement.lang = lng;
  await failure.shown(lng).catch(() => {});
}
