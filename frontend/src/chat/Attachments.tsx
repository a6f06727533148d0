import { useCallback, useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { toAppError, useClient, type AppError, type Attachment, type AttachmentInput, type AttachmentPreview } from "../api";
import { Dialog } from "../components/Dialog";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { typeLabel, uploadAttachment } from "./attachments";
import "./attachments.css";

/** A byte count in the window's language (Intl's units: "1.2 MB", "1.2 兆字节"). */
export function useFormatSize(): (n: number) => string {
  const { i18n } = useTranslation();
  return useCallback(
    (n: number) => {
      const [value, unit] = n >= 1 << 20 ? [n / (1 << 20), "megabyte"] : n >= 1 << 10 ? [n / (1 << 10), "kilobyte"] : [n, "byte"];
      return new Intl.NumberFormat(i18n.language, { style: "unit", unit, unitDisplay: "short", maximumFractionDigits: unit === "byte" ? 0 : 1 }).format(value);
    },
    [i18n.language],
  );
}

/** A file in the composer: uploading, stored, or refused with its error. */
export interface DraftFile {
  key: number;
  name: string;
  size: number;
  attachment?: Attachment;
  error?: AppError;
}

/**
 * The files waiting in the composer. Each upload starts as the file arrives (picker, drop,
 * paste); a refused one keeps its error, is shown on its chip and is sent as left out, so
 * the message says what was not attached.
 */
export function useDraftFiles() {
  const client = useClient();
  const [files, setFiles] = useState<DraftFile[]>([]);
  const next = useRef(1);
  const add = useCallback(
    (list: Iterable<File>, nameOf: (f: File) => string = (f) => f.name) => {
      for (const file of list) {
        const key = next.current++;
        const name = nameOf(file);
        setFiles((fs) => [...fs, { key, name, size: file.size }]);
        uploadAttachment(client.chat, file, name).then(
          (attachment) => setFiles((fs) => fs.map((f) => (f.key === key ? { ...f, attachment } : f))),
          (e: unknown) => setFiles((fs) => fs.map((f) => (f.key === key ? { ...f, error: toAppError(e) } : f))),
        );
      }
    },
    [client],
  );
  // An attachment the backend produces itself (an MCP resource it reads): a chip while
  // it is read, then the stored attachment or its error, like an upload.
  const attach = useCallback((name: string, pending: Promise<Attachment>) => {
    const key = next.current++;
    setFiles((fs) => [...fs, { key, name, size: 0 }]);
    pending.then(
      (attachment) => setFiles((fs) => fs.map((f) => (f.key === key ? { ...f, name: attachment.name || name, size: attachment.size, attachment } : f))),
      (e: unknown) => setFiles((fs) => fs.map((f) => (f.key === key ? { ...f, error: toAppError(e) } : f))),
    );
  }, []);
  const remove = useCallback((key: number) => setFiles((fs) => fs.filter((f) => f.key !== key)), []);
  const clear = useCallback(() => setFiles([]), []);
  const uploading = files.some((f) => !f.attachment && !f.error);
  const inputs = (): AttachmentInput[] =>
    files.map((f) => (f.attachment ? { id: f.attachment.id, name: f.name, source: f.attachment.source } : { name: f.name, size: f.size, error: f.error }));
  return { files, add, attach, remove, clear, uploading, inputs };
}

export type DraftFiles = ReturnType<typeof useDraftFiles>;

/** The attach button: a file picker for any number of files and images. */
export function AttachButton({ onFiles, disabled }: { onFiles: (files: File[]) => void; disabled?: boolean }) {
  const { t } = useTranslation("chat");
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button
        type="button"
        className="icon-btn icon-btn--small"
        title={t("attach.button")}
        aria-label={t("attach.button")}
        disabled={disabled}
        onClick={() => input.current?.click()}
        data-testid="attach-button"
      >
        <Icon name="paperclip" size={16} />
      </button>
      <input
        ref={input}
        type="file"
        multiple
        hidden
        data-testid="attach-input"
        onChange={(e) => {
          const list = Array.from(e.currentTarget.files ?? []);
          e.currentTarget.value = "";
          if (list.length) onFiles(list);
        }}
      />
    </>
  );
}

/** A chip's icon: an MCP resource's plug, else the image or file it is. */
function chipIcon(a?: Attachment): "plug" | "image" | "file" {
  if (a?.source) return "plug";
  return a?.kind === "image" ? "image" : "file";
}

/** Where an MCP resource came from, for a chip's title and the preview. */
function useSourceText(): (a?: Attachment) => string | undefined {
  const { t } = useTranslation("chat");
  return (a) => (a?.source ? t("attach.source", { server: a.source.server, uri: a.source.uri }) : undefined);
}

