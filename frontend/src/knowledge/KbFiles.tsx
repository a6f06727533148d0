import { useVirtualizer } from "@tanstack/react-virtual";
import { useRef } from "react";
import { useTranslation } from "react-i18next";
import { useClient, type AppError, type KbFile, type KnowledgeBase } from "../api";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { useAction } from "../components/useAction";
import { Visible } from "../tools/visible";

/** The apperr a failed file carries, for ErrorView (its code's text names the file). */
export function fileError(f: KbFile, kb: KnowledgeBase): AppError {
  const code = f.errorCode || "kb_ingest_failed";
  return { code, i18nKey: `errors.${code}`, message: f.errorMessage ?? "", params: { name: f.name, model: kb.embedModel ?? "" } };
}

const RUNNING = new Set(["queued", "parsing", "embedding"]);

/** Above this many files the list renders only the rows in view (a 10,000-file folder). */
const VIRTUAL_FROM = 150;

/** The file list of a large base: a scrolling box that renders the rows in view. */
function VirtualFiles({ kb, files, run }: { kb: KnowledgeBase; files: KbFile[]; run: (fn: () => Promise<void>) => void }) {
  const box = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({
    count: files.length,
    getScrollElement: () => box.current,
    estimateSize: () => 36,
    overscan: 10,
    getItemKey: (i) => files[i]?.id ?? i,
  });
  return (
    <div ref={box} className="kb__files-scroll" data-testid="kb-files-virtual">
      <ul className="kb__files" style={{ height: v.getTotalSize(), position: "relative" }}>
        {v.getVirtualItems().map((item) => (
          <FileRow key={item.key} kb={kb} file={files[item.index]!} run={run} row={{ index: item.index, start: item.start, measure: v.measureElement }} />
        ))}
      </ul>
    </div>
  );
}

/** Each file with its state, a progress bar while it is embedded, its error and a retry. */
export function KbFiles({ kb, files }: { kb: KnowledgeBase; files: KbFile[] }) {
  const { t } = useTranslation("settings");
  const client = useClient();
  const act = useAction((fn: () => Promise<void>) => fn());
  const busy = files.some((f) => RUNNING.has(f.state));
  const paused = files.some((f) => f.state === "paused");
  return (
    <section className="group" data-testid="kb-files">
      <div className="group__header">
        <h4 className="group__title">{t("knowledgeBases.files.title")}</h4>
        <span className="spacer" />
        {busy && (
          <button type="button" className="btn btn--quiet btn--small" onClick={() => void act.run(() => client.kb.pause(kb.id))}>
            {t("knowledgeBases.files.pauseAll")}
          </button>
        )}
        {paused && (
          <button type="button" className="btn btn--quiet btn--small" onClick={() => void act.run(() => client.kb.resume(kb.id))}>
            {t("knowledgeBases.files.resumeAll")}
          </button>
        )}
        {files.length > 0 && (
          <button type="button" className="btn btn--quiet btn--small" onClick={() => void act.run(() => client.kb.reindex(kb.id))}>
            <Icon name="refresh" size={14} />
            {t("knowledgeBases.files.reindex")}
          </button>
        )}
      </div>
      {act.error && <ErrorView error={act.error} compact />}
      {files.length === 0 && <p className="muted">{t("knowledgeBases.files.none")}</p>}
      {files.length > VIRTUAL_FROM ? (
        <VirtualFiles kb={kb} files={files} run={(fn) => void act.run(fn)} />
      ) : (
        <ul className="kb__files">
          {files.map((f) => (
            <FileRow key={f.id} kb={kb} file={f} run={(fn) => void act.run(fn)} />
          ))}
        </ul>
      )}
    </section>
  );
}

/** Where a row of the virtual list sits, and how it reports its height. */
interface RowPlace {
  index: number;
  start: number;
  measure: (el: Element | null) => void;
}

function FileRow({ kb, file: f, run, row }: { kb: KnowledgeBase; file: KbFile; run: (fn: () => Promise<void>) => void; row?: RowPlace }) {
  const { t } = useTranslation("settings");
  const client = useClient();
  const embedding = f.state === "embedding" && f.chunks > 0;
  return (
    <li
      className={row ? "kb__file kb__files-row" : "kb__file"}
      data-testid="kb-file"
      data-name={f.name}
      data-state={f.state}
      data-index={row?.index}
      ref={row?.measure}
      style={row ? { transform: `translateY(${row.start}px)` } : undefined}
    >
      <div className="kb__file-row">
        <Icon name="file" size={14} />
        <span className="kb__file-name">
          <Visible text={f.name} />
        </span>
        <span className={`badge kb__state kb__state--${f.state}`} data-testid="kb-file-state">
          {t(`knowledgeBases.files.state.${f.state}`)}
        </span>
        {f.chunks > 0 && <span className="muted">{t("knowledgeBases.files.chunks", { count: f.chunks })}</span>}
        <span className="spacer" />
        {RUNNING.has(f.state) && (
          <button type="button" className="btn btn--quiet btn--small" onClick={() => run(() => client.kb.cancel(f.id))}>
            {t("knowledgeBases.files.cancel")}
          </button>
        )}
        {f.state === "paused" && (
          <button type="button" className="btn btn--quiet btn--small" onClick={() => run(() => client.kb.resume(kb.id, f.id))}>
            {t("knowledgeBases.files.resumeAll")}
          </button>
        )}
        <button type="button" className="icon-btn icon-btn--small" aria-label={t("knowledgeBases.files.remove")} onClick={() => run(() => client.kb.removeFile(f.id))}>
          <Icon name="trash" size={14} />
        </button>
      </div>
      {embedding && (
        <div className="kb__file-progress">
          <progress max={f.chunks} value={f.embedded} />
          <span className="muted">{t("knowledgeBases.files.embedded", { done: f.embedded, total: f.chunks })}</span>
        </div>
      )}
      {f.state === "error" && <ErrorView error={fileError(f, kb)} compact onRetry={() => run(() => client.kb.retry(f.id))} />}
    </li>
  );
}
