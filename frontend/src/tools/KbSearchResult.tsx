import { useState } from "react";
import { useTranslation } from "react-i18next";
import { hitPosition, type KbSearchDisplay } from "../api";
import { Highlighted } from "../knowledge/Highlighted";
import { KbViewer, type ViewedHit } from "../knowledge/KbViewer";
import { Visible } from "./visible";

/**
 * kb_search's result on its tool card: the knowledge bases searched (and whether they are
 * the conversation's attached ones), then each passage's source file, page or lines and
 * section, its snippet behind a disclosure, and a button that shows the passage where it
 * stands in its file (KbViewer).
 */
export function KbSearchResult({ display }: { display: KbSearchDisplay }) {
  const { t } = useTranslation("chat");
  const [viewing, setViewing] = useState<ViewedHit | null>(null);
  const kbs = display.kbs.join(", ");
  return (
    <div className="tool-card__section" data-testid="kb-search-result">
      <p className="tool-card__label" data-testid="kb-search-kbs">
        <Visible text={display.attached ? t("kb.searchedAttached", { kbs }) : t("kb.searched", { kbs })} />
      </p>
      {display.hits.length === 0 ? (
        <p className="muted">
          <Visible text={t("kb.noHits", { query: display.query })} />
        </p>
      ) : (
        <>
          <p className="muted">
            <Visible text={t("kb.hits", { count: display.hits.length, query: display.query })} />
          </p>
          <ol className="kb-card__hits">
            {display.hits.map((h) => {
              const pos = hitPosition(h);
              return (
                <li key={h.chunkId} data-testid="kb-card-hit">
                  <details>
                    <summary>
                      <strong>
                        <Visible text={h.file} />
                      </strong>
                      {pos.pages && <span className="muted"> · {t("kb.page", { page: pos.pages })}</span>}
                      {pos.lines && <span className="muted"> · {t("kb.lines", { lines: pos.lines })}</span>}
                      {h.heading && (
                        <span className="muted">
                          {" "}
                          · <Visible text={h.heading} />
                        </span>
                      )}
                      <span className="muted">
                        {" "}
                        · <Visible text={h.kb} />
                      </span>
                    </summary>
                    <p className="kb-card__snippet">
                      <Highlighted text={h.snippet} query={display.query} />
                    </p>
                  </details>
                  <button type="button" className="btn btn--small btn--quiet" aria-label={t("kb.openInFileLabel", { file: h.file })} onClick={() => setViewing(h)} data-testid="kb-card-open">
                    {t("kb.openInFile")}
                  </button>
                </li>
              );
            })}
          </ol>
        </>
      )}
      {viewing && <KbViewer hit={viewing} query={display.query} onClose={() => setViewing(null)} />}
    </div>
  );
}
