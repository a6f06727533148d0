// Start-up: ./start (first: it must run before the UI code is evaluated) asks for the
// settings snapshot; ./boot (Preact, i18next and the shell) then renders the first frame as
// soon as the snapshot is in, and the window announces itself (Ready). When index.html
// carries the snapshot and the window's strings (api/page.ts), that is before the page's
// load event.
import { announceReady, client, language, page, ready, settingsSettled, startFocusReports, startupFailure } from "./start";
import { mount, mountStartupFailure } from "./boot";
import { loadLocale } from "./i18n/languages";
import "./styles.css";

/** How long the first frame waits for the snapshot before it shows the boot screen. */
const SNAPSHOT_GRACE_MS = 300;

const el = document.getElementById("root");
if (!el) throw new Error("#root missing");
if (startupFailure) {
  void mountStartupFailure(el, startupFailure);
} else {
  const grace = new Promise<void>((r) => setTimeout(r, SNAPSHOT_GRACE_MS));
  void Promise.race([settingsSettled, grace]).then(async () => {
    const lng = language(); // App switches later if the snapshot, still on its way, says otherwise
    await mount(el, { client, ready, lng, locale: await loadLocale(lng, page.locale) });
    announceReady();
  }).finally(startFocusReports);
}
