import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { I18nextProvider } from "react-i18next";
import { ClientProvider, createClient, detectTransport } from "./api";
import { createI18n } from "./i18n";
import { App } from "./shell/App";
import { AppInfoProvider } from "./shell/appInfo";
import { RouterProvider } from "./shell/router";
import { reportFocus } from "./shell/focusReporter";
import { windowId } from "./shell/windowId";
import "./styles.css";

const client = createClient(detectTransport());
const i18n = createI18n();
// Start loading the settings snapshot before React renders anything.
client.stores.settings.start();
// Tell the backend this window is up (the desktop smoke test waits for it).
const ready = client.system.ready(windowId());
ready.catch(() => {}); // shown in About; never an unhandled rejection
// A waiting approval raises an OS notification only while no window has the focus.
reportFocus(client.system, windowId());

const el = document.getElementById("root");
if (!el) throw new Error("#root missing");
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
