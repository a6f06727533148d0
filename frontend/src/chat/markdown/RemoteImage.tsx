import { useCallback, useEffect, useState, useSyncExternalStore, type MouseEvent } from "react";
import { useTranslation } from "react-i18next";
import { IMAGE_HOSTS_KEY, imageHosts, remoteImageHost, toAppError, useOptionalClient, withImageHost, type CairnClient } from "../../api";
import { useErrorText } from "../../components/ErrorView";
import { Icon } from "../../components/Icon";
import "./remoteImage.css";

type State = { kind: "idle" } | { kind: "loading" } | { kind: "shown"; dataUrl: string } | { kind: "error"; error: unknown };

const noSubscribe = () => () => {};
const noState = () => null;

/** The setting's hosts, live; none without a client. */
function useAlwaysHosts(client: CairnClient | null): { value: unknown; hosts: string[] } {
  const store = client?.stores.settings;
  const state = useSyncExternalStore(store ? store.subscribe : noSubscribe, store ? store.getState : noState, store ? store.getState : noState);
  const value = state?.data?.values?.[IMAGE_HOSTS_KEY];
  return { value, hosts: imageHosts(value) };
}

/**
 * A Markdown image. The window never loads one from another host by itself: an answer or a
 * tool result could otherwise send the conversation to any server in an image's address
 * the moment it is shown. A remote image is a placeholder naming its host (the whole
 * address in its tooltip) until the user loads it, once or always for that host (the
 * chat.imageHosts setting); the backend fetches it (public addresses only) and it is shown
 * as a data: URL. Anything that is not an absolute http(s) address stays inert text.
 */
export function RemoteImage({ src, alt, title }: { src?: string; alt?: string; title?: string }) {
  const { t } = useTranslation("chat");
  const errorText = useErrorText();
  const client = useOptionalClient();
  const host = remoteImageHost(src);
  const { value, hosts } = useAlwaysHosts(client);
  const always = host !== null && hosts.includes(host);
  const [state, setState] = useState<State>({ kind: "idle" });

  const load = useCallback(() => {
    if (!client || !src || !host) return;
    setState({ kind: "loading" });
    client.images.fetch(src).then(
      (img) => setState({ kind: "shown", dataUrl: img.dataUrl }),
      (error: unknown) => setState({ kind: "error", error }),
    );
  }, [client, src, host]);

  useEffect(() => {
    if (always && state.kind === "idle") load();
  }, [always, state.kind, load]);

  if (state.kind === "shown") {
    return <img className="md-image__img" src={state.dataUrl} alt={alt ?? ""} title={title} data-testid="md-image" />;
  }
  const label = alt?.trim() || t("markdown.image.untitled");
  if (!host || !client) {
    return (
      <span className="md-image md-image--inert" data-testid="md-image-inert" title={src}>
        <Icon name="file" size={14} />
        <span className="md-image__alt">{label}</span>
      </span>
    );
  }
  // An image can sit inside a link: its buttons do their own thing, never follow the link.
  const own = (fn: () => void) => (e: MouseEvent) => {
    e.preventDefault();
    e.stopPropagation();
    fn();
  };
  const alwaysHost = () => {
    void client.settings.set(IMAGE_HOSTS_KEY, withImageHost(value, host)).catch((error: unknown) => setState({ kind: "error", error }));
    load();
  };
  const loading = state.kind === "loading";
  return (
    <span className="md-image" data-testid="md-image-placeholder" data-host={host} title={src} aria-busy={loading || undefined}>
      <Icon name="globe" size={14} />
      <span className="md-image__alt">{label}</span>
      <span className="md-image__host muted">{t("markdown.image.from", { host })}</span>
      <button type="button" className="link-btn" disabled={loading} onClick={own(load)} data-testid="md-image-load">
        {loading ? t("markdown.image.loading") : t("markdown.image.load")}
      </button>
      {!always && (
        <button type="button" className="link-btn" disabled={loading} onClick={own(alwaysHost)} data-testid="md-image-always">
          {t("markdown.image.always", { host })}
        </button>
      )}
      {state.kind === "error" && (
        <span className="md-image__error" role="alert" data-testid="md-image-error">
          {errorText(toAppError(state.error))}
        </span>
      )}
    </span>
  );
}
