import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { toAppError, useClient, type AppError, type MessageSearchHit } from "../api";
import { ErrorView } from "../components/ErrorView";

/** How long typing pauses before the messages are searched (ms). */
export const SEARCH_DELAY = 250;

export interface MessageHitsProps {
  query: string;
  /** Opens a hit: its conversation, scrolled to the message. */
  onOpen: (hit: MessageSearchHit) => void;
}

/**
 * The messages whose text matches the sidebar's search (SearchMessages), under the
 * conversations whose title does. Each hit shows its conversation and a snippet whose
 * matches are <mark>s: the snippet is spans of text, never HTML.
 */
export function MessageHits({ query, onOpen }: MessageHitsProps) {
  const { t } = useTranslation();
  const client = useClient();
  const [hits, setHits] = useState<MessageSearchHit[] | null>(null);
  const [error, setError] = useState<AppError | null>(null);
  const q = query.trim();

  useEffect(() => {
    setHits(null);
    setError(null);
    if (!q) return;
    let live = true;
    const timer = setTimeout(() => {
      client.chat.searchMessages(q).then(
        (res) => live && setHits(res.hits),
        (e) => live && setError(toAppError(e)),
      );
    }, SEARCH_DELAY);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [client, q]);

  if (!q) return null;
  return (
    <section className="message-hits" aria-label={t("find.messages")} data-testid="message-hits">
      <h3 className="message-hits__heading">{t("find.messages")}</h3>
      {error && <ErrorView error={error} compact />}
      {!hits && !error && (
        <p className="message-hits__none muted" role="status">
          {t("find.searching")}
        </p>
      )}
      {hits?.length === 0 && <p className="message-hits__none muted">{t("find.noMessages")}</p>}
      {hits && hits.length > 0 && (
        <ul className="message-hits__items">
          {hits.map((h) => (
            <li key={h.messageId}>
              <button type="button" className="message-hit" onClick={() => onOpen(h)} data-testid="message-hit" data-message-id={h.messageId}>
                <span className="message-hit__title">
                  {h.sessionTitle || t("sidebar.untitled")}
                  {h.archived && <span className="message-hit__badge"> · {t("find.archivedBadge")}</span>}
                </span>
                <span className="message-hit__role">{h.role === "user" ? t("find.roleUser") : t("find.roleAssistant")}</span>
                <span className="message-hit__snippet" data-testid="message-hit-snippet">
                  {h.snippet.map((sp, i) => (sp.mark ? <mark key={i}>{sp.text}</mark> : <span key={i}>{sp.text}</span>))}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
