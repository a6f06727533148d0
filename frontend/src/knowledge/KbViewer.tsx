import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { useClient, type KbFileView, type KbHit } from "../api";
import type { AppError } from "../api/types";
import { toAppError } from "../api/errors";
import { Dialog } from "../components/Dialog";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { useAction } from "../components/useAction";
import { useAppInfo } from "../shell/appInfo";
import { Visible } from "../tools/visible";
import { Highlighted } from "./Highlighted";

export type ViewedHit = Pick<KbHit, "fileId" | "file" | "chunkId">;

/**
 * The file a search hit came from, as a dialog: its passages in order (the chunks without
 * the overlap they repeat; a chunk that starts a section begins with its heading), the
 * hit's passage marked, its query words highlighted and
 * scrolled into view. A file added from disk gets an "Open file" button in the desktop
 * window, which opens it through the backend with the desktop's usual application.
 */
export function KbViewer({ hit, query, onClose }: { hit: ViewedHit; query: string; onClose: () => void }) {
  const { t } = useTranslation("chat");
  const client = useClient();
  const desktop = useAppInfo().info?.desktop === true;
  const [view, setView] = useState<KbFileView | null>(null);
  const [error, setError] = useState<AppError | null>(null);
  const target = useRef<HTMLElement>(null);
  const open = useAction(() => client.kb.openFile(hit.fileId));

  useEffect(() => {
    let live = true;
    client.kb.fileView(hit.fileId).then(
      (v) => live && setView(v),
      (e: unknown) => live && setError(toAppError(e)),
    );
    return () => {
      live = false;
    };
  }, [client, hit.fileId]);
  useEffect(() => {
    target.current?.scrollIntoView?.({ block: "center" });
  }, [view]);

  const footer = (
    <>
      {view?.onDisk && desktop && (
        <button type="button" className="btn" title={t("kb.viewer.openHelp")} disabled={open.busy} onClick={() => void open.run()} data-testid="kb-viewer-open">
          <Icon name="file" size={14} />
          {t("kb.viewer.open")}
        </button>
      )}
      <button type="button" className="btn btn--primary" onClick={onClose} data-testid="kb-viewer-close">
        {t("kb.viewer.close")}
      </button>
    </>
  );
  return (
    <Dialog open onClose={onClose} title={<Visible text={hit.file} />} description={t("kb.viewer.description")} footer={footer} size="wide" testId="kb-viewer">
      {error && <ErrorView error={error} compact />}
      {open.error && <ErrorView error={open.error} compact />}
      {!view && !error && <p role="status">{t("kb.viewer.loading")}</p>}
      {view && (
        <>
          {view.truncated && <p className="muted">{t("kb.viewer.truncated", { count: view.passages.length })}</p>}
          <div className="kb-viewer__text" tabIndex={0} role="document" aria-label={t("kb.viewer.textLabel", { file: hit.file })} data-testid="kb-viewer-text">
            {view.passages.map((p) => {
              const found = p.chunkId === hit.chunkId;
              return (
                <div key={p.chunkId} className="kb-viewer__passage" data-chunk={p.chunkId}>
                  {found ? (
                    <mark ref={target} className="kb-viewer__hit" aria-label={t("kb.viewer.hit")} data-testid="kb-viewer-hit">
                      <Highlighted text={p.text} query={query} />
                    </mark>
                  ) : (
                    <span>
                      <Visible text={p.text} />
                    </span>
                  )}
                </div>
              );
            })}
          </div>
        </>
      )}
    </Dialog>
  );
}
