import { useId, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { hitPosition, useClient, type KbHit, type KnowledgeBase } from "../api";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { useAction } from "../components/useAction";
import { Visible } from "../tools/visible";
import { Highlighted } from "./Highlighted";
import { KbViewer, type ViewedHit } from "./KbViewer";

/** A search box that runs a query on this base and shows the ranked chunks with their source. */
export function KbSearch({ kb }: { kb: KnowledgeBase }) {
  const { t } = useTranslation("settings");
  const client = useClient();
  const id = useId();
  const [query, setQuery] = useState("");
  const [hits, setHits] = useState<{ query: string; hits: KbHit[] } | null>(null);
  const search = useAction(async (q: string) => setHits({ query: q, hits: await client.kb.search(q, [kb.id]) }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (query.trim()) void search.run(query.trim());
  };
  return (
    <section className="group" data-testid="kb-search">
      <h4 className="group__title">{t("knowledgeBases.search.title")}</h4>
      <form className="websearch-test__row" onSubmit={submit} aria-busy={search.busy}>
        <input id={id} type="search" className="input" aria-label={t("knowledgeBases.search.query")} value={query} maxLength={400} onChange={(e) => setQuery(e.target.value)} data-testid="kb-search-input" />
        <button type="submit" className="btn btn--small" disabled={search.busy || !query.trim()} data-testid="kb-search-run">
          <Icon name="search" size={14} />
          {t("knowledgeBases.search.run")}
        </button>
      </form>
      {search.error && <ErrorView error={search.error} compact />}
      {hits && <KbHits query={hits.query} hits={hits.hits} />}
    </section>
  );
}

function KbHits({ query, hits }: { query: string; hits: KbHit[] }) {
  const { t } = useTranslation("settings");
  const { t: tc } = useTranslation("chat");
  const [viewing, setViewing] = useState<ViewedHit | null>(null);
  if (hits.length === 0) return <p role="status">{t("knowledgeBases.search.none")}</p>;
  return (
    <div role="status" data-testid="kb-search-results">
      <p className="muted">{t("knowledgeBases.search.found", { count: hits.length })}</p>
      <ol className="kb__hits">
        {hits.map((h) => {
          const pos = hitPosition(h);
          const via = (h.via ?? []).map((v) => t(`knowledgeBases.via.${v}`)).join(" + ");
          return (
            <li key={h.chunkId} className="kb__hit" data-testid="kb-hit">
              <p className="kb__hit-source">
                <strong>
                  <Visible text={h.file} />
                </strong>
                {pos.pages && <span className="muted"> · {t("knowledgeBases.page", { page: pos.pages })}</span>}
                {pos.lines && <span className="muted"> · {t("knowledgeBases.lines", { lines: pos.lines })}</span>}
                {h.heading && (
                  <span className="muted">
                    {" "}
                    · <Visible text={h.heading} />
                  </span>
                )}
                <span className="muted">
                  {" "}
                  · {t("knowledgeBases.search.via", { via })} · {t("knowledgeBases.search.score", { score: h.score.toFixed(3) })}
                </span>
              </p>
              <p className="kb__hit-snippet">
                <Highlighted text={h.snippet} query={query} />
              </p>
              <button type="button" className="btn btn--small btn--quiet" aria-label={tc("kb.openInFileLabel", { file: h.file })} onClick={() => setViewing(h)} data-testid="kb-hit-open">
                {tc("kb.openInFile")}
              </button>
            </li>
          );
        })}
      </ol>
      {viewing && <KbViewer hit={viewing} query={query} onClose={() => setViewing(null)} />}
    </div>
  );
}
