import { useEffect, useState, useSyncExternalStore, type MouseEvent } from "react";
import { FAVICONS_KEY, useOptionalClient, type CairnClient } from "../api";
import { Icon } from "../components/Icon";

/**
 * A click handler that opens an address in the user's browser (the system browser from
 * the desktop window, a new tab from `cairn serve`), never in the app's window. A modified
 * or middle click is left to the browser, which opens a new tab for target=_blank anyway.
 */
export function useOpenExternal(): (e: MouseEvent<HTMLElement>, url: string) => void {
  const client = useOptionalClient();
  return (e, url) => {
    if (!client || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    const page = client.browser.prepare();
    if (!page.show(url)) page.discard();
  };
}

const noSubscribe = () => () => {};
const noState = () => null;

/** Whether the user turned site icons on (websearch.favicons), live; off without a client. */
export function useFaviconsOn(client: CairnClient | null): boolean {
  const store = client?.stores.settings;
  const state = useSyncExternalStore(store ? store.subscribe : noSubscribe, store ? store.getState : noState, store ? store.getState : noState);
  return state?.data?.values?.[FAVICONS_KEY] === true;
}

/**
 * The icon of the site an address is on. Off by default, and then a generic globe: the
 * window loads nothing from another host (its Content-Security-Policy allows data: and
 * blob: images only), and Cairn asks a site for nothing the user did not choose. With
 * site icons on (Settings → Web search), the backend fetches the site's /favicon.ico
 * through its address guard and the icon is shown as a data: URL; the globe stays when
 * there is none.
 */
export function SiteIcon({ url, size = 14 }: { url: string; size?: number }) {
  const client = useOptionalClient();
  const on = useFaviconsOn(client);
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    setSrc(null);
    if (!on || !client) return;
    let live = true;
    void client.favicons.get(url).then((s) => {
      if (live) setSrc(s);
    });
    return () => {
      live = false;
    };
  }, [on, client, url]);
  if (on && src) {
    return <img className="site-icon" src={src} alt="" width={size} height={size} data-testid="site-icon" />;
  }
  return <Icon name="globe" size={size} className="site-icon site-icon--generic" data-testid="site-icon-generic" />;
}
