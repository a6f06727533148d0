import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { toAppError, useClient, useTopic, type AppError, type McpServerView } from "../api";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { McpExportDialog } from "./McpExportDialog";
import { McpImportDialog } from "./McpImportDialog";
import { McpServerCard } from "./McpServerCard";
import { McpServerForm } from "./McpServerForm";
import "./mcp.css";

/**
 * Settings → MCP servers (MCP-4): every configured server with its live status from topic
 * `mcp`, add / edit / enable / delete, per-tool switches, refresh / restart / test, the live
 * log, and import / export of the `mcpServers` JSON other clients use.
 */
export function McpSection() {
  const { t } = useTranslation("settings");
  const client = useClient();
  const { data, error } = useTopic(client.stores.mcp);
  const [editing, setEditing] = useState<string | null>(null); // "new" or a server id
  const [importing, setImporting] = useState(false);
  const [exporting, setExporting] = useState(false);
  const [removing, setRemoving] = useState<McpServerView | null>(null);
  const [removeError, setRemoveError] = useState<AppError | null>(null);
  const headingId = useId();

  const servers = data?.servers ?? [];

  const remove = async (s: McpServerView) => {
    setRemoving(null);
    setRemoveError(null);
    try {
      await client.mcp.remove(s.id);
      if (editing === s.id) setEditing(null);
    } catch (e) {
      setRemoveError(toAppError(e));
    }
  };

  return (
    <section className="group mcp" aria-labelledby={headingId} data-testid="mcp-section">
      <div className="group__header">
        <h3 id={headingId} className="group__title">
          {t("mcp.title")}
          {data && <span className="badge mcp__count">{servers.length}</span>}
        </h3>
        <div className="mcp__toolbar">
          <button type="button" className="btn btn--small" onClick={() => setImporting(true)} data-testid="mcp-import">
            <Icon name="arrowDown" size={14} />
            {t("mcp.import.open")}
          </button>
          <button
            type="button"
            className="btn btn--small"
            onClick={() => setExporting(true)}
            disabled={servers.length === 0}
            data-testid="mcp-export"
          >
            <Icon name="copy" size={14} />
            {t("mcp.export.open")}
          </button>
          <button
            type="button"
            className="btn btn--small btn--primary"
            onClick={() => setEditing((e) => (e === "new" ? null : "new"))}
            aria-expanded={editing === "new"}
            data-testid="mcp-add"
          >
            <Icon name="plus" size={14} />
            {t("mcp.add")}
          </button>
        </div>
      </div>
      <p className="group__description">{t("mcp.intro")}</p>

      {error && !data && <ErrorView error={error} onRetry={() => void client.stores.mcp.reload()} />}
      {removeError && <ErrorView error={removeError} compact />}

      {editing === "new" && (
        <div className="mcp-card mcp-card--editing">
          <h4 className="mcp-card__title">{t("mcp.form.newTitle")}</h4>
          <McpServerForm onDone={() => setEditing(null)} />
        </div>
      )}

      {data && servers.length === 0 && editing !== "new" && (
        <div className="empty-state mcp__empty" data-testid="mcp-empty">
          <Icon name="plug" size={24} />
          <p className="empty-state__title">{t("mcp.empty")}</p>
          <p className="empty-state__hint">{t("mcp.emptyHint")}</p>
        </div>
      )}

      <ul className="mcp-list">
        {servers.map((s) => (
          <li
            key={s.id}
            className="mcp-card"
            data-testid="mcp-server-item"
            data-server-id={s.id}
            data-server-name={s.name}
            data-state={s.status?.state}
          >
            {editing === s.id ? (
              <>
                <h4 className="mcp-card__title">{t("mcp.form.editTitle", { name: s.name })}</h4>
                <McpServerForm server={s} onDone={() => setEditing(null)} />
              </>
            ) : (
              <McpServerCard server={s} onEdit={() => setEditing(s.id)} onDelete={() => setRemoving(s)} />
            )}
          </li>
        ))}
      </ul>

      <McpImportDialog open={importing} onClose={() => setImporting(false)} />
      <McpExportDialog open={exporting} onClose={() => setExporting(false)} />
      <ConfirmDialog
        subject={removing}
        onCancel={() => setRemoving(null)}
        onConfirm={(server) => void remove(server)}
        title={t("mcp.deleteTitle", { name: removing?.name ?? "" })}
        description={t("mcp.deleteBody")}
        confirmLabel={t("mcp.delete")}
        testId="mcp-delete-dialog"
        confirmTestId="mcp-delete-confirm"
      />
    </section>
  );
}
