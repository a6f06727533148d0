import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { toAppError, useClient, type AppError, type McpApproval, type McpServerView, type McpToolInfo } from "../api";
import { ErrorView } from "../components/ErrorView";

/** A filter box appears when a server offers more tools than this. */
const FILTER_FROM = 8;

/**
 * A server's cached tools: offer each to the model or not, and whether it asks first
 * ("default" asks unless the server marks the tool read-only).
 */
export function McpToolsList({ server }: { server: McpServerView }) {
  const { t } = useTranslation("settings");
  const [query, setQuery] = useState("");
  const filterId = useId();
  const tools = server.tools ?? [];
  const q = query.trim().toLowerCase();
  const shown = q
    ? tools.filter((x) => [x.name, x.title, x.description].some((s) => (s ?? "").toLowerCase().includes(q)))
    : tools;

  if (tools.length === 0) {
    return (
      <p className="mcp-tools__empty muted" data-testid="mcp-tools-empty">
        {server.cachedAt ? t("mcp.tools.none") : t("mcp.tools.notWarmed")}
      </p>
    );
  }
  return (
    <div className="mcp-tools" data-testid="mcp-tools">
      {tools.length > FILTER_FROM && (
        <>
          <label htmlFor={filterId} className="visually-hidden">
            {t("mcp.tools.filter")}
          </label>
          <input
            id={filterId}
            className="input mcp-tools__filter"
            type="search"
            value={query}
            placeholder={t("mcp.tools.filter")}
            onChange={(e) => setQuery(e.target.value)}
          />
        </>
      )}
      <p className="field__help">{t("mcp.tools.help")}</p>
      <ul className="mcp-tools__list">
        {shown.map((tool) => (
          <ToolRow key={tool.name} serverId={server.id} tool={tool} />
        ))}
      </ul>
    </div>
  );
}

function ToolRow({ serverId, tool }: { serverId: string; tool: McpToolInfo }) {
  const { t } = useTranslation("settings");
  const client = useClient();
  const [error, setError] = useState<AppError | null>(null);
  const [busy, setBusy] = useState(false);
  const selectId = useId();

  const run = async (fn: () => Promise<unknown>) => {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      await fn();
    } catch (e) {
      setError(toAppError(e));
    } finally {
      setBusy(false);
    }
  };

  const defaultLabel = tool.readOnly ? t("mcp.tools.approval.defaultRuns") : t("mcp.tools.approval.defaultAsks");
  return (
    <li className={`mcp-tool${tool.enabled ? "" : " is-off"}`} data-testid="mcp-tool-row" data-tool={tool.name}>
      <input
        type="checkbox"
        role="switch"
        className="switch switch--small"
        checked={tool.enabled}
        aria-disabled={busy || undefined}
        aria-label={t("mcp.tools.enable", { name: tool.title || tool.name })}
        onChange={(e) => void run(() => client.mcp.setToolEnabled(serverId, tool.name, e.target.checked))}
        data-testid="mcp-tool-enabled"
      />
      <div className="mcp-tool__main">
        <div className="mcp-tool__head">
          <code className="mcp-tool__name">{tool.name}</code>
          {tool.title && tool.title !== tool.name && <span className="mcp-tool__title">{tool.title}</span>}
          {tool.readOnly && <span className="badge badge--ok">{t("tools.flags.readOnly")}</span>}
          {tool.readOnlyHint && !tool.readOnly && (
            <span className="badge" title={t("mcp.tools.hintNotTrustedHelp")} data-testid="mcp-tool-hint-untrusted">
              {t("mcp.tools.hintNotTrusted")}
            </span>
          )}
          {tool.destructive && <span className="badge badge--danger">{t("tools.flags.destructive")}</span>}
          <span
            className={`badge ${tool.needsApproval ? "badge--warn" : ""}`}
            data-testid="mcp-tool-in-force"
            data-needs-approval={tool.needsApproval ? "1" : "0"}
          >
            {tool.needsApproval ? t("mcp.tools.asks") : t("mcp.tools.runs")}
          </span>
        </div>
        {tool.description && <p className="mcp-tool__desc">{tool.description}</p>}
        {error && <ErrorView error={error} compact />}
      </div>
      <div className="mcp-tool__approval">
        <label htmlFor={selectId} className="visually-hidden">
          {t("mcp.tools.approval.label", { name: tool.name })}
        </label>
        <select
          id={selectId}
          className="input select mcp-tool__select"
          value={tool.approval ?? ""}
          aria-disabled={busy || undefined}
          onChange={(e) => void run(() => client.mcp.setToolApproval(serverId, tool.name, e.target.value as McpApproval))}
          data-testid="mcp-tool-approval"
        >
          <option value="">{defaultLabel}</option>
          <option value="ask">{t("mcp.tools.approval.ask")}</option>
          <option value="allow">{t("mcp.tools.approval.allow")}</option>
        </select>
      </div>
    </li>
  );
}
