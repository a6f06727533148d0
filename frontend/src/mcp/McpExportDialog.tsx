import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { toAppError, useClient, type AppError, type McpExport } from "../api";
import { copyText } from "../components/clipboard";
import { Dialog } from "../components/Dialog";
import { useSaveText } from "../components/download";
import { useAppInfo } from "../shell/appInfo";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";

/** Export as `mcpServers` JSON to copy or download; secret values are withheld and listed. */
export function McpExportDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation("settings");
  const client = useClient();
  const [data, setData] = useState<McpExport | null>(null);
  const [error, setError] = useState<AppError | null>(null);
  const [copied, setCopied] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const saveText = useSaveText();
  const desktop = useAppInfo().info?.desktop === true;

  useEffect(() => {
    if (!open) return;
    let live = true;
    setData(null);
    setError(null);
    setCopied(false);
    setSaved(null);
    client.mcp.exportJSON().then(
      (d) => live && setData(d),
      (e: unknown) => live && setError(toAppError(e)),
    );
    return () => {
      live = false;
    };
  }, [open, client]);

  const withheld = data?.withheldSecrets ?? [];
  const save = async () => {
    if (!data) return;
    setError(null);
    try {
      const out = await saveText("mcp-servers.json", data.json, "application/json");
      setSaved(out.kind === "saved" ? out.file : null);
    } catch (e) {
      setError(toAppError(e));
    }
  };
  const copy = async () => {
    if (!data) return;
    const ok = await copyText(data.json);
    setCopied(ok);
  };

  return (
    <Dialog
      open={open}
      onClose={onClose}
      title={t("mcp.export.title")}
      size="wide"
      testId="mcp-export-dialog"
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            {t("common:actions.close")}
          </button>
          <button type="button" className="btn" onClick={() => void copy()} disabled={!data} data-testid="mcp-export-copy">
            <Icon name={copied ? "check" : "copy"} size={14} />
            {copied ? t("mcp.export.copied") : t("mcp.export.copy")}
          </button>
          <button
            type="button"
            className="btn btn--primary"
            disabled={!data}
            onClick={() => void save()}
            data-testid="mcp-export-download"
          >
            <Icon name="arrowDown" size={14} />
            {desktop ? t("mcp.export.save") : t("mcp.export.download")}
          </button>
        </>
      }
    >
      {error && <ErrorView error={error} />}
      {saved && (
        <p className="field__help" role="status" data-testid="mcp-export-saved">
          {t("mcp.export.saved", { path: saved })}
        </p>
      )}
      {!data && !error && (
        <p className="muted" role="status">
          {t("common:status.loading")}
        </p>
      )}
      {data && (
        <div className="mcp-export">
          {withheld.length > 0 ? (
            <div className="note note--warn" data-testid="mcp-export-withheld">
              <Icon name="key" />
              <div>
                <p className="note__title">{t("mcp.export.withheldTitle", { count: withheld.length })}</p>
                <p className="note__body">{t("mcp.export.withheldBody")}</p>
                <ul className="mcp-export__withheld">
                  {withheld.map((w) => (
                    <li key={w}>
                      <code>{w}</code>
                    </li>
                  ))}
                </ul>
              </div>
            </div>
          ) : (
            <p className="field__help" data-testid="mcp-export-no-secrets">
              {t("mcp.export.noSecrets")}
            </p>
          )}
          <pre className="mcp-export__json" data-testid="mcp-export-json" tabIndex={0}>
            {data.json}
          </pre>
        </div>
      )}
    </Dialog>
  );
}
