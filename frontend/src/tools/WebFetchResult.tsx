import { useState, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import type { FetchCard } from "../api";
import { Markdown } from "../chat/markdown/Markdown";
import { realHost, safeURL } from "../chat/citations";
import { formatBytes } from "./model";
import { Visible } from "./visible";
import { SiteIcon, useOpenExternal } from "./web";

/** The wire names of the page reader (web_fetch, and parse_link as other clients call it). */
export const WEB_FETCH_TOOLS: ReadonlySet<string> = new Set(["web_fetch", "parse_link"]);

/** Whether a tool result's display is a read page this card can lay out. */
export function isFetchCard(name: string | undefined, display: unknown): display is FetchCard {
  if (!name || !WEB_FETCH_TOOLS.has(name) || !display || typeof display !== "object") return false;
  const d = display as Partial<FetchCard>;
  return typeof d.url === "string" && typeof d.preview === "string";
}

/**
 * A read page on its tool card: its title (a link to the page, opened in the user's
 * browser), the site and its real host, the address actually read (after redirects, and
 * the one asked for when they differ), its length and what was cut, who read it, and a
 * preview that opens on demand, the whole text the model read behind "show all". Every
 * text came from the web: titles and addresses go through Visible, the text through the
 * chat's Markdown (no raw HTML, remote images wait for a click, only http(s) links).
 */
export function WebFetchResult({ card, content }: { card: FetchCard; content?: string }) {
  const { t } = useTranslation("chat");
  const open = useOpenExternal();
  const [all, setAll] = useState(false);
  const u = safeURL(card.url);
  const host = u ? realHost(u) : "";
  const whole = content && content.length > card.preview.length ? content : "";
  return (
    <div className="tool-card__section web-fetch" data-testid="web-fetch-result">
      <p className="web-fetch__title">
        <SiteIcon url={card.url} />
        {u ? (
          <a href={u.href} target="_blank" rel="noreferrer noopener" onClick={(e) => open(e, u.href)} data-testid="web-fetch-link">
            <Visible text={card.title || host} />
          </a>
        ) : (
          <Visible text={card.title || card.url} />
        )}
      </p>
      <p className="muted" data-testid="web-fetch-site">
        {card.site && (
          <>
            <Visible text={card.site} />
            {" · "}
          </>
        )}
        <Visible text={host || t("tools.webFetch.noHost")} />
      </p>
      <Facts card={card} />
      {card.preview ? (
        <details className="web-fetch__preview" data-testid="web-fetch-preview">
          <summary>{t("tools.webFetch.preview")}</summary>
          <Markdown text={all && whole ? whole : card.preview} className="web-fetch__text" />
          {whole && (
            <button type="button" className="link-btn" onClick={() => setAll((a) => !a)} data-testid="web-fetch-all">
              {all ? t("tools.showLess") : t("tools.showAll", { count: whole.length })}
            </button>
          )}
        </details>
      ) : (
        <p className="tool-card__note">{t("tools.webFetch.empty")}</p>
      )}
    </div>
  );
}

/** The read page's facts: addresses, byline, date, length and cut, who read it, the note. */
function Facts({ card }: { card: FetchCard }) {
  const { t, i18n } = useTranslation("chat");
  const num = (n: number) => n.toLocaleString(i18n.language);
  const rows: Array<[string, ReactNode, string]> = [[t("tools.webFetch.fetched"), <Visible text={card.url} />, "web-fetch-url"]];
  if (card.requested && card.requested !== card.url) rows.push([t("tools.webFetch.requested"), <Visible text={card.requested} />, "web-fetch-requested"]);
  if (card.byline) rows.push([t("tools.webFetch.byline"), <Visible text={card.byline} />, "web-fetch-byline"]);
  if (card.published) rows.push([t("tools.webFetch.published"), <Visible text={card.published} />, "web-fetch-published"]);
  const cut = card.dropped ? ` · ${t("tools.webFetch.cut", { dropped: num(card.dropped), total: num(card.chars) })}` : "";
  rows.push([t("tools.webFetch.length"), t("tools.webFetch.size", { chars: num(card.chars), size: formatBytes(card.bytes) }) + cut, "web-fetch-length"]);
  if (card.provider || card.rendered) {
    const who = card.provider ? <Visible text={card.provider} /> : t("tools.webFetch.cairn");
    rows.push([t("tools.webFetch.readBy"), <>{who}{card.rendered ? ` · ${t("tools.webFetch.rendered")}` : ""}</>, "web-fetch-reader"]);
  }
  if (card.note) rows.push([t("tools.webFetch.note"), <Visible text={card.note} />, "web-fetch-note"]);
  return (
    <dl className="web-fetch__facts">
      {rows.map(([label, value, id]) => (
        <div key={id}>
          <dt>{label}</dt>
          <dd data-testid={id}>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * The way out of a page that could not be read: the address the model asked for, and a
 * button that opens it in the user's browser (http(s) only), beside the error's own action.
 */
export function WebFetchFailed({ args }: { args?: string }) {
  const { t } = useTranslation("chat");
  const open = useOpenExternal();
  let asked = "";
  try {
    const v: unknown = JSON.parse(args ?? "null");
    if (v && typeof v === "object" && typeof (v as { url?: unknown }).url === "string") asked = (v as { url: string }).url;
  } catch {
    asked = "";
  }
  if (!asked) return null;
  const u = safeURL(asked);
  return (
    <div className="tool-card__section web-fetch__failed" data-testid="web-fetch-failed">
      <p className="muted">
        {t("tools.webFetch.asked")} <Visible text={asked} />
      </p>
      {u && (
        <a className="btn btn--small" href={u.href} target="_blank" rel="noreferrer noopener" onClick={(e) => open(e, u.href)} data-testid="web-fetch-open">
          {t("tools.webFetch.openInBrowser", { host: realHost(u) })}
        </a>
      )}
    </div>
  );
}
