import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { I18nextProvider } from "react-i18next";
import { ClientProvider, type CairnClient, type ReadyInfo } from "./api";
import { createI18n, type Language, type LocaleBundle } from "./i18n";
import { App } from "./shell/App";
import { AppInfoProvider } from "./shell/appInfo";
import { RouterProvider } from "./shell/router";

export interface MountOptions {
  client: CairnClient;
  /** The window's Ready call, already made by main.tsx. */
  ready: Promise<ReadyInfo>;
  /** The first frame's language, and its strings (already loaded). */
  lng: Language;
  locale: LocaleBundle;
}

/** Renders the window into el (the second step of main.tsx). */
export function mount(el: HTMLElement, { client, ready, lng, locale }: MountOptions) {
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
