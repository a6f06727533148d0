import { useTranslation } from "react-i18next";
import { resultHost, type AppError, type SearchAnswer } from "../api";
import { ErrorView } from "../components/ErrorView";
import { Visible } from "./visible";
import { SiteIcon, useOpenExternal } from "./web";

/** The wire name of the web search tool, whose display is a search answer. */
export const WEB_SEARCH_TOOL = "web_search";

/** Whether a tool result's display is a web search answer this card can lay out. */
export function isSearchAnswer(name: string | undefined, display: unknown): display is SearchAnswer {
  if (name !== WEB_SEARCH_TOOL || !display || typeof display !== "object") return false;
  const d = display as Partial<SearchAnswer>;
  return typeof d.provider === "string" && Array.isArray(d.results);
}

/**
 * A web search's result on its tool card: which provider answered (and which failed
 * first, with their reasons), then each result's title, site and snippet. Every text came
 * from the web and goes through Visible; links open in the user's browser.
 */
export function WebSearchResult({ answer }: { answer: SearchAnswer }) {
  const { t } = useTranslation("chat");
  const open = useOpenExternal();
  const who = answer.providerName || answer.provider;
  return (
    <div className="tool-card__section" data-testid="web-search-result">
      {(answer.failures ?? []).map((f) => (
        <div key={f.provider} className="web-search__failure" data-testid="web-search-failure">
          <p className="tool-card__label">{t("tools.webSearch.failed", { name: f.name || f.provider })}</p>
          {f.error && <ErrorView error={f.error as AppError} compact />}
        </div>
      ))}
      <p className="tool-card__label" data-testid="web-search-provider">
        {answer.results.length === 0
          ? t("tools.webSearch.none", { name: who })
          : t("tools.webSearch.answered", { name: who, count: answer.results.length })}
        {answer.cached ? ` · ${t("tools.webSearch.cached")}` : ""}
      </p>
      <ol className="websearch-results">
        {answer.results.map((r, i) => (
          <li key={`${i}-${r.url}`}>
            <SiteIcon url={r.url} />{" "}
            {/^https?:\/\//i.test(r.url) ? (
              <a href={r.url} target="_blank" rel="noreferrer noopener" onClick={(e) => open(e, r.url)}>
                <Visible text={r.title || r.url} />
              </a>
            ) : (
              <Visible text={r.title || r.url} />
            )}{" "}
            <span className="muted">
              <Visible text={resultHost(r.url)} />
            </span>
            {r.snippet && (
              <p className="muted">
                <Visible text={r.snippet} />
              </p>
            )}
          </li>
        ))}
      </ol>
    </div>
  );
}
