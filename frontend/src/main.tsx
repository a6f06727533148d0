// Start-up in two steps, so that the backend answers while the UI code is still loading:
// this small entry module asks for the settings snapshot, announces the window and fetches
// the locale; ./boot (React, i18next and the shell, preloaded by index.html) then renders.
// Keep React and i18next out of this file's imports: they would make the entry big again.
import { createClient } from "./api/client";
import { LANGUAGE_KEY } from "./api/settings";
import { detectTransport } from "./api/transport";
import { LOCALES, resolveLanguage } from "./i18n/languages";
import { reportFocus } from "./shell/focusReporter";
import { windowId } from "./shell/windowId";
import "./styles.css";

const client = createClient(detectTransport());
// Start loading the settings snapshot before anything else.
const settings = client.stores.settings;
settings.start();

/** The language of the first frame: the setting once the snapshot is in, else the system's. */
const language = () => resolveLanguage(settings.getState().data?.values?.[LANGUAGE_KEY] ?? "system");
const preload = () => LOCALES[language()]().catch(() => null);
void preload();
// The snapshot usually arrives before the UI code: fetch its language right then.
const stop = settings.subscribe(() => {
  if (settings.getState().data === null) return;
  stop();
  void preload();
});

// Tell the backend this window is up (the desktop smoke test waits for it).
const ready = client.system.ready(windowId());
ready.catch(() => {}); // shown in About; never an unhandled rejection
// A waiting approval raises an OS notification only while no window has the focus.
reportFocus(client.system, windowId());

const el = document.getElementById("root");
if (!el) throw new Error("#root missing");
void import("./boot").then(async ({ mount }) => {
  const lng = language(); // App switches later if the snapshot, still on its way, says otherwise
  await mount(el, { client, ready, lng, locale: await LOCALES[lng]() });
});
