import { useTranslation } from "react-i18next";
import type { McpTestReport } from "../api";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { clockTime, serverInfoText } from "./model";

/** The outcome of "Test": connected or why not, what the server said, its tools and log. */
export function McpTestReportView({ report: r, onClose }: { report: McpTestReport; onClose?: () => void }) {
  const { t } = useTranslation("settings");
  const tools = r.tools ?? [];
  const log = r.log ?? [];
  const info = serverInfoText(r.serverInfo);
  return (
    <div className={`mcp-report ${r.ok ? "mcp-report--ok" : "mcp-report--bad"}`} data-testid="mcp-test-report" data-ok={r.ok ? "1" : "0"} role="status">
      <div className="mcp-report__head">
        <Icon name={r.ok ? "check" : "alert"} size={16} />
        <strong>{r.ok ? t("mcp.report.ok", { ms: r.durationMs }) : t("mcp.report.failed", { ms: r.durationMs })}</strong>
        <span className="spacer" />
        {onClose && (
          <button type="button" className="icon-btn icon-btn--small" aria-label={t("common:actions.close")} onClick={onClose}>
            <Icon name="x" size={14} />
          </button>
        )}
      </div>
      {!r.ok && r.error && <ErrorView error={r.error} compact />}
      <dl className="mcp-report__facts">
        {info && (
          <>
            <dt>{t("mcp.report.server")}</dt>
            <dd>{info}</dd>
          </>
        )}
        {r.transport && (
          <>
            <dt>{t("mcp.report.transport")}</dt>
            <dd>
              {t(`mcp.transport.${r.transport}`, { defaultValue: r.transport })}
              {r.fallbackStatus ? ` · ${t("mcp.facts.fallback", { status: r.fallbackStatus })}` : ""}
            </dd>
          </>
        )}
        {r.ok && (
          <>
            <dt>{t("mcp.report.tools", { count: tools.length })}</dt>
            <dd className="mcp-report__tools">
              {tools.length === 0 ? t("mcp.report.noTools") : tools.map((name) => <code key={name}>{name}</code>)}
            </dd>
          </>
        )}
      </dl>
      {log.length > 0 && (
        <details className="mcp-report__log">
          <summary>{t("mcp.report.log", { count: log.length })}</summary>
          <div className="mcp-log mcp-log--static">
            {log.map((l, i) => (
              <div key={i} className={`mcp-log__line mcp-log__line--${l.stream}`}>
                <span className="mcp-log__time">{clockTime(l.time)}</span>
                <span className="mcp-log__text">{l.text}</span>
              </div>
            ))}
          </div>
        </details>
      )}
    </div>
  );
}