/** The composer's chips: each file with its state; a refused one says why. */
export function DraftChips({ files, onRemove }: { files: DraftFile[]; onRemove: (key: number) => void }) {
  const { t } = useTranslation("chat");
  const size = useFormatSize();
  const sourceText = useSourceText();
  if (files.length === 0) return null;
  return (
    <ul className="attach-drafts" aria-label={t("attach.listLabel")} data-testid="attach-drafts">
      {files.map((f) => (
        <li
          key={f.key}
          className="attach-chip"
          data-state={f.error ? "error" : f.attachment ? "ready" : "uploading"}
          title={sourceText(f.attachment)}
          data-testid="attach-draft"
        >
          <Icon name={chipIcon(f.attachment)} size={14} />
          <span className="attach-chip__name">{f.name}</span>
          <span className="attach-chip__meta">
            {f.error
              ? t("attach.notAttached")
              : f.attachment
                ? [f.attachment.source?.server, size(f.attachment.size)].filter(Boolean).join(" · ")
                : t("attach.uploading")}
          </span>
          <button type="button" className="icon-btn icon-btn--small" aria-label={t("attach.remove", { name: f.name })} onClick={() => onRemove(f.key)}>
            <Icon name="x" size={12} />
          </button>
          {f.error ? (
            <div className="attach-chip__error">
              <ErrorView error={f.error} compact />
            </div>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

/**
 * A file on a sent message: name, size and type; a click opens the preview (the image
 * whole, or the document's text). A file that was left out says why instead.
 */
export function AttachmentChip({ attachment: a }: { attachment: Attachment }) {
  const { t } = useTranslation("chat");
  const size = useFormatSize();
  const [open, setOpen] = useState(false);
  const source = useSourceText()(a);
  const meta = [a.source?.server ?? "", typeLabel(a), size(a.size), a.kind === "document" && a.lines ? t("attach.lines", { count: a.lines }) : ""]
    .filter(Boolean)
    .join(" · ");
  if (a.error || !a.id) {
    return (
      <div className="attach-chip" data-state="error" data-testid="attachment-chip">
        <Icon name="file" size={14} />
        <span className="attach-chip__name">{a.name}</span>
        <span className="attach-chip__meta">{t("attach.notAttached")}</span>
        {a.error ? (
          <div className="attach-chip__error">
            <ErrorView error={a.error} compact />
          </div>
        ) : null}
      </div>
    );
  }
  return (
    <>
      <button
        type="button"
        className="attach-chip attach-chip--button"
        onClick={() => setOpen(true)}
        aria-label={t("attach.open", { name: a.name, meta })}
        title={source}
        data-testid="attachment-chip"
        data-source={a.source?.uri}
      >
        <Icon name={chipIcon(a)} size={14} />
        <span className="attach-chip__name">{a.name}</span>
        <span className="attach-chip__meta">{meta}</span>
        {a.kind === "document" && !a.inline ? <span className="attach-chip__badge">{t("attach.viaTools")}</span> : null}
      </button>
      {open ? <PreviewDialog attachment={a} meta={source ? `${meta} — ${source}` : meta} onClose={() => setOpen(false)} /> : null}
    </>
  );
}

function PreviewDialog({ attachment: a, meta, onClose }: { attachment: Attachment; meta: string; onClose: () => void }) {
  const { t } = useTranslation("chat");
  const client = useClient();
  const [state, setState] = useState<{ preview?: AttachmentPreview; error?: AppError } | null>(null);
  useEffect(() => {
    let live = true;
    client.chat.attachmentPreview(a.id ?? "").then(
      (preview) => live && setState({ preview }),
      (e: unknown) => live && setState({ error: toAppError(e) }),
    );
    return () => {
      live = false;
    };
  }, [client, a.id]);
  const p = state?.preview;
  return (
    <Dialog open onClose={onClose} title={a.name} description={meta} size="wide" testId="attachment-preview">
      {state === null ? <p className="attach-preview__loading">{t("attach.loading")}</p> : null}
      {state?.error ? <ErrorView error={state.error} /> : null}
      {p?.dataUrl ? <img className="attach-preview__image" src={p.dataUrl} alt={a.name} /> : null}
      {p && !p.dataUrl ? (
        <>
          <pre className="attach-preview__text" tabIndex={0} aria-label={t("attach.textLabel", { name: a.name })}>
            {p.text}
          </pre>
          {p.truncated ? <p className="attach-preview__note">{t("attach.truncated")}</p> : null}
        </>
      ) : null}
    </Dialog>
  );
}
