// The first module main.tsx runs, before the UI code (./boot) is evaluated: it creates the
// client and asks for the settings snapshot, so the backend answers while the UI code
// starts; the window announces itself once its first frame is in (announceReady). Keep React and i18next out of its imports.
// index.html carries the settings snapshot and the window's strings (api/page.ts; written
// by `cairn serve` and by the desktop window's asset server): neither needs a request
// before the first frame.
import { createClient } from "./api/client";
import { pageCallKey, readPageData } from "./api/page";
import { findStartupFailure } from "./api/startupFailure";
import { LANGUAGE_KEY } from "./api/settings";
import { detectTransport } from "./api/transport";
import { loadLocale, resolveLanguage, type Language } from "./i18n/languages";
import { reportFocus } from "./shell/focusReporter";
import { onceMarkedReady } from "./shell/readyMark";
import { windowId } from "./shell/windowId";
import type { ReadyInfo } from "./api";

export const page = readPageData();
/** Set when the desktop backend could not open: the window shows that instead of the app. */
export const startupFailure = findStartupFailure(window);
export const client = createClient(detectTransport(window, page.calls));

const settings = client.stores.settings;
/**
 * Settles (never rejects) once the first settings snapshot is in, or failed to load; never in
 * a window opened on a start-up failure, which has no settings to load (main.tsx does not
 * wait for it then).
 */
export const settingsSettled = new Promise<void>((resolve) => {
  let stop = () => {};
  const check = () => {
    const s = settings.getState();
    if (s.loading || (s.data === null && s.error === null)) return;
    stop();
    resolve();
  };
  if (startupFailure) return; // no backend to load from
  stop = settings.subscribe(check); // starts loading
  check();
});

// The snapshots the page carries besides the settings (the desktop window,
// server.DesktopPageCalls): started now, their stores have them before the first render,
// so Home's first frame offers the right action (add a provider, or start a chat), the
// sidebar lists the conversations and tool cards have their icons. A store a component starts loads after the first paint.
if (!startupFailure) {
  if (pageCallKey("ListProviders", []) in page.calls) client.stores.providers.start();
  if (pageCallKey("ListSessions", [""]) in page.calls) client.stores.sessionList.start();
  if (pageCallKey("ListToolsets", []) in page.calls) client.stores.toolsets.start();
}

/** The language of the first frame: the setting once the snapshot is in, else the system's. */
export const language = (): Language => resolveLanguage(settings.getState().data?.values?.[LANGUAGE_KEY] ?? "system");

// Without strings from the page, fetch the system language's at once (usually the one the
// setting names, "system"), while the snapshot is on its way.
if (!page.locale) void loadLocale(language()).catch(() => null);

let announce: () => void = () => {};
/**
 * The window's Ready call (its answer is shown in About). It is made once the first frame
 * is in the DOM (announceReady): "frontend ready" in the backend's log, which the desktop
 * smoke test and bench/startup.sh wait for, means the window shows the app.
 */
export const ready = new Promise<ReadyInfo>((resolve, reject) => {
  announce = () => client.system.ready(windowId()).then(resolve, reject);
});
ready.catch(() => {}); // shown in About; never an unhandled rejection

/**
 * Tells the backend this window is up once the shell marked itself ready (body[data-ready],
 * set by App as its first frame is committed). main.tsx calls it once, after mounting.
 */
export function announceReady(): void {
  onceMarkedReady(document.body, announce);
}

/**
 * Starts telling the backend whether this window has the focus (a waiting approval raises
 * an OS notification only while no window has it). main.tsx calls it after the first frame:
 * nothing needs the answer before, and every call is a request in a browser.
 */
export function startFocusReports(): void {
  reportFocus(client.system, windowId());
}
