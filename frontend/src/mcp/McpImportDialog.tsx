import { useEffect, useId, useRef, useState, type ChangeEvent } from "react";
import { useTranslation } from "react-i18next";
import { toAppError, useClient, type AppError, type McpImportReport } from "../api";
import { Dialog } from "../components/Dialog";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";

/** Larger files are refused before they are read (an mcpServers file is a few KB). */
const MAX_FILE_BYTES = 1024 * 1024;

const SAMPLE = `{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/path/to/dir"]
    }
  }
}`;

/**
 * Import the `mcpServers` JSON other desktop clients use (also VS Code's `servers`), pasted
 * or from a file, and show per entry what was imported and why any entry was rejected.
 */
export function McpImportDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation("settings");
  const client = useClient();
  const [text, setText] = useState("");
  const [fileName, setFileName] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<AppError | null>(null);
  const [report, setReport] = useState<McpImportReport | null>(null);
  const textId = useId();
  const fileId = useId();
  const textRef = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    if (!open) return;
    setText("");
    setFileName("");
    setError(null);
    setReport(null);
  }, [open]);

  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const f = e.target.files?.[0];
    e.target.value = "";
    if (!f) return;
    setReport(null);
    setError(null);
    if (f.size > MAX_FILE_BYTES) {
      setError({ code: "mcp_import_invalid", i18nKey: "errors.mcp_import_invalid", params: { message: t("mcp.import.tooBig", { name: f.name }) }, message: `${f.name} is larger than 1 MB` });
      return;
    }
    try {
      setText(await readText(f));
      setFileName(f.name);
    } catch (x) {
      setError(toAppError(x));
    }
  };

  const submit = async () => {
    if (busy) return;
    setBusy(true);
    setError(null);
    setReport(null);
    try {
      setReport(await client.mcp.importJSON(text));
    } catch (e) {
      setError(toAppError(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open={open}
      onClose={onClose}
      title={t("mcp.import.title")}
      description={t("mcp.import.description")}
      size="wide"
      initialFocusRef={textRef}
      testId="mcp-import-dialog"
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            {report ? t("common:actions.close") : t("common:actions.cancel")}
          </button>
          <button type="button" className="btn btn--primary" onClick={() => void submit()} disabled={!text.trim()} aria-disabled={busy || undefined} data-testid="mcp-import-submit">
            {busy && <span className="spinner" aria-hidden="true" />}
            {t("mcp.import.submit")}
          </button>
        </>
      }
    >
      <div className="mcp-import">
        <div className="mcp-import__file">
          <label htmlFor={fileId} className="btn btn--small">
            <Icon name="file" size={14} />
            {t("mcp.import.chooseFile")}
          </label>
          <input
            id={fileId}
            className="visually-hidden"
            type="file"
            accept=".json,application/json"
            onChange={(e) => void onFile(e)}
            data-testid="mcp-import-file"
          />
          <span className="muted">{fileName ? t("mcp.import.loaded", { name: fileName }) : t("mcp.import.orPaste")}</span>
        </div>
        <label htmlFor={textId} className="field__label">
          {t("mcp.import.pasteLabel")}
        </label>
        <textarea
          id={textId}
          ref={textRef}
          className="input textarea mono mcp-import__text"
          rows={9}
          spellCheck={false}
          placeholder={SAMPLE}
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            setFileName("");
          }}
          data-testid="mcp-import-text"
        />
        <p className="field__help">{t("mcp.import.secretsNote")}</p>
        {error && <ErrorView error={error} compact />}
        {report && <ImportReportView report={report} />}
      </div>
    </Dialog>
  );
}

/** A file's text through FileReader (Blob.text is missing in older webviews). */
function readText(f: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result ?? ""));
    r.onerror = () => reject(r.error ?? new Error("the file could not be read"));
    r.readAsText(f);
  });
}

function ImportReportView({ report }: { report: McpImportReport }) {
  const { t } = useTranslation("settings");
  const entries = report.entries ?? [];
  return (
    <div className="mcp-import__report" data-testid="mcp-import-report" role="status">
      <p className="mcp-import__summary">
        {t("mcp.import.summary", {
          imported: report.imported,
          updated: report.updated,
          unchanged: report.unchanged,
          rejected: report.rejected,
        })}
      </p>
      {entries.length === 0 ? (
        <p className="muted">{t("mcp.import.noEntries")}</p>
      ) : (
        <ul className="mcp-import__entries">
          {entries.map((e, i) => (
            <li key={`${e.name}-${i}`} className="mcp-import__entry" data-testid="mcp-import-entry" data-status={e.status}>
              <span className={`badge ${e.status === "rejected" ? "badge--danger" : e.status === "unchanged" ? "" : "badge--ok"}`}>
                {t(`mcp.import.status.${e.status}`, { defaultValue: e.status })}
              </span>
              <span className="mcp-import__name">{e.name || t("mcp.import.unnamed")}</span>
              {e.status === "rejected" && (
                <div className="mcp-import__why">
                  {e.error ? <ErrorView error={e.error} compact /> : <span className="muted">{e.reason}</span>}
                </div>
              )}
              {e.status !== "rejected" && e.reason && <span className="muted"> · {e.reason}</span>}
              {e.status !== "rejected" && (e.warnings ?? []).length > 0 && (
                <div className="mcp-import__why" data-testid="mcp-import-warnings">
                  {e.warnings!.map((w, j) => (
                    <ErrorView key={j} error={w} compact />
                  ))}
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
